"""cdc_run_history on the shared stream: one row per load and source, its counts equal to
what bronze holds and the newest run's to what the quarantine holds after every step
(workbench.run_history_check: a later load can settle an earlier quarantine), its lag
equal to the change log's, and the lag test warning past its var only.

It registers no part: it reads the whole built stream (tests/e2e/stream.py).
"""

from __future__ import annotations

import pytest

from tests.conftest import DbtProject
from workbench.run_history_check import run_history_differences

pytestmark = pytest.mark.spark


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


def _differences(project: DbtProject) -> list[str]:
    return run_history_differences(project.sql, project.layer("bronze"), project.layer("silver"))


def _runs(project: DbtProject) -> int:
    """The builds the history summarised (a build's bronze may write several loads)."""
    [row] = project.sql(
        f"select count(distinct _load_id) as n from {project.layer('silver')}.cdc_run_history"
    )
    return int(row["n"])


@pytest.mark.stream("batch0")
def test_the_first_load_is_summarised(dbt_project: DbtProject) -> None:
    found = _differences(dbt_project)
    assert not found, "\n".join(found[:40])
    assert _runs(dbt_project) == 1


@pytest.mark.stream("batch1")
def test_each_run_appends_its_loads(dbt_project: DbtProject) -> None:
    found = _differences(dbt_project)
    assert not found, "\n".join(found[:40])
    assert _runs(dbt_project) == 2


@pytest.mark.stream("noop")
def test_the_lag_is_the_change_logs_and_its_test_warns_past_the_var(
    dbt_project: DbtProject,
) -> None:
    silver = dbt_project.layer("silver")
    [busiest] = dbt_project.sql(
        f"select max_by(source_name, row_changes) as name from {silver}.cdc_run_history"
    )
    source = str(busiest["name"])
    [lag] = dbt_project.sql(
        "select max((unix_micros(_loaded_at) - unix_micros(_cdc_source_ts)) / 1e6) as lag_max, "
        f"count(*) as changes from {silver}.int_cdc__change_log where _cdc_source_id = '{source}'"
    )
    [history] = dbt_project.sql(
        "select max(lag_max_seconds) as lag_max, sum(row_changes) as changes "
        f"from {silver}.cdc_run_history where source_name = '{source}'"
    )
    assert history == lag, source
    lags = [
        float(row["lag_p95_seconds"])
        for row in dbt_project.sql(
            f"select lag_p95_seconds from {silver}.cdc_run_history "
            "where lag_p95_seconds is not null"
        )
    ]
    over = sum(lag > min(lags) for lag in lags)
    assert 0 < over < len(lags), lags
    for limit, status in ((min(lags), "warn"), (max(lags), "pass"), (None, "pass")):
        result = dbt_project.run(
            "test", "--select", "cdc_run_history,test_name:cdc_source_lag",
            vars={"cdc_max_lag_seconds": limit},
        )  # fmt: skip
        [outcome] = [r for r in result.result.results if r.node.resource_type == "test"]
        assert str(getattr(outcome.status, "value", outcome.status)) == status, limit
        if status == "warn":
            assert outcome.failures == over

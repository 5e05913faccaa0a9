"""End to end: tables without a primary key are multisets in `captured_rows`.

Three simulated Debezium sources (Oracle, SQL Server, Db2; workbench.simulator.keyless)
capture a keyless table whose rows repeat: no Kafka key, no contract, no schema-change
topic. Updates change one copy of a row, deletes remove one copy, the Oracle source
truncates the table at the start of its second batch. Deliveries are shuffled and
replayed (value-only files with `.replay.json` copies, and kcat records replayed with their
offsets). After each batch, `captured_rows` must hold each distinct row exactly as many
times as the simulated table holds it (the simulator keeps the table as a list of rows),
and a `--full-refresh` must give the same rows as the incremental runs.

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `keyless/` of the stream's landing folder; the late replay is the stream's
`replay` step.
"""

from __future__ import annotations

import functools
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import Part, register
from workbench.simulator.keyless import (
    AUDIT_LOG,
    KeylessSimConfig,
    KeylessSimulation,
    simulate_keyless,
)

pytestmark = pytest.mark.spark

# (source, landing format, shuffled): kcat records give each message's offset, so their
# order within a file can be shuffled; a value-only sink file's name gives the offset of
# its first line, so its lines stay in offset order, as a Kafka Connect sink writes them.
_SOURCES = [
    (
        KeylessSimConfig(flavour="oracle", database="KLORA", server="kl_ora", truncate_batch=2),
        "value_lines",
        False,
    ),
    (
        KeylessSimConfig(flavour="sqlserver", database="klmss", server="kl_mss", seed=8),
        "kcat",
        True,
    ),
    (
        KeylessSimConfig(
            flavour="db2", database="KLDB2", server="kl_db2", seed=9, schemas_enable=True
        ),
        "value_lines",
        False,
    ),
]


@functools.cache
def _simulations(out: Path) -> list[tuple[KeylessSimulation, Path]]:
    """(simulation, folder under `out` holding its batch-<n> folders) per source."""
    results = []
    for config, fmt, shuffle in _SOURCES:
        folder = out / config.server
        result = simulate_keyless(config, folder, fmt=fmt, shuffle=shuffle, duplicate_fraction=0.15)
        # guards: the workload has what this test is about
        for state in result.expected:
            assert any(n > 1 for n in state.values()), f"{result.source_id}: no duplicate rows"
        assert list(folder.rglob("*replay*")) or fmt == "kcat", "no replayed file"
        results.append((result, folder))
    return results


def _sources_folder(landing: Path) -> Path:
    """Where the simulations write their files: beside the stream's landing folder."""
    return landing.parent / "keyless_sources"


@pytest.fixture(scope="session")
def simulations(stream) -> list[tuple[KeylessSimulation, Path]]:  # type: ignore[no-untyped-def]
    return _simulations(_sources_folder(stream.project.landing))


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


# stream step -> (simulated batch folder, the name it lands under)
_LANDED = {
    "batch0": ("batch-1", "batch-1"),
    "batch1": ("batch-2", "batch-2"),
    # the first batch's files again under new names (a replayed backfill)
    "replay": ("batch-1", "replayed-batch-1"),
}


def _land(step: str, landing: Path) -> None:
    if step in _LANDED:
        batch, name = _LANDED[step]
        for result, folder in _simulations(_sources_folder(landing.parent)):
            shutil.copytree(folder / batch, landing / result.config.server / name)


def _all_gold(dbt_project) -> dict[str, Counter[tuple[object, ...]]]:  # type: ignore[no-untyped-def]
    sources = _simulations(_sources_folder(dbt_project.landing))
    return {r.source_id: _gold(dbt_project, r.source_id) for r, _ in sources}


register(
    Part(
        "keyless",
        land=_land,
        databases=tuple(config.database for config, *_ in _SOURCES),
        before={"full_refresh": _all_gold},
    )
)


def _gold(dbt_project, source_id: str) -> Counter[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select _cdc_key, _cdc_row_json from {dbt_project.layer('gold')}.captured_rows "
        f"where _cdc_source_id = '{source_id}'"
    )
    keys = [row["_cdc_key"] for row in rows]
    assert len(set(keys)) == len(keys), f"{source_id}: a _cdc_key twice"
    state: Counter[tuple[object, ...]] = Counter()
    for row in rows:
        image = {k.lower(): v for k, v in json.loads(str(row["_cdc_row_json"])).items()}
        state[tuple(image[c] for c in AUDIT_LOG.column_names)] += 1
    return state


def _assert_gold_equals_sources(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    failures = []
    for result, _ in simulations:
        actual = _gold(dbt_project, result.source_id)
        wanted = result.expected[batch - 1]
        if actual != wanted:
            failures.append(
                f"{result.source_id} after batch {batch}: missing {dict(wanted - actual)}, "
                f"extra {dict(actual - wanted)}"
            )
    assert not failures, "\n".join(failures)


@pytest.mark.stream("batch0")
def test_first_batch_counts_every_copy(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_equals_sources(dbt_project, simulations, 1)


@pytest.mark.stream("batch1")
def test_second_batch_retires_one_copy_per_change(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_equals_sources(dbt_project, simulations, 2)


@pytest.mark.stream("replay")
def test_a_late_replay_of_the_first_batch_changes_nothing(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """The first batch's files land again under new names (a replayed backfill): every
    change in them was counted already."""
    [replayed] = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        "where _source_file like '%/replayed-batch-1/%'"
    )
    assert replayed["n"] > 0, "the replayed files were loaded"
    _assert_gold_equals_sources(dbt_project, simulations, 2)


@pytest.mark.stream("full_refresh")
def test_full_refresh_gives_what_the_incremental_runs_gave(
    dbt_project, simulations, stream
) -> None:  # type: ignore[no-untyped-def]
    assert _all_gold(dbt_project) == stream.before("keyless", "full_refresh")
    _assert_gold_equals_sources(dbt_project, simulations, 2)

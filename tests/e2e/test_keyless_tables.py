"""End to end: tables without a primary key are multisets in `captured_rows`.

Three simulated Debezium sources (Oracle, SQL Server, Db2; cdc_tools.simulator.keyless)
capture a keyless table whose rows repeat: no Kafka key, no contract, no schema-change
topic. Updates change one copy of a row, deletes remove one copy, the Oracle source
truncates the table at the start of its second batch. Deliveries are shuffled and
replayed (value-only files with `.replay.json` copies, and kcat records replayed with their
offsets). After each batch, `captured_rows` must hold each distinct row exactly as many
times as the simulated table holds it (the simulator keeps the table as a list of rows),
and a `--full-refresh` must give the same rows as the incremental runs.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from cdc_tools.simulator.keyless import (
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


@pytest.fixture(scope="module")
def simulations(tmp_path_factory) -> list[tuple[KeylessSimulation, Path]]:  # type: ignore[no-untyped-def]
    """(simulation, folder holding its batch-<n> folders) per source."""
    out = tmp_path_factory.mktemp("keyless_sources")
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


def _land(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    for result, folder in simulations:
        shutil.copytree(
            folder / f"batch-{batch}", dbt_project.landing / result.config.server / f"batch-{batch}"
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


def test_first_batch_counts_every_copy(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _land(dbt_project, simulations, 1)
    dbt_project.run("build")
    _assert_gold_equals_sources(dbt_project, simulations, 1)


def test_second_batch_retires_one_copy_per_change(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _land(dbt_project, simulations, 2)
    dbt_project.run("build")
    _assert_gold_equals_sources(dbt_project, simulations, 2)


def test_a_late_replay_of_the_first_batch_changes_nothing(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """The first batch's files land again under new names (a replayed backfill): every
    change in them was counted already."""
    for result, folder in simulations:
        shutil.copytree(
            folder / "batch-1", dbt_project.landing / result.config.server / "replayed-batch-1"
        )
    dbt_project.run("build")
    _assert_gold_equals_sources(dbt_project, simulations, 2)


def test_full_refresh_gives_what_the_incremental_runs_gave(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    before = {r.source_id: _gold(dbt_project, r.source_id) for r, _ in simulations}
    dbt_project.run("build", "--full-refresh")
    after = {r.source_id: _gold(dbt_project, r.source_id) for r, _ in simulations}
    assert after == before
    _assert_gold_equals_sources(dbt_project, simulations, 2)

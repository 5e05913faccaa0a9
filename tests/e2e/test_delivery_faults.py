"""Gold stays equal to the source under at-least-once, out-of-order delivery.

Six simulated source databases (three connectors, both wrapper modes, different seeds,
decimals sent as doubles or strings, Kafka Connect temporal types where the schema is on)
have all their messages shuffled across three deliveries, each loaded by its own
incremental `dbt build`: newer changes often land before older ones (late events), 10 % of
each delivery is duplicated within it, and a fifth of the first delivery is replayed in the
last one, as after a connector restart. Three of the sources also run incremental
snapshots (their reads shuffled among the streamed changes like everything else), two
with transaction metadata and the schema-change topic, two with a column added and one
dropped mid-stream, `source.snapshot` as strings or booleans. Only the final state is
defined, and it must equal the source database; a full refresh must then give the same
gold tables. The second delivery goes to the gold delta partitions (merge on read), the
third folds them into the buckets (compaction), so both write paths meet late events and
duplicates.

The sources are this module's part of the shared stream (tests/e2e/stream.py): the three
deliveries are its steps `batch0`, `batch1` (gold keeps them in the delta partitions) and
`replay` (compaction), landed under `deliveries/` beside the other parts' files.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from cdc_tools.oracle_check import GoldReader, compare_database
from cdc_tools.simulator import SimConfig, SimResult, simulate, write_batch
from cdc_tools.simulator.debezium import Message
from tests.conftest import DbtProject
from tests.e2e.stream import Part, gold_rows_of, owned_by, register, stream_databases

pytestmark = pytest.mark.spark

_EVENTS: dict[str, object] = {"transaction_metadata": True, "schema_change_topic": True}
# (flavour, schemas_enable, landing format, seed, SimConfig options: value encodings and
# event kinds)
SOURCES: list[tuple[str, bool, str, int, dict[str, object]]] = [
    ("oracle", True, "kcat", 11, {
        "decimal_handling_mode": "double", "time_precision_mode": "connect",
        **_EVENTS, "snapshot_style": "boolean", "incremental_snapshot_batches": (0, 1, 2),
    }),
    ("oracle", False, "value_lines", 12, {
        "decimal_handling_mode": "string", "time_precision_mode": "adaptive",
    }),
    ("sqlserver", True, "value_lines", 13, {
        "decimal_handling_mode": "string", "time_precision_mode": "connect",
        **_EVENTS, "snapshot_style": "string", "incremental_snapshot_batches": (1,),
        "evolve_batch": 1,
    }),
    ("sqlserver", False, "kcat", 14, {
        "decimal_handling_mode": "double", "time_precision_mode": "adaptive",
    }),
    ("db2", True, "kcat", 15, {
        "decimal_handling_mode": "double", "time_precision_mode": "connect",
    }),
    ("db2", False, "value_lines", 16, {
        "decimal_handling_mode": "string", "time_precision_mode": "adaptive",
        "transaction_metadata": False, "incremental_snapshot_batches": (0, 2),
        "evolve_batch": 2,
    }),
]  # fmt: skip
DELIVERIES = 3
# The stream step that loads each delivery (the stream sets the gold compaction ratio:
# `batch1` keeps every change in the delta partitions, `replay` compacts).
DELIVERY_STEPS = ("batch0", "batch1", "replay")
GOLD_TABLES = ("customers", "orders", "order_lines", "captured_rows")
PART = "deliveries"


def _database(index: int, flavour: str) -> str:
    return f"LATE{index}_{flavour.upper()}"


@functools.cache
def _deliveries() -> list[tuple[SimResult, str, int, list[list[Message]]]]:
    """Per source: its simulation, landing format, seed and delivery plan (the chunks)."""
    plans = []
    for index, (flavour, wrapped, fmt, seed, options) in enumerate(SOURCES):
        result = simulate(
            SimConfig(
                seed=seed,
                flavour=flavour,
                database=_database(index, flavour),
                server=f"late{index}",
                schemas_enable=wrapped,
                batches=3,
                transactions=40,
                truncate_probability=0.05,
                pk_change_probability=0.1,
                **options,  # type: ignore[arg-type]
            )
        )
        rng = random.Random(seed)
        messages = list(result.messages)
        rng.shuffle(messages)
        cuts = sorted(rng.sample(range(1, len(messages)), DELIVERIES - 1))
        chunks = [messages[a:b] for a, b in zip([0, *cuts], [*cuts, len(messages)], strict=True)]
        chunks[-1] = chunks[-1] + rng.sample(chunks[0], len(chunks[0]) // 5)
        plans.append((result, fmt, seed, chunks))
    return plans


@pytest.fixture(scope="session")
def deliveries():  # type: ignore[no-untyped-def]
    return _deliveries()


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


def _deliver(step: str, folder: Path) -> None:
    if step not in DELIVERY_STEPS:
        return
    number = DELIVERY_STEPS.index(step)
    for result, fmt, seed, chunks in _deliveries():
        write_batch(
            chunks[number],
            folder / result.config.database,
            number,
            fmt,
            shuffle=True,
            duplicate_fraction=0.1,
            seed=seed,
        )


register(
    Part(
        PART,
        land=_deliver,
        databases=tuple(_database(i, flavour) for i, (flavour, *_) in enumerate(SOURCES)),
        before={"full_refresh": lambda p: gold_rows_of(p, PART, GOLD_TABLES)},
    )
)


def _differences(dbt_project, deliveries) -> list[str]:  # type: ignore[no-untyped-def]
    problems = []
    reader = GoldReader(dbt_project.spark)
    for result, *_ in deliveries:
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[-1],
            result=result,
            batch=-1,
            databases=stream_databases(),
            reader=reader,
        )
        problems += [f"{result.config.database}: {d}" for d in outcome.differences]
    return problems


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_shuffled_duplicated_and_late_deliveries_converge_to_the_source(
    dbt_project, deliveries
) -> None:  # type: ignore[no-untyped-def]
    assert len(DELIVERY_STEPS) == DELIVERIES
    problems = _differences(dbt_project, deliveries)
    assert not problems, "\n".join(problems[:30])


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_the_faults_really_happened(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    """Guard against a test that cannot fail: late events and duplicates were loaded."""
    silver = dbt_project.layer("silver")
    [row] = dbt_project.sql(
        f"select count(*) - count(distinct _cdc_source_id, _cdc_sort_key) as duplicates "
        f"from {silver}.int_cdc__change_log where _kafka_offset is not null and {owned_by(PART)}"
    )
    assert row["duplicates"] > 0
    late = dbt_project.sql(
        f"""
        select count(*) as late
        from {silver}.int_cdc__change_log as newer
        inner join {silver}.int_cdc__change_log as older
            on newer._cdc_source_id = older._cdc_source_id
            and newer._cdc_key = older._cdc_key
            and newer._cdc_position > older._cdc_position
            and newer._loaded_at < older._loaded_at
        where {owned_by(PART, "newer._cdc_source_db")}
        """
    )
    assert late[0]["late"] > 0


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_both_gold_write_paths_ran(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    """Guard: every gold table took a delta run and a compaction run."""
    gold = dbt_project.layer("gold")
    for table in GOLD_TABLES:
        kinds = {
            r["kind"]
            for r in dbt_project.sql(
                f"select distinct kind from {gold}.{table}__cdc_runs where status = 'applied'"
            )
        }
        assert {"full", "delta", "compaction"} <= kinds, (table, kinds)


@pytest.mark.stream("full_refresh")
def test_full_refresh_equals_the_incremental_result(dbt_project, deliveries, stream) -> None:  # type: ignore[no-untyped-def]
    assert gold_rows_of(dbt_project, PART, GOLD_TABLES) == stream.before(PART, "full_refresh")
    assert not _differences(dbt_project, deliveries)

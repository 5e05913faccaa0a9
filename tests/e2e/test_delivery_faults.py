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
"""

from __future__ import annotations

import random

import pytest

from cdc_tools.oracle_check import compare_database
from cdc_tools.simulator import SimConfig, simulate, write_batch

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
# Per delivery: the gold compaction ratio (a large one keeps every batch in the delta).
COMPACTION_RATIO = (0.1, 100.0, 0.1)
GOLD_TABLES = ("customers", "orders", "order_lines", "captured_rows")


@pytest.fixture(scope="module")
def deliveries(dbt_project):  # type: ignore[no-untyped-def]
    """Write nothing yet; return per-source results and their delivery plans."""
    plans = []
    for index, (flavour, wrapped, fmt, seed, options) in enumerate(SOURCES):
        result = simulate(
            SimConfig(
                seed=seed,
                flavour=flavour,
                database=f"LATE{index}_{flavour.upper()}",
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


def _deliver(dbt_project, deliveries, number: int) -> None:  # type: ignore[no-untyped-def]
    for result, fmt, seed, chunks in deliveries:
        write_batch(
            chunks[number],
            dbt_project.landing / result.config.database,
            number,
            fmt,
            shuffle=True,
            duplicate_fraction=0.1,
            seed=seed,
        )
    dbt_project.run("build", vars={"cdc_compaction_ratio": COMPACTION_RATIO[number]})


def _differences(dbt_project, deliveries) -> list[str]:  # type: ignore[no-untyped-def]
    problems = []
    for result, *_ in deliveries:
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[-1],
            result=result,
            batch=-1,
            databases=[r.config.database for r, *_ in deliveries],
        )
        problems += [f"{result.config.database}: {d}" for d in outcome.differences]
    return problems


def test_shuffled_duplicated_and_late_deliveries_converge_to_the_source(
    dbt_project, deliveries
) -> None:  # type: ignore[no-untyped-def]
    for number in range(DELIVERIES):
        _deliver(dbt_project, deliveries, number)
    problems = _differences(dbt_project, deliveries)
    assert not problems, "\n".join(problems[:30])


def test_the_faults_really_happened(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    """Guard against a test that cannot fail: late events and duplicates were loaded."""
    silver = dbt_project.layer("silver")
    [row] = dbt_project.sql(
        f"select count(*) - count(distinct _cdc_source_id, _cdc_sort_key) as duplicates "
        f"from {silver}.int_cdc__change_log where _kafka_offset is not null"
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
        """
    )
    assert late[0]["late"] > 0


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


def test_full_refresh_equals_the_incremental_result(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    gold = dbt_project.layer("gold")
    tables = GOLD_TABLES
    query = "select * except (_loaded_at) from {}.{} order by all"
    before = {t: dbt_project.sql(query.format(gold, t)) for t in tables}
    dbt_project.run("build", "--full-refresh")
    after = {t: dbt_project.sql(query.format(gold, t)) for t in tables}
    assert after == before
    assert not _differences(dbt_project, deliveries)

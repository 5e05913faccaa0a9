"""End to end: Debezium and Canal sources whose messages carry no source position are
ordered by arrival, across partitions, redelivery and incremental runs.

Three simulated sources (workbench.simulator.position_free) write as producers without a
source position do, over three Kafka partitions each, as kcat `-J` records whose order
across partitions is random, a tenth of them delivered again at their own offsets:

* a SQL Server database (schema wrapper on) whose `source` holds only db, schema and table,
  with no Kafka key: its keys are the contracts' declared ones;
* a Db2 database written as Flink SQL's debezium-json writes (`before`, `after`, `op`
  only): its tables are known from their topics, through the var `cdc_topic_tables`, and
  its connector (whose encodings its schemaless values use) from `cdc_connector_overrides`:
  a connector named without a position in the message is ordered by arrival too;
* a Canal database written as Flink CDC's canal-json writes (no `isDdl`, `es`, `ts` or
  `id`; no DDL messages), partitioned by table.

The workloads have updates, deletes and primary-key changes (no truncate: none of these
producers writes one). After each batch and after a `--full-refresh`, gold must equal the
source database (compare_database for the Debezium sources: typed gold, metadata and
`captured_rows`; the Canal source's `captured_rows` against the simulator's oracle), every
change's position must be its arrival, and nothing may be quarantined.

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `position_free/` of the stream's landing folder, and every count is scoped to
them.
"""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import typed
from tests.e2e.stream import BATCHES, Part, register, stream_databases
from workbench.oracle_check import GoldReader, compare_database
from workbench.simulator import SimConfig, SimResult, simulate, write_batch
from workbench.simulator.alibaba_sim import AlibabaSimResult, simulate_canal
from workbench.simulator.alibaba_source import AlibabaSimConfig
from workbench.simulator.debezium import Message
from workbench.simulator.position_free import deliver

pytestmark = pytest.mark.spark

PART = "position_free"
_NO_TRUNCATE: dict[str, object] = {
    "batches": 2,
    "transactions": 40,
    "truncate_probability": 0.0,
    "tombstones": False,
    "transaction_metadata": False,
    "pk_change_probability": 0.15,
}
DEBEZIUM = (
    (SimConfig(seed=301, flavour="sqlserver", database="PF_MSS", server="pf_mss",
               schemas_enable=True, **_NO_TRUNCATE), "names_only"),  # type: ignore[arg-type]
    (SimConfig(seed=302, flavour="db2", database="PF_DB2", server="pf_db2",
               **_NO_TRUNCATE), "no_source"),  # type: ignore[arg-type]
)  # fmt: skip
CANAL = AlibabaSimConfig(
    seed=303, database="pf_canal", batches=2, transactions=25, truncate_probability=0.0,
    pk_change_probability=0.2,
)  # fmt: skip
DATABASES = (*(config.database for config, _ in DEBEZIUM), CANAL.database)


@functools.cache
def _debezium() -> list[tuple[SimResult, str]]:
    return [(simulate(config), producer) for config, producer in DEBEZIUM]


@functools.cache
def _canal() -> AlibabaSimResult:
    return simulate_canal(CANAL)


def _deliveries(messages_per_batch: list[list[Message]], producer: str) -> list[list[Message]]:
    offsets: dict[tuple[str, int], int] = {}
    return [
        deliver(messages, producer, start_offsets=offsets, seed=batch)
        for batch, messages in enumerate(messages_per_batch)
    ]


@functools.cache
def _delivered() -> dict[str, list[list[Message]]]:
    """{database: the records landed at each batch}."""
    delivered = {
        result.config.database: _deliveries(result.batches, producer)
        for result, producer in _debezium()
    }
    delivered[CANAL.database] = _deliveries(_canal().batches, "canal_flink_cdc")
    return delivered


def _topic_tables() -> dict[str, str]:
    """The no_source database's topics, each as the `db.schema.table` it carries."""
    tables: dict[str, str] = {}
    for result, producer in _debezium():
        if producer != "no_source":
            continue
        for message in result.messages:
            if message.value is None or message.topic in tables:
                continue
            source = json.loads(message.value).get("source")
            if source and source.get("table"):
                tables[message.topic] = f"{source['db']}.{source['schema']}.{source['table']}"
    return tables


def _land(step: str, folder) -> None:  # type: ignore[no-untyped-def]
    if step in BATCHES:
        for database, batches in _delivered().items():
            write_batch(batches[BATCHES[step]], folder / database, BATCHES[step], "kcat")


register(
    Part(
        PART,
        land=_land,
        databases=DATABASES,
        vars={
            "cdc_topic_tables": _topic_tables(),
            # a schemaless message names no connector: its numbers are Db2's encodings
            "cdc_connector_overrides": [{"pattern": "^pf_db2[.]", "connector": "db2"}],
        },
    )
)


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


# ------------------------------------------------------------------ comparisons
def _canal_differences(dbt_project: DbtProject, batch: int) -> list[str]:
    """captured_rows of the Canal source against the simulator's oracle: by key, or as a
    multiset for a table without a primary key."""
    failures = []
    for table, expected in sorted(_canal().expected[batch].items()):
        rows = dbt_project.sql(
            f"select _cdc_row_json_raw from {dbt_project.layer('gold')}.captured_rows "
            f"where _cdc_source_id = lower('{table}')"
        )
        gold = [json.loads(str(row["_cdc_row_json_raw"])) for row in rows]
        if expected.key_columns is None:
            as_text = functools.partial(json.dumps, sort_keys=True)
            wanted_rows = Counter(as_text(typed(row)) for row in expected.rows)
            gold_rows = Counter(as_text(typed(row)) for row in gold)
            failures += [f"{table}: missing {text}" for text in wanted_rows - gold_rows]
            failures += [f"{table}: not in the source {text}" for text in gold_rows - wanted_rows]
            continue
        columns = expected.key_columns
        by_key = {json.dumps([row.get(c) for c in columns]): typed(row) for row in expected.rows}
        got = {json.dumps([row.get(c) for c in columns]): typed(row) for row in gold}
        if len(got) != len(gold):
            failures.append(f"{table}: a key twice in captured_rows")
        for k in sorted(set(by_key) | set(got)):
            if by_key.get(k) != got.get(k):
                failures.append(f"{table} {k}: gold {got.get(k)} != source {by_key.get(k)}")
    return failures


def _assert_gold_matches(dbt_project: DbtProject, batch: int) -> None:
    failures = []
    reader = GoldReader(dbt_project.spark)
    for result, _ in _debezium():
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[batch],
            result=result,
            batch=batch,
            databases=stream_databases(),
            reader=reader,
            source_times=False,
        )
        assert sum(outcome.rows.values()) > 0
        failures += [f"{result.config.database}: {d}" for d in outcome.differences]
    failures += _canal_differences(dbt_project, batch)
    assert not failures, "gold differs from the sources:\n" + "\n".join(failures[:100])


# ------------------------------------------------------------------ the tests
def test_the_deliveries_reorder_and_redeliver_across_partitions() -> None:
    """Guards: what the module claims to cover is in what it lands."""
    for database, batches in _delivered().items():
        for records in batches:
            places = [(m.topic, m.partition, m.offset) for m in records]
            assert len(places) > len(set(places)), f"{database}: nothing delivered again"
            assert len({m.partition for m in records}) >= 2, database
            in_order = sorted(places, key=lambda p: (p[0], p[1], p[2]))
            assert places != in_order, f"{database}: records in offset order"
        bodies = [json.loads(str(m.value)) for records in batches for m in records]
        bodies = [b.get("payload", b) for b in bodies]
        assert not any({"es", "ts", "isDdl", "ts_ms", "transaction"} & set(b) for b in bodies)
        assert all(set(b.get("source") or {}) <= {"db", "schema", "table"} for b in bodies)
    for result, producer in _debezium():
        ops = Counter(json.loads(m.value).get("payload", json.loads(m.value))["op"]
                      for m in result.messages if m.value)  # fmt: skip
        assert ops["u"] >= 10 and ops["d"] >= 5, (producer, ops)


@pytest.mark.stream("batch0")
def test_position_free_sources_reach_gold(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_matches(dbt_project, 0)


@pytest.mark.stream("batch0")
def test_every_change_is_ordered_by_its_arrival(dbt_project) -> None:  # type: ignore[no-untyped-def]
    silver = dbt_project.layer("silver")
    mine = f"_source_file like '{dbt_project.landed_under(PART)}'"
    [counts] = dbt_project.sql(
        f"select count(distinct _message_id) as messages, "
        f"count_if(_cdc_message_kind = 'change') as changes, "
        f"count_if(_cdc_position = concat(lpad(cast(_kafka_partition as string), 6, '0'), "
        f"lpad(cast(_kafka_offset as string), 20, '0'))) as by_arrival "
        f"from {silver}.stg_cdc__messages where {mine}"
    )
    landed = sum(len(batches[0]) for batches in _delivered().values())
    assert counts["messages"] == landed, counts
    assert counts["changes"] == counts["by_arrival"] > 0, counts
    [quarantined] = dbt_project.sql(
        f"select count(*) as n from {silver}.cdc_quarantine where {mine}"
    )
    assert quarantined["n"] == 0


@pytest.mark.stream("batch1")
def test_the_second_batch_applies_incrementally(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_matches(dbt_project, 1)


@pytest.mark.stream("full_refresh")
def test_a_full_refresh_gives_the_source_state(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_matches(dbt_project, 1)

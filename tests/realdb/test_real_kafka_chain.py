"""The real chain of issue 62: PostgreSQL → Debezium → Kafka → `dbt build`, gold equals
`SELECT *` on the database.

A throwaway PostgreSQL (`postgres` fixture) runs the seeded workload of
tests/realdb/test_real_postgres.py in the database `shop_kafka`. The capture (capture/,
Debezium's embedded engine configured as a user configures the PostgreSQL connector) produces
every record to a KRaft broker (`broker` fixture) as a Kafka Connect worker would: key and
value by the JsonConverter (schemas on), the producer's default partitioner on the key, acks
all, flushed before the engine commits its offsets. Its topics are created beforehand with
three partitions, as a user creates them (the broker creates none). Nothing lands as files:
bronze reads the topics with the Kafka vars. After every batch (workload, capture until the
watermark row, `dbt build` of captured_rows and what feeds it, incremental after the first),
each table's current rows in `captured_rows` equal the database's (workbench.realdb.compare),
and bronze holds every offset the broker has, once. A second database, `shop_kafka_flat`, is
captured through Debezium's ExtractNewRecordState (issue 73: `add.fields` db, schema, table,
lsn; `add.headers` op, source.ts_ms; deletes rewritten, tombstones after them): its records
read from the broker equal the database too (but for a truncate, which the transform drops),
their op and source time read from the records' headers.

A build of its own: a real server, a broker and a capture (JVMs of their own) whose topics no
other module's warehouse may read; its builds run in a process of its own
(tests/session_process.py), whose session carries the Kafka jars.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.kafka_broker import Broker
from tests.realdb.scenario import assert_gold_equals_database, assert_snapshot_ops_read
from tests.session_process import session_process
from workbench.realdb.pipeline import RealPipeline, change_identity
from workbench.realdb.postgres import PostgresServer
from workbench.realdb.source import Source, flattened_options
from workbench.realdb.workload import TABLES

pytestmark = pytest.mark.spark

SOURCE = Source("shop_kafka", True, "kafka")
FLAT_SOURCE = Source(
    "shop_kafka_flat",
    True,
    "kafka",
    options=flattened_options(
        "db,schema,table,lsn", "rewrite-with-tombstone", "public.events", "op,source.ts_ms"
    ),
    typed=(),
)
TOPIC_PREFIX = f"pg_{SOURCE.database}"  # the connector's topic.prefix (connector_config)
FLAT_PREFIX = f"pg_{FLAT_SOURCE.database}"
PARTITIONS = 3
SCHEMA = "t_real_kafka"


def create_topics(broker: Broker) -> None:
    """One topic per captured table of each source, of PARTITIONS partitions."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    topics = [
        NewTopic(f"{prefix}.public.{table}", PARTITIONS, 1)
        for prefix in (TOPIC_PREFIX, FLAT_PREFIX)
        for table in TABLES
    ]
    for future in admin.create_topics(topics).values():
        future.result()


def broker_offsets(broker: Broker) -> dict[tuple[str, int], tuple[int, int]]:
    """Every partition of the source's topics: (earliest offset, end offset)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": "probe"})
    try:
        return {
            (topic, partition): consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=30
            )
            for prefix in (TOPIC_PREFIX, FLAT_PREFIX)
            for topic in (f"{prefix}.public.{table}" for table in TABLES)
            for partition in range(PARTITIONS)
        }
    finally:
        consumer.close()


def bronze_records(pipeline: RealPipeline) -> list[dict]:
    return pipeline.query(
        "select _kafka_topic, _kafka_partition, _kafka_offset, raw_line "
        f"from {pipeline.schema_prefix}_bronze.bronze_cdc_messages "
        "where _record_format = 'kafka'"
    )


def assert_bronze_holds_every_offset_once(pipeline: RealPipeline, broker: Broker) -> None:
    """Nothing lost, nothing twice: bronze's offsets of each partition are the broker's."""
    records = bronze_records(pipeline)
    held = Counter((r["_kafka_topic"], r["_kafka_partition"]) for r in records)
    distinct = {(r["_kafka_topic"], r["_kafka_partition"], r["_kafka_offset"]) for r in records}
    assert sum(held.values()) == len(distinct), "an offset held twice"
    broker_counts = {key: end - start for key, (start, end) in broker_offsets(broker).items()}
    assert {key: n for key, n in broker_counts.items() if n} == dict(held)


@pytest.fixture(scope="module")
def pipeline(
    postgres: PostgresServer,
    debezium_capture: None,
    broker: Broker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RealPipeline]:
    create_topics(broker)
    kafka_vars = {
        "cdc_kafka_bootstrap_servers": broker.bootstrap_servers,
        "cdc_kafka_topic_pattern": rf"({TOPIC_PREFIX}|{FLAT_PREFIX})\..*",
    }
    base = tmp_path_factory.mktemp("realkafka")
    landing = base / "landing"
    landing.mkdir()
    with session_process(base, SCHEMA, landing, CDC_SPARK_KAFKA="true") as session:
        yield RealPipeline(
            postgres,
            (SOURCE, FLAT_SOURCE),
            landing,
            base / "capture",
            build=lambda args: session.run(*args, vars=kafka_vars),
            sql=session.sql,
            schema_prefix=SCHEMA,
            bootstrap_servers=broker.bootstrap_servers,
        )


def test_the_snapshot_through_kafka_gives_the_database(
    pipeline: RealPipeline, broker: Broker
) -> None:
    """The initial snapshot, produced to topics of three partitions and read by bronze from
    the broker (no file landed): gold equals the database; the keys spread the records over
    the partitions."""
    landed = pipeline.run_batch()
    assert landed == {SOURCE.database: [], FLAT_SOURCE.database: []}, "files landed"
    assert_bronze_holds_every_offset_once(pipeline, broker)
    customers = {
        r["_kafka_partition"]
        for r in bronze_records(pipeline)
        if r["_kafka_topic"].endswith(".customers")
    }
    assert len(customers) > 1, f"customers in partitions {customers} only"
    assert_gold_equals_database(pipeline)
    assert_snapshot_ops_read(pipeline, "customers")


def test_a_streamed_batch_through_kafka_gives_the_database(
    pipeline: RealPipeline, broker: Broker
) -> None:
    """A streamed batch (every change kind of the workload, a transaction left open over its
    capture), built incrementally: gold equals the database, bronze read each new offset once."""
    pipeline.run_batch(spanning=True)
    assert_bronze_holds_every_offset_once(pipeline, broker)
    assert_gold_equals_database(pipeline)


def test_a_capture_killed_mid_batch_produces_twice(pipeline: RealPipeline, broker: Broker) -> None:
    """The capture's JVM ends at once after the broker acknowledged a few records of a batch
    (the engine's offsets of them not committed); the restarted capture produces them again
    at new offsets (at least once): the messages are in Kafka twice, bronze holds each offset
    once, and gold still equals the database."""

    def repeated() -> int:
        changes = Counter(
            change_identity(r["raw_line"])
            for r in bronze_records(pipeline)
            if r["_kafka_topic"].startswith(f"{TOPIC_PREFIX}.")
        )
        return sum(n - 1 for change, n in changes.items() if change is not None)

    before = repeated()
    pipeline.run_batch(halt_after=3)
    assert repeated() > before, "nothing was produced twice"
    assert_bronze_holds_every_offset_once(pipeline, broker)
    assert_gold_equals_database(pipeline)

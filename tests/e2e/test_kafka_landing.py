"""Bronze reads a real Kafka broker in batch: the simulator's Debezium messages, produced to
topics of three partitions keyed as the connector keys them, land in bronze and gold equals
the oracle after every produce round; a partition added between runs is read from its
earliest offset; a run that failed after it fixed its offset range and before bronze's insert
committed leaves nothing, and the next run reads that range once; an offset range that
retention removed before bronze read it is reported by `cdc_delivery_gaps`, not passed over.

One broker (tests/kafka_broker.py, KRaft on 127.0.0.1) and one `dbt run` a round, each in
a process on a Spark home of its own with the Kafka jars (CDC_SPARK_KAFKA=true); the same
process then checks gold and bronze on its session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import process_env
from tests.kafka_broker import Broker
from workbench.oracle_check import COMPARED_MODELS
from workbench.simulator import SimConfig, simulate

pytestmark = pytest.mark.spark

CONFIG = SimConfig(
    seed=62, flavour="sqlserver", database="KAFKA_MSS", server="kafka", batches=3, transactions=40
)
RETENTION_TOPIC = "kafka.retention_probe"

RUN_AND_VERIFY = """
import json, sys
from cdc_tools.local_spark import get_local_spark
from workbench.oracle_check import compare_database
from workbench.simulator import SimConfig, simulate
from dbt.cli.main import dbtRunner
args = json.loads(sys.argv[1])
result = dbtRunner().invoke(["run", *args["models"], "cdc_delivery_gaps",
                             "--target-path", args["target"], "--log-path", args["logs"],
                             "--vars", json.dumps(args["vars"])])
config = SimConfig(**args["config"])
spark = get_local_spark()
simulated = simulate(config)
differences = ["not compared: the run failed"]
if result.success:
    differences = compare_database(spark, args["schema"] + "_gold", config.database,
                                   simulated.expected[args["batch"]], result=simulated,
                                   batch=args["batch"]).differences
bronze = spark.sql(
    "select count(*) as n, count(distinct _kafka_topic, _kafka_partition, _kafka_offset) as d, "
    "count(distinct _message_id) as ids "
    f"from {args['schema']}_bronze.bronze_cdc_messages where _record_format = 'kafka'"
).first()
gaps = [row.asDict() for row in spark.sql(
    "select _kafka_topic, _kafka_partition, first_missing_offset, last_missing_offset "
    f"from {args['schema']}_silver.cdc_delivery_gaps where gap_kind = 'kafka_offsets'"
).collect()]
lineage = [row.asDict() for row in spark.sql(
    "select _kafka_topic, _kafka_partition, count(*) as n, count(_kafka_timestamp) as stamped, "
    "min(message_key) as first_key, min(raw_line) as first_line "
    f"from {args['schema']}_bronze.bronze_cdc_messages where _record_format = 'kafka' "
    "group by _kafka_topic, _kafka_partition"
).collect()]
print("VERIFY " + json.dumps({"success": result.success, "differences": differences,
                              "lineage": lineage, "bronze": bronze["n"],
                              "distinct": bronze["d"], "ids": bronze["ids"], "gaps": gaps}))
"""


def _produce(
    broker: Broker,
    messages: list[tuple[str, str | None, str | None]],
    headers: list[tuple[str, str]] | None = None,
) -> None:
    """Produce (topic, key, value) records, keyed partitioning as Kafka's Java client does."""
    from confluent_kafka import Producer

    producer = Producer(
        {"bootstrap.servers": broker.bootstrap_servers, "partitioner": "murmur2_random"}
    )
    for topic, key, value in messages:
        producer.produce(topic, key=key, value=value, headers=headers)
        producer.poll(0)
    assert producer.flush(60) == 0


def _admin(broker: Broker):  # type: ignore[no-untyped-def]
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": broker.bootstrap_servers})


def _run(
    tmp_path: Path, broker: Broker, batch: int, round_name: str, succeeds: bool = True
) -> dict[str, object]:
    args = {
        "models": list(COMPARED_MODELS),
        "target": str(tmp_path / f"target-{round_name}"),
        "logs": str(tmp_path / "logs"),
        "schema": "t_kafka",
        "batch": batch,
        "config": {
            "seed": CONFIG.seed,
            "flavour": CONFIG.flavour,
            "database": CONFIG.database,
            "server": CONFIG.server,
            "batches": CONFIG.batches,
            "transactions": CONFIG.transactions,
        },  # fmt: skip
        "vars": {
            "cdc_kafka_bootstrap_servers": broker.bootstrap_servers,
            "cdc_kafka_topic_pattern": r"kafka\..*",
        },
    }
    landing = tmp_path / "landing"
    landing.mkdir(exist_ok=True)
    env = process_env(tmp_path / "spark", "t_kafka", landing, CDC_SPARK_KAFKA="true")
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_VERIFY, json.dumps(args)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("VERIFY ")]
    assert done.returncode == 0 and lines, done.stdout[-4000:] + done.stderr[-4000:]
    outcome = dict(json.loads(lines[-1][len("VERIFY ") :]))
    assert outcome["success"] is succeeds, done.stdout[-4000:]
    return outcome


def test_bronze_reads_kafka_partitions_rounds_and_retention_gaps(
    broker: Broker, tmp_path: Path
) -> None:
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import NewPartitions, NewTopic

    result = simulate(CONFIG)
    admin = _admin(broker)
    topics = sorted({m.topic for batch in result.batches for m in batch})
    created = admin.create_topics([NewTopic(t, 3, 1) for t in topics])
    created.update(admin.create_topics([NewTopic(RETENTION_TOPIC, 1, 1)]))
    for future in created.values():
        future.result()

    # round 1: batch 0 of every topic, and five probe records (offsets 0-4)
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[0]])
    probes = [(RETENTION_TOPIC, f"p{n}", json.dumps({"probe": n})) for n in range(5)]
    _produce(broker, probes, headers=[("origin", "probe")])
    first = _run(tmp_path, broker, 0, "first")
    assert first["differences"] == [], first["differences"]
    produced = len(result.batches[0]) + 5
    assert first["bronze"] == first["distinct"] == first["ids"] == produced
    assert first["gaps"] == []
    # lineage as for kcat records: key, timestamp, and the record with its headers in raw_line
    lineage = {(row["_kafka_topic"], row["_kafka_partition"]): row for row in first["lineage"]}
    probe = lineage[(RETENTION_TOPIC, 0)]
    assert probe["first_key"] == "p0" and probe["stamped"] == probe["n"] == 5
    assert '"headers":["origin","probe"]' in probe["first_line"]
    assert {partition for _, partition in lineage} == {0, 1, 2}, "keys spread over partitions"

    # between runs: the first topic gains two partitions, batch 1 is produced (keys now
    # spread over five partitions there), ten more probe records (5-14) of which retention
    # removes 5-9 before bronze reads them
    customers = next(t for t in topics if t.lower().endswith("customers"))
    for future in admin.create_partitions([NewPartitions(customers, 5)]).values():
        future.result()
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[1]])
    _produce(broker, [(RETENTION_TOPIC, None, json.dumps({"probe": n})) for n in range(5, 15)])
    deleted = admin.delete_records([TopicPartition(RETENTION_TOPIC, 0, 10)])
    for future in deleted.values():
        future.result()

    second = _run(tmp_path, broker, 1, "second")
    assert second["differences"] == [], second["differences"]
    produced += len(result.batches[1]) + 5
    # nothing twice, nothing lost: every record produced and still retained, once
    assert second["bronze"] == second["distinct"] == second["ids"] == produced
    added = [row for row in second["lineage"] if row["_kafka_partition"] >= 3]
    assert added and all(row["_kafka_topic"] == customers for row in added), added
    assert second["gaps"] == [
        {
            "_kafka_topic": RETENTION_TOPIC,
            "_kafka_partition": 0,
            "first_missing_offset": 5,
            "last_missing_offset": 9,
        }
    ]

    # round 3: batch 2 produced; bronze's insert cannot start its job (a file named
    # `_temporary` where Hadoop's committer makes its folder): the run fails after it fixed
    # its offsets and registered its Kafka view, before bronze committed anything
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[2]])
    blocker = tmp_path / "spark" / "warehouse" / "t_kafka_bronze.db" / "bronze_cdc_messages"
    (blocker / "_temporary").write_text("not a folder")
    failed = _run(tmp_path, broker, 2, "failed", succeeds=False)
    assert failed["bronze"] == produced, "the failed run must have committed nothing"
    (blocker / "_temporary").unlink()

    third = _run(tmp_path, broker, 2, "third")
    assert third["differences"] == [], third["differences"]
    produced += len(result.batches[2])
    assert third["bronze"] == third["distinct"] == third["ids"] == produced
    assert third["gaps"] == second["gaps"]

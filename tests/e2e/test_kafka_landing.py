"""Bronze reads a real Kafka broker in batch: the simulator's Debezium messages, produced to
topics of three partitions keyed as the connector keys them, land in bronze and gold equals
the oracle after every produce round, while another simulated source lands as kcat files
beside them (files and Kafka feed every build at once, its gold equals its oracle too); the
topics are named by a pattern, or by a list (`cdc_kafka_topics`, which reads a topic the
pattern left out); a partition added between runs is read from its earliest offset; a run
that failed after it fixed its offset range and before bronze's insert committed leaves
nothing, and the next run reads that range once; a consumer option is passed through to the
client (a bad `security.protocol` fails the run with the client's error naming it); offset
ranges that retention removed before bronze read them, in a partition bronze had read and in
a new partition it had not, are reported by `cdc_delivery_gaps`, not passed over.

One broker (tests/kafka_broker.py, KRaft on 127.0.0.1) and one `dbt run` a round, each in
a process on a Spark home of its own with the Kafka jars (CDC_SPARK_KAFKA=true); the same
process then checks gold and bronze on its session.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import process_env
from tests.kafka_broker import Broker
from workbench.oracle_check import COMPARED_MODELS
from workbench.simulator import SimConfig, simulate
from workbench.simulator.landing import write_batch

pytestmark = pytest.mark.spark

CONFIG = SimConfig(
    seed=62, flavour="sqlserver", database="KAFKA_MSS", server="kafka", batches=3, transactions=40
)
# landed as kcat files beside the Kafka topics (server "files": topics the pattern leaves out)
FILES_CONFIG = SimConfig(
    seed=162, flavour="oracle", database="FILES_ORA", server="files", batches=3, transactions=20
)
RETENTION_TOPIC = "kafka.retention_probe"
LISTED_TOPIC = "listed.probe"  # outside the pattern: read only when the list names it

RUN_AND_VERIFY = """
import json, sys
from cdc_tools.local_spark import get_local_spark
from workbench.oracle_check import compare_database
from workbench.simulator import SimConfig, simulate
from dbt.cli.main import dbtRunner
args = json.loads(sys.argv[1])

def errors(result):
    if result.exception is not None:
        return [str(result.exception)]
    return [str(node.message) for node in result.result or [] if node.status == "error"]

def run(models, vars):
    return dbtRunner().invoke(["run", "--select", *models,
                               "--target-path", args["target"], "--log-path", args["logs"],
                               "--vars", json.dumps(vars)])

refused = []
if args.get("bad_options"):
    refused = errors(run(["bronze_cdc_messages"],
                         {**args["vars"], "cdc_kafka_options": args["bad_options"]}))
result = run([*args["models"], "cdc_delivery_gaps"], args["vars"])
spark = get_local_spark()
differences = ["not compared: the run failed"]
if result.success:
    differences = []
    for fields in args["configs"]:
        config = SimConfig(**fields)
        simulated = simulate(config)
        differences += compare_database(spark, args["schema"] + "_gold", config.database,
                                        simulated.expected[args["batch"]], result=simulated,
                                        batch=args["batch"],
                                        databases=[c["database"] for c in args["configs"]]
                                        ).differences
bronze = spark.sql(
    "select count(*) as n, count(distinct _kafka_topic, _kafka_partition, _kafka_offset) as d, "
    "count(distinct _message_id) as ids "
    f"from {args['schema']}_bronze.bronze_cdc_messages where _record_format = 'kafka'"
).first()
gaps = [row.asDict() for row in spark.sql(
    "select _kafka_topic, _kafka_partition, first_missing_offset, last_missing_offset "
    f"from {args['schema']}_silver.cdc_delivery_gaps where gap_kind = 'kafka_offsets' "
    "order by 1, 2, 3"
).collect()]
lineage = [row.asDict() for row in spark.sql(
    "select _kafka_topic, _kafka_partition, count(*) as n, count(_kafka_timestamp) as stamped, "
    "min(message_key) as first_key, min(raw_line) as first_line "
    f"from {args['schema']}_bronze.bronze_cdc_messages where _record_format = 'kafka' "
    "group by _kafka_topic, _kafka_partition"
).collect()]
print("VERIFY " + json.dumps({"success": result.success, "differences": differences,
                              "lineage": lineage, "bronze": bronze["n"],
                              "distinct": bronze["d"], "ids": bronze["ids"], "gaps": gaps,
                              "refused": refused}))
"""


def _produce(
    broker: Broker,
    messages: list[tuple[str, str | None, str | None]],
    headers: list[tuple[str, str]] | None = None,
    partition: int = -1,
) -> None:
    """Produce (topic, key, value) records, keyed partitioning as Kafka's Java client does
    (or all to `partition`)."""
    from confluent_kafka import Producer

    producer = Producer(
        {"bootstrap.servers": broker.bootstrap_servers, "partitioner": "murmur2_random"}
    )
    failed: list[str] = []

    def delivered(error: object, _message: object) -> None:
        if error is not None:
            failed.append(str(error))

    for topic, key, value in messages:
        producer.produce(
            topic, key=key, value=value, headers=headers, partition=partition, on_delivery=delivered
        )
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not failed, failed[:5]


def _admin(broker: Broker):  # type: ignore[no-untyped-def]
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": broker.bootstrap_servers})


def _config_fields(config: SimConfig) -> dict[str, object]:
    return {
        "seed": config.seed,
        "flavour": config.flavour,
        "database": config.database,
        "server": config.server,
        "batches": config.batches,
        "transactions": config.transactions,
    }


def _land_files(tmp_path: Path, batch: int) -> None:
    """FILES_CONFIG's batch as kcat files in the landing folder the runs read."""
    write_batch(
        simulate(FILES_CONFIG).batches[batch], tmp_path / "landing" / "files", batch, "kcat"
    )


def _run(
    tmp_path: Path,
    broker: Broker,
    batch: int,
    round_name: str,
    succeeds: bool = True,
    topics: list[str] | None = None,
    bad_options: dict[str, str] | None = None,
) -> dict[str, object]:
    """One `dbt run` on the pattern's topics (or the list `topics`) and the landed files,
    its gold compared with both oracles; `bad_options` first runs bronze alone with those
    consumer options and reports its errors (`refused`)."""
    named = {"cdc_kafka_topics": topics} if topics else {"cdc_kafka_topic_pattern": r"kafka\..*"}
    args = {
        "models": list(COMPARED_MODELS),
        "target": str(tmp_path / f"target-{round_name}"),
        "logs": str(tmp_path / "logs"),
        "schema": "t_kafka",
        "batch": batch,
        "configs": [_config_fields(CONFIG), _config_fields(FILES_CONFIG)],
        "vars": {"cdc_kafka_bootstrap_servers": broker.bootstrap_servers, **named},
        "bad_options": bad_options or {},
    }
    landing = tmp_path / "landing"
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
    created.update(
        admin.create_topics([NewTopic(t, 1, 1) for t in (RETENTION_TOPIC, LISTED_TOPIC)])
    )
    for future in created.values():
        future.result()

    # round 1: batch 0 of every topic, five probe records (offsets 0-4), two records of a
    # topic outside the pattern; FILES_CONFIG's batch 0 landed as files
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[0]])
    probes = [(RETENTION_TOPIC, f"p{n}", json.dumps({"probe": n})) for n in range(5)]
    _produce(broker, probes, headers=[("origin", "probe")])
    _produce(broker, [(LISTED_TOPIC, None, json.dumps({"listed": n})) for n in range(2)])
    _land_files(tmp_path, 0)
    first = _run(tmp_path, broker, 0, "first")
    assert first["differences"] == [], first["differences"]
    produced = len(result.batches[0]) + 5
    assert first["bronze"] == first["distinct"] == first["ids"] == produced
    assert first["gaps"] == []
    assert LISTED_TOPIC not in {row["_kafka_topic"] for row in first["lineage"]}
    # lineage as for kcat records: key, timestamp, and the record with its headers in raw_line
    lineage = {(row["_kafka_topic"], row["_kafka_partition"]): row for row in first["lineage"]}
    probe = lineage[(RETENTION_TOPIC, 0)]
    assert probe["first_key"] == "p0" and probe["stamped"] == probe["n"] == 5
    assert '"headers":["origin","probe"]' in probe["first_line"]
    assert {partition for _, partition in lineage} == {0, 1, 2}, "keys spread over partitions"

    # between runs: the first topic gains two partitions, batch 1 is produced (keys now
    # spread over five partitions there), ten more probe records (5-14) of which retention
    # removes 5-9 before bronze reads them; the probe topic gains a partition, of whose six
    # records (0-5) retention removes 0-3 before bronze ever read it
    customers = next(t for t in topics if t.lower().endswith("customers"))
    grown = {customers: 5, RETENTION_TOPIC: 2}
    for future in admin.create_partitions([NewPartitions(t, n) for t, n in grown.items()]).values():
        future.result()
    while any(len(admin.list_topics(t).topics[t].partitions) < n for t, n in grown.items()):
        time.sleep(0.2)  # until the metadata the producers read has the new partitions
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[1]])
    probes = [(RETENTION_TOPIC, None, json.dumps({"probe": n})) for n in range(5, 15)]
    _produce(broker, probes, partition=0)
    fresh = [(RETENTION_TOPIC, None, json.dumps({"fresh": n})) for n in range(6)]
    _produce(broker, fresh, partition=1)
    removed = [TopicPartition(RETENTION_TOPIC, 0, 10), TopicPartition(RETENTION_TOPIC, 1, 4)]
    for future in admin.delete_records(removed).values():
        future.result()
    _land_files(tmp_path, 1)

    # round 2 names its topics by a list (every topic the pattern matched, and one it did not)
    second = _run(tmp_path, broker, 1, "second", topics=[*topics, RETENTION_TOPIC, LISTED_TOPIC])
    assert second["differences"] == [], second["differences"]
    produced += len(result.batches[1]) + 5 + 2 + 2
    # nothing twice, nothing lost: every record produced and still retained, once
    assert second["bronze"] == second["distinct"] == second["ids"] == produced
    added = [row for row in second["lineage"] if row["_kafka_partition"] >= 3]
    assert added and all(row["_kafka_topic"] == customers for row in added), added
    assert LISTED_TOPIC in {row["_kafka_topic"] for row in second["lineage"]}
    # the ranges retention removed: 5-9 after offsets bronze held, 0-3 of the new partition
    assert second["gaps"] == [
        {
            "_kafka_topic": RETENTION_TOPIC,
            "_kafka_partition": partition,
            "first_missing_offset": first,
            "last_missing_offset": last,
        }
        for partition, first, last in ((0, 5, 9), (1, 0, 3))
    ]

    # round 3: batch 2 produced; bronze's insert cannot start its job (a file named
    # `_temporary` where Hadoop's committer makes its folder): the run fails after it fixed
    # its offsets and registered its Kafka view, before bronze committed anything. Before
    # it, in the same process, bronze alone with a consumer option no client accepts: its
    # run fails with the client's error, which names the option and the value
    _produce(broker, [(m.topic, m.key, m.value) for m in result.batches[2]])
    _land_files(tmp_path, 2)
    blocker = tmp_path / "spark" / "warehouse" / "t_kafka_bronze.db" / "bronze_cdc_messages"
    (blocker / "_temporary").write_text("not a folder")
    bad = {"kafka.security.protocol": "SASL_NOWHERE"}
    failed = _run(tmp_path, broker, 2, "failed", succeeds=False, bad_options=bad)
    assert failed["bronze"] == produced, "the failed run must have committed nothing"
    refused = "\n".join(failed["refused"])  # type: ignore[arg-type]
    assert "security.protocol" in refused and "SASL_NOWHERE" in refused, refused
    (blocker / "_temporary").unlink()

    third = _run(tmp_path, broker, 2, "third")
    assert third["differences"] == [], third["differences"]
    produced += len(result.batches[2])
    assert third["bronze"] == third["distinct"] == third["ids"] == produced
    assert third["gaps"] == second["gaps"]

"""Baseline: one hand-written PySpark job over the same files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from workbench.bench.settings import BASELINE_RESULT_TAG

BASELINE_KCAT_SCHEMA = "struct<topic: string, partition: int, offset: bigint, payload: string>"
_BASELINE_SOURCE = (
    "struct<connector: string, db: string, schema: string, table: string, snapshot: string, "
    "scn: string, commit_scn: string, change_lsn: string, commit_lsn: string, "
    "event_serial_no: string>"
)
_BASELINE_PAYLOAD = (
    "before: map<string, string>, after: map<string, string>, op: string, "
    f"source: {_BASELINE_SOURCE}"
)
BASELINE_ENVELOPE_SCHEMA = f"struct<payload: struct<{_BASELINE_PAYLOAD}>, {_BASELINE_PAYLOAD}>"


def baseline_key_sql(image: str = "image") -> str:
    """A SQL expression for the primary key of the row image map ``image``, by table."""
    from workbench.simulator import TABLES

    cases = []
    for name, spec in TABLES.items():
        parts = ", ".join(
            f"coalesce({image}['{column.upper()}'], {image}['{column}'])" for column in spec.key
        )
        cases.append(f"when '{name}' then concat_ws('|', {parts})")
    return f"case lower(source.table) {' '.join(cases)} end"


BASELINE_POSITION_SQL = """
    case
        when source.scn is not null then concat(
            lpad(coalesce(source.commit_scn, source.scn), 30, '0'), '.', lpad(source.scn, 30, '0'))
        else concat(
            lower(source.commit_lsn), '.', lower(coalesce(source.change_lsn, '')), '.',
            lpad(coalesce(source.event_serial_no, '0'), 18, '0'))
    end
    || case when source.snapshot in ('true', 'last') then '|0' else '|1' end
"""


def baseline_job(spark: Any, landing: Path, out: Path) -> None:
    """The job a user would write without this project: latest row per key, written once.

    Reads every landing line as text, takes the message value (the ``payload`` of a ``kcat
    -J`` record, else the line; tombstones dropped), parses it once with ``from_json``
    (row images as ``map<string,string>``, wrapped or not), orders each key's changes by
    the connector's position and keeps the last, drops keys whose last change is a delete
    or precedes their table's last truncate, and overwrites one parquet folder. No types
    are decoded, nothing is quarantined and nothing is kept for the next run.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    lines = spark.read.option("recursiveFileLookup", "true").text(str(landing))
    is_kcat = F.col("value").startswith('{"topic":')
    message = (
        F.when(is_kcat, F.from_json("value", BASELINE_KCAT_SCHEMA)["payload"])
        .when(F.trim("value") != "null", F.col("value"))
        .alias("message")
    )
    # No filter before the windows: Spark would push it below the parse and parse twice.
    # Tombstones (message null) end in one null group that the last filter drops.
    envelope = F.from_json("message", BASELINE_ENVELOPE_SCHEMA).alias("e")
    parsed = (
        lines.select(message)
        .select(envelope)
        .select(
            *(F.coalesce(f"e.payload.{c}", f"e.{c}").alias(c) for c in ("op", "before", "after")),
            F.coalesce("e.payload.source", "e.source").alias("source"),
        )
    )
    table = ["source_db", "source_schema", "source_table"]
    changes = parsed.selectExpr(
        "source.db as source_db",
        "source.schema as source_schema",
        "lower(source.table) as source_table",
        "op",
        f"{BASELINE_POSITION_SQL} as position",
        "case when op = 'd' then before else after end as image",
        f"case when op = 't' then null else {baseline_key_sql()} end as key",
    )
    # A truncate has no key: per table, its latest truncate tops the null-key group.
    latest = Window.partitionBy(*table, "key").orderBy(F.desc("position"))
    truncate = F.when(F.col("op") == "t", F.col("position"))
    current = (
        changes.withColumn("rank", F.row_number().over(latest))
        .where("rank = 1")
        .withColumn("truncated_at", F.max(truncate).over(Window.partitionBy(*table)))
        .where("op in ('c', 'u', 'r') and (truncated_at is null or position > truncated_at)")
        .drop("rank", "truncated_at")
    )
    current.write.mode("overwrite").parquet(str(out))


def baseline_spark() -> Any:
    """A plain Spark session with the local profile's settings (no Hive metastore)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    from cdc_tools.local_spark import local_spark_conf

    builder = SparkSession.builder
    for key, value in local_spark_conf().items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def baseline_main(landing: Path, out: Path) -> int:
    spark = baseline_spark()
    started = time.monotonic()
    baseline_job(spark, landing, out)
    job_s = time.monotonic() - started
    rows = spark.read.parquet(str(out)).count()
    spark.stop()
    print(BASELINE_RESULT_TAG + json.dumps({"job_s": round(job_s, 2), "current_rows": rows}))
    return 0

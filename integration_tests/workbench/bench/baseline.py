"""Baselines: hand-written PySpark jobs over the same files, full and incremental.

The full job (:func:`baseline_job`) is what a user would write without this project: read
every landing file, parse once, keep each key's latest change, write once. The incremental
jobs apply the held-back files to the state the full job wrote, as an engineer would by
hand: on parquet, the tables they touch are read and their partitions overwritten
(:func:`incremental_parquet_job`); on Delta, one ``MERGE INTO`` (:func:`incremental_delta_job`).
The rules are the same everywhere (:func:`current_rows`), and DuckDB's anchor
(:mod:`workbench.bench.duckdb_anchor`) runs them in the same SQL.

The state is one row per key (its latest change, live: ``c``, ``u`` or ``r``) and, per
table, its latest truncate as a marker row (``op = 't'``, no key), so that a truncate
stays applied to the changes that come after it. Keys whose last change is a delete are
gone: like the full job, the incremental ones keep no tombstones, so a change that arrives
after a delete of its key and sorts before it would bring the key back. The bench's
increment is the tail of every source: it holds no such change.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Sequence
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

TABLE_COLUMNS: tuple[str, ...] = ("source_db", "source_schema", "source_table")
"""A source table: the state's partition columns."""
STATE_COLUMNS: tuple[str, ...] = (*TABLE_COLUMNS, "op", "position", "image", "key")
STATE_SCHEMA = (
    "source_db string, source_schema string, source_table string, op string, "
    "position string, image map<string, string>, key string"
)
LIVE_OR_MARKER = (
    "op = 't' or (op in ('c', 'u', 'r') and (truncated_at is null or position > truncated_at))"
)
"""The rows a state keeps: its key's latest change when it is live and not older than its
table's latest truncate, and that truncate (the marker)."""
LIVE_ROWS = "op <> 't'"
"""A state's current rows: every row but the truncate markers."""


def baseline_key_sql(image: str = "image") -> str:
    """A SQL expression for the primary key of the row image map ``image``, by table.

    Spark SQL and DuckDB alike (``map['k']`` is the value or null in both)."""
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
        when source.scn is not null then
            lpad(coalesce(source.commit_scn, source.scn), 30, '0') || '.'
            || lpad(source.scn, 30, '0')
        else
            lower(source.commit_lsn) || '.' || lower(coalesce(source.change_lsn, '')) || '.'
            || lpad(coalesce(source.event_serial_no, '0'), 18, '0')
    end
    || case when source.snapshot in ('true', 'last') then '|0' else '|1' end
"""
"""The connector's position as text that sorts in source order; a snapshot read below a
streamed change at the same position. Spark SQL and DuckDB alike (``||`` is null when
either side is)."""


def baseline_changes(spark: Any, paths: str | Sequence[str]) -> Any:
    """Every line of the files under ``paths`` as one change (STATE_COLUMNS), parsed once.

    Takes the message value (the ``payload`` of a ``kcat -J`` record, else the line;
    tombstones null), parses it once with ``from_json`` (row images as
    ``map<string,string>``, wrapped or not), and keys it by table: a truncate has no key."""
    from pyspark.sql import functions as F

    folders = [paths] if isinstance(paths, str) else list(paths)
    lines = spark.read.option("recursiveFileLookup", "true").text(folders)
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
    return parsed.selectExpr(
        "source.db as source_db",
        "source.schema as source_schema",
        "lower(source.table) as source_table",
        "op",
        f"{BASELINE_POSITION_SQL} as position",
        "case when op = 'd' then before else after end as image",
        f"case when op = 't' then null else {baseline_key_sql()} end as key",
    )


def latest_changes(changes: Any) -> Any:
    """Each key's latest change by position; a table's latest truncate tops its null-key
    group."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    latest = Window.partitionBy(*TABLE_COLUMNS, "key").orderBy(F.desc("position"))
    return changes.withColumn("rank", F.row_number().over(latest)).where("rank = 1").drop("rank")


def current_rows(changes: Any) -> Any:
    """The state of ``changes`` (STATE_COLUMNS; a state's rows are changes too): each
    key's latest change, dropped when it is a delete or precedes its table's latest
    truncate, and that truncate as the table's marker (LIVE_OR_MARKER)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    truncate = F.when(F.col("op") == "t", F.col("position"))
    return (
        latest_changes(changes)
        .withColumn("truncated_at", F.max(truncate).over(Window.partitionBy(*TABLE_COLUMNS)))
        .where(LIVE_OR_MARKER)
        .select(*STATE_COLUMNS)
    )


def baseline_job(spark: Any, landing: Path, out: Path) -> None:
    """The job a user would write without this project: latest row per key, written once.

    Reads every landing line as text, parses it once (:func:`baseline_changes`), keeps each
    key's latest change and drops keys whose last change is a delete or precedes their
    table's last truncate (:func:`current_rows`), and overwrites one parquet folder. No types
    are decoded, nothing is quarantined and nothing is kept for the next run."""
    current_rows(baseline_changes(spark, str(landing))).write.mode("overwrite").parquet(str(out))


def _same_table(row: Any) -> Any:
    """A filter on the partition columns of one source table (null-safe)."""
    from pyspark.sql import functions as F

    return functools.reduce(
        lambda a, b: a & b, (F.col(c).eqNullSafe(row[c]) for c in TABLE_COLUMNS)
    )


_ESCAPED_IN_PATHS = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
"""The characters Spark escapes in a partition folder's value (ExternalCatalogUtils)."""


def partition_path(state: Path, table: Sequence[str | None]) -> Path:
    """The folder of one source table's partition in a state written by Spark."""
    parts = []
    for column, value in zip(TABLE_COLUMNS, table, strict=True):
        text = (
            "__HIVE_DEFAULT_PARTITION__"
            if not value
            else "".join(f"%{ord(c):02X}" if c in _ESCAPED_IN_PATHS else c for c in value)
        )
        parts.append(f"{column}={text}")
    return state.joinpath(*parts)


def prepare_states(
    spark: Any, full_out: Path, parquet_state: Path, delta_state: Path | None
) -> None:
    """The state the full job wrote, in the layouts the incremental jobs start from (not
    timed): parquet partitioned by source table; Delta (``delta_state``) partitioned alike,
    on the session's Delta defaults (the `delta` target's: deletion vectors on)."""
    state = spark.read.schema(STATE_SCHEMA).parquet(str(full_out))
    writer = state.repartition(*TABLE_COLUMNS).write.mode("overwrite").partitionBy(*TABLE_COLUMNS)
    writer.parquet(str(parquet_state))
    if delta_state is not None:
        writer.format("delta").save(str(delta_state))


def _has_files(folder: Path) -> bool:
    return folder.is_dir() and any(path.is_file() for path in folder.rglob("*"))


def incremental_parquet_job(spark: Any, new_files: Path, state: Path) -> None:
    """The increment applied to a parquet state partitioned by source table: the new files
    parsed once, the partitions of the tables they touch read, the rules applied to both
    (:func:`current_rows`), those partitions overwritten (dynamic partition overwrite), and
    a touched table left without a row removed (an overwrite only replaces partitions that
    receive rows)."""
    if not _has_files(new_files):
        return
    new = baseline_changes(spark, str(new_files)).localCheckpoint()
    touched = [
        tuple(row)
        for row in new.where("source_table is not null").select(*TABLE_COLUMNS).distinct().collect()
    ]
    if not touched:
        return
    rows = spark.read.schema(STATE_SCHEMA).parquet(str(state))
    tables = (_same_table(dict(zip(TABLE_COLUMNS, t, strict=True))) for t in touched)
    affected = rows.where(functools.reduce(lambda a, b: a | b, tables))
    # read before the overwrite replaces what it read
    merged = current_rows(affected.unionByName(new)).localCheckpoint()
    present = {tuple(row) for row in merged.select(*TABLE_COLUMNS).distinct().collect()}
    (
        merged.write.mode("overwrite")
        .option("partitionOverwriteMode", "dynamic")
        .partitionBy(*TABLE_COLUMNS)
        .parquet(str(state))
    )
    for table in set(touched) - present:
        _remove_tree(spark, partition_path(state, table))


def _remove_tree(spark: Any, path: Path) -> None:
    """Deletes a local folder through Hadoop's file system (as Spark's own writes do). Its
    name as it is: Hadoop quotes what a URI needs (a partition value's `%3A` stays)."""
    jvm = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(f"file://{path}")
    hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(
        hadoop_path, True
    )


def _sql_text(value: str | None) -> str:
    return "null" if value is None else "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def incremental_delta_job(spark: Any, new_files: Path, state: Path) -> None:
    """The increment applied to a Delta state: the new files parsed once, each key's latest
    change; each new truncate deletes its table's rows at or before it; one ``MERGE INTO``
    deletes the keys whose latest change is a newer delete, updates those with a newer
    change and inserts the new keys (and the new truncate markers)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not _has_files(new_files):
        return
    new = latest_changes(baseline_changes(spark, str(new_files))).localCheckpoint()
    target = f"delta.`{state}`"
    for truncate in new.where("op = 't'").select(*TABLE_COLUMNS, "position").collect():
        same = " and ".join(f"{c} <=> {_sql_text(truncate[c])}" for c in TABLE_COLUMNS)
        at = _sql_text(truncate.position)
        spark.sql(f"delete from {target} where {same} and position <= {at}")
    truncated_at = F.max(F.when(F.col("op") == "t", F.col("position"))).over(
        Window.partitionBy(*TABLE_COLUMNS)
    )
    source = (
        new.withColumn("truncated_at", truncated_at)
        .where(f"op = 'd' or ({LIVE_OR_MARKER})")
        .select(*STATE_COLUMNS)
    )
    source.createOrReplaceTempView("baseline_increment")
    on = " and ".join(f"t.{c} <=> s.{c}" for c in (*TABLE_COLUMNS, "key"))
    spark.sql(
        f"""
        merge into {target} t
        using baseline_increment s
        on {on}
        when matched and s.position > t.position and s.op = 'd' then delete
        when matched and s.position > t.position then update set *
        when not matched and s.op <> 'd' then insert *
        """
    )


def baseline_spark(target: str = "local") -> Any:
    """A plain Spark session with the settings of the profile's in-process ``target``
    (`local`; `delta` for the Delta state: its jars and extension), no Hive metastore."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    from cdc_tools.local_spark import local_spark_conf

    builder = SparkSession.builder
    for key, value in local_spark_conf(target).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def report_result(job_s: float, **extra: Any) -> None:
    """The line the bench reads from a measured anchor's log (BASELINE_RESULT_TAG)."""
    print(BASELINE_RESULT_TAG + json.dumps({"job_s": round(job_s, 2), **extra}), flush=True)


def baseline_main(landing: Path, out: Path) -> int:
    spark = baseline_spark()
    started = time.monotonic()
    baseline_job(spark, landing, out)
    job_s = time.monotonic() - started
    spark.stop()
    report_result(job_s)
    return 0

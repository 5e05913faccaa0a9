"""What the real-database modules share: their pipeline, built in the module's warehouse,
and the checks every batch ends with."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.conftest import DbtProject
from workbench.realdb.mariadb import MariaDbServer
from workbench.realdb.pipeline import RealPipeline
from workbench.realdb.postgres import PostgresServer
from workbench.realdb.source import AVRO_PARQUET, Source, flattened_options

# each landing form: sink files with schemas on and off, kcat records (schemas off)
SOURCES = (
    Source("shop", True, "sink"),
    Source("shop_plain", False, "sink"),
    Source("shop_kcat", False, "kcat"),
)
# the S3 sink's Avro and Parquet files (format.class AvroFormat, ParquetFormat), written from
# the sink files of a capture with schemas on; the sink's default behavior.on.null.values
# (fail) takes no tombstone, so the connector sends none, as such a pipeline is configured
AVRO_PARQUET_SOURCE = Source(
    "shop_files", True, AVRO_PARQUET, options=(("tombstones.on.delete", "false"),)
)

# the PostgreSQL connector's modes that change how values are encoded (issue 78): numerics as
# text, bytea as hex, times and timestamps in Kafka Connect's millisecond types, no tombstones;
# numerics as doubles. Typed models of the tables holding such values only.
ENCODED_TABLES = ("customers", "blobs", "wide_values")
MODE_SOURCES = (
    Source(
        "shop_text",
        True,
        "sink",
        options=(
            ("decimal.handling.mode", "string"),
            ("binary.handling.mode", "hex"),
            ("time.precision.mode", "connect"),
            ("tombstones.on.delete", "false"),
        ),
        typed=ENCODED_TABLES,
    ),
    Source(
        "shop_double",
        True,
        "sink",
        options=(("decimal.handling.mode", "double"),),
        typed=ENCODED_TABLES,
    ),
)

# Debezium's ExtractNewRecordState transform (issue 73): the row at top level, metadata in
# added fields. PostgreSQL's as value-only sink files (declared keys), deletes rewritten with
# `__deleted`; MariaDB's as kcat records (Kafka keys), deletes as tombstones only (its topics
# declared flattened), its op and source time as headers (add.headers). The keyless table is
# left out (table.exclude.list): a flattened row without a key cannot be applied. No typed
# models: their scaffolding reads envelopes.
FLAT_POSTGRES = Source(
    "shop_flat",
    True,
    "sink",
    options=flattened_options("op,db,schema,table,lsn,source.ts_ms", "rewrite", "public.events"),
    typed=(),
)
FLAT_MARIADB = Source(
    "shop_flat",
    False,
    "kcat",
    options=flattened_options(
        "connector,db,table,file,pos,row", "tombstone", "shop_flat.events", "op,source.ts_ms"
    ),
    typed=(),
)


def module_pipeline(
    server: PostgresServer | MariaDbServer,
    sources: Sequence[Source],
    dbt_project: DbtProject,
    state: Path,
    vars: Mapping[str, object] | None = None,
) -> RealPipeline:
    """The pipeline of `sources` on `server`, landing in the module's folder and building a
    copy of the consumer project (the typed models scaffolded from bronze are written there)."""
    project = dbt_project.copy_project(state / "project")
    return RealPipeline(
        server,
        sources,
        dbt_project.landing,
        state,
        build=lambda args: dbt_project.run(*args, vars=dict(vars or {}), project_dir=project),
        sql=dbt_project.sql,
        schema_prefix=dbt_project.schema,
        project=project,
    )


def assert_gold_equals_database(pipeline: RealPipeline) -> None:
    found = pipeline.differences()
    assert not found, "\n".join(found[:40])


def assert_snapshot_captured(pipeline: RealPipeline, table: str) -> None:
    """Every source's `table` has rows in gold, and gold equals the database."""
    for source in pipeline.sources:
        assert pipeline.gold_rows(source, table), f"{source.database}: nothing captured"
    assert_gold_equals_database(pipeline)


def assert_snapshot_ops_read(pipeline: RealPipeline, table: str) -> None:
    """Every flattened source's `table` holds the snapshot's op `r` and the source time,
    wherever the transform put them (`add.fields` or `add.headers`): a record whose op
    goes unread is an upsert (`u`), with no source time."""
    for source in pipeline.sources:
        if not source.flattened:
            continue
        rows = pipeline.query(
            "select _cdc_op, _cdc_source_ts from "
            f"{pipeline.schema_prefix}_gold.captured_rows "
            f"where _cdc_source_id = '{pipeline.db.source_id(source, table)}'"
        )
        assert rows, f"{source.database}.{table}: nothing captured"
        assert {row["_cdc_op"] for row in rows} == {"r"}, source.database
        assert all(row["_cdc_source_ts"] is not None for row in rows), source.database


def deliver_again(pipeline: RealPipeline) -> None:
    """Every file landed so far delivered again under another folder (same names, lines)."""
    for source in pipeline.sources:
        again = pipeline.landing_root / f"{source.database}-again"
        shutil.copytree(pipeline.landing(source), again)


def assert_typed_gold_scaffolded(pipeline: RealPipeline, spark: object) -> None:
    """Typed models of every keyed table of the sources with schemas are scaffolded from
    bronze; every later batch builds them and compares their gold with the database too."""
    typed = pipeline.scaffold_typed_gold(spark)
    assert {contract.table for contract in typed} == set(pipeline.db.table_keys)


def assert_records_are_their_sink_lines(pipeline: RealPipeline) -> None:
    """Every record of the Avro and Parquet files is in bronze as the very line of the sink
    file it was written from, at its Kafka offset: the message silver reads is the JSON
    twin's, byte for byte, whatever the container and codec (both of which landed)."""
    for source in pipeline.sources:
        if source.landing_format != AVRO_PARQUET:
            continue
        expected: dict[tuple[str, int], str] = {}
        for path in pipeline.captured(source).rglob("*.json"):
            match = re.fullmatch(r"(.+)\+\d+\+(\d+)\.json", path.name)
            assert match, path
            for index, line in enumerate(path.read_text().splitlines()):
                expected[(match.group(1), int(match.group(2)) + index)] = line
        rows = pipeline.query(
            f"select _kafka_topic, _kafka_offset, raw_line, _record_format, _source_file "
            f"from {pipeline.schema_prefix}_bronze.bronze_cdc_messages "
            f"where _source_file like '%/{pipeline.landing(source).name}/%'"
        )
        assert {row["_record_format"] for row in rows} == {"avro", "parquet"}
        landed = {str(row["_source_file"]).rsplit("/", 1)[-1] for row in rows}
        assert any(name.endswith(".avro") for name in landed), landed
        assert any(name.endswith(".parquet") for name in landed), landed
        wrong = [
            (row["_kafka_topic"], row["_kafka_offset"])
            for row in rows
            if expected.get((str(row["_kafka_topic"]), int(row["_kafka_offset"])))  # type: ignore[call-overload]
            != row["raw_line"]
        ]
        assert not wrong, f"{len(wrong)} records differ from their sink lines: {wrong[:5]}"
        offsets = {(str(row["_kafka_topic"]), int(row["_kafka_offset"])) for row in rows}  # type: ignore[call-overload]
        assert offsets == set(expected), "bronze lacks records, or holds others"

"""Real PostgreSQL captured by real Debezium (issue 61): gold equals `SELECT *` on the database.

A throwaway PostgreSQL (`postgres` fixture) runs a seeded workload (workbench.realdb.workload)
in four databases: `shop`, captured with the JsonConverter's schemas on and landed as Kafka
Connect S3 sink files; `shop_plain`, schemas off, sink files; `shop_kcat`, schemas off,
landed as `kcat -J` records (Kafka keys kept); and `shop_files`, landed as the S3 sink's Avro
and Parquet files (format.class AvroFormat and ParquetFormat, by turns, codecs varied),
written from its sink files with schemas on (workbench.realdb.sink_formats), whose every
record must reach bronze as the very line it was written from; `shop_text` and `shop_double`,
schemas on, sink files, in the connector modes that change how values are encoded
(`decimal.handling.mode` string and double, `binary.handling.mode=hex`,
`time.precision.mode=connect`, `tombstones.on.delete=false`), each compared in its own forms
(workbench.realdb.compare.Modes); and `shop_flat`, its records flattened by Debezium's
ExtractNewRecordState (add.fields op, db, schema, table, lsn, source.ts_ms; deletes rewritten
with `__deleted`), value-only sink files: equal to the database but for what the transform
cannot carry (a truncate: truncate_blind) and the keyless table, left out of its capture.
The capture is Debezium's embedded engine (capture/), configured as a user configures the
PostgreSQL connector: pgoutput, a filtered publication, an initial snapshot then
streaming, TRUNCATE not skipped.
After every batch (workload, capture until the watermark row, `dbt build` of captured_rows
and what feeds it, incremental after the first), each table's current rows in `captured_rows`
equal the database's, value by value, in the normal form of each type stated in
workbench.realdb.compare; nothing is quarantined. From the second batch on, the typed gold
models scaffolded from `shop`'s bronze are compared too.

A build of its own: real servers and a capture (a JVM of its own) that no other module's
landing folder may share.
"""

from __future__ import annotations

import pytest

from tests.conftest import DbtProject
from tests.realdb.scenario import (
    AVRO_PARQUET_SOURCE,
    FLAT_POSTGRES,
    MODE_SOURCES,
    SOURCES,
    assert_gold_equals_database,
    assert_records_are_their_sink_lines,
    assert_snapshot_captured,
    assert_snapshot_ops_read,
    assert_typed_gold_scaffolded,
    deliver_again,
    module_pipeline,
)
from workbench.realdb.pipeline import RealPipeline, declared_keys, landed_once
from workbench.realdb.postgres import PostgresServer

pytestmark = pytest.mark.spark


POSTGRES_SOURCES = (*SOURCES, AVRO_PARQUET_SOURCE, *MODE_SOURCES, FLAT_POSTGRES)
VARS = {"cdc_table_keys": declared_keys(POSTGRES_SOURCES)}


@pytest.fixture(scope="module")
def pipeline(
    postgres: PostgresServer,
    debezium_capture: None,
    dbt_project: DbtProject,
    tmp_path_factory: pytest.TempPathFactory,
) -> RealPipeline:
    state = tmp_path_factory.mktemp("realpg")
    return module_pipeline(postgres, POSTGRES_SOURCES, dbt_project, state, vars=VARS)


def test_the_snapshot_gives_the_database(pipeline: RealPipeline, dbt_project: DbtProject) -> None:
    """The initial snapshot (op r) of every table, each landing form, equals the database.
    Then typed models of every keyed table of the source with schemas are scaffolded from
    bronze (as `python -m cdc_tools.scaffold --from-bronze` writes them); every later batch
    builds them and compares their gold with the database too."""
    pipeline.run_batch()
    assert_snapshot_captured(pipeline, "customers")
    assert_snapshot_ops_read(pipeline, "customers")
    assert_records_are_their_sink_lines(pipeline)
    assert_typed_gold_scaffolded(pipeline, dbt_project.spark)


def test_streamed_batches_give_the_database(pipeline: RealPipeline) -> None:
    """Two streamed batches (inserts, updates of every type, a key update, deletes, TOASTed
    text left unchanged on DEFAULT and FULL identity tables, a keyless table, TRUNCATE, a
    rolled-back transaction, ADD then DROP COLUMN, a transaction opened before the first
    batch's workload, left open over its capture and committed in the second: its inserts,
    TOASTed text included, carry LSNs older than changes already built), each built
    incrementally: gold equals the database after each."""
    for spanning in (True, False):
        pipeline.run_batch(spanning=spanning)
        assert_gold_equals_database(pipeline)


def test_a_capture_killed_mid_batch_and_restarted(pipeline: RealPipeline) -> None:
    """The capture's JVM ends at once after landing a few records of a batch (its offsets of
    them not committed); the restarted capture emits them again, at new Kafka offsets, as a
    real connector does (at least once): gold still equals the database."""
    landed = pipeline.run_batch(halt_after=3)
    assert not (once := landed_once(landed)), f"nothing landed twice: {once}"
    assert_gold_equals_database(pipeline)


def test_a_restarted_database_and_files_landed_twice(pipeline: RealPipeline) -> None:
    """The server restarted between the workload and the capture, and every file landed so
    far delivered again under another folder (same names, same lines): gold still equals
    the database."""
    deliver_again(pipeline)
    pipeline.run_batch(restart=True)
    assert_gold_equals_database(pipeline)
    assert_records_are_their_sink_lines(pipeline)

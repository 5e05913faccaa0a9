"""Real PostgreSQL captured by real Debezium (issue 61): gold equals `SELECT *` on the database.

A throwaway PostgreSQL (`postgres` fixture) runs a seeded workload (workbench.realdb.workload)
in three databases: `shop`, captured with the JsonConverter's schemas on and landed as Kafka
Connect S3 sink files; `shop_plain`, schemas off, sink files; and `shop_kcat`, schemas off,
landed as `kcat -J` records (Kafka keys kept). The capture is Debezium's embedded engine
(capture/), configured as a user configures the PostgreSQL connector: pgoutput, a filtered
publication, an initial snapshot then streaming, TRUNCATE not skipped. After every batch
(workload, capture until the watermark row, `dbt build` of captured_rows and what feeds it,
incremental after the first), each table's current rows in `captured_rows` equal the database's,
value by value, in the normal form of each type stated in workbench/realdb/compare.py; nothing
is quarantined. From the second batch on, the typed gold models scaffolded from `shop`'s bronze
are compared too.

A build of its own: real servers and a capture (a JVM of its own) that no other module's
landing folder may share.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from workbench.realdb.pipeline import RealPipeline, Source, change_identity, declared_keys
from workbench.realdb.postgres import PostgresServer
from workbench.realdb.workload import TABLE_KEYS

pytestmark = pytest.mark.spark


SOURCES = (
    Source("shop", True, "sink"),
    Source("shop_plain", False, "sink"),
    Source("shop_kcat", False, "kcat"),
)
VARS = {"cdc_table_keys": declared_keys(SOURCES)}


def assert_gold_equals_database(pipeline: RealPipeline) -> None:
    found = pipeline.differences()
    assert not found, "\n".join(found[:40])


@pytest.fixture(scope="module")
def pipeline(
    postgres: PostgresServer,
    debezium_capture: None,
    dbt_project: DbtProject,
    tmp_path_factory: pytest.TempPathFactory,
) -> RealPipeline:
    state = tmp_path_factory.mktemp("realpg")
    # a copy of the consumer project: the typed models scaffolded from bronze are written there
    project = dbt_project.copy_project(state / "project")
    return RealPipeline(
        postgres,
        SOURCES,
        dbt_project.landing,
        state,
        build=lambda args: dbt_project.run(*args, vars=VARS, project_dir=project),
        sql=dbt_project.sql,
        schema_prefix=dbt_project.schema,
        project=project,
    )


def test_the_snapshot_gives_the_database(pipeline: RealPipeline, dbt_project: DbtProject) -> None:
    """The initial snapshot (op r) of every table, each landing form, equals the database.
    Then typed models of every keyed table of the source with schemas are scaffolded from
    bronze (as `python -m cdc_tools.scaffold --from-bronze` writes them); every later batch
    builds them and compares their gold with the database too."""
    pipeline.run_batch()
    for source in SOURCES:
        assert pipeline.gold_rows(source, "customers"), f"{source.database}: nothing captured"
    assert_gold_equals_database(pipeline)
    typed = pipeline.scaffold_typed_gold(dbt_project.spark)
    assert {contract.table for contract in typed} == set(TABLE_KEYS)


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
    for database, files in landed.items():
        changes = [
            change_identity(line) for path in files for line in Path(path).read_text().splitlines()
        ]
        changes = [change for change in changes if change is not None]
        assert len(changes) > len(set(changes)), f"{database}: nothing landed twice in {files}"
    assert_gold_equals_database(pipeline)


def test_a_restarted_database_and_files_landed_twice(pipeline: RealPipeline) -> None:
    """The server restarted between the workload and the capture, and every file landed so
    far delivered again under another folder (same names, same lines): gold still equals
    the database."""
    for source in SOURCES:
        again = pipeline.landing_root / f"{source.database}-again"
        shutil.copytree(pipeline.landing(source), again)
    pipeline.run_batch(restart=True)
    assert_gold_equals_database(pipeline)

"""Real MariaDB captured by real Debezium (issue 61): gold equals `SELECT *` on the database.

A throwaway MariaDB (`mariadb` fixture, row binlog with full images) runs a seeded workload
(workbench.realdb.workload_mariadb) in three databases: `shop`, captured with the
JsonConverter's schemas on and landed as Kafka Connect S3 sink files; `shop_plain`, schemas
off, sink files; `shop_kcat`, schemas off, landed as `kcat -J` records (Kafka keys
kept); and `shop_flat`, flattened by ExtractNewRecordState, kcat records, its op and source
time as headers (add.headers), read as the snapshot's op `r`. The capture is Debezium's
embedded engine (capture/) running Debezium's MariaDB connector (capture/mariadb/pom.xml),
configured as a user configures it: a server id, the schema history in a file, schema-change
events on, an initial snapshot then the binlog, TRUNCATE not skipped. No key is declared:
the sink files' keys come from the schema-change topic's table definitions. After every
batch (workload, capture until the watermark row, `dbt build` of captured_rows and what
feeds it, incremental after the first), each table's current rows in `captured_rows` equal
the database's, value by value, in the normal form of each type stated in
workbench.realdb.compare_mariadb; nothing is quarantined.

A build of its own: a real server and a capture (a JVM of its own) that no other module's
landing folder may share.
"""

from __future__ import annotations

import pytest

from tests.conftest import DbtProject
from tests.realdb.scenario import (
    FLAT_MARIADB,
    SOURCES,
    assert_gold_equals_database,
    assert_snapshot_captured,
    assert_snapshot_ops_read,
    assert_typed_gold_scaffolded,
    deliver_again,
    module_pipeline,
)
from workbench.realdb.mariadb import MariaDbServer
from workbench.realdb.pipeline import RealPipeline, landed_once

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def pipeline(
    mariadb: MariaDbServer,
    debezium_capture: None,
    dbt_project: DbtProject,
    tmp_path_factory: pytest.TempPathFactory,
) -> RealPipeline:
    # no declared keys: the schema-change topic's table definitions give them; the flattened
    # source's topics are declared (its deletes are tombstones only)
    return module_pipeline(
        mariadb,
        (*SOURCES, FLAT_MARIADB),
        dbt_project,
        tmp_path_factory.mktemp("realmaria"),
        vars={"cdc_flattened_topics": ["^maria_shop_flat[.]"]},
    )


def test_the_snapshot_gives_the_database(pipeline: RealPipeline, dbt_project: DbtProject) -> None:
    """The initial snapshot (op r) of every table, each landing form, equals the database.
    Then typed models of every keyed table of the source with schemas are scaffolded from
    bronze (as `python -m cdc_tools.scaffold --from-bronze` writes them); every later batch
    builds them and compares their gold with the database too."""
    pipeline.run_batch()
    assert_snapshot_captured(pipeline, "customers")
    assert_snapshot_ops_read(pipeline, "customers")
    assert_typed_gold_scaffolded(pipeline, dbt_project.spark)


def test_streamed_batches_give_the_database(pipeline: RealPipeline) -> None:
    """Two streamed batches (inserts and updates of every type, a key update, deletes, a
    keyless table, TRUNCATE, a rolled-back transaction, ADD then DROP COLUMN, a transaction
    opened before the first batch's workload, left open over its capture and committed in
    the second), each built incrementally: gold equals the database after each."""
    for spanning in (True, False):
        pipeline.run_batch(spanning=spanning)
        assert_gold_equals_database(pipeline)


def test_a_capture_killed_mid_batch_and_restarted(pipeline: RealPipeline) -> None:
    """The capture's JVM ends at once after landing a few records of a batch (its offsets of
    them not committed); the restarted capture emits them again from the binlog position it
    committed, at new Kafka offsets: gold still equals the database."""
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

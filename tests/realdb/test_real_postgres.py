"""Real PostgreSQL captured by real Debezium (issue 61): gold equals `SELECT *` on the database.

A throwaway PostgreSQL (`postgres` fixture) runs a seeded workload (workbench.realdb.workload)
in two databases: `shop`, captured with the JsonConverter's schemas on and landed as Kafka
Connect S3 sink files, and `shop_kcat`, schemas off and landed as `kcat -J` records (Kafka
keys kept). The capture is Debezium's embedded engine (capture/), configured as a user
configures the PostgreSQL connector: pgoutput, a filtered publication, an initial snapshot
then streaming, TRUNCATE not skipped. After every batch (workload, capture until the
watermark row, `dbt build` of captured_rows and what feeds it, incremental after the first),
each table's current rows in `captured_rows` equal the database's, value by value, in the
normal form of each type stated in workbench/realdb/compare.py; nothing is quarantined.

A build of its own: real servers and a capture (a JVM of its own) that no other module's
landing folder may share.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from workbench.realdb.capture import run_capture, write_config
from workbench.realdb.compare import database_rows, differences
from workbench.realdb.postgres import PostgresServer
from workbench.realdb.workload import TABLES, WATERMARK_TABLE, Workload

pytestmark = pytest.mark.spark


@dataclass(frozen=True)
class Source:
    database: str
    schemas: bool
    landing_format: str  # "sink" (one JsonConverter value per line) or "kcat"


SOURCES = (Source("shop", True, "sink"), Source("shop_kcat", False, "kcat"))


def connector_config(pg: PostgresServer, source: Source) -> dict[str, object]:
    """The PostgreSQL connector's settings, as a user writes them."""
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": pg.port,
        "database.user": pg.user,
        "database.password": pg.password,
        "database.dbname": source.database,
        "topic.prefix": f"pg_{source.database}",
        "plugin.name": "pgoutput",
        "slot.name": f"cdc_{source.database}",
        "publication.name": f"cdc_{source.database}",
        "publication.autocreate.mode": "filtered",
        "schema.include.list": "public",
        "snapshot.mode": "initial",
        # Debezium skips truncates unless told otherwise
        "skipped.operations": "none",
    }


class RealPipeline:
    """The workload, the capture and the builds, one batch at a time."""

    def __init__(self, pg: PostgresServer, project: DbtProject, base: Path) -> None:
        self.pg = pg
        self.project = project
        self.base = base
        self.batches = 0
        self.workloads = {s.database: Workload(seed=61) for s in SOURCES}
        for source in SOURCES:
            if source.database != pg.database:
                pg.sql(f"create database {source.database}", database="postgres")

    def landing(self, source: Source) -> Path:
        return self.project.landing / source.database

    def capture(self, source: Source, mark: str, halt_after: int | None = None):  # type: ignore[no-untyped-def]
        config = write_config(
            self.base / source.database / "connector.properties", connector_config(self.pg, source)
        )
        return run_capture(
            config,
            self.landing(source),
            self.base / source.database / "offsets.dat",
            schemas=source.schemas,
            landing_format=source.landing_format,
            until=(f"public.{WATERMARK_TABLE}", mark),
            halt_after=halt_after,
        )

    def run_batch(
        self, *, halt_after: int | None = None, restart: bool = False
    ) -> dict[str, list[str]]:
        """Batch `self.batches` on both databases, captured and landed, then built; the
        files each capture landed (a halted capture's first, then its restart's)."""
        index = self.batches
        mark = f"batch-{index}"
        for source in SOURCES:
            for script in self.workloads[source.database].batch(index):
                self.pg.sql(script, database=source.database)
            self.pg.sql(Workload.watermark(mark), database=source.database)
        if restart:
            self.pg.restart()
        landed: dict[str, list[str]] = {}
        for source in SOURCES:
            before = set(self.landing(source).rglob("*.json*"))
            if halt_after is not None:
                halted = self.capture(source, mark, halt_after=halt_after)
                assert halted.returncode == 137, halted.output[-3000:]
            done = self.capture(source, mark)
            assert done.returncode == 0, done.output[-3000:]
            landed[source.database] = sorted(
                str(p) for p in set(self.landing(source).rglob("*.json*")) - before
            )
        self.project.run("build", "--select", "+captured_rows")
        self.batches += 1
        return landed

    def gold_rows(self, source: Source, table: str) -> list[dict]:
        rows = self.project.sql(
            f"select _cdc_row_json from {self.project.layer('gold')}.captured_rows "
            f"where _cdc_source_id = '{source.database}.public.{table}'"
        )
        return [json.loads(str(row["_cdc_row_json"]), parse_float=Decimal) for row in rows]

    def assert_gold_equals_database(self) -> None:
        found: list[str] = []
        for source in SOURCES:
            for table in TABLES:
                cols, database = database_rows(self.pg, table, database=source.database)
                gold = self.gold_rows(source, table)
                found += [
                    f"{source.database}.{table}: {d}"
                    for d in differences(cols, database, gold, source.schemas)
                ]
        quarantined = self.project.sql(
            f"select reason_code, count(*) as n from {self.project.layer('silver')}.cdc_quarantine group by 1"
        )
        assert not found, "\n".join(found[:40])
        assert not quarantined, quarantined


@pytest.fixture(scope="module")
def pipeline(
    postgres: PostgresServer,
    debezium_capture: None,
    dbt_project: DbtProject,
    tmp_path_factory: pytest.TempPathFactory,
) -> RealPipeline:
    return RealPipeline(postgres, dbt_project, tmp_path_factory.mktemp("realpg"))


def test_the_snapshot_gives_the_database(pipeline: RealPipeline) -> None:
    """The initial snapshot (op r) of every table, both landing forms, equals the database."""
    pipeline.run_batch()
    for source in SOURCES:
        assert pipeline.gold_rows(source, "customers"), f"{source.database}: nothing captured"
    pipeline.assert_gold_equals_database()


def test_streamed_batches_give_the_database(pipeline: RealPipeline) -> None:
    """Two streamed batches (inserts, updates of every type, a key update, deletes, TOASTed
    text left unchanged on DEFAULT and FULL identity tables, a keyless table, TRUNCATE, a
    rolled-back transaction, ADD then DROP COLUMN), each built incrementally: gold equals the
    database after each."""
    for _ in range(2):
        pipeline.run_batch()
        pipeline.assert_gold_equals_database()


def test_a_capture_killed_mid_batch_and_restarted(pipeline: RealPipeline) -> None:
    """The capture's JVM ends at once after landing a few records of a batch (its offsets of
    them not committed); the restarted capture emits them again, at new Kafka offsets, as a
    real connector does (at least once): gold still equals the database."""
    landed = pipeline.run_batch(halt_after=3)
    for database, files in landed.items():
        changes = [
            _change_identity(line) for path in files for line in Path(path).read_text().splitlines()
        ]
        changes = [change for change in changes if change is not None]
        assert len(changes) > len(set(changes)), f"{database}: nothing landed twice in {files}"
    pipeline.assert_gold_equals_database()


def _change_identity(line: str) -> str | None:
    """A landed change as the database made it (op, source LSN, images), without the
    capture's processing time: what a re-emission repeats. None for a tombstone."""
    value = json.loads(line)
    if isinstance(value, dict) and "topic" in value:  # a kcat record
        value = None if value["payload"] is None else json.loads(value["payload"])
    if value is None:
        return None
    payload = value.get("payload", value) if "schema" in value else value
    source = payload.get("source") or {}
    return json.dumps(
        [payload.get("op"), source.get("lsn"), payload.get("before"), payload.get("after")]
    )


def test_a_restarted_database_and_files_landed_twice(pipeline: RealPipeline) -> None:
    """The server restarted between the workload and the capture, and every file landed so
    far delivered again under another folder (same names, same lines): gold still equals
    the database."""
    for source in SOURCES:
        again = pipeline.project.landing / f"{source.database}-again"
        shutil.copytree(pipeline.landing(source), again)
    pipeline.run_batch(restart=True)
    pipeline.assert_gold_equals_database()

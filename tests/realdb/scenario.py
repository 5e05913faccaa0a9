"""What the real-database modules share: their pipeline, built in the module's warehouse,
and the checks every batch ends with."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.conftest import DbtProject
from workbench.realdb.mariadb import MariaDbServer
from workbench.realdb.pipeline import RealPipeline, Source
from workbench.realdb.postgres import PostgresServer

# each landing form: sink files with schemas on and off, kcat records (schemas off)
SOURCES = (
    Source("shop", True, "sink"),
    Source("shop_plain", False, "sink"),
    Source("shop_kcat", False, "kcat"),
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

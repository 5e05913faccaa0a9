"""`make demo-postgres`: a throwaway PostgreSQL, a short workload, real Debezium, gold checked.

It starts PostgreSQL from the binaries on the machine (Debian: `apt-get install postgresql`),
runs two batches of the seeded workload (workbench.realdb.workload), captures each with
Debezium's embedded engine (capture/, built by `make setup`) into `landing/postgres-demo/`,
builds captured_rows with dbt, and compares every table's current rows in gold with
`SELECT *` on the database. It runs under its own schema prefix (`CDC_SCHEMA`, default
`pgdemo`) and starts again on every run; the server is stopped and removed at the end.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import REPO_ROOT, get_local_spark
from workbench.consumer import CONSUMER_DIR, link_package
from workbench.progress import Progress
from workbench.realdb.capture import CaptureUnavailable, build
from workbench.realdb.pipeline import RealPipeline, declared_keys
from workbench.realdb.postgres import PostgresMissing, PostgresServer, find_bin_dir
from workbench.realdb.source import Source

SOURCES = (Source("shop", True, "sink"),)


def main() -> int:
    link_package(CONSUMER_DIR)
    progress = Progress("demo-postgres")
    try:
        bin_dir = find_bin_dir()
        build()
    except (PostgresMissing, CaptureUnavailable) as exc:
        progress.say(str(exc))
        return 1
    schema = os.environ.setdefault("CDC_SCHEMA", "pgdemo")
    landing = REPO_ROOT / "landing" / "postgres-demo"
    shutil.rmtree(landing, ignore_errors=True)
    landing.mkdir(parents=True)
    os.environ["CDC_LANDING_DIR"] = str(landing)
    with progress.step("starting Spark (local session, shared with dbt)"):
        spark = get_local_spark()
    for layer in ("bronze", "silver", "gold"):
        spark.sql(f"drop database if exists {schema}_{layer} cascade")
    failures = 0
    with PostgresServer(bin_dir=bin_dir) as pg, tempfile.TemporaryDirectory() as state:
        progress.say(f"PostgreSQL {pg.sql('show server_version')[0]} on 127.0.0.1:{pg.port}")
        pipeline = RealPipeline(
            pg,
            SOURCES,
            landing,
            Path(state),
            build=lambda args: run_dbt(
                args,
                vars={"cdc_table_keys": declared_keys(SOURCES)},
                project_dir=CONSUMER_DIR,
            ),
            sql=lambda query: [row.asDict() for row in spark.sql(query).collect()],
            schema_prefix=schema,
        )
        for batch in range(2):
            kind = "snapshot" if batch == 0 else "streamed"
            with progress.step(f"batch {batch} ({kind}): workload, Debezium capture, dbt build"):
                landed = pipeline.run_batch()
            files = sum(len(paths) for paths in landed.values())
            progress.say(f"batch {batch}: Debezium landed {files} files under {landing}")
            found = pipeline.differences()
            verdict = "equals" if not found else "DIFFERS FROM"
            print(f"batch {batch}: gold {verdict} SELECT * on the database")
            for difference in found[:20]:
                print(f"  {difference}")
            failures += bool(found)
    spark.sql(
        f"select _cdc_source_id, count(*) as rows from {schema}_gold.captured_rows "
        "group by 1 order by 1"
    ).show(truncate=False)
    progress.say("finished" + (f": {failures} check(s) failed" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

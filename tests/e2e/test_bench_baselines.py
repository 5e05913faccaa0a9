"""The bench's hand-written PySpark jobs hold the simulated sources' rows (correctness
only: the bench times them): the full job, its state applying an increment on parquet and
on Delta, then a second increment that deletes every row of one table (whose partition the
parquet job must remove: an overwrite only replaces partitions that receive rows).

A process of its own: the Delta state needs Delta's session extension and jars, a static
setting the workers' sessions lack; one session runs every job, one JVM start.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.bench_oracle import Expected, Landing, differences, make_landing, state_rows
from tests.conftest import process_env
from workbench import bench
from workbench.bench import anchor_check, duckdb_anchor
from workbench.bench.anchor_check import AnchorState
from workbench.bench.anchors import check_groups
from workbench.bench.baseline import partition_path

JOBS = """
import shutil, sys
from pathlib import Path
from workbench.bench import baseline as b
from workbench.bench.anchor_check import export_delta
from workbench.bench.steps import Workspace

ws = Workspace(Path(sys.argv[1]))
second = ws.root / "increment2"
spark = b.baseline_spark("delta")
b.baseline_job(spark, ws.landing, ws.baseline_out)
b.prepare_states(spark, ws.baseline_out, ws.parquet_state, ws.delta_state)
b.incremental_parquet_job(spark, ws.anchor_increment, ws.parquet_state)
b.incremental_delta_job(spark, ws.anchor_increment, ws.delta_state)
export_delta(spark, ws.delta_state, ws.delta_export)
shutil.copytree(ws.parquet_state, ws.root / "parquet-1")
shutil.copytree(ws.delta_export, ws.root / "delta-1")
b.incremental_parquet_job(spark, second, ws.parquet_state)
b.incremental_delta_job(spark, second, ws.delta_state)
export_delta(spark, ws.delta_state, ws.root / "delta-2")
spark.stop()
"""


def _delete_every_row(landing: Landing, folder: Path) -> tuple[tuple[str, str, str], Expected]:
    """An increment deleting every row of one Oracle table that was never truncated
    (Debezium delete messages after every position so far), and the rows expected after
    it."""
    truncated = {
        (row["source_db"], row["source_schema"], row["source_table"])
        for row in state_rows(
            f"({duckdb_anchor.current_sql(duckdb_anchor.changes_sql(landing.everything))})"
        )
        if row["op"] == "t"
    }
    tables = sorted(
        {
            (db, schema, table)
            for (db, schema, table, _) in landing.after
            if "oracle" in db and (db.upper(), schema.upper(), table) not in truncated
        }
    )
    db, schema, table = tables[0]
    lines = []
    for (row_db, row_schema, row_table, _), row in landing.after.items():
        if (row_db, row_schema, row_table) != (db, schema, table):
            continue
        source = {
            "db": db.upper(),
            "schema": schema.upper(),
            "table": table.upper(),
            "scn": "9" * 25,
            "commit_scn": "9" * 25,
            "snapshot": "false",
        }
        lines.append(
            json.dumps({"before": dict(row.image), "after": None, "source": source, "op": "d"})
        )
    folder.mkdir(parents=True)
    (folder / "deletes.json").write_text("\n".join(lines) + "\n")
    after = {k: v for k, v in landing.after.items() if k[:3] != (db, schema, table)}
    assert len(after) < len(landing.after)
    return (db.upper(), schema.upper(), table), after


def test_the_hand_written_jobs_hold_the_sources_rows(tmp_path: Path) -> None:
    landing = make_landing(tmp_path / "sources")
    ws = bench.Workspace(tmp_path / "n3000")
    shutil.copytree(landing.landing, ws.landing)
    shutil.copytree(landing.increment, ws.anchor_increment)
    emptied, after_second = _delete_every_row(landing, ws.root / "increment2")
    log = tmp_path / "jobs.log"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-c", JOBS, str(ws.root)],
            env=process_env(tmp_path / "spark-home", "bench", ws.landing),
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=900,
            check=False,
        )
    assert done.returncode == 0, log.read_text(errors="replace")[-4000:]

    def rows(folder: Path) -> list[dict[str, object]]:
        return state_rows(AnchorState(folder.name, "parquet", folder).relation())

    assert differences(rows(ws.baseline_out), landing.before) == []
    assert differences(rows(ws.root / "parquet-1"), landing.after) == []
    assert differences(rows(ws.root / "delta-1"), landing.after) == []
    # the second increment: every row of one table gone, its partition removed
    assert differences(rows(ws.parquet_state), after_second) == []
    assert differences(rows(ws.root / "delta-2"), after_second) == []
    assert (partition_path(ws.parquet_state, emptied)).parent.is_dir()
    assert not partition_path(ws.parquet_state, emptied).exists()

    # the bench's check of the workspace: DuckDB's states beside the jobs', and DuckDB's
    # full run over everything landed as the reference
    con = duckdb_anchor.connect(ws.duckdb_state)
    duckdb_anchor.full_run(con, ws.landing)
    con.close()
    shutil.copyfile(ws.duckdb_state, ws.duckdb_full_state)
    con = duckdb_anchor.connect(ws.duckdb_state)
    duckdb_anchor.incremental_run(con, ws.anchor_increment)
    con.close()
    shutil.rmtree(ws.parquet_state)
    shutil.copytree(ws.root / "parquet-1", ws.parquet_state)  # (delta_export: the first's)
    reference = duckdb_anchor.current_sql(duckdb_anchor.changes_sql(landing.everything))
    check = anchor_check.check_states(check_groups(ws, delta=True), {"incremental": reference})
    assert check["equal"] is True, anchor_check.check_lines(check)
    assert set(check["groups"]["incremental"]["rows"]) == {
        "reference",
        "baseline-incremental",
        "baseline-incremental-delta",
        "duckdb-incremental",
    }
    assert set(check["groups"]["incremental"]["rows"].values()) == {len(landing.after)}

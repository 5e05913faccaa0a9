"""Write the local Spark driver's class-data-sharing archive (`make setup` runs this).

`python -m workbench.speedups.build` starts one Spark session with the `local` profile's
settings in a scratch Spark home, runs the kinds of statements a `dbt build` runs (Hive
metastore reads and writes, parquet tables, JSON parsing, windows, joins, views, a binary
file listing; with and without generated code), stops, and lets the JVM write every class it
loaded into the archive that `workbench.speedups.jvm_class_archive` names. Every later local
session maps those classes instead of loading them (see that module). It does nothing when
the archive exists; `--force` writes it again. A failure here is a warning: sessions start
without the archive, as they always could.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from workbench.speedups import jvm_class_archive, local_filesystem

# What a build does, in small: each statement loads the classes of its kind of work.
WARM_UP_STATEMENTS: tuple[str, ...] = (
    "create database if not exists warm_up",
    "create table warm_up.messages using parquet tblproperties ('cdc.read_through' = 'x') as "
    "select id, cast(id % 7 as string) as k, "
    "to_json(named_struct('op', 'u', 'after', named_struct('id', id, 'v', array(id, id)), "
    "'source', named_struct('ts_ms', id * 1000))) as raw_line, "
    "current_timestamp() as _loaded_at from range(200)",
    "alter table warm_up.messages set tblproperties ('cdc.written_by' = 'warm-up')",
    "show tblproperties warm_up.messages",
    "describe extended warm_up.messages",
    "show table extended in warm_up like '*'",
    "show tables in warm_up",
    "show views in warm_up",
    "show functions",
    "create or replace view warm_up.parsed as "
    "select id, k, from_json(raw_line, 'op string, after map<string, string>, "
    "source struct<ts_ms: bigint>') as m, get_json_object(raw_line, '$.after.v[0]') as v0, "
    "sha2(raw_line, 256) as h, _loaded_at from warm_up.messages",
    "create table warm_up.latest using parquet partitioned by (b) as "
    "select id, k, m.op, m.after, m.source.ts_ms, v0, h, pmod(hash(k), 4) as b from ("
    "select *, row_number() over (partition by k order by m.source.ts_ms desc, id) as rn "
    "from warm_up.parsed) where rn = 1",
    "create table warm_up.state like warm_up.latest",
    "insert overwrite table warm_up.state partition (b) "
    "select l.id, l.k, l.op, l.after, l.ts_ms, l.v0, l.h, l.b from warm_up.latest as l "
    "left anti join (select k from warm_up.parsed where id < 3) as d on l.k = d.k "
    "union all select id, cast(id as string), 'd', map('id', cast(id as string)), 0, null, "
    "null, 0 from range(2) lateral view explode(array(1)) as x",
    "select k, count(*), max(ts_ms), collect_list(op), regexp_extract(max(h), '([0-9]+)', 1) "
    "from warm_up.state group by k having count(*) > 0 order by k",
    "select count(*) from warm_up.messages where _loaded_at > timestamp'2000-01-01 00:00:00'",
)


def binary_file_statements(folder: Path) -> tuple[str, ...]:
    """A landing folder read as bronze reads it: a binaryFile listing, lines split."""
    (folder / "part-0.json").write_text('{"op": "c", "after": {"id": 1}}\n{"op": "d"}\n')
    return (
        "create or replace temporary view warm_up_files using binaryFile "
        f"options (path '{folder}', recursiveFileLookup 'true', pathGlobFilter '*')",
        "select path, posexplode(split(cast(content as string), '\\n')) from warm_up_files",
    )


def write_archive(target: Path, conf: dict[str, str]) -> float:
    """Run the warm-up in a JVM that writes `target` at exit; returns the seconds taken."""
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="cdc-jvm-archive-"))
    os.environ["CDC_SPARK_HOME"] = str(scratch / "spark-home")
    os.environ[jvm_class_archive.ENABLED_ENV] = "false"  # the hook must not map an old one
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    conf = dict(conf)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    conf[jvm_class_archive.JAVA_OPTIONS_KEY] = jvm_class_archive.with_java_option(
        conf, jvm_class_archive.dump_options(partial)
    )
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    statements = WARM_UP_STATEMENTS + binary_file_statements(scratch)
    for codegen in ("true", "false"):  # the suite runs without generated code, builds with
        spark.conf.set("spark.sql.codegen.wholeStage", codegen)
        spark.conf.set(
            "spark.sql.codegen.factoryMode", "FALLBACK" if codegen == "true" else "NO_CODEGEN"
        )
        spark.sql("drop database if exists warm_up cascade")
        for statement in statements:
            spark.sql(statement).collect()
    gateway = spark.sparkContext._gateway
    spark.stop()
    process = getattr(gateway, "proc", None)
    if process is not None:  # the JVM writes the archive as it exits: wait for it
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=300)
    shutil.rmtree(scratch, ignore_errors=True)
    if not partial.is_file() or partial.stat().st_size == 0:
        raise RuntimeError(f"the JVM wrote no archive at {partial}")
    partial.replace(target)
    return time.monotonic() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.speedups.build", description=__doc__)
    parser.add_argument("--force", action="store_true", help="write the archive even if it exists")
    args = parser.parse_args(argv)
    import pyspark

    from cdc_tools.local_spark import local_spark_conf

    # the local file system's jar first (workbench.speedups.local_filesystem): it is on the class
    # path of every local session once built, so the archive is written with it
    said = local_filesystem.build()[1]
    if said:
        print(f"local file system: {said}")
    conf = local_spark_conf()
    local_filesystem.use(conf)
    target = jvm_class_archive.archive_path(conf, pyspark.__version__)
    if target is None:
        print("JVM class archive: off (CDC_JVM_CLASS_ARCHIVE) or no java on PATH")
        return 0
    if target.is_file() and not args.force:
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"JVM class archive: writing {target} (once; Spark sessions start faster with it) ...")
    try:
        seconds = write_archive(target, conf)
    except Exception as exc:  # noqa: BLE001 - sessions still start without it
        print(f"JVM class archive: not written ({exc!r}); Spark starts without it", file=sys.stderr)
        return 0
    print(f"JVM class archive: written in {seconds:.0f} s ({target.stat().st_size >> 20} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

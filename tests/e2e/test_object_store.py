"""Landing and warehouse on object storage: bronze reads `s3a://` as it reads a local folder,
and gold on Delta lives in the bucket, against a real S3-compatible server.

A build of its own, in a process of its own: the `s3` target's session (Delta's catalog, the
S3A connector's jars and settings) is static, and this worker's session is on `local`. One
s3proxy server (tests/s3_server.py, on 127.0.0.1, its buckets in a temporary folder) holds the
landing and the warehouse; the process (tests/e2e/object_store_scenario.py) lands two batches
of two simulated sources (plain and gzip-compressed sink files, a heartbeat topic's file) and
the bad files of tests/e2e/test_bad_input.py, builds each batch, compares gold with the
simulator's oracle and reports what the bucket and the warehouse hold.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env
from tests.e2e.object_store_scenario import DATABASES, HEARTBEAT
from tests.e2e.test_bad_input import EMPTY, LEAKED, MARKERS, UNREADABLE

pytestmark = pytest.mark.spark

BUCKET = "cdc"
LANDING = f"s3a://{BUCKET}/landing"
WAREHOUSE = f"s3a://{BUCKET}/warehouse"
SCENARIO_TIMEOUT_S = 1500


@pytest.fixture(scope="module")
def report(s3_server, tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """The scenario's process on the `s3` target, its landing and warehouse in the bucket."""
    work = tmp_path_factory.mktemp("object_store")
    s3_server.client().create_dir(BUCKET)
    env = process_env(
        work / "spark",
        "t_object_store",
        work / "unused-local-landing",
        DBT_TARGET="s3",
        CDC_GOLD_FILE_FORMAT="delta",
        CDC_LANDING_DIR=LANDING,
        CDC_WAREHOUSE_DIR=WAREHOUSE,
        PYTHONUNBUFFERED="1",
        **s3_server.env(),
    )
    log = work / "scenario.log"
    with log.open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "tests.e2e.object_store_scenario", str(work)],
            env=env,
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=out,
            timeout=SCENARIO_TIMEOUT_S,
            check=False,
        )
    lines = [
        line
        for line in done.stdout.decode(errors="replace").splitlines()
        if line.startswith("OBJECT_STORE_REPORT ")
    ]
    assert done.returncode == 0 and lines, log.read_text(errors="replace")[-6000:]
    return dict(json.loads(lines[-1].removeprefix("OBJECT_STORE_REPORT ")))


@pytest.mark.parametrize("batch", ["batch0", "batch1"])
def test_gold_equals_the_oracle_after_each_batch(report, batch: str) -> None:  # type: ignore[no-untyped-def]
    """Both sources' gold (captured_rows, customers, orders, order_lines), built from the
    bucket's files into the bucket's warehouse, equals the simulated source: after the
    first build and after the incremental one."""
    assert report[batch]["differences"] == {database: [] for database in DATABASES}


def test_the_warehouse_is_in_the_bucket_with_gold_on_delta(report) -> None:  # type: ignore[no-untyped-def]
    """Every table the builds made lives under the warehouse's `s3a://` URI; gold's states
    are Delta tables that the incremental build MERGEd into; bronze's parquet files were
    committed by the S3A magic committer (its `_SUCCESS` summary names it), not by renames."""
    tables = {name: t for name, t in report["tables"].items() if t["type"] != "VIEW"}
    assert tables and all(str(t["location"]).startswith(WAREHOUSE + "/") for t in tables.values())
    states = {name: t for name, t in tables.items() if name.endswith("__cdc_state")}
    assert {n.rsplit(".", 1)[1] for n in states} >= {
        f"{model}__cdc_state" for model in ("captured_rows", "customers", "orders", "order_lines")
    }, sorted(tables)
    for name, state in states.items():
        assert state["provider"] == "delta", (name, state)
        assert "MERGE" in state["operations"], (name, state)
    bronze = tables["t_object_store_bronze.bronze_cdc_messages"]
    assert bronze["provider"] == "parquet", bronze
    assert report["bronze_success"].get("committer") == "magic", report["bronze_success"]


def test_every_bad_file_is_quarantined_by_name(report) -> None:  # type: ignore[no-untyped-def]
    """A gzip file cut short, a bzip2 file with a damaged block and a zstd frame cut short
    are each one quarantined row (`unreadable_file`, its size in the bucket); the zero-byte
    object is `empty_file`; nothing else is quarantined as a file, no line of theirs is kept,
    and the build says so, naming each by its `s3a://` path."""
    quarantined = report["batch0"]["quarantined"]
    assert set(quarantined) == {*UNREADABLE, EMPTY}, quarantined
    sizes = report["batch0"]["sizes"]
    for name in UNREADABLE:
        row = quarantined[name]
        assert row["_source_file"] == f"{LANDING}/bad/files/{name}", row
        assert (row["reason_code"], row["_source_line"]) == ("unreadable_file", 0), row
        assert f"{sizes[f'bad/files/{name}']} bytes" in str(row["raw_line"]), row
    empty = quarantined[EMPTY]
    assert empty["_source_file"] == f"{LANDING}/bad/files/{EMPTY}", empty
    assert (empty["reason_code"], empty["_source_line"]) == ("empty_file", 0), empty
    bronze = report["batch0"]["bronze"]
    for name in (*UNREADABLE, EMPTY):
        assert bronze[f"bad/files/{name}"]["lines"] == 1, "one row per file, no line kept"
    warning = report["batch1"]["warning"]
    assert warning["status"] == "warn", warning
    for name in UNREADABLE:
        [named] = [
            m
            for m in warning["messages"]
            if f"{LANDING}/bad/files/{name} could not be read whole" in m
        ]
        assert named.startswith("unreadable_file: the file "), named
    [named] = [m for m in warning["messages"] if f"{LANDING}/bad/files/{EMPTY} " in m]
    assert named.startswith("empty_file: the file "), named
    assert "is empty (no bytes, or no records;" in named, named


def test_a_hidden_heartbeat_file_loads_and_markers_are_ignored(report) -> None:  # type: ignore[no-untyped-def]
    """The sink's file of the `__debezium-heartbeat.<server>` topic, a name Spark's listing
    of the bucket skips, is listed and read through Hadoop's FileSystem API (S3A): its lines
    load with their topic, partition and offsets and are read as heartbeats. The markers
    (`_SUCCESS`, a `.crc`, `_temporary/`, a Flink in-progress part) are neither loaded nor
    quarantined."""
    rows = report["heartbeat"]
    topic = HEARTBEAT.split("+", 1)[0]
    assert [(r["_kafka_topic"], r["_kafka_partition"], r["_kafka_offset"]) for r in rows] == [
        (topic, 0, 0),
        (topic, 0, 1),
    ]
    assert {r["_source_file"] for r in rows} == {f"{LANDING}/{DATABASES[0]}/{HEARTBEAT}"}
    assert report["heartbeat_kinds"] == ["heartbeat"]
    loaded = report["batch1"]["bronze"]
    for marker in MARKERS:
        assert f"bad/{marker}" in report["batch0"]["sizes"], marker  # it was in the bucket
        assert f"bad/{marker}" not in loaded, marker


def test_compressed_files_load_and_only_new_files_are_read(report) -> None:  # type: ignore[no-untyped-def]
    """The gzip-compressed source's files load decompressed (its gold equals the oracle,
    above). The incremental build reads only what is new: every file version in bronze was
    loaded once, batch 0's files keep the lines they had, the zero-byte file is not read
    again, and the readable copy that replaced the truncated gzip file loads whole beside
    its quarantined first version."""
    first, second = report["batch0"]["bronze"], report["batch1"]["bronze"]
    compressed = [name for name in first if name.startswith(DATABASES[1]) and name.endswith(".gz")]
    assert len(compressed) >= 3, sorted(first)
    for name, counts in second.items():
        assert counts["loads"] == counts["versions"], (name, counts)
    for name, counts in first.items():
        if name != "bad/files/truncated.json.gz":
            assert second[name] == counts, (name, counts, second[name])
    assert second["bad/files/truncated.json.gz"] == {
        "lines": 1 + LEAKED.count(b"\n"),
        "versions": 2,
        "loads": 2,
    }
    assert second[f"bad/files/{EMPTY}"] == {"lines": 1, "versions": 1, "loads": 1}
    new = {name for name in report["batch1"]["sizes"]} - {"bad/files/truncated.json.gz"}
    assert new and new <= set(second) and not new & set(first)

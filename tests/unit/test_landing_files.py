"""The landing files Spark's listing skips, and their bytes: the Java UDFs of
cdc_tools/jvm/CdcLandingFiles.java (Hadoop's FileSystem API) on the shared local session.
Their run on object storage: tests/e2e/test_object_store.py."""

from __future__ import annotations

import bz2
import gzip
import os
import zlib
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

pytestmark = pytest.mark.spark

REPO_ROOT = Path(__file__).resolve().parents[2]
# the package's defaults table (macros/utils/cdc_var.sql): YAML between its set tags
_DEFAULTS = (REPO_ROOT / "macros/utils/cdc_var.sql").read_text()
IGNORED = tuple(
    yaml.safe_load(_DEFAULTS.split("{%- set defaults -%}")[1].split("{%- endset -%}")[0])[
        "cdc_landing_ignored_names"
    ]
)


def _land(folder: Path) -> None:
    files = {
        "plain+0+0000.json": b'{"a": 1}\n',
        "__debezium-heartbeat.srv+0+0000.json": b'{"ts_ms": 1}\n',
        ".hidden.json": b'{"a": 2}\n',
        "_folder/inside.json": b'{"a": 3}\n',
        "events/zero.json": b"",
        "events/_SUCCESS": b"",
        "events/.part-0.json.crc": b"crc",
        "_temporary/0/_temporary/attempt/part-0.json": b'{"a": 4}\n',
        "flink/.part-0-1.inprogress.8f2c": b'{"a": 5}\n',
        "+tmp/topic/partition=0/tmp.json": b'{"a": 6}\n',
        ".gitkeep": b"",
        "_committed_123": b"{}",
        "year=2026/_p=1/x.json": b'{"a": 7}\n',
        "_metadata": b"parquet's",
    }
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def _sql_list(names: tuple[str, ...]) -> str:
    return "array(" + ", ".join(f"'{name}'" for name in names) + ")"


def _unlisted(spark, folder: str, glob: str = "*", ignored=IGNORED) -> list[dict]:  # type: ignore[no-untyped-def]
    query = f"select inline(cdc_landing_unlisted_files('{folder}', '{glob}', {_sql_list(ignored)}))"
    return [row.asDict() for row in spark.sql(query).collect()]


def _content(spark, path: str) -> dict:  # type: ignore[no-untyped-def]
    [row] = spark.sql(f"select cdc_landing_file_content('{path}') as c").collect()
    return row["c"].asDict()


def test_unlisted_files_are_the_hidden_and_the_empty_but_no_marker(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Spark's own rule (HadoopFSUtils.shouldFilterOutPathName, and its index's for data
    files) on every part of the path under the folder (a partition folder `_p=1` is not
    hidden, a file `_metadata` is), zero-byte files, and no file under a marker
    (`cdc_landing_ignored_names`)."""
    _land(tmp_path)
    found = _unlisted(spark, str(tmp_path))
    names = [str(Path(f["path"].removeprefix("file:")).relative_to(tmp_path)) for f in found]
    assert names == [
        ".hidden.json",
        "__debezium-heartbeat.srv+0+0000.json",
        "_folder/inside.json",
        "_metadata",
        "events/zero.json",
    ]
    assert all(f["path"].startswith("file:/") for f in found)
    assert [f["length"] for f in found] == [9, 13, 9, 9, 0]
    stat = (tmp_path / ".hidden.json").stat()
    assert found[0]["modificationtime"].timestamp() == stat.st_mtime_ns // 1_000_000 / 1000
    # a file: URI names the same folder; a name glob filters file names (pathGlobFilter's)
    json_files = [f for f in found if f["path"].endswith(".json")]
    assert _unlisted(spark, f"file://{tmp_path}", "*.json") == json_files
    assert len(_unlisted(spark, str(tmp_path), "_*")) == 2  # the heartbeat, `_metadata`
    # without markers every hidden or empty file is listed, those under `_temporary` too
    # (but the `.crc` file: Hadoop's local file system hides its checksum files from every
    # listing, Spark's too)
    assert len(_unlisted(spark, str(tmp_path), ignored=())) == 10


def test_the_hidden_files_are_those_spark_does_not_list(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What Spark's listing (binaryFile, recursive) gives and what the UDF gives, without
    markers, are every file of the folder, once (but Hadoop's checksum files, which its
    local file system lists to no one)."""
    _land(tmp_path)
    listed = {
        row["path"]
        for row in spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(str(tmp_path))
        .select("path")
        .collect()
    }
    unlisted = {f["path"] for f in _unlisted(spark, str(tmp_path), ignored=())}
    every = {
        f"file:{path}" for path in tmp_path.rglob("*") if path.is_file() and path.suffix != ".crc"
    }
    assert not listed & unlisted
    assert listed | unlisted == every


def test_a_missing_folder_has_no_unlisted_files(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert _unlisted(spark, str(tmp_path / "missing")) == []


def test_read_file_decompresses_by_extension_and_says_why_not(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = b'{"a": 1}\n' * 100
    (tmp_path / "_a.json.gz").write_bytes(gzip.compress(data))
    (tmp_path / "_a.json.bz2").write_bytes(bz2.compress(data))
    (tmp_path / "_a.json.deflate").write_bytes(zlib.compress(data))
    (tmp_path / "_a.json.zst").write_bytes(pa.compress(data, codec="zstd", asbytes=True))
    (tmp_path / "_a.json").write_bytes(data)
    (tmp_path / "_a.json.lz4").write_bytes(b"\x04\x22\x4d\x18 kept as it is")
    for name in ("_a.json.gz", "_a.json.bz2", "_a.json.deflate", "_a.json.zst", "_a.json"):
        assert _content(spark, f"file:{tmp_path / name}") == {"content": data, "error": None}
    # an extension bronze reads whole (.lz4, .snappy) is not decompressed
    assert _content(spark, f"file:{tmp_path}/_a.json.lz4")["content"].startswith(b"\x04\x22")
    varied = b"".join(b'{"n": %d}\n' % (n * 7919 % 100003) for n in range(5000))
    compressed = gzip.compress(varied)
    (tmp_path / "_cut.json.gz").write_bytes(compressed[: len(compressed) // 2])
    cut = _content(spark, f"file:{tmp_path}/_cut.json.gz")
    assert cut["content"] is None and cut["error"].startswith("EOFException: ")
    gone = _content(spark, f"file:{tmp_path}/_gone.json")
    assert gone["content"] is None and gone["error"].startswith("FileNotFoundException: ")


def test_symbolic_links_keep_their_path(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Paths are absolute as Hadoop makes them, links not resolved: they must equal the
    names Spark's listing gives the same files."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "_x.json").write_bytes(b"{}\n")
    os.symlink(tmp_path / "real", tmp_path / "link")
    [found] = _unlisted(spark, str(tmp_path / "link"))
    assert found["path"] == f"file:{tmp_path}/link/_x.json"

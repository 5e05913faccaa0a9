"""python_udfs.landing_files: the landing files Spark's listing skips, and their bytes."""

from __future__ import annotations

import bz2
import gzip
import os
import zlib
from pathlib import Path

import yaml

from python_udfs.landing_files import (
    IGNORED_NAMES,
    is_hidden_from_spark,
    is_ignored,
    read_file,
    unlisted_files,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


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
    }
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def test_spark_hides_what_hadoop_hides() -> None:
    """Spark's rule (HadoopFSUtils.shouldFilterOutPathName) on any part of the path."""
    assert is_hidden_from_spark(("__debezium-heartbeat.srv+0+0.json",))
    assert is_hidden_from_spark((".hidden.json",))
    assert is_hidden_from_spark(("_folder", "inside.json"))
    assert not is_hidden_from_spark(("plain.json",))
    assert not is_hidden_from_spark(("_p=1", "x.json"))  # a partition folder
    assert not is_hidden_from_spark(("_metadata",))


def test_unlisted_files_are_the_hidden_and_the_empty_but_no_marker(tmp_path: Path) -> None:
    _land(tmp_path)
    found = unlisted_files(str(tmp_path))
    names = [str(Path(f["path"].removeprefix("file:")).relative_to(tmp_path)) for f in found]
    assert names == [
        ".hidden.json",
        "__debezium-heartbeat.srv+0+0000.json",
        "_folder/inside.json",
        "events/zero.json",
    ]
    assert all(f["path"].startswith("file:/") for f in found)
    assert [f["length"] for f in found] == [9, 13, 9, 0]
    # a file: URI names the same folder; a name glob filters file names
    assert unlisted_files(f"file://{tmp_path}", "*.json") == found
    assert len(unlisted_files(str(tmp_path), "_*")) == 1


def test_other_file_systems_are_not_listed(tmp_path: Path) -> None:
    assert unlisted_files("s3a://bucket/landing") == []
    assert unlisted_files(str(tmp_path / "missing")) == []


def test_the_markers_are_ignored_in_any_part_of_the_path() -> None:
    assert is_ignored(("events", "_SUCCESS"))
    assert is_ignored(("_temporary", "0", "part-0.json"))
    assert is_ignored(("flink", ".part-0-1.inprogress.8f2c"))
    assert is_ignored(("+tmp", "topic", "x.json"))
    assert not is_ignored(("__debezium-heartbeat.srv+0+0000.json",))


def test_the_ignored_names_match_the_package_var() -> None:
    """One list: dbt_project.yml's var `cdc_landing_ignored_names` is the default here."""
    project = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    assert tuple(project["vars"]["cdc_landing_ignored_names"]) == IGNORED_NAMES


def test_read_file_decompresses_by_extension_and_says_why_not(tmp_path: Path) -> None:
    data = b'{"a": 1}\n' * 100
    (tmp_path / "_a.json.gz").write_bytes(gzip.compress(data))
    (tmp_path / "_a.json.bz2").write_bytes(bz2.compress(data))
    (tmp_path / "_a.json.deflate").write_bytes(zlib.compress(data))
    (tmp_path / "_a.json").write_bytes(data)
    for name in ("_a.json.gz", "_a.json.bz2", "_a.json.deflate", "_a.json"):
        assert read_file("file:" + str(tmp_path / name)) == {"content": data, "error": None}
    varied = b"".join(b'{"n": %d}\n' % (n * 7919 % 100003) for n in range(5000))
    compressed = gzip.compress(varied)
    (tmp_path / "_cut.json.gz").write_bytes(compressed[: len(compressed) // 2])
    cut = read_file(str(tmp_path / "_cut.json.gz"))
    assert cut["content"] is None and cut["error"]
    gone = read_file(str(tmp_path / "_gone.json"))
    assert gone["content"] is None and "FileNotFoundError" in str(gone["error"])
    (tmp_path / "_a.json.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    assert "zst" in str(read_file(str(tmp_path / "_a.json.zst"))["error"])


def test_symbolic_links_keep_their_path(tmp_path: Path) -> None:
    """Paths are absolute as Hadoop makes them, links not resolved: they must equal the
    names Spark's listing gives the same files."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "_x.json").write_bytes(b"{}\n")
    os.symlink(tmp_path / "real", tmp_path / "link")
    [found] = unlisted_files(str(tmp_path / "link"))
    assert found["path"] == f"file:{tmp_path}/link/_x.json"

"""The landing files Spark's file sources never list, and their bytes.

Spark's file index skips every file or folder whose name starts with `_` or `.` (Hadoop's
hidden-file rule) and every zero-byte file, even when a path names it, and no option turns
that off in Spark 4.0. A Kafka Connect sink names a topic's files after the topic, so the
files of `__debezium-heartbeat.<server>` are such files, and an interrupted upload leaves a
zero-byte one. Bronze lists them with `unlisted_files` (SQL `cdc_landing_unlisted_files`)
and reads the hidden ones with `read_file` (SQL `cdc_landing_file_content`).

The markers that Hadoop, Spark and the sinks write on purpose are not data: `IGNORED_NAMES`
lists them, matched (as globs) against every part of a file's path under the landing
folder, and files under them are skipped. Plain Python runs here, so only a landing folder
on a file system this machine mounts (a path or a `file:` URI) is listed; for other schemes
(`s3a://`, `abfss://`, `hdfs://`) the list is empty and Spark's own listing is all.
"""

from __future__ import annotations

import bz2
import fnmatch
import gzip
import os
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict
from urllib.parse import unquote, urlparse

# Written on purpose, never data (docs/landing.md, "Files Spark hides"):
IGNORED_NAMES: tuple[str, ...] = (
    "_SUCCESS",  # Hadoop's FileOutputCommitter and Spark's writers: a job's success marker
    "_committed_*",  # Databricks' transactional commit protocol: a job's commit marker
    "_started_*",  # ... and its start marker
    "_temporary",  # FileOutputCommitter's attempt folder: files not committed yet
    "*.crc",  # Hadoop's checksum files (`.<name>.crc`) beside every file it writes
    "*._COPYING_",  # `hadoop fs -put`/`-cp` while it copies
    "*.inprogress*",  # Flink's FileSink and StreamingFileSink: a part file being written
    "*.pending",  # ... and one written, not yet committed
    "+tmp",  # Kafka Connect's HDFS sink: its temporary folder under `topics.dir`
    ".DS_Store",  # macOS Finder
    ".gitkeep",  # a placeholder that keeps an empty folder in git
    ".keep",
)
# Decompressed by extension, as Spark's text source does for the files it lists
CODECS = ("gz", "bz2", "deflate")


class LandingFile(TypedDict):
    path: str
    modificationtime: datetime
    length: int


def _local_folder(landing_dir: str) -> Path | None:
    parsed = urlparse(landing_dir)
    if parsed.scheme in ("", "file"):
        # absolute as Hadoop makes it (symbolic links kept), not resolved
        return Path(os.path.abspath(unquote(parsed.path) if parsed.scheme else landing_dir))
    if len(parsed.scheme) == 1:  # a Windows drive letter
        return Path(os.path.abspath(landing_dir))
    return None


def is_ignored(parts: tuple[str, ...], ignored: tuple[str, ...] = IGNORED_NAMES) -> bool:
    """Whether a file whose path under the landing folder has `parts` is a marker."""
    return any(fnmatch.fnmatchcase(part, pattern) for part in parts for pattern in ignored)


def is_hidden_from_spark(parts: tuple[str, ...]) -> bool:
    """Spark's rule (HadoopFSUtils.shouldFilterOutPathName) for any part of the path: a name
    starting with `.`, or with `_` but holding no `=` (partition folders), and not
    Parquet's `_metadata`/`_common_metadata`."""
    for part in parts:
        if part.startswith("_metadata") or part.startswith("_common_metadata"):
            continue
        if part.startswith(".") or (part.startswith("_") and "=" not in part):
            return True
    return False


def unlisted_files(
    landing_dir: str, name_glob: str = "*", ignored: tuple[str, ...] = IGNORED_NAMES
) -> list[LandingFile]:
    """Files under `landing_dir` (recursively) that Spark's listing skips: hidden by Spark's
    rule or zero bytes long, named to match `name_glob`, and not a marker. Paths are as
    Spark's `binaryFile` source names files (`file:/...`); sorted."""
    folder = _local_folder(landing_dir)
    if folder is None or not folder.is_dir():
        return []
    found: list[LandingFile] = []
    for root, folders, files in os.walk(folder):
        relative = Path(root).relative_to(folder).parts
        folders[:] = sorted(name for name in folders if not is_ignored((name,), ignored))
        for name in sorted(files):
            parts = (*relative, name)
            if is_ignored(parts, ignored) or not fnmatch.fnmatchcase(name, name_glob):
                continue
            path = Path(root) / name
            try:
                stat = path.stat()
            except OSError:  # vanished since the walk saw it
                continue
            if stat.st_size > 0 and not is_hidden_from_spark(parts):
                continue
            found.append(
                {
                    "path": "file:" + str(path),
                    # milliseconds, as Hadoop's local file system gives them
                    "modificationtime": datetime.fromtimestamp(
                        stat.st_mtime_ns // 1_000_000 / 1000, UTC
                    ),
                    "length": stat.st_size,
                }
            )
    return found


class FileContent(TypedDict):
    content: bytes | None
    error: str | None


def read_file(path: str) -> FileContent:
    """The bytes of a landing file (`file:/...` or a path), decompressed by its extension
    (`.gz`, `.bz2`, `.deflate`); `error` says why when it cannot be read whole (a codec
    that fails before the end, a vanished file, `.zst`, whose codec Python lacks here)."""
    local = _local_folder(path)
    if local is None:
        return {"content": None, "error": f"not on a local file system: {path}"}
    extension = local.name.rsplit(".", 1)[-1].lower() if "." in local.name else ""
    try:
        data = local.read_bytes()
        if extension == "gz":
            data = gzip.decompress(data)
        elif extension == "bz2":
            data = bz2.decompress(data)
        elif extension == "deflate":
            data = zlib.decompress(data)
        elif extension == "zst":
            return {"content": None, "error": "a hidden .zst file: no zstd codec here"}
    except (OSError, EOFError, ValueError, zlib.error) as error:
        return {"content": None, "error": f"{type(error).__name__}: {error}"}
    return {"content": data, "error": None}

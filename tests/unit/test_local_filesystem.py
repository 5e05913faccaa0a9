"""The local driver's file system sets file modes without a `chmod` process.

`workbench.speedups.local_filesystem` compiles `jvm/CdcLocalFileSystem.java` (`make setup`) and the
session hook puts it on every local session. The options a session gets are pinned without a
JVM; the last test reads the worker's own session (started by the hook, as every session of
the suite is): its file system is this one and the modes of what it writes are Hadoop's
(0755 folders, 0644 files under the usual umask), set without a process.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from workbench.speedups import jvm_class_archive, local_filesystem

LOCAL = {"spark.master": "local[2]", "spark.driver.extraClassPath": "/opt/a.jar"}


@pytest.fixture
def jar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A jar file where `jar_path` looks (a scratch folder; its content is not read)."""
    monkeypatch.setenv(jvm_class_archive.DIR_ENV, str(tmp_path))
    monkeypatch.delenv(local_filesystem.ENABLED_ENV, raising=False)
    path = local_filesystem.jar_path()
    assert path is not None and path.parent == tmp_path
    path.write_bytes(b"jar")
    return path


def test_a_local_session_gets_the_jar_and_its_file_system(jar: Path) -> None:
    options = dict(LOCAL)
    assert local_filesystem.use(options) == jar
    assert options[local_filesystem.CLASS_PATH_KEY] == os.pathsep.join(["/opt/a.jar", str(jar)])
    assert options[local_filesystem.FILE_SYSTEM_KEY] == local_filesystem.CLASS_NAME
    again = dict(options)
    assert local_filesystem.use(again) == jar and again == options, "not idempotent"


@pytest.mark.parametrize(
    "options",
    [
        {"spark.master": "spark://127.0.0.1:7077"},
        {**LOCAL, local_filesystem.FILE_SYSTEM_KEY: "org.example.MyFileSystem"},
    ],
    ids=["cluster", "file-system-set-by-the-user"],
)
def test_others_keep_their_options(jar: Path, options: dict[str, str]) -> None:
    before = dict(options)
    assert local_filesystem.use(options) is None
    assert options == before


@pytest.mark.parametrize("value", ["false", "0", "off"])
def test_it_can_be_turned_off(jar: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(local_filesystem.ENABLED_ENV, value)
    options = dict(LOCAL)
    assert local_filesystem.use(options) is None and options == LOCAL


def test_without_the_jar_nothing_changes(jar: Path) -> None:
    jar.unlink()
    options = dict(LOCAL)
    assert local_filesystem.use(options) is None and options == LOCAL


def test_without_javac_setup_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jvm_class_archive.DIR_ENV, str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))  # no javac, no jar
    monkeypatch.delenv("JAVA_HOME", raising=False)
    built, said = local_filesystem.build()
    assert built is None and "no javac or jar" in said
    assert not list(tmp_path.glob("*.jar"))


def test_the_sessions_of_the_suite_write_through_it(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With the JDK's tools, setup built the jar and the session uses it; with a JRE alone,
    nothing was built and Hadoop's own file system writes the same modes."""
    import shutil

    path = local_filesystem.jar_path()
    assert path is not None
    has_tools = bool(shutil.which("javac") and shutil.which("jar"))
    assert path.is_file() == has_tools, (
        f"javac and jar {'found' if has_tools else 'missing'}, {path} "
        f"{'missing: `make setup` compiles it' if has_tools else 'present'}"
    )
    jvm = spark._jvm  # type: ignore[attr-defined]
    hadoop = spark._jsc.hadoopConfiguration()  # type: ignore[attr-defined]
    used = jvm.org.apache.hadoop.fs.FileSystem.get(hadoop).getClass().getName()
    assert (used == local_filesystem.CLASS_NAME) == has_tools, used
    target = tmp_path / "written"
    spark.range(3).selectExpr("id", "id % 2 as part").write.partitionBy("part").parquet(  # type: ignore[attr-defined]
        f"file://{target}"
    )
    umask = os.umask(0)
    os.umask(umask)
    folders = [target, *(p for p in target.rglob("*") if p.is_dir())]
    files = [p for p in target.rglob("*") if p.is_file()]
    assert len(folders) == 3 and any(p.suffix == ".parquet" for p in files)
    assert {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o777 & ~umask}
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o666 & ~umask}


def test_the_hook_adds_the_jar_before_naming_the_archive(
    jar: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class archive is named by the class path: the hook puts the jar on it first, as
    `make setup` does before writing the archive (`workbench.speedups.build`)."""
    import pyspark
    from pyspark import SparkContext

    from cdc_tools import session_hook
    from workbench import speedups

    monkeypatch.delenv(jvm_class_archive.ENABLED_ENV, raising=False)
    with_jar = dict(LOCAL)
    local_filesystem.use(with_jar)
    archive = jvm_class_archive.archive_path(with_jar, pyspark.__version__)
    assert archive is not None and archive != jvm_class_archive.archive_path(
        LOCAL, pyspark.__version__
    )
    archive.write_bytes(b"archive")
    monkeypatch.setattr(SparkContext, "_gateway", None)
    monkeypatch.setattr(session_hook, "_JVM_PREPARERS", [speedups.prepare])
    builder: Any = SimpleNamespace(_options=dict(LOCAL))
    session_hook._prepare_the_jvm(builder)
    assert builder._options[local_filesystem.FILE_SYSTEM_KEY] == local_filesystem.CLASS_NAME
    java_options = builder._options.get("spark.driver.extraJavaOptions", "")
    assert f"-XX:SharedArchiveFile={archive}" in java_options

"""The driver's class-data-sharing archive: named by what it depends on, used only if present.

No JVM starts here: the archive's effect (a local session starts in about 4 s instead of 7)
is measured by `make bench`'s floor row; these tests pin which Java options a session gets.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cdc_tools import session_hook
from workbench import speedups
from workbench.speedups import jvm_class_archive

BASE = {"spark.driver.extraJavaOptions": "-XX:+UseParallelGC -Dderby.system.home=x"}


@pytest.fixture
def archive_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(jvm_class_archive.DIR_ENV, str(tmp_path))
    monkeypatch.delenv(jvm_class_archive.ENABLED_ENV, raising=False)
    if jvm_class_archive.java_executable() is None:
        pytest.fail("no java on PATH: Spark needs Java 17 (see `make check-java`)")
    return tmp_path


def test_the_name_follows_pyspark_java_and_the_class_path(archive_dir: Path) -> None:
    path = jvm_class_archive.archive_path(BASE, "4.0.1")
    assert path is not None and path.parent == archive_dir
    assert path == jvm_class_archive.archive_path(dict(BASE), "4.0.1"), "not stable"
    assert path != jvm_class_archive.archive_path(BASE, "4.0.2")
    with_jar = {**BASE, "spark.jars": "/opt/extra.jar"}
    assert path != jvm_class_archive.archive_path(with_jar, "4.0.1")


def test_no_archive_leaves_the_options_as_they_are(archive_dir: Path) -> None:
    options = dict(BASE)
    assert jvm_class_archive.use_archive(options, "4.0.1") is None
    assert options == BASE


def test_an_archive_is_added_after_the_profiles_options(archive_dir: Path) -> None:
    path = jvm_class_archive.archive_path(BASE, "4.0.1")
    assert path is not None
    path.write_bytes(b"archive")
    options = dict(BASE)
    assert jvm_class_archive.use_archive(options, "4.0.1") == path
    java_options = options["spark.driver.extraJavaOptions"]
    assert java_options.startswith(BASE["spark.driver.extraJavaOptions"] + " ")
    assert f"-XX:SharedArchiveFile={path}" in java_options.split()
    assert "-Xlog:cds=off" in java_options.split()


def test_an_empty_file_is_no_archive(archive_dir: Path) -> None:
    path = jvm_class_archive.archive_path(BASE, "4.0.1")
    assert path is not None
    path.write_bytes(b"")
    options = dict(BASE)
    assert jvm_class_archive.use_archive(options, "4.0.1") is None
    assert options == BASE


@pytest.mark.parametrize("value", ["false", "0", "off", "No"])
def test_it_can_be_turned_off(
    archive_dir: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    path = jvm_class_archive.archive_path(BASE, "4.0.1")
    assert path is not None
    path.write_bytes(b"archive")
    monkeypatch.setenv(jvm_class_archive.ENABLED_ENV, value)
    options = dict(BASE)
    assert jvm_class_archive.use_archive(options, "4.0.1") is None
    assert options == BASE


def test_the_dump_options_name_the_file() -> None:
    assert jvm_class_archive.dump_options(Path("/a/b.jsa")).split()[0] == (
        "-XX:ArchiveClassesAtExit=/a/b.jsa"
    )


def test_the_hook_adds_it_only_before_the_jvm_exists(
    archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyspark
    from pyspark import SparkContext

    path = jvm_class_archive.archive_path(BASE, pyspark.__version__)
    assert path is not None
    path.write_bytes(b"archive")
    monkeypatch.setattr(SparkContext, "_gateway", None)
    monkeypatch.setattr(session_hook, "_JVM_PREPARERS", [speedups.prepare])
    builder: Any = SimpleNamespace(_options=dict(BASE))
    session_hook._prepare_the_jvm(builder)
    assert f"-XX:SharedArchiveFile={path}" in builder._options["spark.driver.extraJavaOptions"]

    monkeypatch.setattr(SparkContext, "_gateway", object())  # a JVM runs: options are moot
    builder = SimpleNamespace(_options=dict(BASE))
    session_hook._prepare_the_jvm(builder)
    assert builder._options == BASE


def test_setup_wrote_the_archive_of_this_machine() -> None:
    """`make setup` (part of `make test`) writes it; under CI it must be there."""
    import pyspark

    from cdc_tools.local_spark import local_spark_conf
    from workbench.speedups import local_filesystem

    conf = local_spark_conf()
    local_filesystem.use(conf)  # as the session hook does: its jar is on the class path
    path = jvm_class_archive.archive_path(conf, pyspark.__version__)
    if os.environ.get("CI") != "true" and (path is None or not path.is_file()):
        pytest.skip("no archive here: run `make setup` (CI checks it)")
    assert path is not None and path.is_file() and path.stat().st_size > 0

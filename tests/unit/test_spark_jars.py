"""The pinned Spark packages: the lock is read whole, a complete folder costs no Maven call,
a wrong checksum is never kept, a missing Maven is named (and fails under CI=true), and the
profiles' jar glob reaches Spark as a list of files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from cdc_tools import spark_jars
from cdc_tools.local_spark import PROFILES_DIR
from python_udfs.session_hook import expand_jar_globs


def _lock_with(tmp_path: Path, files: dict[str, bytes]) -> Path:
    lines = ["# a comment", ""]
    for name, content in files.items():
        artifact, version = name.removesuffix(".jar").rsplit("-", 1)
        digest = hashlib.sha256(content).hexdigest()
        lines.append(f"org.example:{artifact}:{version}  {digest}  test  # why")
    lock = tmp_path / "spark-jars.lock"
    lock.write_text("\n".join(lines) + "\n")
    return lock


def test_the_repository_lock_pins_every_format_and_kafka() -> None:
    jars = spark_jars.read_lock()
    coordinates = {f"{jar.group}:{jar.artifact}" for jar in jars}
    assert {"io.delta:delta-spark_2.13", "io.delta:delta-storage"} <= coordinates
    assert "org.apache.iceberg:iceberg-spark-runtime-4.0_2.13" in coordinates
    assert "org.apache.spark:spark-sql-kafka-0-10_2.13" in coordinates
    assert all(len(jar.sha256) == 64 for jar in jars)
    assert len({jar.file_name for jar in jars}) == len(jars)


def test_a_malformed_line_is_refused(tmp_path: Path) -> None:
    lock = tmp_path / "spark-jars.lock"
    lock.write_text("io.delta:delta-spark_2.13  abc  delta\n")
    with pytest.raises(ValueError, match="spark-jars.lock:1"):
        spark_jars.read_lock(lock)


def test_a_complete_folder_needs_no_maven_and_loses_its_stale_jars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"a-1.0.jar": b"first", "b-2.0.jar": b"second"}
    lock = _lock_with(tmp_path, files)
    folder = tmp_path / "jars"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    (folder / "old-0.1.jar").write_bytes(b"stale")
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no mvn: none must be needed
    assert spark_jars.ensure(folder, lock) == 0
    assert sorted(path.name for path in folder.glob("*.jar")) == sorted(files)


def test_a_wrong_checksum_is_fetched_again_and_never_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = _lock_with(tmp_path, {"a-1.0.jar": b"the pinned bytes"})
    folder = tmp_path / "jars"
    folder.mkdir()
    (folder / "a-1.0.jar").write_bytes(b"tampered")
    fetched: list[list[str]] = []

    def fake_maven(jars, target, mvn):  # type: ignore[no-untyped-def]
        # a registry that serves other bytes than the lock pins
        fetched.append([jar.file_name for jar in jars])
        (target / "a-1.0.jar").write_bytes(b"still not the pinned bytes")

    monkeypatch.setattr(spark_jars.shutil, "which", lambda name: "/usr/bin/mvn")
    monkeypatch.setattr(spark_jars, "fetch_with_maven", fake_maven)
    assert spark_jars.ensure(folder, lock) == 1
    assert fetched == [["a-1.0.jar"]]
    assert not (folder / "a-1.0.jar").exists()


def test_without_maven_the_message_names_it_and_ci_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = _lock_with(tmp_path, {"a-1.0.jar": b"x"})
    monkeypatch.setattr(spark_jars.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    assert spark_jars.ensure(tmp_path / "jars", lock) == 0
    message = capsys.readouterr().err
    assert "Maven (mvn)" in message and "apt-get install -y maven" in message
    assert "parquet default works" in message
    monkeypatch.setenv("CI", "true")
    assert spark_jars.ensure(tmp_path / "jars", lock) == 1


def test_the_profiles_jar_glob_reaches_spark_as_files(tmp_path: Path) -> None:
    (tmp_path / "b.jar").write_bytes(b"")
    (tmp_path / "a.jar").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("")
    options = {"spark.jars": f"{tmp_path}/*.jar, /opt/kept.jar"}
    expand_jar_globs(options)
    assert options["spark.jars"] == f"{tmp_path}/a.jar,{tmp_path}/b.jar,/opt/kept.jar"
    empty = {"spark.jars": f"{tmp_path}/none/*.jar"}
    expand_jar_globs(empty)
    assert "spark.jars" not in empty
    unset = {"spark.jars": ""}
    expand_jar_globs(unset)
    assert "spark.jars" not in unset


def test_the_format_targets_pass_the_jars_and_their_catalog() -> None:
    outputs = yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())["cdc_spark"]["outputs"]
    local = dict(outputs["local"]["server_side_parameters"])
    # parquet needs no package: `local` passes only the Kafka landing's, when asked to
    kafka_jars = local.pop("spark.jars")
    assert "CDC_SPARK_KAFKA" in kafka_jars and "/*.jar" not in kafka_jars
    for target in ("delta", "iceberg"):
        parameters = outputs[target]["server_side_parameters"]
        assert "CDC_SPARK_JARS_DIR" in parameters["spark.jars"]
        # the format targets are `local` plus their own settings, nothing else changed
        assert {k: v for k, v in parameters.items() if k in local} == local
    assert outputs["delta"]["server_side_parameters"]["spark.sql.catalog.spark_catalog"] == (
        "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    )
    assert "iceberg" in outputs["iceberg"]["server_side_parameters"]["spark.sql.extensions"]
    assert "spark.sql.catalog.spark_catalog" not in local


def test_a_spark_started_elsewhere_gets_what_a_format_target_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`table_format_conf` (what the cluster's Thrift Server takes for a gold format) is the
    format's profile target less `local`: its jars as absolute paths, extension, catalog and
    options; nothing for parquet."""
    from cdc_tools.cluster import ClusterSpec, _submit_argv
    from cdc_tools.local_spark import local_spark_conf, table_format_conf

    (tmp_path / "jars").mkdir()
    for name in ("delta-spark_2.13-4.0.1.jar", "delta-storage-4.0.1.jar"):
        (tmp_path / "jars" / name).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CDC_SPARK_JARS_DIR", "jars")
    assert table_format_conf("parquet") == {}
    delta = table_format_conf("delta")
    assert delta["spark.sql.extensions"] == "io.delta.sql.DeltaSparkSessionExtension"
    assert delta["spark.sql.catalog.spark_catalog"].endswith("DeltaCatalog")
    assert delta["spark.jars"].split(",") == [
        str(tmp_path / "jars" / "delta-spark_2.13-4.0.1.jar"),
        str(tmp_path / "jars" / "delta-storage-4.0.1.jar"),
    ]
    local = local_spark_conf("local")
    assert not set(delta) & {k for k, v in local.items() if local_spark_conf("delta")[k] == v}
    iceberg = table_format_conf("iceberg")
    assert iceberg["spark.sql.catalog.spark_catalog"].endswith("SparkSessionCatalog")
    with pytest.raises(ValueError, match="hudi"):
        table_format_conf("hudi")
    argv = _submit_argv(tmp_path, ClusterSpec(table_format="delta"), "spark://127.0.0.1:7077")
    for key, value in delta.items():
        assert f"{key}={value}" in argv

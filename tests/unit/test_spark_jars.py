"""The pinned Spark packages: the lock is read whole, a complete folder costs no Maven call,
a wrong checksum is never kept, a missing Maven is named (and fails under CI=true), and the
profiles' jar glob reaches Spark as a list of files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import yaml

from cdc_tools import local_spark, spark_jars
from cdc_tools.local_spark import PROFILES_DIR
from cdc_tools.session_hook import expand_jar_globs


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


def test_the_s3_connector_matches_pysparks_hadoop_without_the_sdk_bundle() -> None:
    """hadoop-aws is the version of pyspark's own Hadoop client, and of the AWS SDK v2 only
    single modules are pinned, one version of them (the bundle is ~500 MB)."""
    jars = [jar for jar in spark_jars.read_lock() if jar.purpose == "s3"]
    pyspark = spark_jars.pyspark_jars()
    assert pyspark is not None
    [hadoop] = [p.name for p in pyspark.glob("hadoop-client-api-*.jar")]
    [aws] = [jar for jar in jars if jar.artifact == "hadoop-aws"]
    assert hadoop == f"hadoop-client-api-{aws.version}.jar"
    sdk = [jar for jar in jars if jar.group == "software.amazon.awssdk"]
    assert {"s3", "s3-transfer-manager", "netty-nio-client"} <= {jar.artifact for jar in sdk}
    assert "bundle" not in {jar.artifact for jar in sdk}
    assert len({jar.version for jar in sdk}) == 1


def test_a_jar_with_a_classifier_is_pinned_by_its_file(tmp_path: Path) -> None:
    [server] = spark_jars.read_lock(spark_jars.S3_SERVER_LOCK_FILE)
    assert server.file_name == f"s3proxy-{server.version}-jar-with-dependencies.jar"
    assert server.coordinates.endswith(":jar-with-dependencies")
    assert "<classifier>jar-with-dependencies</classifier>" in spark_jars._pom([server])


def test_parquet_avro_is_pinned_at_sparks_own_parquet_version() -> None:
    """Bronze's Avro and Parquet reader runs parquet-avro on Spark's own Parquet jars."""
    [pinned] = [jar for jar in spark_jars.read_lock() if jar.artifact == "parquet-avro"]
    spark = spark_jars.pyspark_jars_dir()
    assert spark is not None, "pyspark is installed (make setup)"
    assert (spark / f"parquet-hadoop-{pinned.version}.jar").is_file(), sorted(
        path.name for path in spark.glob("parquet-*.jar")
    )


def test_local_passes_the_landing_readers_jars_and_kafkas_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`local` passes the listing of the files Spark hides and the Avro and Parquet landing
    files' reader always; the Kafka landing's jars with CDC_SPARK_KAFKA=true."""
    from cdc_tools.local_spark import local_spark_conf

    reader = [
        "cdc-landing-files-0123456789abcdef.jar",
        "parquet-avro-1.15.2.jar",
        "cdc-sink-records-0123456789abcdef.jar",
    ]
    kafka = ["spark-sql-kafka-0-10_2.13-4.0.1.jar", "kafka-clients-3.9.1.jar"]
    for name in [*reader, *kafka]:
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv("CDC_SPARK_JARS_DIR", str(tmp_path))
    monkeypatch.delenv("CDC_SPARK_KAFKA", raising=False)
    assert local_spark_conf("local")["spark.jars"].split(",") == [str(tmp_path / n) for n in reader]
    monkeypatch.setenv("CDC_SPARK_KAFKA", "true")
    jars = local_spark_conf("local")["spark.jars"].split(",")
    assert jars[: len(reader)] == [str(tmp_path / name) for name in reader]
    assert {str(tmp_path / name) for name in kafka} <= set(jars)


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
    assert spark_jars.ensure(folder, lock, helper=False) == 0
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
    assert spark_jars.ensure(folder, lock, helper=False) == 1
    assert fetched == [["a-1.0.jar"]]
    assert not (folder / "a-1.0.jar").exists()


def test_without_maven_the_message_names_it_and_ci_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = _lock_with(tmp_path, {"a-1.0.jar": b"x"})
    monkeypatch.setattr(spark_jars.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    assert spark_jars.ensure(tmp_path / "jars", lock, helper=False) == 0
    message = capsys.readouterr().err
    assert "Maven (mvn)" in message and "apt-get install -y maven" in message
    assert "parquet default works" in message
    monkeypatch.setenv("CI", "true")
    assert spark_jars.ensure(tmp_path / "jars", lock, helper=False) == 1


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


@pytest.mark.parametrize(
    ("environment", "target"),
    [
        ({}, "local"),
        ({"CDC_GOLD_FILE_FORMAT": "parquet"}, "local"),
        ({"CDC_GOLD_FILE_FORMAT": "delta"}, "delta"),
        ({"CDC_GOLD_FILE_FORMAT": "iceberg"}, "iceberg"),
        ({"CDC_GOLD_FILE_FORMAT": "delta", "DBT_TARGET": "s3"}, "s3"),
        ({"CDC_GOLD_FILE_FORMAT": "iceberg", "DBT_TARGET": "connect"}, "connect"),
    ],
)
def test_gold_format_chooses_the_profile_target(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], target: str
) -> None:
    """One variable chooses gold's format and the session it needs: the profile's `target`,
    rendered by dbt's own profile renderer, is DBT_TARGET, else the format's target; the
    Python that starts a session for dbt (local_spark.local_target) reads the same line."""
    from argparse import Namespace

    from dbt.config.renderer import ProfileRenderer
    from dbt.flags import set_from_args
    from dbt_common.context import set_invocation_context

    for name in ("DBT_TARGET", "CDC_GOLD_FILE_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    set_from_args(Namespace(), None)
    set_invocation_context(dict(os.environ))
    raw = yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())["cdc_spark"]["target"]
    assert ProfileRenderer({}).render_value(raw) == target
    in_process = target if target in local_spark.LOCAL_TARGETS else "local"
    assert local_spark.local_target() == in_process


def test_the_format_targets_pass_the_jars_and_their_catalog() -> None:
    outputs = yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())["cdc_spark"]["outputs"]
    local = dict(outputs["local"]["server_side_parameters"])
    # parquet needs no package: `local` passes bronze's listing helper and the landing files'
    # reader, and the Kafka landing's jars when asked to
    local_jars = local.pop("spark.jars")
    assert "CDC_SPARK_KAFKA" in local_jars and "/*.jar" not in local_jars
    assert local_jars.index("/cdc-landing-files-*.jar") < local_jars.index("CDC_SPARK_KAFKA")
    assert "/parquet-avro-*.jar" in local_jars and "/cdc-sink-records-*.jar" in local_jars
    for target in ("delta", "iceberg", "s3"):
        parameters = outputs[target]["server_side_parameters"]
        assert "CDC_SPARK_JARS_DIR" in parameters["spark.jars"]
        # the format targets are `local` plus their own settings, nothing else changed (but
        # the warehouse of `s3`, which may be in a bucket)
        changed = {"spark.sql.warehouse.dir"} if target == "s3" else set()
        assert {k: v for k, v in parameters.items() if k in local and k not in changed} == {
            k: v for k, v in local.items() if k not in changed
        }
    assert outputs["delta"]["server_side_parameters"]["spark.sql.catalog.spark_catalog"] == (
        "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    )
    assert "iceberg" in outputs["iceberg"]["server_side_parameters"]["spark.sql.extensions"]
    assert "spark.sql.catalog.spark_catalog" not in local
    # `s3` is `delta` with the warehouse and the committer of object storage; no secret
    s3 = outputs["s3"]["server_side_parameters"]
    delta = outputs["delta"]["server_side_parameters"]
    warehouse = "spark.sql.warehouse.dir"
    assert {k: v for k, v in s3.items() if k in delta and k != warehouse} == {
        k: v for k, v in delta.items() if k != warehouse
    }
    assert "CDC_WAREHOUSE_DIR" in s3["spark.sql.warehouse.dir"]
    assert s3["spark.hadoop.fs.s3a.committer.name"] == "magic"
    assert not [key for key in s3 if "secret" in key or "access.key" in key]


def test_a_spark_started_elsewhere_gets_what_a_format_target_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`table_format_conf` (what the cluster's Thrift Server takes for a gold format) is the
    format's profile target less `local`: its jars as absolute paths, extension, catalog and
    options; nothing for parquet."""
    from cdc_tools.local_spark import local_spark_conf, table_format_conf
    from workbench.servers.cluster import ClusterSpec, _submit_argv

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


def test_a_cluster_gets_the_landing_listing_whatever_its_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Thrift Server of a parquet cluster (no format jars) still gets bronze's listing
    helper, on its class path and shipped to the executors; the credentials of its processes'
    environment (`ClusterSpec.env`) are never in its command line."""
    from workbench.servers.cluster import ClusterSpec, _submit_argv, cluster_env

    (tmp_path / "jars").mkdir()
    helper = tmp_path / "jars" / "cdc-landing-files-0123456789abcdef.jar"
    helper.write_bytes(b"")
    monkeypatch.setenv("CDC_SPARK_JARS_DIR", str(tmp_path / "jars"))
    spec = ClusterSpec(env={"AWS_SECRET_ACCESS_KEY": "not-in-argv"})
    argv = _submit_argv(tmp_path, spec, "spark://127.0.0.1:7077")
    assert f"spark.jars={helper}" in argv
    assert f"spark.driver.extraClassPath={helper}" in argv
    assert not [arg for arg in argv if "not-in-argv" in arg]
    assert cluster_env(tmp_path, "", spec.env)["AWS_SECRET_ACCESS_KEY"] == "not-in-argv"

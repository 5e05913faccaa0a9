"""Fetch the pinned Spark packages (Delta, Iceberg, Kafka, S3, parquet-avro) once, with Maven,
and check them.

`spark-jars.lock` at the repository root lists every jar: `group:artifact:version` (and
`:classifier` where the jar has one), its SHA-256 and what needs it. `python -m
cdc_tools.spark_jars` (run by `make setup`) copies them with one Maven call
(`dependency:copy-dependencies`, nothing transitive) into the jars folder (default `jars/`,
or `CDC_SPARK_JARS_DIR`), checks every checksum, and removes files the lock no longer names;
then the same for `kafka-broker.lock` (a Kafka broker for the tests, into
`.kafka-broker/jars`) and `s3-server.lock` (an S3-compatible server for the tests, into
`.s3-server/jars`). It compiles bronze's Kafka offsets helper
(`cdc_tools/jvm/CdcKafkaOffsets.java`), its Avro and Parquet record reader
(`cdc_tools/jvm/CdcSinkRecords.java`) and its listing of the landing files Spark hides
(`cdc_tools/jvm/CdcLandingFiles.java`, against pyspark's own jars: no Maven needed) into the
jars folder. A folder already complete costs no Maven call. The profiles pass
`<folder>/*.jar` as `spark.jars`: nothing is downloaded after set-up.

Without Maven it prints what to install and exits 0 (the parquet default needs no jar),
except under `CI=true`, where a missing tool is a failure. A checksum that differs is
always a failure: the file is removed and the run stops.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCK_FILE = REPO_ROOT / "spark-jars.lock"
# a single-node Kafka broker's jars, for the tests of the Kafka landing (tests/kafka_broker.py)
BROKER_LOCK_FILE = REPO_ROOT / "kafka-broker.lock"
BROKER_JARS_DIR = REPO_ROOT / ".kafka-broker" / "jars"
# an S3-compatible server (s3proxy) for the tests of object storage (tests/s3_server.py)
S3_SERVER_LOCK_FILE = REPO_ROOT / "s3-server.lock"
S3_SERVER_JARS_DIR = REPO_ROOT / ".s3-server" / "jars"
JARS_DIR_ENV = "CDC_SPARK_JARS_DIR"
MAVEN_HINT = (
    "Maven (mvn) fetches the Spark packages of Delta Lake, Iceberg, Kafka and the Avro and "
    "Parquet landing files. Install it with: sudo apt-get install -y maven (Debian/Ubuntu) or "
    "brew install maven (macOS), then run make setup again. Without them the parquet default "
    "works; the delta and iceberg targets, Kafka landing and Avro and Parquet landing files do "
    "not."
)


@dataclass(frozen=True)
class PinnedJar:
    group: str
    artifact: str
    version: str
    sha256: str
    purpose: str
    # a jar of the artifact other than its main one (`jar-with-dependencies`), or ""
    classifier: str = ""

    @property
    def coordinates(self) -> str:
        tail = f":{self.classifier}" if self.classifier else ""
        return f"{self.group}:{self.artifact}:{self.version}{tail}"

    @property
    def file_name(self) -> str:
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.jar"


def read_lock(path: Path = LOCK_FILE) -> list[PinnedJar]:
    """The jars of the lock file, in its order."""
    jars: list[PinnedJar] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        coordinates = fields[0].split(":")
        if len(fields) != 3 or len(coordinates) not in (3, 4) or len(fields[1]) != 64:
            raise ValueError(
                f"{path}:{number}: expected 'group:artifact:version[:classifier] sha256 purpose'"
            )
        group, artifact, version, *classifier = coordinates
        jars.append(
            PinnedJar(group, artifact, version, fields[1].lower(), fields[2], "".join(classifier))
        )
    return jars


def jars_dir() -> Path:
    """The folder the jars are kept in: CDC_SPARK_JARS_DIR, else jars/ in the repository."""
    return Path(os.environ.get(JARS_DIR_ENV) or REPO_ROOT / "jars").resolve()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def missing_or_wrong(jars: Sequence[PinnedJar], folder: Path) -> list[PinnedJar]:
    """The jars that are not in `folder` with their pinned checksum."""
    return [
        jar
        for jar in jars
        if not (folder / jar.file_name).is_file() or sha256_of(folder / jar.file_name) != jar.sha256
    ]


# every dependency without its own: the lock lists whole what the jars need beyond Spark's
NO_TRANSITIVE = (
    "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"
)


def _pom(jars: Sequence[PinnedJar]) -> str:
    dependencies = "\n".join(
        f"    <dependency><groupId>{jar.group}</groupId><artifactId>{jar.artifact}</artifactId>"
        f"<version>{jar.version}</version>"
        + (f"<classifier>{jar.classifier}</classifier>" if jar.classifier else "")
        + f"{NO_TRANSITIVE}</dependency>"
        for jar in jars
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cdc-lakehouse</groupId>
  <artifactId>spark-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""


def fetch_with_maven(jars: Sequence[PinnedJar], folder: Path, mvn: str) -> None:
    """One Maven call: copy `jars` (and nothing they depend on) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cdc-spark-jars-") as work:
        (Path(work) / "pom.xml").write_text(_pom(jars))
        command = [mvn, "-B", "-q", "-f", str(Path(work) / "pom.xml")]
        command += ["dependency:copy-dependencies", "-DexcludeTransitive=true"]
        command += [f"-DoutputDirectory={folder}", "-Dmdep.overWriteReleases=true"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
        raise RuntimeError(f"Maven could not fetch the Spark packages:\n{tail}")


def ensure(folder: Path | None = None, lock: Path = LOCK_FILE, helper: bool = True) -> int:
    """Make `folder` hold exactly the lock's jars, checked, and (`helper`) the compiled
    helpers of cdc_tools/jvm; returns the exit status. Without Maven the landing listing's
    helper is still compiled: it needs only pyspark's jars and a JDK."""
    folder = folder or jars_dir()
    jars = read_lock(lock)
    needed = missing_or_wrong(jars, folder)
    started = time.monotonic()
    if needed:
        mvn = shutil.which("mvn")
        if mvn is None:
            print(f"spark jars: {MAVEN_HINT}", file=sys.stderr)
            if helper:
                build_landing_files_jar(folder)
            return 1 if os.environ.get("CI", "").lower() == "true" else 0
        print(f"spark jars: fetching {len(needed)} pinned jars with Maven into {folder} ...")
        fetch_with_maven(needed, folder, mvn)
        wrong = missing_or_wrong(needed, folder)
        for jar in wrong:
            (folder / jar.file_name).unlink(missing_ok=True)
        if wrong:
            names = ", ".join(jar.coordinates for jar in wrong)
            print(f"spark jars: checksum differs from {lock.name}: {names}", file=sys.stderr)
            return 1
    wanted = {jar.file_name for jar in jars}
    landing = build_landing_files_jar(folder) if helper else None
    if helper:
        for built in (
            build_kafka_offsets_jar(folder, jars),
            build_sink_records_jar(folder, jars),
            landing,
        ):
            if built is not None:
                wanted.add(built.name)
    for stale in folder.glob("*.jar"):
        if stale.name not in wanted:
            stale.unlink()
    if needed:
        size = sum((folder / name).stat().st_size for name in wanted)
        print(
            f"spark jars: {len(jars)} jars checked in {folder} "
            f"({size / 1e6:.0f} MB, {time.monotonic() - started:.0f} s)"
        )
    if helper and landing is None and os.environ.get("CI", "").lower() == "true":
        return 1  # the listing of the files Spark hides is missing (said above)
    return 0


def _jdk_tools() -> tuple[str, str] | None:
    """`javac` and `jar` (PATH, else JAVA_HOME/bin), or None (a JRE alone)."""
    tools = [shutil.which("javac"), shutil.which("jar")]
    java_home = os.environ.get("JAVA_HOME")
    if java_home and None in tools:
        bin_dir = str(Path(java_home, "bin"))
        tools = [tools[0] or shutil.which("javac", path=bin_dir), tools[1]]
        tools[1] = tools[1] or shutil.which("jar", path=bin_dir)
    javac, jar_tool = tools
    return (javac, jar_tool) if javac and jar_tool else None


def _compile_jar(target: Path, source: Path, class_path: str) -> None:
    """`source` compiled (Java 17) against `class_path` into the jar `target`, atomically."""
    tools = _jdk_tools()
    assert tools is not None
    javac, jar_tool = tools
    with tempfile.TemporaryDirectory(prefix="cdc-jvm-helper-") as work:
        classes = Path(work) / "classes"
        command = [javac, "--release", "17", "-nowarn", "-d", str(classes)]
        subprocess.run([*command, "-cp", class_path, str(source)], check=True, capture_output=True)
        partial = target.with_suffix(".jar.partial")
        subprocess.run([jar_tool, "cf", str(partial), "-C", str(classes), "."], check=True)
        partial.replace(target)


LANDING_FILES_SOURCE = REPO_ROOT / "cdc_tools" / "jvm" / "CdcLandingFiles.java"
LANDING_FILES_JAR_GLOB = "cdc-landing-files-*.jar"
LANDING_FILES_HINT = (
    "no javac/jar (a JDK): the landing files Spark hides (names starting with _ or ., zero "
    "bytes) are not listed, and bronze reads what Spark lists. Install a JDK: "
    "sudo apt-get install -y openjdk-17-jdk-headless (Debian/Ubuntu)"
)


def pyspark_jars() -> Path | None:
    """pyspark's jars folder (without importing pyspark), or None."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "jars"
    return folder if folder.is_dir() else None


def build_landing_files_jar(folder: Path) -> Path | None:
    """Compile bronze's listing of the landing files Spark hides (cdc_tools/jvm, Java UDFs
    over Hadoop's FileSystem API) against pyspark's jars.

    `cdc-landing-files-<hash>.jar` in the jars folder, named by a hash of the source and of
    pyspark's Spark and Hadoop jars (built again when either changes); the local profile
    passes it to every session, and `cdc_tools.landing_udfs.register` registers its
    functions. Without `javac` it says so and returns None.
    """
    spark = pyspark_jars()
    if spark is None:
        return None
    digest = hashlib.sha256(LANDING_FILES_SOURCE.read_bytes())
    for name in sorted(
        p.name
        for p in spark.glob("*.jar")
        if p.name.startswith(("spark-core", "hadoop-client-api"))
    ):
        digest.update(name.encode())
    target = folder / f"cdc-landing-files-{digest.hexdigest()[:16]}.jar"
    if target.is_file():
        return target
    if _jdk_tools() is None:
        print(f"spark jars: {LANDING_FILES_HINT}", file=sys.stderr)
        return None
    folder.mkdir(parents=True, exist_ok=True)
    _compile_jar(target, LANDING_FILES_SOURCE, str(spark / "*"))
    return target


def landing_files_jar(folder: Path | None = None) -> Path | None:
    """The compiled listing helper in the jars folder, if `make setup` built it."""
    found = sorted((folder or jars_dir()).glob(LANDING_FILES_JAR_GLOB))
    return found[-1] if found else None


KAFKA_OFFSETS_SOURCE = REPO_ROOT / "cdc_tools" / "jvm" / "CdcKafkaOffsets.java"


def build_kafka_offsets_jar(folder: Path, jars: Sequence[PinnedJar]) -> Path | None:
    """Compile bronze's Kafka offsets helper (cdc_tools/jvm) against the pinned kafka-clients.

    `cdc-kafka-offsets-<hash>.jar` in the jars folder, named by a hash of the source and of
    the client jar (built again when either changes); None without kafka-clients in the
    lock. Without `javac` it says so and returns None (the Kafka landing then cannot run).
    """
    clients = [jar for jar in jars if jar.artifact == "kafka-clients"]
    if not clients:
        return None
    digest = hashlib.sha256(KAFKA_OFFSETS_SOURCE.read_bytes())
    digest.update(clients[0].sha256.encode())
    target = folder / f"cdc-kafka-offsets-{digest.hexdigest()[:16]}.jar"
    if target.is_file():
        return target
    if _jdk_tools() is None:
        print("spark jars: no javac/jar (a JDK): Kafka landing is unavailable", file=sys.stderr)
        return None
    _compile_jar(target, KAFKA_OFFSETS_SOURCE, str(folder / clients[0].file_name))
    return target


SINK_RECORDS_SOURCE = REPO_ROOT / "cdc_tools" / "jvm" / "CdcSinkRecords.java"


def pyspark_jars_dir() -> Path | None:
    """PySpark's folder of Spark's own jars (Avro, Parquet, Hadoop, Jackson), or None."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "jars"
    return folder if folder.is_dir() else None


def build_sink_records_jar(folder: Path, jars: Sequence[PinnedJar]) -> Path | None:
    """Compile bronze's Avro and Parquet record reader (cdc_tools/jvm/CdcSinkRecords.java).

    It compiles against the pinned parquet-avro and Spark's own Avro, Parquet, Hadoop and
    Jackson jars (PySpark's): `cdc-sink-records-<hash>.jar` in the jars folder, named by a
    hash of the source, of parquet-avro and of Spark's jar names (built again when one
    changes). None without parquet-avro in the lock or without PySpark; without `javac` it
    says so and returns None (Avro and Parquet landing files then cannot be read).
    """
    pinned = [jar for jar in jars if jar.artifact == "parquet-avro"]
    spark = pyspark_jars_dir()
    if not pinned or spark is None:
        return None
    digest = hashlib.sha256(SINK_RECORDS_SOURCE.read_bytes())
    digest.update(pinned[0].sha256.encode())
    digest.update(" ".join(sorted(path.name for path in spark.glob("*.jar"))).encode())
    target = folder / f"cdc-sink-records-{digest.hexdigest()[:16]}.jar"
    if target.is_file():
        return target
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        print(
            "spark jars: no javac/jar (a JDK): Avro and Parquet landing files are unavailable",
            file=sys.stderr,
        )
        return None
    classpath = os.pathsep.join([str(spark / "*"), str(folder / pinned[0].file_name)])
    with tempfile.TemporaryDirectory(prefix="cdc-sink-records-") as work:
        classes = Path(work) / "classes"
        command = [javac, "--release", "17", "-nowarn", "-d", str(classes)]
        command += ["-cp", classpath, str(SINK_RECORDS_SOURCE)]
        subprocess.run(command, check=True, capture_output=True)
        partial = target.with_suffix(".jar.partial")
        subprocess.run([jar_tool, "cf", str(partial), "-C", str(classes), "."], check=True)
        partial.replace(target)
    return target


def write_lock(lock: Path = LOCK_FILE) -> int:
    """Fetch the lock's coordinates whatever their sums, and print each jar's SHA-256."""
    mvn = shutil.which("mvn")
    if mvn is None:
        print(MAVEN_HINT, file=sys.stderr)
        return 1
    jars = read_lock(lock)
    with tempfile.TemporaryDirectory(prefix="cdc-spark-jars-") as work:
        fetch_with_maven(jars, Path(work), mvn)
        for jar in jars:
            print(f"{jar.coordinates}  {sha256_of(Path(work) / jar.file_name)}  {jar.purpose}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.spark_jars", description=__doc__)
    parser.add_argument("--dir", type=Path, help=f"jars folder (default: {JARS_DIR_ENV}, jars/)")
    parser.add_argument(
        "--write-lock", action="store_true", help="print the SHA-256 of the lock's coordinates"
    )
    parser.add_argument(
        "--landing-helper",
        action="store_true",
        help="compile bronze's listing of the files Spark hides only (a JDK; no Maven)",
    )
    args = parser.parse_args(argv)
    if args.write_lock:
        return write_lock()
    if args.landing_helper:
        built = build_landing_files_jar((args.dir or jars_dir()).resolve())
        if built is not None:
            print(built)
        return 0 if built is not None else 1
    try:
        return (
            ensure(args.dir)
            or ensure(BROKER_JARS_DIR, BROKER_LOCK_FILE, helper=False)
            or ensure(S3_SERVER_JARS_DIR, S3_SERVER_LOCK_FILE, helper=False)
        )
    except RuntimeError as exc:
        print(f"spark jars: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

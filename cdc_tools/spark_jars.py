"""Fetch the pinned Spark packages (Delta, Iceberg, Kafka) once, with Maven, and check them.

`spark-jars.lock` at the repository root lists every jar: `group:artifact:version`, its
SHA-256 and what needs it. `python -m cdc_tools.spark_jars` (run by `make setup`) copies
them with one Maven call (`dependency:copy-dependencies`, nothing transitive) into the jars
folder (default `jars/`, or `CDC_SPARK_JARS_DIR`), checks every checksum, and removes
files the lock no longer names; then the same for `kafka-broker.lock` (a Kafka broker for
the tests, into `.kafka-broker/jars`). It compiles bronze's Kafka offsets helper
(`cdc_tools/jvm/CdcKafkaOffsets.java`) into the jars folder. A folder already complete costs
no Maven call. The profiles pass `<folder>/*.jar` as `spark.jars`: nothing is downloaded
after set-up.

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
JARS_DIR_ENV = "CDC_SPARK_JARS_DIR"
MAVEN_HINT = (
    "Maven (mvn) fetches the Spark packages of Delta Lake, Iceberg and Kafka. Install it with: "
    "sudo apt-get install -y maven (Debian/Ubuntu) or brew install maven (macOS), then run "
    "make setup again. Without them the parquet default works; the delta and iceberg "
    "targets and Kafka landing do not."
)


@dataclass(frozen=True)
class PinnedJar:
    group: str
    artifact: str
    version: str
    sha256: str
    purpose: str

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"


def read_lock(path: Path = LOCK_FILE) -> list[PinnedJar]:
    """The jars of the lock file, in its order."""
    jars: list[PinnedJar] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        coordinates = fields[0].split(":")
        if len(fields) != 3 or len(coordinates) != 3 or len(fields[1]) != 64:
            raise ValueError(f"{path}:{number}: expected 'group:artifact:version sha256 purpose'")
        jars.append(PinnedJar(*coordinates, sha256=fields[1].lower(), purpose=fields[2]))
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
        f"<version>{jar.version}</version>{NO_TRANSITIVE}</dependency>"
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
    """Make `folder` hold exactly the lock's jars, checked; returns the exit status."""
    folder = folder or jars_dir()
    jars = read_lock(lock)
    needed = missing_or_wrong(jars, folder)
    started = time.monotonic()
    if needed:
        mvn = shutil.which("mvn")
        if mvn is None:
            print(f"spark jars: {MAVEN_HINT}", file=sys.stderr)
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
    built = build_kafka_offsets_jar(folder, jars) if helper else None
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
    return 0


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
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        print("spark jars: no javac/jar (a JDK): Kafka landing is unavailable", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory(prefix="cdc-kafka-offsets-") as work:
        classes = Path(work) / "classes"
        command = [javac, "--release", "17", "-d", str(classes)]
        command += ["-cp", str(folder / clients[0].file_name), str(KAFKA_OFFSETS_SOURCE)]
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
    args = parser.parse_args(argv)
    if args.write_lock:
        return write_lock()
    try:
        return ensure(args.dir) or ensure(BROKER_JARS_DIR, BROKER_LOCK_FILE, helper=False)
    except RuntimeError as exc:
        print(f"spark jars: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

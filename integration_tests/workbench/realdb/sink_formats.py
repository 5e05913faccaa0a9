"""Kafka Connect sink files written again as the S3 sink's AvroFormat and ParquetFormat write
them (issue 73): the Avro and Parquet landing files of the tests, from real Debezium records.

The capture (capture/) writes what the S3 sink's JsonFormat lands: one JsonConverter value
per line, schemas on. `write` hands such files to `jvm/CdcSinkFormatWriter.java`, which reads
each line back into its Connect schema and value and writes them as Confluent's AvroData and
the sink's format classes do (Confluent's classes are not on Maven Central; the Avro and
Parquet libraries are: Spark's own, and the pinned parquet-avro of spark-jars.lock). The writer
is compiled on first use into capture/target/, named by a hash of its source and of the jars
it is compiled against.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cdc_tools.spark_jars import jars_dir, pyspark_jars_dir

SOURCE = Path(__file__).resolve().parent / "jvm" / "CdcSinkFormatWriter.java"
TARGET_DIR = Path(__file__).resolve().parents[3] / "capture" / "target"
_BUILDING = threading.Lock()


class WriterUnavailable(RuntimeError):
    """The writer cannot be compiled (no JDK, no PySpark, no parquet-avro: `make setup`)."""


@dataclass(frozen=True)
class SinkForm:
    """One file format of the S3 sink: `avro` with an `avro.codec` (null, deflate, snappy,
    bzip2, xz, zstandard), or `parquet` with a `parquet.codec` (none, snappy, gzip, zstd)."""

    container: str
    codec: str


def _jars() -> list[Path]:
    spark = pyspark_jars_dir()
    parquet_avro = sorted(jars_dir().glob("parquet-avro-*.jar"))
    if spark is None or not parquet_avro:
        raise WriterUnavailable(
            "the Avro and Parquet writer needs PySpark's jars and parquet-avro "
            "(spark-jars.lock): run make setup"
        )
    return [*sorted(spark.glob("*.jar")), parquet_avro[-1]]


def _classpath(jars: Sequence[Path]) -> str:
    return ":".join(str(jar) for jar in jars)


def build() -> tuple[Path, str]:
    """The writer's jar, compiled when missing; and the class path it runs with."""
    jars = _jars()
    digest = hashlib.sha256(SOURCE.read_bytes())
    digest.update(" ".join(jar.name for jar in jars).encode())
    target = TARGET_DIR / f"cdc-sink-format-writer-{digest.hexdigest()[:16]}.jar"
    with _BUILDING:
        if not target.is_file():
            javac, jar_tool = shutil.which("javac"), shutil.which("jar")
            if javac is None or jar_tool is None:
                raise WriterUnavailable("javac and jar (a JDK) compile the Avro and Parquet writer")
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix="cdc-sink-format-writer-") as work:
                classes = Path(work) / "classes"
                command = [javac, "--release", "17", "-nowarn", "-d", str(classes)]
                command += ["-cp", _classpath(jars), str(SOURCE)]
                done = subprocess.run(command, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise WriterUnavailable(f"javac failed:\n{done.stderr[-3000:]}")
                partial = Path(work) / target.name
                subprocess.run([jar_tool, "cf", str(partial), "-C", str(classes), "."], check=True)
                shutil.move(str(partial), target)
    return target, _classpath([*jars, target])


def write(
    files: Sequence[tuple[Path, SinkForm]],
    source_root: Path,
    landing: Path,
    null_values: str = "fail",
) -> list[Path]:
    """Each JSON sink file (under `source_root`) written in its form at the same folder under
    `landing`, in one JVM; the files written (a file is split where its schema changes, as
    the sink rotates). A tombstone fails, as the sink's default behavior.on.null.values, or
    is skipped (`null_values="ignore"`)."""
    if not files:
        return []
    _, classpath = build()
    argv = ["java", "-XX:TieredStopAtLevel=1", "-Xss2m", "-cp", classpath]
    argv += ["cdc.workbench.CdcSinkFormatWriter", f"--in={source_root}", f"--out={landing}"]
    argv += [f"--null-values={null_values}"]
    for path, form in files:
        argv += [f"--format={form.container}", f"--codec={form.codec}", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"the Avro and Parquet writer failed:\n{done.stderr[-3000:]}")
    written = [Path(line) for line in done.stdout.splitlines() if line.strip()]
    return [path for path in written if path.is_file()]

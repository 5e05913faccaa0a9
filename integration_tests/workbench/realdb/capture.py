"""The real capture: Debezium's embedded engine (capture/, Java 17) writing landing files,
or producing to a Kafka broker as a Kafka Connect worker does (`landing_format="kafka"`).

`python -m workbench.realdb.capture --build` (run by `make setup`) compiles capture/ with
Maven into capture/target/ (classes, and every pinned dependency in target/lib), and copies
the MariaDB connector with the Debezium release it runs on into target/lib-mariadb
(capture/mariadb/pom.xml). `run_capture` starts it on a connector configuration, as a user
configures the connector, and waits for it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
CAPTURE_DIR = REPO_ROOT / "capture"
TARGET = CAPTURE_DIR / "target"
MAVEN_HINT = (
    "Maven (mvn) builds the Debezium capture of capture/ (issue 61: tests on real databases). "
    "Install it with: sudo apt-get install -y maven (Debian/Ubuntu) or brew install maven "
    "(macOS), then run make setup again."
)


_BUILDING = threading.Lock()  # captures run in threads (RealPipeline): one Maven build


class CaptureUnavailable(RuntimeError):
    """capture/ is not built and cannot be (no Maven)."""


# the folders of target/ holding a connector's classpath, and the pom that fills each
LIBS: dict[str, Path] = {
    "lib": CAPTURE_DIR / "pom.xml",
    "lib-mariadb": CAPTURE_DIR / "mariadb" / "pom.xml",
}


def _sources_newer_than_build() -> bool:
    built = TARGET / "classes" / "cdc" / "capture" / "Capture.class"
    if not built.exists() or not all((TARGET / lib).is_dir() for lib in LIBS):
        return True
    stamp = built.stat().st_mtime
    sources = [*LIBS.values(), *CAPTURE_DIR.glob("src/**/*.java")]
    return any(path.stat().st_mtime > stamp for path in sources)


def build(quiet: bool = True) -> Path:
    """Compile capture/ when its sources changed; the classpath's folder (capture/target)."""
    with _BUILDING:
        return _build(quiet)


def _build(quiet: bool) -> Path:
    if not _sources_newer_than_build():
        return TARGET
    mvn = shutil.which("mvn")
    if mvn is None:
        raise CaptureUnavailable(MAVEN_HINT)
    for pom in LIBS.values():
        command = [mvn, "-B", "-f", str(pom), "compile"]
        if quiet:
            command.insert(2, "-q")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
            raise CaptureUnavailable(f"Maven could not build {pom.relative_to(REPO_ROOT)}:\n{tail}")
    (TARGET / "classes" / "cdc" / "capture" / "Capture.class").touch()
    return TARGET


def classpath(lib: str = "lib") -> str:
    """The capture's classes and one connector's classpath folder (LIBS)."""
    return f"{TARGET / 'classes'}{os.pathsep}{TARGET / lib / '*'}"


@dataclass(frozen=True)
class CaptureRun:
    """What one run of the capture did: its exit code and what it printed."""

    returncode: int
    output: str


def write_config(path: Path, settings: Mapping[str, object]) -> Path:
    """A connector's properties file, as a user writes one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{name}={value}" for name, value in settings.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_capture(
    config: Path,
    landing: Path,
    offsets: Path,
    *,
    schemas: bool = True,
    landing_format: str = "sink",
    until: tuple[str, str] | None = None,
    halt_after: int | None = None,
    bootstrap_servers: str = "",
    idle_seconds: int = 5,
    timeout_seconds: int = 300,
    extra_java_options: Sequence[str] = (),
    lib: str = "lib",
) -> CaptureRun:
    """Run the capture until it has landed everything committed so far (`until`: a row of
    the watermark table `schema.table` whose first column is the given value), or until
    `halt_after` records landed (the JVM ends at once: a kill mid-batch). `landing_format`
    "kafka" lands nothing: it produces to the broker at `bootstrap_servers`. `lib`: the
    connector's classpath folder (LIBS)."""
    build()
    java = shutil.which("java") or "java"
    argv = [java, "-XX:TieredStopAtLevel=1", "-Xss1m", "-Xmx512m", *extra_java_options]
    argv += ["-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath(lib)]
    argv += ["cdc.capture.Capture", f"--config={config}", f"--out={landing}"]
    argv += [f"--offsets={offsets}", f"--schemas={'true' if schemas else 'false'}"]
    argv += [f"--format={landing_format}", f"--idle-seconds={idle_seconds}"]
    argv += [f"--timeout-seconds={timeout_seconds}"]
    if until is not None:
        argv += [f"--until-table={until[0]}", f"--until-value={until[1]}"]
    if halt_after is not None:
        argv += [f"--halt-after={halt_after}"]
    if bootstrap_servers:
        argv += [f"--bootstrap-servers={bootstrap_servers}"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, check=False, timeout=timeout_seconds + 60
        )
    except subprocess.TimeoutExpired as exc:  # killed by subprocess.run: what it printed
        printed = b"".join(
            part if isinstance(part, bytes) else part.encode()
            for part in (exc.stdout, exc.stderr)
            if part
        )
        output = printed.decode(errors="replace")
        return CaptureRun(-9, f"{output}\ncapture: killed after {exc.timeout:.0f} s")
    return CaptureRun(done.returncode, done.stdout + done.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.realdb.capture", description=__doc__)
    parser.add_argument("--build", action="store_true", help="compile capture/ with Maven")
    args = parser.parse_args(argv)
    if args.build:
        try:
            build(quiet=True)
        except CaptureUnavailable as exc:
            print(f"capture: {exc}", file=sys.stderr)
            return 1 if os.environ.get("CI", "").lower() == "true" else 0
        print(f"capture: built in {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

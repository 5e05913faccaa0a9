"""Measured subprocesses: wall time, peak memory and CPU of a process tree."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from cdc_tools.local_spark import REPO_ROOT
from workbench.bench.settings import SAMPLE_INTERVAL_S


@dataclass
class ProcessRun:
    wall_s: float
    peak_rss_mb: float
    cpu_s: float
    """CPU time of the tree (user + system), up to the last sample of each process."""
    returncode: int
    samples: int


@dataclass(frozen=True)
class TreeSample:
    rss_kb: int
    """Resident memory of the process and its descendants (shared pages count per process)."""
    cpu_s: dict[int, float]
    """CPU time so far (user + system, seconds) of every process of the tree."""


def sample_tree(pid: int) -> TreeSample:
    """Memory and CPU time of `pid` and every process below it (psutil; a process that ends
    while it is read is left out)."""
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return TreeSample(0, {})
    rss = 0
    cpu: dict[int, float] = {}
    for process in tree:
        try:
            with process.oneshot():
                times = process.cpu_times()
                rss += process.memory_info().rss // 1024
                cpu[process.pid] = times.user + times.system
        except psutil.Error:
            continue  # ended, or a zombie, while we looked
    return TreeSample(rss, cpu)


class LogFollower:
    """The complete lines a growing log file gained since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def new_lines(self) -> list[str]:
        try:
            with open(self.path, "rb") as log:
                log.seek(self.offset)
                data = log.read()
        except OSError:
            return []
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        return [line.decode(errors="replace").rstrip("\r") for line in lines]


# dbt's line when a node ends: `12:00:01  3 of 40 OK created sql incremental model ...`
DBT_NODE_DONE = re.compile(r"\d+ of \d+ (OK|PASS|WARN|ERROR|FAIL|SKIP)\b")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def dbt_progress(prefix: str) -> Callable[[str], None]:
    """Print dbt's per-node completion lines of a measured run, with the run's elapsed time."""
    started = time.monotonic()

    def show(line: str) -> None:
        # Spark's console progress bars share the line, each ended by a carriage return
        text = ANSI.sub("", line).split("\r")[-1].strip()
        if DBT_NODE_DONE.search(text):
            print(f"  {prefix} +{time.monotonic() - started:6.1f}s {text}", flush=True)

    return show


def run_measured(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    log_path: Path,
    cwd: Path = REPO_ROOT,
    interval: float = SAMPLE_INTERVAL_S,
    progress: Callable[[str], None] | None = None,
) -> ProcessRun:
    """Run ``argv`` to completion, sampling its process tree every ``interval`` seconds;
    ``progress`` gets each line the run writes to its log, as it comes."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    peak_kb = 0
    samples = 0
    cpu_s: dict[int, float] = {}
    follower = LogFollower(log_path)
    with open(log_path, "wb") as log:
        started = time.monotonic()
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT
        )
        while True:
            sample = sample_tree(process.pid)
            peak_kb = max(peak_kb, sample.rss_kb)
            for pid, cpu in sample.cpu_s.items():
                cpu_s[pid] = max(cpu_s.get(pid, 0.0), cpu)
            samples += 1
            if progress is not None:
                for line in follower.new_lines():
                    progress(line)
            try:
                returncode = process.wait(timeout=interval)
                break
            except subprocess.TimeoutExpired:
                continue
        wall = time.monotonic() - started
    if progress is not None:
        for line in follower.new_lines():
            progress(line)
    return ProcessRun(wall, peak_kb / 1024, sum(cpu_s.values()), returncode, samples)


def log_tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])

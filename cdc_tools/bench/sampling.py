"""Measured subprocesses: wall time, peak memory and CPU of a process tree."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cdc_tools.bench.settings import SAMPLE_INTERVAL_S
from cdc_tools.local_spark import REPO_ROOT
from cdc_tools.processes import CLOCK_TICKS, sample_tree


@dataclass
class ProcessRun:
    wall_s: float
    peak_rss_mb: float
    cpu_s: float
    """CPU time of the tree (user + system), up to the last sample of each process."""
    returncode: int
    samples: int


def run_measured(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    log_path: Path,
    cwd: Path = REPO_ROOT,
    interval: float = SAMPLE_INTERVAL_S,
) -> ProcessRun:
    """Run ``argv`` to completion, sampling its process tree every ``interval`` seconds."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    peak_kb = 0
    samples = 0
    ticks: dict[int, int] = {}
    with open(log_path, "wb") as log:
        started = time.monotonic()
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT
        )
        while True:
            sample = sample_tree(process.pid)
            peak_kb = max(peak_kb, sample.rss_kb)
            for pid, cpu in sample.cpu_ticks.items():
                ticks[pid] = max(ticks.get(pid, 0), cpu)
            samples += 1
            try:
                returncode = process.wait(timeout=interval)
                break
            except subprocess.TimeoutExpired:
                continue
        wall = time.monotonic() - started
    return ProcessRun(wall, peak_kb / 1024, sum(ticks.values()) / CLOCK_TICKS, returncode, samples)


def log_tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])

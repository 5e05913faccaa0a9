"""Processes from /proc: parent, CPU ticks and resident memory of a process and its tree.

Used by the benchmark (`workbench.bench`, peak memory and CPU of a measured run) and by the
local cluster (`workbench.servers.cluster`, every process the cluster started, to stop them all).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcStat:
    ppid: int
    cpu_ticks: int
    """utime + stime of the process itself, in clock ticks."""


def parse_stat(stat_text: str) -> ProcStat:
    """Parent pid and CPU ticks from a /proc/<pid>/stat line (the name may hold spaces)."""
    fields = stat_text[stat_text.rindex(")") + 2 :].split()
    # fields[0] is field 3 of proc(5) (state): ppid is field 4, utime 14, stime 15
    return ProcStat(ppid=int(fields[1]), cpu_ticks=int(fields[11]) + int(fields[12]))


def proc_table(proc: Path = Path("/proc")) -> dict[int, ProcStat]:
    """pid -> (parent pid, CPU ticks) of every process visible in /proc."""
    table: dict[int, ProcStat] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            table[int(entry.name)] = parse_stat((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # the process ended while we looked
    return table


def descendants(pid: int, parents: Mapping[int, int]) -> list[int]:
    """Every process below ``pid`` in the tree ``parents`` (pid -> parent pid) describes."""
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    pending = list(children.get(pid, []))
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children.get(current, []))
    return found


def rss_kb(pid: int, proc: Path = Path("/proc")) -> int:
    """VmRSS of one process in KiB (0 when it is gone or is a zombie)."""
    try:
        for line in (proc / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


@dataclass(frozen=True)
class TreeSample:
    rss_kb: int
    """Resident memory of the process and its descendants (shared pages count per process)."""
    cpu_ticks: dict[int, int]
    """CPU ticks so far of every process of the tree."""


def sample_tree(pid: int) -> TreeSample:
    table = proc_table()
    pids = [pid, *descendants(pid, {p: stat.ppid for p, stat in table.items()})]
    return TreeSample(
        rss_kb=sum(rss_kb(p) for p in pids),
        cpu_ticks={p: table[p].cpu_ticks for p in pids if p in table},
    )

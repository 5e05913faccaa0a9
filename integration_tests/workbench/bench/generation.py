"""Generation: the simulated landing files of a scenario."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.bench.planning import SourcePlan
from workbench.bench.settings import MESSAGES_PER_TRANSACTION, BenchError


@dataclass
class GenerationStats:
    events: int = 0
    held_back: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0


def _folder_bytes(folder: Path) -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def source_batches(plan: SourcePlan, batch_events: int) -> Iterator[list[Any]]:
    """The simulated messages of one source, batch by batch, ``plan.events`` in all (the
    last batch cut), in the order the source emitted them."""
    from workbench.simulator import SimConfig, iter_simulation

    transactions = max(1, round(batch_events / MESSAGES_PER_TRANSACTION))
    config = SimConfig(
        seed=1000 + plan.index,
        flavour=plan.flavour,
        database=plan.name,
        server=f"bench{plan.index}",
        schemas_enable=plan.wrapped,
        initial_rows=plan.initial_rows,
        transactions=transactions,
        # every transaction publishes at least one message: this many batches is enough
        batches=plan.events // transactions + 2,
    )
    produced = 0
    for batch in iter_simulation(config, with_expected=False):
        messages = batch.messages[: plan.events - produced]
        produced += len(messages)
        yield messages
        if produced >= plan.events:
            break
    if produced != plan.events:
        raise BenchError(f"{plan.name}: simulated {produced} events, planned {plan.events}")


def generate_source(
    plan: SourcePlan, landing: Path, increment: Path, batch_events: int
) -> tuple[int, int]:
    """Simulate one source; write its first events to ``landing`` and the rest to
    ``increment``. Returns (events written to landing, events held back)."""
    from workbench.simulator import Message

    produced = 0
    batch_index = 0
    held: list[Message] = []
    for messages in source_batches(plan, batch_events):
        first = messages[: max(0, plan.initial_events - produced)]
        held.extend(messages[len(first) :])
        produced += len(messages)
        # at most batch_events messages a file, the initial snapshot's batch included
        batch_index = _write_files(first, landing / plan.name, batch_index, plan.fmt, batch_events)
    _write_files(held, increment / plan.name, batch_index, plan.fmt, batch_events)
    return produced - len(held), len(held)


def _write_files(
    messages: Sequence[Any], folder: Path, batch_index: int, fmt: str, batch_events: int
) -> int:
    """Writes ``messages`` as batches of at most ``batch_events`` (one file a batch, or one
    per topic and partition), numbered from ``batch_index``; returns the next number."""
    from workbench.simulator import write_batch

    for start in range(0, len(messages), batch_events):
        write_batch(messages[start : start + batch_events], folder, batch_index, fmt)
        batch_index += 1
    return batch_index


def generate(
    plans: Sequence[SourcePlan], landing: Path, increment: Path, batch_events: int
) -> GenerationStats:
    stats = GenerationStats()
    started = time.monotonic()
    for plan in plans:
        written, held = generate_source(plan, landing, increment, batch_events)
        stats.events += written
        stats.held_back += held
    stats.seconds = time.monotonic() - started
    stats.files, stats.bytes = _folder_bytes(landing)
    return stats


def add_increment(increment: Path, landing: Path) -> int:
    """Move the held-back files into the landing folder; returns how many moved."""
    moved = 0
    for path in sorted(p for p in increment.rglob("*") if p.is_file()):
        destination = landing / path.relative_to(increment)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if destination.exists():
            raise BenchError(f"{destination} exists: the increment would overwrite a file")
        os.replace(path, destination)
        moved += 1
    return moved

"""Write emitted messages to landing files, as a Kafka sink or ``kcat -J`` would."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from .debezium import Message

FORMATS: tuple[str, ...] = ("value_lines", "kcat")

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Encode line by line: one huge str with a single astral character would be UCS-4.
    data = b"\n".join([line.encode("utf-8") for line in lines])
    with open(path, "wb") as fh:
        fh.write(data)
        fh.write(b"\n")
    return path


def _value_line(m: Message) -> str:
    return "null" if m.value is None else m.value


def kcat_record(m: Message) -> str:
    """One ``kcat -C -J`` line: key and payload are JSON strings holding the message text;
    a record with headers has them as kcat prints them (`headers`: name, value, ...)."""
    record: dict[str, object] = {
        "topic": m.topic,
        "partition": m.partition,
        "offset": m.offset,
        "tstype": "create",
        "ts": m.timestamp_ms,
        "broker": 1,
    }
    if m.headers:
        record["headers"] = [part for header in m.headers for part in header]
    record["key"] = m.key
    record["payload"] = m.value
    return _dumps(record)


def sink_file_name(topic: str, partition: int, start_offset: int, suffix: str = ".json") -> str:
    return f"{topic}+{partition}+{start_offset:010d}{suffix}"


def _pick_duplicates(
    messages: Sequence[Message], fraction: float, rng: random.Random
) -> list[Message]:
    if fraction <= 0 or not messages:
        return []
    count = min(len(messages), max(1, round(len(messages) * fraction)))
    picked = sorted(rng.sample(range(len(messages)), count))
    return [messages[i] for i in picked]


def write_batch(
    messages: Sequence[Message],
    out_dir: str | Path,
    batch_index: int,
    fmt: str = "value_lines",
    *,
    shuffle: bool = False,
    duplicate_fraction: float = 0.0,
    seed: int = 0,
) -> list[Path]:
    """Write one batch of messages; returns the written paths.

    ``value_lines``: ``<out>/topics/<topic>/partition=<p>/<topic>+<p>+<start:010d>.json``,
    one message value per line (a tombstone is the line ``null``).
    ``kcat``: ``<out>/kcat/batch-<batch_index:04d>.jsonl`` with one ``kcat -J`` record a line.

    Delivery perturbations (off by default, deterministic with ``seed``): ``shuffle``
    reorders lines within files and, for ``value_lines``, scatters a partition's messages
    over up to three files; ``duplicate_fraction`` replays that fraction of messages
    (same topic/partition/offset) in ``...+<start>.replay.json`` files / extra kcat records.
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, got {fmt!r}")
    if not 0.0 <= duplicate_fraction <= 1.0:
        raise ValueError("duplicate_fraction must be within [0, 1]")
    out = Path(out_dir)
    rng = random.Random(f"landing:{seed}:{batch_index}")
    dups = _pick_duplicates(messages, duplicate_fraction, rng)
    if fmt == "kcat":
        records = list(messages)
        if shuffle:
            rng.shuffle(records)
        replay = list(dups)
        if shuffle:
            rng.shuffle(replay)
        path = out / "kcat" / f"batch-{batch_index:04d}.jsonl"
        if not records and not replay:
            return []
        return [_write_lines(path, [kcat_record(m) for m in records + replay])]

    groups: dict[tuple[str, int], list[Message]] = {}
    for m in messages:
        groups.setdefault((m.topic, m.partition), []).append(m)
    dup_groups: dict[tuple[str, int], list[Message]] = {}
    for m in dups:
        dup_groups.setdefault((m.topic, m.partition), []).append(m)

    written: list[Path] = []
    for (topic, partition), group in groups.items():
        group = sorted(group, key=lambda m: m.offset)
        folder = out / "topics" / topic / f"partition={partition}"
        if shuffle:
            rng.shuffle(group)
            parts = min(len(group), 1 + int(rng.random() * 3))
            size = -(-len(group) // parts)
            chunks = [group[i : i + size] for i in range(0, len(group), size)]
        else:
            chunks = [group]
        for chunk in chunks:
            first = min(m.offset for m in chunk)
            path = folder / sink_file_name(topic, partition, first)
            written.append(_write_lines(path, [_value_line(m) for m in chunk]))
        replay = dup_groups.get((topic, partition))
        if replay:
            # A sink file holds consecutive offsets from the one its name gives: each run
            # of consecutive replayed offsets is one file named by its first offset, so
            # the offsets read off the file names are the messages' own.
            for run in _consecutive_runs(replay):
                path = folder / sink_file_name(topic, partition, run[0].offset, ".replay.json")
                written.append(_write_lines(path, [_value_line(m) for m in run]))
    return written


def _consecutive_runs(messages: Sequence[Message]) -> list[list[Message]]:
    runs: list[list[Message]] = []
    for m in sorted(messages, key=lambda m: m.offset):
        if runs and runs[-1][-1].offset + 1 == m.offset:
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs

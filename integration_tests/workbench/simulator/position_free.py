"""Producers of the Debezium and Canal formats that write no source position.

Flink CDC's pipeline sink, Flink SQL's format writers and hand-rolled producers write the
envelope's change fields but not the connector's source block: no SCN, LSN, binlog file or
Canal `es`/`ts`. A consumer can only order their changes by arrival (Kafka partition and
offset). `deliver` rewrites a simulated stream as such a producer writes it and delivers it
as a Kafka topic does:

* each value rewritten by its `producer` (see PRODUCERS);
* partitioned (Debezium by the message key, as Kafka's default partitioner does; Canal by
  table, as Canal's `partitionHash` by table does), offsets numbered per partition in
  publication order, so the changes of one key keep their order within their partition;
* the records of all partitions interleaved at random (a consumer reading several
  partitions sees no order across them), and a fraction delivered again with the same
  partition and offset (at-least-once delivery after a consumer restart).

The oracle is the simulation's own (the source state): the producer changes what the
messages say about where they came from, never the rows they carry.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Sequence

from .debezium import Message

PRODUCERS: dict[str, str] = {
    "names_only": "Debezium: `source` holds only db, schema and table; no Kafka key (the key "
    "is declared); no ts_ms or transaction block",
    "no_source": "Debezium: `before`, `after` and `op` only (Flink SQL's debezium-json); the "
    "table is known from the topic",
    "canal_flink_cdc": "Canal: `data`, `old`, `type`, `database`, `table` and `pkNames` only "
    "(Flink CDC's canal-json); no DDL messages",
}

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_CANAL_FIELDS = ("data", "old", "type", "database", "table", "pkNames")


def _debezium_value(value: str, producer: str) -> str:
    message = json.loads(value)
    wrapped = isinstance(message, dict) and set(message) == {"schema", "payload"}
    payload = message["payload"] if wrapped else message
    body: dict[str, object] = {
        "before": payload.get("before"),
        "after": payload.get("after"),
        "op": payload["op"],
    }
    if producer == "names_only":
        source = payload["source"]
        body["source"] = {"db": source["db"], "schema": source["schema"], "table": source["table"]}
    if wrapped:
        return _dumps({"schema": message["schema"], "payload": body})
    return _dumps(body)


def _rewrite(message: Message, producer: str) -> Message | None:
    """The message as `producer` writes it; None for what it does not write."""
    if message.value is None:
        return None  # Flink writes no tombstones
    if producer == "canal_flink_cdc":
        value = json.loads(message.value)
        if value.get("isDdl"):
            return None  # the pipeline sink serializes no schema change
        text = _dumps({name: value.get(name) for name in _CANAL_FIELDS})
        return Message(message.topic, None, text, 0, 0, message.timestamp_ms)
    key = message.key if producer == "no_source" else None
    value = _debezium_value(message.value, producer)
    return Message(message.topic, key, value, 0, 0, message.timestamp_ms)


def _partition(message: Message, producer: str, partitions: int) -> int:
    if producer == "canal_flink_cdc":
        by = json.loads(str(message.value))["table"]
    else:
        by = message.key or json.dumps(
            json.loads(str(message.value)).get("payload", {}).get("after")
        )
    return zlib.crc32(str(by).encode()) % partitions


def deliver(
    messages: Sequence[Message],
    producer: str,
    *,
    start_offsets: dict[tuple[str, int], int] | None = None,
    partitions: int = 3,
    duplicate_fraction: float = 0.1,
    seed: int = 0,
) -> list[Message]:
    """One batch of `messages` (in publication order) as `producer` writes them, delivered
    over `partitions` partitions per topic, interleaved at random, with
    `duplicate_fraction` of them delivered again at their own offsets. `start_offsets`
    ({(topic, partition): next offset}) carries the numbering over from the previous
    batch and is updated."""
    if producer not in PRODUCERS:
        raise ValueError(f"producer must be one of {sorted(PRODUCERS)}, got {producer!r}")
    offsets = start_offsets if start_offsets is not None else {}
    delivered: list[Message] = []
    for message in messages:
        rewritten = _rewrite(message, producer)
        if rewritten is None:
            continue
        partition = _partition(message, producer, partitions)
        offset = offsets.get((rewritten.topic, partition), 0)
        offsets[(rewritten.topic, partition)] = offset + 1
        delivered.append(
            Message(
                rewritten.topic,
                rewritten.key,
                rewritten.value,
                partition,
                offset,
                rewritten.timestamp_ms,
            )
        )
    rng = random.Random(f"position-free:{seed}:{producer}")
    again = [m for m in delivered if rng.random() < duplicate_fraction]
    records = delivered + again
    rng.shuffle(records)
    return records

"""Debezium's ExtractNewRecordState transform applied to simulated change events.

`flatten` turns the records of a simulated Debezium source into what the transform writes
(https://debezium.io/documentation/reference/stable/transformations/event-flattening.html):
the `after` row at the top level; the fields of `add_fields` appended with `prefix` (`op`,
`ts_ms` from the envelope; `source.<f>` as `<prefix>source_<f>`, any other name as a field of
`source`, `<prefix><f>`), and those of `add_headers` as headers of the same names with
`header_prefix` (`add.headers`, `add.headers.prefix`), their values as Kafka Connect's
SimpleHeaderConverter writes them (a string as it is, a number in decimal); deletes and
tombstones as `mode` says (3.x `delete.tombstone.handling.mode`, or the 2.x pair
`delete.handling.mode` and `drop.tombstones`: `LEGACY_MODES`):

| mode | a delete event | the connector's tombstone |
| --- | --- | --- |
| `drop` | dropped | dropped |
| `tombstone` | dropped | kept |
| `rewrite` | the `before` row with `<prefix>deleted: "true"` | dropped |
| `rewrite-with-tombstone` | as `rewrite` | kept |
| `delete` | a record without a value (same key) | dropped |

In the rewrite modes every other record carries `<prefix>deleted: "false"`. Truncate events
are dropped (the transform passes row changes only). With the JsonConverter's schemas, the
record's schema is the row's (the envelope's `after` schema) with the added fields appended,
typed as Debezium types them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from workbench.simulator.debezium import Message

MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete")
# Debezium 2.x's (delete.handling.mode, drop.tombstones) and the 3.x mode each pair is
LEGACY_MODES: dict[tuple[str, bool], str] = {
    ("drop", True): "drop",
    ("drop", False): "tombstone",
    ("rewrite", True): "rewrite",
    ("rewrite", False): "rewrite-with-tombstone",
    ("none", True): "delete",
}
_ENVELOPE_FIELDS = ("op", "ts_ms")


def _added(name: str, payload: dict, prefix: str) -> tuple[str, object]:
    """One `add.fields` entry: its field name and value."""
    if name in _ENVELOPE_FIELDS:
        return prefix + name, payload.get(name)
    if name.startswith("source."):
        field = name.removeprefix("source.")
        return f"{prefix}source_{field}", (payload.get("source") or {}).get(field)
    return prefix + name, (payload.get("source") or {}).get(name)


def _schema_type(value: object) -> dict[str, object]:
    if isinstance(value, bool):
        return {"type": "boolean", "optional": True}
    if isinstance(value, int):
        return {"type": "int64", "optional": True}
    return {"type": "string", "optional": True}


def _header_text(value: object) -> str | None:
    """A header's value as the SimpleHeaderConverter writes it."""
    return None if value is None else str(value)


def _record(
    message: Message,
    row: dict,
    schema: dict | None,
    extra: dict[str, object],
    headers: tuple[tuple[str, str | None], ...],
) -> Message:
    value: dict[str, object] = {**row, **extra}
    if schema is not None:
        fields = [*schema["fields"]]
        fields += [{**_schema_type(v), "field": k} for k, v in extra.items()]
        body: object = {
            "schema": {"type": "struct", "fields": fields, "optional": False,
                       "name": schema.get("name")},
            "payload": value,
        }  # fmt: skip
    else:
        body = value
    return Message(message.topic, message.key, json.dumps(body), message.partition,
                   message.offset, message.timestamp_ms, headers)  # fmt: skip


def flatten(
    messages: Sequence[Message],
    mode: str,
    add_fields: Sequence[str] = (),
    prefix: str = "__",
    offsets: dict[tuple[str, int], int] | None = None,
    add_headers: Sequence[str] = (),
    header_prefix: str = "__",
) -> list[Message]:
    """The records the transform writes for `messages` (one source's, in order). The
    transform runs in the connector, before Kafka: the records it keeps take consecutive
    offsets of their partition (`offsets`: the next offset of each, carried from one batch
    to the next)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    kept = _flattened(messages, mode, list(add_fields), prefix, (list(add_headers), header_prefix))
    offsets = {} if offsets is None else offsets
    out = []
    for record in kept:
        place = (record.topic, record.partition)
        offset = offsets.get(place, 0)
        offsets[place] = offset + 1
        out.append(Message(record.topic, record.key, record.value, record.partition, offset,
                           record.timestamp_ms, record.headers))  # fmt: skip
    return out


def _flattened(
    messages: Sequence[Message],
    mode: str,
    add_fields: Sequence[str],
    prefix: str,
    add_headers: tuple[Sequence[str], str],
) -> list[Message]:
    rewrite = mode in ("rewrite", "rewrite-with-tombstone")
    out: list[Message] = []
    for message in messages:
        if message.value is None:
            if mode in ("tombstone", "rewrite-with-tombstone"):
                out.append(message)
            continue
        envelope = json.loads(message.value)
        wrapped = "schema" in envelope and "payload" in envelope
        payload = envelope["payload"] if wrapped else envelope
        op = payload.get("op")
        if op not in ("c", "u", "d", "r"):
            continue  # truncates, and anything else that is no row change
        schemas = {
            field["field"]: field for field in envelope["schema"]["fields"]
        } if wrapped else {}  # fmt: skip
        extra = dict(_added(name, payload, prefix) for name in add_fields)
        header_names, header_prefix = add_headers
        headers = tuple(
            (header, _header_text(value))
            for header, value in (_added(name, payload, header_prefix) for name in header_names)
        )
        if op == "d":
            if mode == "delete":
                out.append(Message(message.topic, message.key, None, message.partition,
                                   message.offset, message.timestamp_ms))  # fmt: skip
            elif rewrite:
                extra[prefix + "deleted"] = "true"
                before = payload["before"]
                out.append(_record(message, before, schemas.get("before"), extra, headers))
            continue
        if rewrite:
            extra[prefix + "deleted"] = "false"
        out.append(_record(message, payload["after"], schemas.get("after"), extra, headers))
    return out

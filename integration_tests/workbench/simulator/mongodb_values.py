"""BSON values of the MongoDB simulator and their JSON texts.

Python representation of a BSON value (:data:`Value`): ``None``, ``bool``, ``int``
(int32), ``float`` (double), ``str``, :class:`ObjectId`, :class:`Int64`,
:class:`Decimal128`, :class:`Date`, :class:`Binary`, ``dict`` (embedded document, field
order = insertion order) and ``list`` (array).

Three encoders:

* :func:`normal_form` - the project's "Debezium normal form" (the oracle's text).
* :func:`ext_json` - extended JSON as the connector writes it inside its string fields:
  ``legacy`` (Debezium 1.x / Java driver strict mode), ``canonical`` and ``relaxed``
  (extended JSON v2), with the connector's ``{"k": v,"k2": v2}`` spacing.
* :func:`key_text` - the canonical key text ``{"_id":...}`` of a document id.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from dataclasses import dataclass
from typing import Union

EXT_JSON_MODES: tuple[str, ...] = ("legacy", "canonical", "relaxed")

_EPOCH = dt.datetime(1970, 1, 1)


@dataclass(frozen=True)
class ObjectId:
    hex: str
    """24 lowercase hex digits."""

    def __post_init__(self) -> None:
        if len(self.hex) != 24 or any(c not in "0123456789abcdef" for c in self.hex):
            raise ValueError(f"ObjectId needs 24 lowercase hex digits, got {self.hex!r}")


@dataclass(frozen=True)
class Int64:
    value: int


@dataclass(frozen=True)
class Decimal128:
    text: str
    """The decimal as MongoDB prints it (kept verbatim, e.g. ``"12.30"``, ``"1.5E+3"``)."""


@dataclass(frozen=True)
class Date:
    ms: int
    """Milliseconds since the Unix epoch (UTC)."""


@dataclass(frozen=True)
class Binary:
    data: bytes
    subtype: int = 0


Value = Union[  # noqa: UP007 - a runtime alias must work on Python 3.10
    None, bool, int, float, str, ObjectId, Int64, Decimal128, Date, Binary, dict, list
]
Document = dict[str, Value]

_str = json.JSONEncoder(ensure_ascii=False).encode


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _double(value: float) -> str:
    text = repr(value)
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"non-finite double {value!r} has no JSON number")
    return text


# -------------------------------------------------------------------- normal form
def normal_form(value: Value) -> str:
    """Compact JSON of a value in the project's Debezium normal form: document field order
    kept, int32 plain, int64 ``{"$numberLong":"n"}``, double with a fraction or exponent
    (``repr``), ``{"$numberDecimal":"t"}``, ``{"$oid":"hex"}``, ``{"$date":ms}``,
    ``{"$binary":{"base64":"..","subType":"00"}}``; strings with ``ensure_ascii=False``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, str):
        return _str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_str(k)}:{normal_form(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(normal_form(v) for v in value) + "]"
    if isinstance(value, ObjectId):
        return '{"$oid":"' + value.hex + '"}'
    if isinstance(value, Int64):
        return '{"$numberLong":"' + str(value.value) + '"}'
    if isinstance(value, Decimal128):
        return '{"$numberDecimal":' + _str(value.text) + "}"
    if isinstance(value, Date):
        return '{"$date":' + str(value.ms) + "}"
    if isinstance(value, Binary):
        return f'{{"$binary":{{"base64":"{_b64(value.data)}","subType":"{value.subtype:02x}"}}}}'
    raise TypeError(f"not a BSON value: {value!r}")


def key_text(doc_id: Value) -> str:
    """Canonical key text ``{"_id":<id>}``: numeric ids (int32, int64, double) as a plain
    JSON number (integral values without a fraction), other ids in normal form (object
    keys sorted; ids are never documents in this simulator, so that is the normal form)."""
    if isinstance(doc_id, Int64):
        return '{"_id":' + str(doc_id.value) + "}"
    if isinstance(doc_id, float) and doc_id.is_integer():
        return '{"_id":' + str(int(doc_id)) + "}"
    if isinstance(doc_id, (dict, list)):
        raise TypeError("document and array ids are not simulated")
    return '{"_id":' + normal_form(doc_id) + "}"


# ------------------------------------------------------------------ extended JSON
def iso_millis(ms: int) -> str:
    """``2024-01-02T03:04:05.678Z`` (no fraction for whole seconds, like Java's
    ``ISO_INSTANT``)."""
    moment = _EPOCH + dt.timedelta(milliseconds=ms)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if ms % 1000:
        text += f".{ms % 1000:03d}"
    return text + "Z"


def ext_json(value: Value, mode: str = "legacy") -> str:
    """Extended JSON of a value as the MongoDB connector writes it inside its strings.

    ``legacy``: int32 plain, ``{"$numberLong": "n"}``, doubles plain (``2.0``),
    ``{"$date": ms}``, ``{"$binary": "b64", "$type": "00"}``.
    ``canonical``: ``{"$numberInt": "n"}``, ``{"$numberDouble": "2.0"}``,
    ``{"$date": {"$numberLong": "ms"}}``, ``{"$binary": {"base64": "..", "subType": "00"}}``.
    ``relaxed``: int32 and doubles plain, int64 still ``{"$numberLong": "n"}``, dates as ISO
    text, binary in the v2 form. All: ``{"$oid": ..}``, ``{"$numberDecimal": ..}``.
    """
    if mode not in EXT_JSON_MODES:
        raise ValueError(f"mode must be one of {EXT_JSON_MODES}, got {mode!r}")
    return _ext(value, mode)


def _ext(value: Value, mode: str) -> str:
    if value is None or isinstance(value, (bool, str)):
        return normal_form(value)
    if isinstance(value, int):
        return f'{{"$numberInt": "{value}"}}' if mode == "canonical" else str(value)
    if isinstance(value, float):
        text = _double(value)
        return f'{{"$numberDouble": "{text}"}}' if mode == "canonical" else text
    if isinstance(value, dict):
        return "{" + ",".join(f"{_str(k)}: {_ext(v, mode)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_ext(v, mode) for v in value) + "]"
    if isinstance(value, ObjectId):
        return f'{{"$oid": "{value.hex}"}}'
    if isinstance(value, Int64):
        return f'{{"$numberLong": "{value.value}"}}'
    if isinstance(value, Decimal128):
        return '{"$numberDecimal": ' + _str(value.text) + "}"
    if isinstance(value, Date):
        if mode == "canonical":
            return f'{{"$date": {{"$numberLong": "{value.ms}"}}}}'
        if mode == "relaxed":
            return f'{{"$date": "{iso_millis(value.ms)}"}}'
        return f'{{"$date": {value.ms}}}'
    if isinstance(value, Binary):
        b64, sub = _b64(value.data), f"{value.subtype:02x}"
        if mode == "legacy":
            return f'{{"$binary": "{b64}", "$type": "{sub}"}}'
        return f'{{"$binary": {{"base64": "{b64}", "subType": "{sub}"}}}}'
    raise TypeError(f"not a BSON value: {value!r}")


def same_value(a: Value, b: Value) -> bool:
    """BSON-typed equality (``2 != 2.0 != Int64(2)``; field order matters)."""
    return normal_form(a) == normal_form(b)

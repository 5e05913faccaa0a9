"""MongoDB extended JSON (canonical, relaxed, legacy strict/shell) to one normal form.

The normal form is the one Debezium's MongoDB connector writes (see `normalise_document` in
`python_udfs.mongodb`). Parsing goes in two steps: `parse_json` reads the text keeping field
order and the integer/double distinction (`1` stays an int, `1.0` becomes a `Double`), then
`to_value` turns extended-JSON wrappers into typed leaves. `render` writes a value back as
compact JSON text and `render_key` writes the canonical `_id` key text.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Context, Decimal, InvalidOperation
from typing import TypeAlias

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT32_MAX = 2**32 - 1


class MongoDocumentError(ValueError):
    """A document, key or patch that cannot be read; `str()` starts with the reason code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def malformed(detail: str) -> MongoDocumentError:
    return MongoDocumentError("malformed_extended_json", detail)


@dataclass(frozen=True)
class Int64:
    """BSON int64 (`{"$numberLong": "<digits>"}`)."""

    value: int


@dataclass(frozen=True)
class Double:
    """BSON double, written with a fraction or exponent (`2.0`, `1.5e-07`)."""

    value: float


@dataclass(frozen=True)
class Decimal128:
    """BSON Decimal128, its text kept as given."""

    text: str


@dataclass(frozen=True)
class Extended:
    """Any other BSON type as its normal-form wrapper object; paths never enter it."""

    body: dict[str, object]


Value: TypeAlias = (
    None
    | bool
    | int
    | str
    | Int64
    | Double
    | Decimal128
    | Extended
    | list["Value"]
    | dict[str, "Value"]
)
Document = dict[str, Value]


# ---------------------------------------------------------------- parsing


def _double_lexeme(text: str) -> Double:
    return Double(float(text))


def parse_json(text: object) -> object:
    """JSON text to dicts (field order kept), lists, str, bool, None, int and `Double`."""
    if not isinstance(text, str):
        raise MongoDocumentError("malformed_document", f"expected JSON text, got {type(text)}")
    try:
        return json.loads(
            text,
            parse_float=_double_lexeme,
            parse_int=int,
            parse_constant=_double_lexeme,
            object_pairs_hook=dict,
        )
    except (ValueError, RecursionError) as exc:
        raise MongoDocumentError("malformed_document", f"not JSON: {exc}") from None


def join_path(path: str, field: object) -> str:
    return f"{path}.{field}" if path else str(field)


def to_value(raw: object, path: str = "") -> Value:
    """A parsed JSON value (from `parse_json`) to its normal-form value."""
    if raw is None or isinstance(raw, (bool, str, Double)):
        return raw
    if isinstance(raw, int):
        if INT32_MIN <= raw <= INT32_MAX:
            return raw
        return Int64(_int64(raw, path))
    if isinstance(raw, list):
        return [to_value(item, join_path(path, index)) for index, item in enumerate(raw)]
    if isinstance(raw, dict):
        if any(key.startswith("$") for key in raw):
            return _wrapper(raw, path)
        return to_document(raw, path)
    raise malformed(f"unexpected value of type {type(raw).__name__} at '{path}'")


def to_document(raw: dict[str, object], path: str = "") -> Document:
    """The fields of a JSON object, each value normalised, field order kept."""
    return {key: to_value(item, join_path(path, key)) for key, item in raw.items()}


# ---------------------------------------------------------------- wrappers


def _where(path: str) -> str:
    return f" at '{path}'" if path else ""


def _int64(number: int, path: str) -> int:
    if not INT64_MIN <= number <= INT64_MAX:
        raise malformed(f"integer {number} out of int64 range{_where(path)}")
    return number


_INTEGER = re.compile(r"-?[0-9]+")
_DOUBLE = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _integer_text(body: object, wrapper: str, path: str) -> int:
    if isinstance(body, int) and not isinstance(body, bool):
        return body
    if isinstance(body, str) and _INTEGER.fullmatch(body):
        return int(body)
    raise _unexpected(f"{wrapper} needs an integer string", body, path)


def _unexpected(wanted: str, body: object, path: str) -> MongoDocumentError:
    return malformed(f"{wanted}, got {json.dumps(_plain(body))}{_where(path)}")


def _plain(raw: object) -> object:
    """A parsed value back to plain Python for error messages."""
    if isinstance(raw, Double):
        return raw.value
    if isinstance(raw, dict):
        return {key: _plain(item) for key, item in raw.items()}
    if isinstance(raw, list):
        return [_plain(item) for item in raw]
    return raw


def _number_int(raw: dict[str, object], path: str) -> Value:
    number = _integer_text(raw["$numberInt"], "$numberInt", path)
    if not INT32_MIN <= number <= INT32_MAX:
        raise malformed(f"$numberInt {number} out of int32 range{_where(path)}")
    return number


def _number_long(raw: dict[str, object], path: str) -> Value:
    return Int64(_int64(_integer_text(raw["$numberLong"], "$numberLong", path), path))


def _number_double(raw: dict[str, object], path: str) -> Value:
    body = raw["$numberDouble"]
    if isinstance(body, Double):
        return body
    if isinstance(body, int) and not isinstance(body, bool):
        return Double(float(body))
    if isinstance(body, str) and body in _SPECIAL_DOUBLES:
        return Double(_SPECIAL_DOUBLES[body])
    if isinstance(body, str) and _DOUBLE.fullmatch(body):
        return Double(float(body))
    raise _unexpected("$numberDouble needs a number string", body, path)


def _number_decimal(raw: dict[str, object], path: str) -> Value:
    body = raw["$numberDecimal"]
    if isinstance(body, str) and body == body.strip() and body:
        try:
            Decimal(body)
        except InvalidOperation:
            pass
        else:
            return Decimal128(body)
    raise _unexpected("$numberDecimal needs a decimal string", body, path)


_OID = re.compile(r"[0-9a-fA-F]{24}")


def _oid(raw: dict[str, object], path: str) -> Value:
    body = raw["$oid"]
    if isinstance(body, str) and _OID.fullmatch(body):
        return Extended({"$oid": body.lower()})
    raise _unexpected("$oid needs 24 hex digits", body, path)


_ISO_DATE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?)"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _iso_millis(text: str, path: str) -> int:
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        raise malformed(
            f"$date string is not ISO-8601 with a zone: {json.dumps(text)}{_where(path)}"
        )
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
            tzinfo=timezone.utc,
        )  # fmt: skip
    except ValueError as exc:
        raise malformed(f"$date {json.dumps(text)}: {exc}{_where(path)}") from None
    millis = (moment - _EPOCH) // timedelta(milliseconds=1)
    millis += int((fraction or "0")[:3].ljust(3, "0"))
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset_minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
        millis -= sign * offset_minutes * 60_000
    return millis


def _date(raw: dict[str, object], path: str) -> Value:
    body = raw["$date"]
    if isinstance(body, int) and not isinstance(body, bool):
        millis = body
    elif isinstance(body, Double) and math.isfinite(body.value) and body.value.is_integer():
        millis = int(body.value)
    elif isinstance(body, dict) and list(body) == ["$numberLong"]:
        millis = _integer_text(body["$numberLong"], "$date.$numberLong", path)
    elif isinstance(body, str):
        millis = _iso_millis(body, path)
    else:
        raise _unexpected("$date needs milliseconds or an ISO string", body, path)
    return Extended({"$date": _int64(millis, path)})


_SUBTYPE = re.compile(r"[0-9a-fA-F]{1,2}")


def _subtype(body: object, path: str) -> str:
    if isinstance(body, int) and not isinstance(body, bool) and 0 <= body <= 255:
        return f"{body:02x}"
    if isinstance(body, str) and _SUBTYPE.fullmatch(body):
        return body.lower().rjust(2, "0")
    raise _unexpected("$binary subType needs 1-2 hex digits", body, path)


def _checked_base64(body: object, path: str) -> str:
    if isinstance(body, str):
        try:
            base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            pass
        else:
            return body
    raise _unexpected("$binary needs base64 text", body, path)


def _binary_wrapper(data: str, subtype: str) -> Extended:
    return Extended({"$binary": {"base64": data, "subType": subtype}})


def _binary(raw: dict[str, object], path: str) -> Value:
    body = raw["$binary"]
    if isinstance(body, dict) and set(body) == {"base64", "subType"} and "$type" not in raw:
        return _binary_wrapper(
            _checked_base64(body["base64"], path), _subtype(body["subType"], path)
        )
    if isinstance(body, str) and "$type" in raw:
        return _binary_wrapper(_checked_base64(body, path), _subtype(raw["$type"], path))
    raise malformed(f"$binary needs {{base64, subType}} or a legacy $type{_where(path)}")


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _uuid(raw: dict[str, object], path: str) -> Value:
    body = raw["$uuid"]
    if isinstance(body, str) and _UUID.fullmatch(body):
        data = base64.b64encode(uuid.UUID(body).bytes).decode("ascii")
        return _binary_wrapper(data, "04")
    raise _unexpected("$uuid needs a hyphenated UUID", body, path)


def _timestamp(raw: dict[str, object], path: str) -> Value:
    body = raw["$timestamp"]
    if isinstance(body, dict) and set(body) == {"t", "i"}:
        parts = [body["t"], body["i"]]
        if all(
            isinstance(part, int) and not isinstance(part, bool) and 0 <= part <= UINT32_MAX
            for part in parts
        ):
            return Extended({"$timestamp": {"t": parts[0], "i": parts[1]}})
    raise malformed(f"$timestamp needs {{t, i}} unsigned 32-bit integers{_where(path)}")


def _kept(check: Callable[[dict[str, object]], bool]) -> Callable[[dict[str, object], str], Value]:
    """A wrapper kept as given once `check` accepts it (nested documents are normalised)."""

    def handle(raw: dict[str, object], path: str) -> Value:
        if not check(raw):
            raise malformed(f"unexpected content in {json.dumps(_plain(raw))}{_where(path)}")
        body: dict[str, object] = {}
        for key, item in raw.items():
            if key == "$scope" and isinstance(item, dict):
                body[key] = to_document(item, join_path(path, key))
            elif key == "$dbPointer" and isinstance(item, dict):
                body[key] = {"$ref": item["$ref"], "$id": to_value(item["$id"], path)}
            else:
                body[key] = item
        return Extended(body)

    return handle


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _regular_expression(raw: dict[str, object]) -> bool:
    body = raw["$regularExpression"]
    return (
        isinstance(body, dict)
        and set(body) == {"pattern", "options"}
        and all(map(_is_str, body.values()))
    )


def _db_pointer(raw: dict[str, object]) -> bool:
    body = raw["$dbPointer"]
    return isinstance(body, dict) and set(body) == {"$ref", "$id"} and _is_str(body["$ref"])


# marker key -> (keys the wrapper may have, handler)
_WRAPPERS: dict[str, tuple[frozenset[str], Callable[[dict[str, object], str], Value]]] = {
    "$oid": (frozenset({"$oid"}), _oid),
    "$numberInt": (frozenset({"$numberInt"}), _number_int),
    "$numberLong": (frozenset({"$numberLong"}), _number_long),
    "$numberDouble": (frozenset({"$numberDouble"}), _number_double),
    "$numberDecimal": (frozenset({"$numberDecimal"}), _number_decimal),
    "$date": (frozenset({"$date"}), _date),
    "$binary": (frozenset({"$binary", "$type"}), _binary),
    "$uuid": (frozenset({"$uuid"}), _uuid),
    "$timestamp": (frozenset({"$timestamp"}), _timestamp),
    "$regularExpression": (frozenset({"$regularExpression"}), _kept(_regular_expression)),
    "$regex": (
        frozenset({"$regex", "$options"}),
        _kept(lambda raw: all(map(_is_str, raw.values()))),
    ),
    "$symbol": (frozenset({"$symbol"}), _kept(lambda raw: _is_str(raw["$symbol"]))),
    "$code": (
        frozenset({"$code", "$scope"}),
        _kept(lambda raw: _is_str(raw["$code"]) and isinstance(raw.get("$scope", {}), dict)),
    ),
    "$minKey": (frozenset({"$minKey"}), _kept(lambda raw: raw["$minKey"] == 1)),
    "$maxKey": (frozenset({"$maxKey"}), _kept(lambda raw: raw["$maxKey"] == 1)),
    "$undefined": (frozenset({"$undefined"}), _kept(lambda raw: raw["$undefined"] is True)),
    "$dbPointer": (frozenset({"$dbPointer"}), _kept(_db_pointer)),
}


def _is_dbref(raw: dict[str, object]) -> bool:
    """A DBRef (`$ref`, `$id`, optional `$db`, then ordinary fields) is a document."""
    dollar_keys = {key for key in raw if key.startswith("$")}
    return {"$ref", "$id"} <= dollar_keys <= {"$ref", "$id", "$db"}


def _wrapper(raw: dict[str, object], path: str) -> Value:
    if _is_dbref(raw):
        return to_document(raw, path)
    for marker, (allowed, handler) in _WRAPPERS.items():
        if marker in raw:
            extra = sorted(set(raw) - allowed)
            if extra:
                raise malformed(f"{marker} wrapper with unexpected keys {extra}{_where(path)}")
            return handler(raw, path)
    keys = [key for key in raw if key.startswith("$")]
    raise malformed(f"unknown extended JSON wrapper {keys}{_where(path)}")


# ---------------------------------------------------------------- rendering

_SPECIAL_DOUBLE_TEXT = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _double_text(number: float) -> str:
    if math.isfinite(number):
        return repr(number)
    return '{"$numberDouble":"' + _SPECIAL_DOUBLE_TEXT[repr(number)] + '"}'


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _render_into(value: object, out: list[str], key_mode: bool) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif key_mode and isinstance(value, (int, Int64, Double, Decimal128)):
        out.append(_numeric_key(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, Double):
        out.append(_double_text(value.value))
    elif isinstance(value, Int64):
        out.append('{"$numberLong":"' + str(value.value) + '"}')
    elif isinstance(value, Decimal128):
        out.append('{"$numberDecimal":' + _string(value.text) + "}")
    elif isinstance(value, Extended):
        _render_object(value.body, out, key_mode=False, sort=False)
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _render_into(item, out, key_mode)
        out.append("]")
    elif isinstance(value, dict):
        _render_object(value, out, key_mode, sort=key_mode)
    else:
        raise TypeError(f"cannot render {type(value).__name__}")


def _render_object(fields: dict[str, object], out: list[str], key_mode: bool, sort: bool) -> None:
    out.append("{")
    keys = sorted(fields) if sort else list(fields)
    for index, key in enumerate(keys):
        if index:
            out.append(",")
        out.append(_string(key))
        out.append(":")
        _render_into(fields[key], out, key_mode)
    out.append("}")


def render(value: Value) -> str:
    """Compact JSON text of a normal-form value, field order kept, non-ASCII kept."""
    out: list[str] = []
    _render_into(value, out, key_mode=False)
    return "".join(out)


def render_key(value: Value) -> str:
    """Canonical text: numbers by numeric value, document keys sorted recursively."""
    out: list[str] = []
    _render_into(value, out, key_mode=True)
    return "".join(out)


_WIDE = Context(prec=100)


def _numeric_key(value: int | Int64 | Double | Decimal128) -> str:
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Int64):
        return str(value.value)
    if isinstance(value, Double):
        if not math.isfinite(value.value):
            return _double_text(value.value)
        number = Decimal(repr(value.value))
    else:
        number = Decimal(value.text)
        if number.is_nan():
            return _double_text(math.nan)
        if number.is_infinite():
            return _double_text(-math.inf if number < 0 else math.inf)
    if number == number.to_integral_value() and number.adjusted() < 4000:
        return str(int(number))
    return str(number.normalize(_WIDE)).replace("E", "e")

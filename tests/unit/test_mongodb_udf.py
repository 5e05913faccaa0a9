"""python_udfs.mongodb: extended JSON normal form, canonical keys, folding change events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python_udfs.mongodb import (
    MongoDocumentError,
    canonical_key,
    fold,
    key_from_document,
    key_from_filter,
    normalise_document,
)
from python_udfs.mongodb_sql import as_flag, fold_json, key_or_error, normalise_or_error

REPO_ROOT = Path(__file__).resolve().parents[2]
OID = "5eb626b3452cd570b405bf7d"
OID_KEY = '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"}}'


def value(text: str) -> str:
    """The normal form of one field value (through a one-field document)."""
    out = normalise_document('{"v":' + text + "}")
    assert out.startswith('{"v":') and out.endswith("}")
    return out[5:-1]


# ---------------------------------------------------------------- normal form


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # int32
        ("5", "5"),
        ("-2147483648", "-2147483648"),
        ('{"$numberInt":"5"}', "5"),
        ('{"$numberInt":"-7"}', "-7"),
        # int64
        ('{"$numberLong":"1001"}', '{"$numberLong":"1001"}'),
        ('{"$numberLong":1001}', '{"$numberLong":"1001"}'),
        ("2147483648", '{"$numberLong":"2147483648"}'),
        ("-9223372036854775808", '{"$numberLong":"-9223372036854775808"}'),
        # double
        ("1.0", "1.0"),
        ("2444.0", "2444.0"),
        ("1.5", "1.5"),
        ("1.100000", "1.1"),
        ("1e3", "1000.0"),
        ("2.5E-7", "2.5e-07"),
        ("-0.0", "-0.0"),
        ('{"$numberDouble":"1.5"}', "1.5"),
        ('{"$numberDouble":"2"}', "2.0"),
        ('{"$numberDouble":"-1.5e10"}', "-15000000000.0"),
        ('{"$numberDouble":"NaN"}', '{"$numberDouble":"NaN"}'),
        ('{"$numberDouble":"Infinity"}', '{"$numberDouble":"Infinity"}'),
        ('{"$numberDouble":"-Infinity"}', '{"$numberDouble":"-Infinity"}'),
        # decimal128
        ('{"$numberDecimal":"1.50"}', '{"$numberDecimal":"1.50"}'),
        ('{"$numberDecimal":"-1E+10"}', '{"$numberDecimal":"-1E+10"}'),
        # ObjectId
        ('{"$oid":"5EB626B3452CD570B405BF7D"}', '{"$oid":"5eb626b3452cd570b405bf7d"}'),
        # dates
        ('{"$date":1533868558652}', '{"$date":1533868558652}'),
        ('{"$date":-1000}', '{"$date":-1000}'),
        ('{"$date":{"$numberLong":"1533868558652"}}', '{"$date":1533868558652}'),
        ('{"$date":"2018-08-10T02:35:58.652Z"}', '{"$date":1533868558652}'),
        ('{"$date":"2018-08-10T02:35:58Z"}', '{"$date":1533868558000}'),
        ('{"$date":"2018-08-10T04:35:58.6521+02:00"}', '{"$date":1533868558652}'),
        ('{"$date":"2018-08-10T02:35:58.65-0000"}', '{"$date":1533868558650}'),
        ('{"$date":"1969-12-31T23:59:59.500Z"}', '{"$date":-500}'),
        # binary
        (
            '{"$binary":{"base64":"AQID","subType":"0"}}',
            '{"$binary":{"base64":"AQID","subType":"00"}}',
        ),
        (
            '{"$binary":{"base64":"AQID","subType":"8A"}}',
            '{"$binary":{"base64":"AQID","subType":"8a"}}',
        ),
        ('{"$binary":"AQID","$type":"0"}', '{"$binary":{"base64":"AQID","subType":"00"}}'),
        ('{"$type":"5","$binary":"AQID"}', '{"$binary":{"base64":"AQID","subType":"05"}}'),
        (
            '{"$uuid":"123e4567-e89b-12d3-a456-426614174000"}',
            '{"$binary":{"base64":"Ej5FZ+ibEtOkVkJmFBdAAA==","subType":"04"}}',
        ),
        # timestamp
        ('{"$timestamp":{"t":1588995763,"i":1}}', '{"$timestamp":{"t":1588995763,"i":1}}'),
        ('{"$timestamp":{"i":2,"t":3}}', '{"$timestamp":{"t":3,"i":2}}'),
        # kept as given
        (
            '{"$regularExpression":{"pattern":"^a","options":"i"}}',
            '{"$regularExpression":{"pattern":"^a","options":"i"}}',
        ),
        ('{"$regex":"^a","$options":"i"}', '{"$regex":"^a","$options":"i"}'),
        ('{"$symbol":"s"}', '{"$symbol":"s"}'),
        ('{"$code":"f()"}', '{"$code":"f()"}'),
        (
            '{"$code":"f(x)","$scope":{"x":{"$numberLong":"5"},"y":2.0}}',
            '{"$code":"f(x)","$scope":{"x":{"$numberLong":"5"},"y":2.0}}',
        ),
        ('{"$minKey":1}', '{"$minKey":1}'),
        ('{"$maxKey":1}', '{"$maxKey":1}'),
        ('{"$undefined":true}', '{"$undefined":true}'),
        (
            '{"$dbPointer":{"$ref":"c","$id":{"$oid":"5EB626B3452CD570B405BF7D"}}}',
            '{"$dbPointer":{"$ref":"c","$id":{"$oid":"5eb626b3452cd570b405bf7d"}}}',
        ),
        # DBRef is a document
        (
            '{"$ref":"c","$id":{"$numberInt":"1"},"$db":"d","x":1}',
            '{"$ref":"c","$id":1,"$db":"d","x":1}',
        ),
        # plain values, nesting
        ('"text"', '"text"'),
        ("true", "true"),
        ("null", "null"),
        (
            '[1,1.0,{"$numberLong":"1"},[{"a":{"$numberInt":"2"}}]]',
            '[1,1.0,{"$numberLong":"1"},[{"a":2}]]',
        ),
        ('"héllo ✓"', '"héllo ✓"'),
    ],
)
def test_value_normal_form(given: str, expected: str) -> None:
    assert value(given) == expected


@pytest.mark.parametrize(
    "fixed",
    [
        '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0,"create":2.0,"b":45.0,"c":2444.0,'
        '"thedate":{"$date":1533868558652}}',
        '{"_id":{"$numberLong":"1001"},"first_name":"Sally"}',
        '{"tags":["pending"],"updated_at":{"$date":1739455297970},'
        '"created_at":{"$numberLong":"1736207571013"}}',
    ],
)
def test_corpus_documents_are_fixed_points(fixed: str) -> None:
    assert normalise_document(fixed) == fixed


def test_field_order_and_spacing() -> None:
    given = '{ "z": 1,\n "a": {"y": 1.0, "b": [ 3, 2 ]}, "m": "ü" }'
    assert normalise_document(given) == '{"z":1,"a":{"y":1.0,"b":[3,2]},"m":"ü"}'


def test_relaxed_debezium_after_text() -> None:
    after = '{"_id": {"$oid": "5eb626b3452cd570b405bf7d"},"a": 1.0,"create": 2.0}'
    expected = '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0,"create":2.0}'
    assert normalise_document(after) == expected


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ('{"a":{"$oid":5}}', "malformed_extended_json"),
        ('{"a":{"$oid":"xyz"}}', "malformed_extended_json"),
        ('{"a":{"$numberLong":"abc"}}', "malformed_extended_json"),
        ('{"a":{"$numberLong":"9223372036854775808"}}', "malformed_extended_json"),
        ('{"a":{"$date":"not a date"}}', "malformed_extended_json"),
        ('{"a":{"$date":"2020-02-30T00:00:00Z"}}', "malformed_extended_json"),
        ('{"a":{"$date":"2020-01-01T00:00:00"}}', "malformed_extended_json"),
        ('{"a":{"$numberInt":"1.5"}}', "malformed_extended_json"),
        ('{"a":{"$numberInt":"2147483648"}}', "malformed_extended_json"),
        ('{"a":{"$numberDouble":"abc"}}', "malformed_extended_json"),
        ('{"a":{"$numberDecimal":"x"}}', "malformed_extended_json"),
        ('{"a":{"$binary":"!!","$type":"0"}}', "malformed_extended_json"),
        ('{"a":{"$binary":{"base64":"AQID","subType":"xyz"}}}', "malformed_extended_json"),
        ('{"a":{"$timestamp":{"t":-1,"i":0}}}', "malformed_extended_json"),
        ('{"a":{"$uuid":"nope"}}', "malformed_extended_json"),
        ('{"a":{"$foo":1}}', "malformed_extended_json"),
        ('{"a":{"$oid":"5eb626b3452cd570b405bf7d","x":1}}', "malformed_extended_json"),
        ('{"a":[{"$set":{"b":1}}]}', "malformed_extended_json"),
        ('{"a":1', "malformed_document"),
        ("not json", "malformed_document"),
        ("[1,2]", "malformed_document"),
        ('{"$oid":"5eb626b3452cd570b405bf7d"}', "malformed_document"),
    ],
)
def test_malformed(given: str, reason: str) -> None:
    with pytest.raises(MongoDocumentError) as caught:
        normalise_document(given)
    assert str(caught.value).startswith(f"{reason}: ")
    assert caught.value.reason == reason


# ---------------------------------------------------------------- keys


@pytest.mark.parametrize(
    ("id_text", "expected"),
    [
        ('{"$oid": "5EB626B3452CD570B405BF7D"}', OID_KEY),
        ("1", '{"_id":1}'),
        ('{"$numberInt":"1"}', '{"_id":1}'),
        ('{"$numberLong":"1"}', '{"_id":1}'),
        ('{"$numberLong":"1004"}', '{"_id":1004}'),
        ("1.0", '{"_id":1}'),
        ('{"$numberDouble":"1.0"}', '{"_id":1}'),
        ('{"$numberDecimal":"1.000"}', '{"_id":1}'),
        ("1.5", '{"_id":1.5}'),
        ('{"$numberDecimal":"1.50"}', '{"_id":1.5}'),
        ("-0.0", '{"_id":0}'),
        ("1e-7", '{"_id":1e-7}'),
        ("12345678901", '{"_id":12345678901}'),
        ('"abc"', '{"_id":"abc"}'),
        ('"5eb626b3452cd570b405bf7d"', '{"_id":"5eb626b3452cd570b405bf7d"}'),
        (
            '{"b": {"$numberLong": "2"}, "a": {"y": 1, "x": "s"}}',
            '{"_id":{"a":{"x":"s","y":1},"b":2}}',
        ),
        ('[{"$numberLong":"3"},"x"]', '{"_id":[3,"x"]}'),
        ('{"$date":{"$numberLong":"5"}}', '{"_id":{"$date":5}}'),
        ('{"$timestamp":{"t":1,"i":2}}', '{"_id":{"$timestamp":{"t":1,"i":2}}}'),
    ],
)
def test_canonical_key(id_text: str, expected: str) -> None:
    assert canonical_key(id_text) == expected


def test_string_and_oid_keys_differ() -> None:
    assert canonical_key(f'"{OID}"') != canonical_key(f'{{"$oid":"{OID}"}}')


@pytest.mark.parametrize("id_text", ['{"$oid":5}', "abc", "", '{"$numberLong":"x"}'])
def test_canonical_key_malformed(id_text: str) -> None:
    with pytest.raises(MongoDocumentError):
        canonical_key(id_text)


def test_key_from_document_and_filter() -> None:
    doc = '{"_id": {"$numberLong": "1004"}, "first_name": "Anne"}'
    assert key_from_document(doc) == '{"_id":1004}'
    shard_filter = f'{{"region": "eu", "_id": {{"$oid": "{OID.upper()}"}}}}'
    assert key_from_filter(shard_filter) == OID_KEY
    with pytest.raises(MongoDocumentError, match="^missing_id: "):
        key_from_filter('{"region": "eu"}')


# ---------------------------------------------------------------- fold helpers


def c(after: str) -> dict[str, object]:
    return {"op": "c", "after": after, "key": None}


def u(patch: str, key: str | None = OID_KEY) -> dict[str, object]:
    return {"op": "u", "patch": patch, "key": key}


def ud(
    updated: str | None = None,
    removed: list[str] | None = None,
    truncated: list[dict[str, object]] | None = None,
    key: str | None = OID_KEY,
) -> dict[str, object]:
    description = {"updatedFields": updated, "removedFields": removed, "truncatedArrays": truncated}
    return {"op": "u", "update_description": description, "key": key}


def docs(base: str | None, *changes: dict[str, object], partial: bool = False) -> list:
    return [result["doc"] for result in fold(base, partial, list(changes))]


def last(base: str | None, *changes: dict[str, object]) -> str | None:
    results = fold(base, False, list(changes))
    assert results[-1]["error"] is None, results[-1]["error"]
    return results[-1]["doc"]


def error(base: str | None, *changes: dict[str, object]) -> str:
    results = fold(base, False, list(changes))
    assert results[-1]["doc"] == base
    message = results[-1]["error"]
    assert message is not None
    return message


BASE = '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2}]}'


# ---------------------------------------------------------------- the corpus example


def test_zeromicro_corpus_fold() -> None:
    results = fold(
        None,
        False,
        [
            c('{"_id": {"$oid": "5eb626b3452cd570b405bf7d"},"a": 1.0,"create": 2.0}'),
            u('{"$v": 1,"$set": {"b": 45.0,"c": 2444.0, "thedate":{"$date": 1533868558652}}}'),
        ],
    )
    assert results == [
        {"doc": '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0,"create":2.0}',
         "partial": False, "error": None},
        {"doc": '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0,"create":2.0,"b":45.0,'
                '"c":2444.0,"thedate":{"$date":1533868558652}}',
         "partial": False, "error": None},
    ]  # fmt: skip


# ---------------------------------------------------------------- $set / $unset


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ('{"$set":{"a":2}}', '{"_id":1,"a":2,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2}]}'),
        ('{"$set":{"a":2.0}}', '{"_id":1,"a":2.0,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2}]}'),
        (
            '{"$set":{"ad.c":"B"}}',
            '{"_id":1,"a":1,"ad":{"c":"B","z":"0"},"it":[{"q":1},{"q":2}]}',
        ),
        (
            '{"$set":{"n.deep.field":{"$numberLong":"7"}}}',
            '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2}],"n":{"deep":{"field":{"$numberLong":"7"}}}}',
        ),
        ('{"$set":{"it.1.q":5}}', '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":5}]}'),
        (
            '{"$set":{"it.2.q":3}}',
            '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2},{"q":3}]}',
        ),
        (
            '{"$set":{"it.4":"x"}}',
            '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2},null,null,"x"]}',
        ),
        (
            '{"$set":{"it.3.q":3}}',
            '{"_id":1,"a":1,"ad":{"c":"O","z":"0"},"it":[{"q":1},{"q":2},null,{"q":3}]}',
        ),
        (
            '{"$set":{"ad.2":true}}',
            '{"_id":1,"a":1,"ad":{"c":"O","z":"0","2":true},"it":[{"q":1},{"q":2}]}',
        ),
        ('{"$unset":{"ad.z":""}}', '{"_id":1,"a":1,"ad":{"c":"O"},"it":[{"q":1},{"q":2}]}'),
        ('{"$unset":{"a":true,"it.0":""}}', '{"_id":1,"ad":{"c":"O","z":"0"},"it":[null,{"q":2}]}'),
        ('{"$unset":{"missing.path":"","it.9":"","a.b":""}}', BASE),
        (
            '{"$v":1,"$set":{"a":{"$date":"2018-08-10T02:35:58.652Z"}},"$unset":{"it":""}}',
            '{"_id":1,"a":{"$date":1533868558652},"ad":{"c":"O","z":"0"}}',
        ),
    ],
)
def test_set_unset(patch: str, expected: str) -> None:
    assert last(BASE, u(patch)) == expected


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ('{"$inc":{"a":1}}', "unknown_patch_operator: $inc"),
        ('{"$set":{"b":1},"$push":{"it":1}}', "unknown_patch_operator: $push"),
        ('{"$rename":{"a":"b"}}', "unknown_patch_operator: $rename"),
        ('{"$set":{"a.b":1}}', "patch_path_through_scalar: 'a.b': 'a' is int"),
        ('{"$set":{"ad.c.x":1}}', "patch_path_through_scalar: "),
        ('{"$set":{"it.x":1}}', "patch_path_through_array: "),
        ('{"$set":{"a..b":1}}', "patch_path_invalid: "),
        ('{"$set":{"a":{"$oid":"bad"}}}', "malformed_extended_json: "),
        ('{"$set":5}', "malformed_patch: "),
        ('{"$set":{"a":1},"b":2}', "malformed_patch: "),
        ('["$set"]', "malformed_patch: "),
        ("{not json", "malformed_document: "),
    ],
)
def test_patch_errors_leave_document(patch: str, reason: str) -> None:
    assert error(BASE, u(patch)).startswith(reason)


def test_set_through_null_is_an_error() -> None:
    base = '{"_id":1,"a":null,"r":[null]}'
    assert error(base, u('{"$set":{"a.b":1}}')).startswith("patch_path_through_scalar: ")
    assert error(base, u('{"$set":{"r.0.b":1}}')).startswith("patch_path_through_scalar: ")


def test_error_then_folding_continues() -> None:
    results = fold(BASE, False, [u('{"$inc":{"a":1}}'), u('{"$set":{"a":3}}')])
    assert results[0] == {"doc": BASE, "partial": False, "error": results[0]["error"]}
    assert results[0]["error"].startswith("unknown_patch_operator: $inc")
    assert results[1]["error"] is None
    assert results[1]["doc"].startswith('{"_id":1,"a":3,')


# ---------------------------------------------------------------- v2 diffs


DIFF_BASE = '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3]}'


@pytest.mark.parametrize(
    ("diff", "expected"),
    [
        ('{"u":{"a":2.0}}', '{"_id":1,"a":2.0,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3]}'),
        (
            '{"i":{"m":{"$numberLong":"9"}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3],"m":{"$numberLong":"9"}}',
        ),
        ('{"i":{"a":5}}', '{"_id":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3],"a":5}'),
        (
            '{"d":{"a":false,"nope":false}}',
            '{"_id":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3]}',
        ),
        (
            '{"so":{"u":{"x":2},"i":{"z":true},"d":{"y":false}}}',
            '{"_id":1,"a":1,"o":{"x":2,"z":true},"r":[{"k":1},{"k":2},3]}',
        ),
        (
            '{"so":{"sy":{"a":true,"l":2}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2]},"r":[{"k":1},{"k":2},3]}',
        ),
        (
            '{"so":{"sy":{"a":true,"l":5}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3,null,null]},"r":[{"k":1},{"k":2},3]}',
        ),
        (
            '{"sr":{"a":true,"u2":"three"}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},"three"]}',
        ),
        (
            '{"sr":{"a":true,"u4":4}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3,null,4]}',
        ),
        (
            '{"sr":{"a":true,"s1":{"u":{"k":20}}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":20},3]}',
        ),
        (
            '{"sr":{"a":true,"l":1,"s0":{"i":{"j":1}}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1,"j":1}]}',
        ),
        (
            '{"sn":{"i":{"x":1}}}',
            '{"_id":1,"a":1,"o":{"x":1,"y":[1,2,3]},"r":[{"k":1},{"k":2},3],"n":{"x":1}}',
        ),
    ],
)
def test_v2_diff(diff: str, expected: str) -> None:
    base = DIFF_BASE
    assert last(base, u('{"$v": 2, "diff": ' + diff + "}")) == expected


@pytest.mark.parametrize(
    ("diff", "reason"),
    [
        ('{"sa":{"u":{"x":1}}}', "patch_path_through_scalar: "),
        ('{"so":{"a":true,"l":0}}', "patch_path_through_scalar: "),
        ('{"q":{}}', "malformed_patch: "),
        ('{"sr":{"a":true,"x1":1}}', "malformed_patch: "),
        ('{"sr":{"a":true,"l":-1}}', "malformed_patch: "),
    ],
)
def test_v2_diff_errors(diff: str, reason: str) -> None:
    base = '{"_id":1,"a":1,"o":{"x":1},"r":[1]}'
    assert error(base, u('{"$v":2,"diff":' + diff + "}")).startswith(reason)


def test_diff_without_v2_is_a_replacement() -> None:
    assert last('{"_id":1,"a":1}', u('{"diff":{"u":{"a":2}}}')) == '{"_id":1,"diff":{"u":{"a":2}}}'


# ---------------------------------------------------------------- replacement


def test_replacement_with_and_without_id() -> None:
    base = '{"_id":1,"a":1,"b":2}'
    assert last(base, u('{"_id":1,"c":3}')) == '{"_id":1,"c":3}'
    assert last(base, u('{"c":3.0}')) == '{"_id":1,"c":3.0}'
    results = fold(None, False, [u('{"c":3}', key='{"_id":{"$oid":"' + OID + '"}}')])
    assert results == [
        {"doc": '{"_id":{"$oid":"' + OID + '"},"c":3}', "partial": False, "error": None}
    ]


def test_version_only_patch_is_a_no_op() -> None:
    assert last('{"_id":1,"a":1}', u('{"$v":1}')) == '{"_id":1,"a":1}'


# ---------------------------------------------------------------- updateDescription


def test_update_description() -> None:
    base = '{"_id":1,"a":1,"b":{"c":2,"d":3},"tags":["x","y","z"]}'
    assert last(base, ud(updated='{"b.c": 5, "e": {"$numberLong": "6"}}')) == (
        '{"_id":1,"a":1,"b":{"c":5,"d":3},"tags":["x","y","z"],"e":{"$numberLong":"6"}}'
    )
    assert last(base, ud(removed=["a", "b.d", "tags.1"])) == (
        '{"_id":1,"b":{"c":2},"tags":["x",null,"z"]}'
    )
    assert last(base, ud(truncated=[{"field": "tags", "size": 1}], updated='{"tags.1":"w"}')) == (
        '{"_id":1,"a":1,"b":{"c":2,"d":3},"tags":["x","w"]}'
    )
    assert last(base, ud()) == base
    assert error(base, ud(updated='{"a.z": 1}')).startswith("patch_path_through_scalar: ")
    assert error(base, ud(updated="[1]")).startswith("malformed_patch: ")


def test_update_after_wins() -> None:
    change = {"op": "u", "after": '{"_id":1,"z":1.0}', "patch": '{"$set":{"a":2}}', "key": None}
    assert fold('{"_id":1,"a":1}', True, [change]) == [
        {"doc": '{"_id":1,"z":1.0}', "partial": False, "error": None}
    ]


# ---------------------------------------------------------------- partial documents, deletes


def test_partial_then_full_document() -> None:
    results = fold(
        None,
        False,
        [
            u('{"$set":{"a":1}}'),
            ud(updated='{"b":2}'),
            c('{"_id":{"$oid":"' + OID + '"},"z":0}'),
        ],
    )
    assert results == [
        {"doc": '{"_id":{"$oid":"' + OID + '"},"a":1}', "partial": True, "error": None},
        {"doc": '{"_id":{"$oid":"' + OID + '"},"a":1,"b":2}', "partial": True, "error": None},
        {"doc": '{"_id":{"$oid":"' + OID + '"},"z":0}', "partial": False, "error": None},
    ]


def test_partial_base_stays_partial() -> None:
    results = fold('{"_id":1,"a":1}', True, [u('{"$set":{"b":2}}')])
    assert results == [{"doc": '{"_id":1,"a":1,"b":2}', "partial": True, "error": None}]


def test_a_diff_into_an_unknown_array_creates_what_set_would() -> None:
    """On a partial document an array sub-diff of a missing array is applied as `$set`
    of its leaves (numeric segments become field names); its truncation and deletes
    change nothing, and the `_id` keeps the type it was sent with."""
    key = '{"_id":{"$numberLong":"7"}}'
    diff = (
        '{"$v":2,"diff":{"sitems":{"a":true,"l":3,"s0":{"u":{"price":30.0}}},'
        '"ssub":{"d":{"x":false}}}}'
    )
    assert fold(None, False, [u(diff, key=key)]) == [
        {
            "doc": '{"_id":{"$numberLong":"7"},"items":{"0":{"price":30.0}}}',
            "partial": True,
            "error": None,
        }
    ]


def test_a_diff_into_a_known_array_edits_the_array() -> None:
    base = '{"_id":1,"items":[{"sku":"a","price":1.0},{"sku":"b"}]}'
    diff = '{"$v":2,"diff":{"sitems":{"a":true,"l":1,"s0":{"u":{"price":30.0}}}}}'
    assert fold(base, False, [u(diff)]) == [
        {"doc": '{"_id":1,"items":[{"sku":"a","price":30.0}]}', "partial": False, "error": None}
    ]


def test_delete_then_patch() -> None:
    results = fold(BASE, False, [{"op": "d"}, u('{"$v":2,"diff":{"i":{"a":1}}}', key='{"_id":7}')])
    assert results == [
        {"doc": None, "partial": False, "error": None},
        {"doc": '{"_id":7,"a":1}', "partial": True, "error": None},
    ]


def test_patch_without_key_or_base() -> None:
    results = fold(None, False, [u('{"$set":{"a":1}}', key=None)])
    assert results == [{"doc": '{"a":1}', "partial": True, "error": None}]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"op": "c", "after": None}, "missing_after: "),
        ({"op": "r"}, "missing_after: "),
        ({"op": "c", "after": "[1]"}, "missing_after: "),
        ({"op": "c", "after": "{bad"}, "malformed_document: "),
        ({"op": "u", "key": OID_KEY}, "missing_patch: "),
        ({"op": "x"}, "unknown_op: "),
        ({"op": None}, "unknown_op: "),
        ({"op": "u", "patch": '{"$set":{"a":1}}', "key": "nope"}, "malformed_key: "),
    ],
)
def test_change_errors(change: dict[str, object], reason: str) -> None:
    results = fold(None, False, [change])
    assert results[0]["doc"] is None and results[0]["error"].startswith(reason)


def test_malformed_base() -> None:
    results = fold("{bad", False, [u('{"$set":{"a":1}}'), c('{"_id":1}')])
    assert results[0]["doc"] == "{bad" and results[0]["error"].startswith("malformed_base: ")
    assert results[1] == {"doc": '{"_id":1}', "partial": False, "error": None}


# ---------------------------------------------------------------- SQL row functions


def test_sql_rows_handle_nulls_and_errors() -> None:
    nan = float("nan")
    assert key_or_error(None) == (None, None)
    assert key_or_error(nan) == (None, None)
    assert key_or_error('{"$numberLong":"1004"}') == ('{"_id":1004}', None)
    key, message = key_or_error('{"$oid":1}')
    assert key is None and message.startswith("malformed_extended_json: ")
    assert normalise_or_error(nan) == (None, None)
    assert normalise_or_error('{"a": 1.0}') == ('{"a":1.0}', None)
    assert normalise_or_error("x")[1].startswith("malformed_document: ")
    assert [as_flag(v) for v in (None, nan, True, False, 1, "true")] == [
        False, False, True, False, True, False,
    ]  # fmt: skip


def test_fold_json() -> None:
    changes = json.dumps(
        [
            {"op": "c", "after": '{"_id": 1, "a": 1.0}'},
            {"op": "u", "update_description": {"updatedFields": '{"b": 2}'}},
            {"op": "u", "patch": '{"$inc": {"a": 1}}'},
        ]
    )
    assert json.loads(fold_json(None, None, changes)) == [
        {"doc": '{"_id":1,"a":1.0}', "partial": False, "error": None},
        {"doc": '{"_id":1,"a":1.0,"b":2}', "partial": False, "error": None},
        {"doc": '{"_id":1,"a":1.0,"b":2}', "partial": False,
         "error": "unknown_patch_operator: $inc is not supported (only $set and $unset)"},
    ]  # fmt: skip
    assert fold_json('{"_id":1}', True, None) is None
    [bad] = json.loads(fold_json('{"_id":1}', True, "{bad"))
    assert (bad["doc"], bad["partial"]) == ('{"_id":1}', True)
    assert bad["error"].startswith("malformed_changes: ")
    assert json.loads(fold_json(float("nan"), float("nan"), "[]")) == []


def test_set_nested_field_and_array_element_by_name() -> None:
    base = '{"_id":1,"address":{"city":"Oslo"},"items":[{"qty":1},{"qty":2},{"qty":3}]}'
    patch = '{"$set":{"address.city":"Bergen","items.2.qty":{"$numberInt":"30"}}}'
    assert last(base, u(patch)) == (
        '{"_id":1,"address":{"city":"Bergen"},"items":[{"qty":1},{"qty":2},{"qty":30}]}'
    )

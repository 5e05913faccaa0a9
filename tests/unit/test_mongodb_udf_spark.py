"""The MongoDB UDFs as SQL functions on the shared local Spark session."""

from __future__ import annotations

import json

import pytest

import python_udfs

pytestmark = pytest.mark.spark

PARTIAL_CHANGES = json.dumps(
    [{"op": "u", "key": '{"_id":7}', "update_description": {"updatedFields": '{"k":1}'}}]
)


def test_sql_functions(spark) -> None:  # type: ignore[no-untyped-def]
    python_udfs.register(spark)
    python_udfs.register(spark)  # idempotent
    changes = json.dumps(
        [
            {"op": "c", "after": '{"_id": {"$oid": "5eb626b3452cd570b405bf7d"},"a": 1.0}'},
            {"op": "u", "patch": '{"$v": 1, "$set": {"b.c": {"$numberLong": "5"}}}'},
            {"op": "u", "patch": '{"$inc": {"a": 1}}'},
        ]
    )
    spark.createDataFrame(
        [
            ('{"$oid": "5EB626B3452CD570B405BF7D"}', '{"x": 1.0}', None, None, changes),
            ('{"$numberLong": "7"}', "{bad", '{"_id":7}', True, None),
            (None, None, '{"_id":7}', None, "[]"),
            ('{"$oid": 5}', '{"a":{"$foo":1}}', None, False, PARTIAL_CHANGES),
        ],
        "id string, doc string, base string, partial boolean, changes string",
    ).createOrReplaceTempView("mongodb_udf_input")
    rows = spark.sql(
        """
        select
            cdc_mongodb_key(id) as k,
            cdc_mongodb_normalise(doc) as n,
            from_json(
                cdc_mongodb_fold(base, partial, changes),
                'array<struct<doc: string, partial: boolean, error: string>>'
            ) as f
        from mongodb_udf_input
        """
    ).collect()
    got = [
        (
            row.k.asDict(),
            row.n.asDict(),
            None if row.f is None else [item.asDict() for item in row.f],
        )
        for row in rows
    ]
    doc = '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0}'
    patched = '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"a":1.0,"b":{"c":{"$numberLong":"5"}}}'
    assert got[0] == (
        {"key": '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"}}', "error": None},
        {"doc": '{"x":1.0}', "error": None},
        [
            {"doc": doc, "partial": False, "error": None},
            {"doc": patched, "partial": False, "error": None},
            {
                "doc": patched,
                "partial": False,
                "error": "unknown_patch_operator: $inc is not supported (only $set and $unset)",
            },
        ],
    )
    assert got[1][0] == {"key": '{"_id":7}', "error": None}
    assert got[1][1]["doc"] is None and got[1][1]["error"].startswith("malformed_document: ")
    assert got[1][2] is None
    assert got[2] == ({"key": None, "error": None}, {"doc": None, "error": None}, [])
    assert got[3][0]["key"] is None and got[3][0]["error"].startswith("malformed_extended_json")
    assert got[3][1]["error"].startswith("malformed_extended_json: ")
    assert got[3][2] == [{"doc": '{"_id":7,"k":1}', "partial": True, "error": None}]

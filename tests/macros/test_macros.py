"""Macro-level tests: render project macros with `dbt compile --inline`, run them on Spark.

Each test builds one query over a VALUES table of small fixtures, so a whole family of
cases costs one dbt compile and one Spark query. Expected values are computed here, in
Python, independently of the SQL under test.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from decimal import Context, Decimal

import pytest

from cdc_tools.dbt_invoke import run_dbt
from workbench.consumer import CONSUMER_DIR

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def render(dbt_project, spark):  # type: ignore[no-untyped-def]
    """render(sql_with_jinja) -> rows of the compiled query, run on the shared session."""

    def _render(sql: str) -> list[dict]:
        result = run_dbt(["compile", "--inline", sql], target_path=dbt_project.target_path)
        compiled = result.result.results[0].node.compiled_code
        return [row.asDict() for row in spark.sql(compiled).collect()]

    return _render


def _twos_complement_base64(value: int) -> str:
    length = max(1, (value + (value < 0)).bit_length() // 8 + 1)
    return base64.b64encode(value.to_bytes(length, "big", signed=True)).decode()


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


INTEGERS = [
    0,
    1,
    -1,
    127,
    128,
    -128,
    -129,
    255,
    256,
    65535,
    -65536,
    2**63,
    -(2**63),
    10**37,
    -(10**37),
    10**38 - 1,
    -(10**38 - 1),
]


def test_twos_complement_decoding(render) -> None:  # type: ignore[no-untyped-def]
    values = ", ".join(
        f"({i}, {_sql_string(_twos_complement_base64(v))})" for i, v in enumerate(INTEGERS)
    )
    rows = render(
        "select id, cast({{ _cdc_decode_twos_complement(\"try_to_binary(encoded, 'base64')\") }} "
        f"as string) as decoded from values {values} as cases(id, encoded) order by id"
    )
    assert [int(row["decoded"]) for row in rows] == INTEGERS


DECIMALS = [
    # (raw JSON text, contract type, column encoding or None, schema scale or None, expected)
    ("ME8=", "decimal(12,2)", None, None, Decimal("123.67")),
    ("ME8=", "decimal(12,2)", "precise", "2", Decimal("123.67")),
    (_twos_complement_base64(-12367), "decimal(12,2)", None, None, Decimal("-123.67")),
    ("AA==", "decimal(12,2)", None, None, Decimal("0.00")),
    (_twos_complement_base64(10**37 + 5), "decimal(38,0)", None, None, Decimal(10**37 + 5)),
    ("12.30", "decimal(12,2)", "string", None, Decimal("12.30")),
    ("1.5", "decimal(12,2)", "double", None, Decimal("1.50")),
    (
        '{"scale":0,"value":"EAAAAAAAAAAAAAAAAA=="}',
        "decimal(38,0)",
        None,
        None,
        Decimal(1267650600228229401496703205376),
    ),
    ('{"scale": 2, "value": "ME8="}', "decimal(10,2)", None, None, Decimal("123.67")),
    ("not base64!", "decimal(12,2)", "precise", None, None),
    # No schema, no declared mode: a literal with a point or a minus sign is a number
    # (decimal.handling.mode double or string), anything else base64 (precise).
    ("-12.5", "decimal(12,2)", None, None, Decimal("-12.50")),
    ("12.30", "decimal(12,2)", None, None, Decimal("12.30")),
    ("-7", "decimal(12,2)", None, None, Decimal("-7.00")),
    ("1.2345678901234568E13", "decimal(18,4)", None, None, Decimal("12345678901234.5680")),
    (
        "-9.999999999999999E28",
        "decimal(38,9)",
        None,
        None,
        Decimal("-99999999999999990" + "0" * 12),
    ),
    (
        "1234",
        "decimal(12,2)",
        None,
        None,
        Decimal(int.from_bytes(base64.b64decode("1234"), "big", signed=True)).scaleb(-2),
    ),
]


def test_decimal_decoding(render) -> None:  # type: ignore[no-untyped-def]
    parts = []
    for i, (raw, dtype, encoding, scale, _) in enumerate(DECIMALS):
        encoding_arg = f"'{encoding}'" if encoding else "none"
        column_type = (
            f"named_struct('type', 'bytes', 'name', 'org.apache.kafka.connect.data.Decimal', "
            f"'scale', '{scale}')"
            if scale
            else "cast(null as struct<type:string,name:string,scale:string>)"
        )
        parts.append(
            f"select {i} as id, cast({{{{ cdc_decode_value("
            f"{json.dumps(_sql_string(raw))}, '{dtype}', "
            f'{encoding_arg}, "{column_type}", "\'sqlserver\'") }}}} as string) as decoded'
        )
    rows = render(" union all ".join(parts) + " order by id")
    decoded = [None if r["decoded"] is None else Decimal(r["decoded"]) for r in rows]
    assert decoded == [expected for *_, expected in DECIMALS]


def _schemaless_decimals_sql(raws: list[str], dtype: str) -> str:
    no_schema = "cast(null as struct<type:string,name:string,scale:string>)"
    return (
        " union all ".join(
            f"select {i} as id, cast({{{{ cdc_decode_value({json.dumps(_sql_string(raw))}, "
            f"'{dtype}', none, \"{no_schema}\", \"'postgresql'\") }}}} as string) as decoded"
            for i, raw in enumerate(raws)
        )
        + " order by id"
    )


@pytest.mark.parametrize("mode", ["double", "string"])
def test_decimal_handling_var_reads_schemaless_integers(dbt_project, spark, mode) -> None:  # type: ignore[no-untyped-def]
    """README: a schemaless decimal with neither a point nor a minus sign is read by the
    var `cdc_decimal_handling` (default `precise`: base64 bytes, see DECIMALS above)."""
    raws = ["1234", "ME8=", "12.30"]
    result = run_dbt(
        ["compile", "--inline", _schemaless_decimals_sql(raws, "decimal(12,2)")],
        vars={"cdc_decimal_handling": mode},
        target_path=dbt_project.target_path,
    )
    compiled = result.result.results[0].node.compiled_code
    rows = [row.asDict() for row in spark.sql(compiled).collect()]
    decoded = [None if r["decoded"] is None else Decimal(r["decoded"]) for r in rows]
    # a number, not base64 bytes; base64 text is no number in these modes
    assert decoded == [Decimal("1234.00"), None, Decimal("12.30")]


TEMPORALS = [
    # (raw, type, encoding, connector, expected as text)
    ("10599", "date", None, "postgresql", "1999-01-08"),
    ("-354285", "date", "io.debezium.time.Date", "mysql", "1000-01-01"),
    ("1734393600000", "date", None, "oracle", "2024-12-17"),
    ("2024-12-16", "date", None, "sqlserver", "2024-12-16"),
    ("1679581805000", "timestamp", "io.debezium.time.Timestamp", "mysql", "2023-03-23 14:30:05"),
    (
        "1529507596945104",
        "timestamp",
        "io.debezium.time.MicroTimestamp",
        "sqlserver",
        "2018-06-20 15:13:16.945104",
    ),
    (
        "1529507596945104000",
        "timestamp",
        "io.debezium.time.NanoTimestamp",
        "sqlserver",
        "2018-06-20 15:13:16.945104",
    ),
    (
        "2004-10-19T08:23:54Z",
        "timestamp",
        "io.debezium.time.ZonedTimestamp",
        "postgresql",
        "2004-10-19 08:23:54",
    ),
    ("14706000000", "string", "io.debezium.time.MicroTime", "postgresql", "04:05:06.000000"),
    ("14706100", "string", "io.debezium.time.Time", "postgresql", "04:05:06.100000"),
    ("75723000000000", "string", "io.debezium.time.NanoTime", "sqlserver", "21:02:03.000000"),
    # a MySQL TIME is a signed duration up to 838:59:59 (TiCDC's and Debezium's encoders)
    ("-3020399000000", "string", "io.debezium.time.MicroTime", "mysql", "-838:59:59.000000"),
    ("0", "string", "io.debezium.time.MicroTime", "mysql", "00:00:00.000000"),
    ("86399999999", "string", "io.debezium.time.MicroTime", "mysql", "23:59:59.999999"),
    ("3020399000000", "string", "io.debezium.time.MicroTime", "mysql", "838:59:59.000000"),
    ("-45296123456", "string", "io.debezium.time.MicroTime", "mysql", "-12:34:56.123456"),
    ("-3020399000", "string", "io.debezium.time.Time", "mysql", "-838:59:59.000000"),
    ("90061000000000", "string", "io.debezium.time.NanoTime", "mysql", "25:01:01.000000"),
    ("<foo>bar</foo>", "string", "io.debezium.data.Xml", "sqlserver", "<foo>bar</foo>"),
    ("12", "int", None, "db2", "12"),
    ("1.5", "int", None, "db2", None),
    ("abc", "bigint", None, "db2", None),
    ("1", "boolean", None, "oracle", "true"),
    ("false", "boolean", None, "db2", "false"),
    ("yes", "boolean", None, "db2", None),
]


def test_value_decoding(render) -> None:  # type: ignore[no-untyped-def]
    parts = []
    for i, (raw, dtype, encoding, connector, _) in enumerate(TEMPORALS):
        encoding_arg = f"'{encoding}'" if encoding else "none"
        parts.append(
            f"select {i} as id, cast({{{{ cdc_decode_value("
            f"{json.dumps(_sql_string(raw))}, '{dtype}', "
            f"{encoding_arg}, 'cast(null as struct<type:string,name:string,scale:string>)', "
            f"\"'{connector}'\") }}}} as string) as decoded"
        )
    rows = render(" union all ".join(parts) + " order by id")
    assert [r["decoded"] for r in rows] == [expected for *_, expected in TEMPORALS]


DBZ, KAFKA = "io.debezium.time.", "org.apache.kafka.connect.data."
ENCODING_CASES = [
    # (raw, type, contract encoding, (schema type, schema name) or None, connector, expected)
    # a mapping per connector: each connector's entry applies, others get the defaults
    ("75723000000000", "string", {"sqlserver": DBZ + "NanoTime"}, None, "sqlserver",
     "21:02:03.000000"),
    ("75723000", "string", {"sqlserver": DBZ + "NanoTime", "db2": DBZ + "Time"}, None, "db2",
     "21:02:03.000000"),
    ("21:02:03.000000", "string", {"db2": DBZ + "Time"}, None, "oracle", "21:02:03.000000"),
    ("1529507596945104", "timestamp", {"db2": DBZ + "NanoTimestamp"}, None, "sqlserver",
     "2018-06-20 15:13:16.945104"),
    ("1529507596945104700", "timestamp", {"db2": DBZ + "NanoTimestamp"}, None, "db2",
     "2018-06-20 15:13:16.945104"),
    ("2018-06-20T20:43:16.9451047+05:30", "timestamp", {"db2": DBZ + "NanoTimestamp"}, None,
     "oracle", "2018-06-20 15:13:16.945104"),
    # the message's own schema wins over the contract's declaration
    ("1529507596945", "timestamp", DBZ + "MicroTimestamp", ("int64", KAFKA + "Timestamp"),
     "sqlserver", "2018-06-20 15:13:16.945"),
    ("75723000", "string", {"sqlserver": DBZ + "NanoTime"}, ("int64", KAFKA + "Time"),
     "sqlserver", "21:02:03.000000"),
    ("17702", "date", None, ("int32", KAFKA + "Date"), "oracle", "2018-06-20"),
    ("1529452800000", "date", None, ("int64", KAFKA + "Timestamp"), "oracle", "2018-06-20"),
]  # fmt: skip


def _jinja_literal(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, dict):
        return "{" + ", ".join(f"'{k}': '{v}'" for k, v in value.items()) + "}"
    return f"'{value}'"


def test_contract_encoding_per_connector_and_schema_precedence(render) -> None:  # type: ignore[no-untyped-def]
    parts = []
    for i, (raw, dtype, encoding, schema, connector, _) in enumerate(ENCODING_CASES):
        column_type = (
            f"named_struct('type', '{schema[0]}', 'name', '{schema[1]}', 'scale', "
            "cast(null as string))"
            if schema
            else "cast(null as struct<type:string,name:string,scale:string>)"
        )
        parts.append(
            f"select {i} as id, cast({{{{ cdc_decode_value("
            f"{json.dumps(_sql_string(raw))}, '{dtype}', {_jinja_literal(encoding)}, "
            f'"{column_type}", "\'{connector}\'") }}}} as string) as decoded'
        )
    rows = render(" union all ".join(parts) + " order by id")
    assert [r["decoded"] for r in rows] == [expected for *_, expected in ENCODING_CASES]


def test_canonical_keys_agree_between_message_key_and_row_image(render) -> None:  # type: ignore[no-untyped-def]
    rows = render(
        'select {{ _cdc_canonical_json_map("from_json(\'{\\"ID\\": 1004, '
        '\\"Region\\": \\"eu\\"}\', '
        "'map<string,string>')\") }} as from_key, "
        '{{ _cdc_canonical_json_map("from_json(\'{\\"region\\":\\"eu\\",\\"id\\":1004}\', '
        "'map<string,string>')\") }} as from_image, "
        "{{ _cdc_canonical_json_map(\"from_json('{}', 'map<string,string>')\") }} as empty"
    )
    assert (
        rows[0]["from_key"]
        == rows[0]["from_image"]
        == json.dumps({"id": "1004", "region": "eu"}, separators=(",", ":"))
    )
    assert rows[0]["empty"] is None


def test_positions_sort_in_change_order(render) -> None:  # type: ignore[no-untyped-def]
    # (connector, source fields as JSON): each list is in true change order.
    orders = {
        "oracle": [
            {"scn": "9999990"},  # a snapshot read: scn only
            {"scn": "9999995", "commit_scn": "10000002"},
            {"scn": "10000001", "commit_scn": "10000002"},
            {"scn": "10000003", "commit_scn": "100000000"},
            # one SCN: the redo record (rs_id parts compared padded, spaces trimmed), then ssn
            {"scn": "10000003", "commit_scn": "100000000", "rs_id": "0x00009f.0001ffff.01f0"},
            {"scn": "10000003", "commit_scn": "100000000", "rs_id": " 0x0000a1.00000002.0010 "},
            {
                "scn": "10000003",
                "commit_scn": "100000000",
                "rs_id": " 0x0000a1.00000002.0010 ",
                "ssn": 10,
                "redo_thread": 1,
            },
        ],
        "sqlserver": [
            {"commit_lsn": "0000002b:00000f10:0003"},
            {
                "commit_lsn": "0000002b:00000f20:0009",
                "change_lsn": "0000002b:00000f20:0002",
                "event_serial_no": "1",
            },
            {
                "commit_lsn": "0000002b:00000f20:0009",
                "change_lsn": "0000002b:00000f20:0002",
                "event_serial_no": "2",
            },
            {
                "commit_lsn": "0000002b:00000F30:0001",
                "change_lsn": "0000002b:00000f30:0001",
                "event_serial_no": 1,
            },
        ],
        "postgresql": [{"lsn": "34078720"}, {"lsn": "134078720"}],
        "mysql": [
            {"file": "mysql-bin.000003", "pos": "154"},
            {"file": "mysql-bin.000003", "pos": "1394"},
            {"file": "mysql-bin.000004", "pos": "4"},
        ],
    }
    parts = []
    for connector, sources in orders.items():
        for rank, source in enumerate(sources):
            text = json.dumps(source).replace("'", "\\'")
            parts.append(
                f"select '{connector}' as connector, {rank} as expected_rank, "
                f"from_json('{text}', '{{{{ _debezium_source_type() }}}}') as src"
            )
    rows = render(
        "select connector, expected_rank, "
        "{{ _debezium_position('connector', 'src') }} as position, "
        "{{ _debezium_connector('src') }} as detected from ("
        + " union all ".join(parts)
        + ") as cases"
    )
    for connector in orders:
        ranked = sorted(
            (r for r in rows if r["connector"] == connector), key=lambda r: r["position"]
        )
        assert [r["expected_rank"] for r in ranked] == list(range(len(orders[connector])))
    assert {r["connector"] for r in rows if r["detected"] == r["connector"]} == set(orders)


def test_merge_into_statements_for_table_formats(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    """The delta/iceberg/hudi path: its statements render and parse as Spark SQL MERGE.

    This checks the SQL on the `local` target (no format's catalog): Spark's own parser
    accepts every statement, and the clauses that carry the semantics are there. With a
    `source_relation` the upsert's rows are staged in that table and the MERGE reads it.
    The statements run on Delta in tests/e2e/test_delta_gold.py.
    """
    changes = (
        "select 1 as id, 'db.s.t' as _cdc_source_id, 'u' as _cdc_op, '0001|1|x' as _cdc_sort_key, "
        "current_timestamp() as _cdc_source_ts, current_timestamp() as _loaded_at, "
        "cast(null as string) as _cdc_error_reason"
    )
    inline = (
        "{% set statements = _cdc_merge_into_statements("
        f'"{changes}", ["id", "_cdc_source_id", "_cdc_op", "_cdc_sort_key", "_cdc_source_ts", '
        '"_loaded_at"], ["_cdc_source_id", "id"], '
        "api.Relation.create(schema='gold', identifier='t__cdc_state'), 8, 7) %}"
        "{{ statements | join('\\n;;\\n') }}\n@@\n"
        "{{ _cdc_merge_into_statements("
        f'"{changes}", ["id", "_cdc_source_id", "_cdc_op", "_cdc_sort_key", "_cdc_source_ts", '
        '"_loaded_at"], ["_cdc_source_id", "id"], '
        "api.Relation.create(schema='gold', identifier='t__cdc_state'), 8, 7, "
        "source_relation=api.Relation.create(schema='gold', identifier='t__cdc_staging'), "
        "source_exists=false) "
        "| join('\\n;;\\n') }}"
    )
    result = run_dbt(["compile", "--inline", inline], target_path=dbt_project.target_path)
    inline_sources, staged_sources = result.result.results[0].node.compiled_code.split("@@")
    statements = [s.strip() for s in inline_sources.split(";;")]
    staged = [" ".join(s.lower().split()) for s in staged_sources.split(";;")]
    assert len(statements) == 4
    # staged: the upsert's rows written to the staging table (created from the state's
    # columns when it does not exist, kept between runs: no drop), merged from it
    assert len(staged) == 6
    assert not any(s.startswith("drop") for s in staged)
    created = "create table gold.t__cdc_staging using parquet as select * from gold.t__cdc_state"
    assert staged[1] == created + " limit 0"
    assert staged[2].startswith(
        "insert overwrite table gold.t__cdc_staging (`id`, `_cdc_source_id`, `_cdc_op`, "
        "`_cdc_sort_key`, `_cdc_source_ts`, `_loaded_at`, `_cdc_is_deleted`, `cdc_bucket`) select"
    )
    assert "using gold.t__cdc_staging as source" in staged[3]
    for statement in staged:
        spark._jsparkSession.sessionState().sqlParser().parsePlan(statement)  # type: ignore[attr-defined]
    parser = spark._jsparkSession.sessionState().sqlParser()  # type: ignore[attr-defined]
    for statement in statements:
        parser.parsePlan(statement)  # raises on a syntax error
    markers, upsert, truncate_rows, purge = (" ".join(s.lower().split()) for s in statements)
    assert markers.startswith("merge into gold.t__cdc_state as target")
    assert "target.cdc_bucket = -1" in markers
    assert "when matched and source._cdc_sort_key > target._cdc_sort_key" in upsert
    assert "then delete" in upsert and "then update set *" in upsert and "then insert *" in upsert
    # key columns quoted (cdc_quote): any name a source has
    assert (
        "target.`_cdc_source_id` <=> source.`_cdc_source_id` and target.`id` <=> source.`id`"
        in upsert
    )
    assert "pmod(xxhash64(ranked.`_cdc_source_id`, ranked.`id`), 8)" in upsert
    assert "set target._cdc_is_deleted = true" in truncate_rows
    assert purge.startswith("delete from gold.t__cdc_state") and "make_dt_interval(7)" in purge


def test_a_key_s_changes_take_unavailable_values_from_the_image_before(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    """_debezium_unavailable_fold (int_cdc__carried_changes): an update's placeholder, in each
    of its forms, takes the field's value from the image before (a null set on purpose stays
    null); a PostgreSQL delete whose image holds the key alone takes the other fields; a
    create takes nothing; a placeholder nothing resolves is left for the caller."""
    placeholder = "__debezium_unavailable_value"
    b64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="
    images = [
        ("c", '{"k":1,"t":"long","b":"AAEC","a":["x","y"],"n":"set"}'),
        ("u", f'{{"k":1,"t":"{placeholder}","b":"{b64}","a":["{placeholder}"],"n":null}}'),
        ("u", f'{{"k":1,"t":"{placeholder}","b":"{b64}","a":["z"],"n":"{placeholder}"}}'),
        ("d", '{"k":1,"t":null,"b":null,"a":null,"n":null}'),
        ("c", f'{{"k":1,"t":"{placeholder}","b":"AAAA","a":[],"n":"new"}}'),
    ]
    changes = (
        "array("
        + ", ".join(
            f"named_struct('_cdc_op', '{op}', '_cdc_connector', 'postgresql', 'image', '{image}')"
            for op, image in images
        )
        + ")"
    )
    inline = "{% set changes %}" + changes + "{% endset %}"
    inline += "select {{ _debezium_unavailable_fold(changes) }} as images"
    result = run_dbt(["compile", "--inline", inline], target_path=dbt_project.target_path)
    [row] = spark.sql(result.result.results[0].node.compiled_code).collect()
    folded = [json.loads(image) for image in row["images"]]
    first = {"k": 1, "t": "long", "b": "AAEC", "a": ["x", "y"], "n": "set"}
    assert folded[0] == first
    assert folded[1] == {**first, "n": None}  # the null was set: it stays
    assert folded[2] == {**first, "a": ["z"], "n": None}
    assert folded[3] == folded[2]  # the delete's key-only image takes the row it ended
    assert folded[4] == {"k": 1, "t": placeholder, "b": "AAAA", "a": [], "n": "new"}


def test_columns_on_read_are_computed_for_current_rows_only(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    """cdc_columns_on_read: the published view computes them from the current rows (a
    compacted row superseded by the delta, a deleted key and a row hidden by a truncate are
    never evaluated: the expression would fail on them), after the published columns;
    cdc_unpublished_columns are read by them and not shown."""
    schema = "t_macro_on_read"
    spark.sql(f"create database if not exists {schema}")
    spark.sql(f"drop table if exists {schema}.t__cdc_state")
    spark.sql(
        f"create table {schema}.t__cdc_state using parquet partitioned by (cdc_bucket) as "
        "select * from values "
        # id 1: compacted 'old', superseded by the delta's 'new'
        "(1, 'db.s.t', 'old', 'h1', '0001', false, 0), "
        "(1, 'db.s.t', 'new', 'h2', '0003', false, -2), "
        # id 2: deleted; id 3: current; id 4: older than the truncate marker of db.s.u
        "(2, 'db.s.t', 'gone', 'h3', '0002', true, 1), "
        "(3, 'db.s.t', 'kept', 'h4', '0002', false, 1), "
        "(4, 'db.s.u', 'truncated', 'h5', '0001', false, 0), "
        "(null, 'db.s.u', null, null, '0002', true, -1) "
        "as t(id, _cdc_source_id, v, hidden, _cdc_sort_key, _cdc_is_deleted, cdc_bucket)"
    )
    failing = "assert_true(v in ('new', 'kept'), concat('evaluated for ', v))"
    inline = (
        f"{{{{ _cdc_current_view_sql(api.Relation.create(schema='{schema}', identifier='t'), "
        f"api.Relation.create(schema='{schema}', identifier='t__cdc_state'), "
        "['id', '_cdc_source_id', 'v', 'hidden'], ['_cdc_source_id', 'id'], 'hard', "
        f"{{'checked': \"{failing}\", 'v_and_hidden': \"concat(v, '/', hidden)\"}}, "
        "['hidden']) }}"
    )
    result = run_dbt(["compile", "--inline", inline], target_path=dbt_project.target_path)
    spark.sql(result.result.results[0].node.compiled_code)
    view = spark.table(f"{schema}.t")
    assert view.columns == ["id", "_cdc_source_id", "v", "checked", "v_and_hidden"]
    rows = sorted(tuple(row) for row in view.collect())
    assert rows == [(1, "db.s.t", "new", None, "new/h2"), (3, "db.s.t", "kept", None, "kept/h4")]
    spark.sql(f"drop database {schema} cascade")


def test_the_mariadb_connector_reads_as_mysql(render) -> None:  # type: ignore[no-untyped-def]
    """Debezium's MariaDB connector (a fork of the MySQL one) writes `"connector": "mariadb"`
    with the MySQL connector's binlog position; read as `mysql`, its changes sort by it (the
    real capture of tests/realdb/test_real_mariadb.py found it quarantined before)."""
    sources = [
        {"connector": "mariadb", "file": "mysql-bin.000003", "pos": 1394},
        {"connector": "MariaDB", "file": "mysql-bin.000003", "pos": 154},
        {"connector": "mysql", "file": "mysql-bin.000004", "pos": 4},
    ]
    cases = " union all ".join(
        f"select {rank} as id, from_json('{json.dumps(source)}', "
        "'{{ _debezium_source_type() }}') as src"
        for rank, source in enumerate(sources)
    )
    rows = render(
        "select id, detected, {{ _debezium_position('detected', 'src') }} as position from ("
        "select id, src, {{ _debezium_connector('src') }} as detected from (" + cases + ") as c"
        ") as cases order by position"
    )
    assert [r["detected"] for r in rows] == ["mysql"] * 3
    assert [r["id"] for r in rows] == [1, 0, 2]


def test_connector_overrides_by_topic(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    overrides = {"cdc_connector_overrides": [{"pattern": "^legacy[.]", "connector": "db2"}]}
    inline = (
        "select topic, {{ _debezium_connector('src', 'topic') }} as detected from ("
        "select 'legacy.S.T' as topic, from_json('{}', '{{ _debezium_source_type() }}') as src "
        "union all select 'other.S.T', from_json('{}', '{{ _debezium_source_type() }}') "
        "union all select 'other.S.T', "
        "from_json('{\"connector\": \"oracle\"}', '{{ _debezium_source_type() }}') "
        "union all select 'other.S.T', "
        "from_json('{\"pos\": \"5\"}', '{{ _debezium_source_type() }}')) as cases"
    )
    result = run_dbt(
        ["compile", "--inline", inline], vars=overrides, target_path=dbt_project.target_path
    )
    rows = spark.sql(result.result.results[0].node.compiled_code).collect()
    assert [(r["topic"], r["detected"]) for r in rows] == [
        ("legacy.S.T", "db2"),
        # no position field at all (Flink CDC, Flink SQL): a producer without positions
        ("other.S.T", "debezium"),
        ("other.S.T", "oracle"),
        # a position field of no known connector: never guessed
        ("other.S.T", None),
    ]
    bad = run_dbt(
        ["compile", "--inline", inline],
        vars={"cdc_connector_overrides": [{"pattern": "x", "connector": "sybase"}]},
        target_path=dbt_project.target_path,
        expect_success=False,
    )
    assert not bad.success and "sybase" in str(bad.exception or bad.result)


def test_dataworks_values_are_typed_by_their_data_column(render) -> None:  # type: ignore[no-untyped-def]
    """A DataWorks message's `schema.dataColumn` types its values for a contract: DATE is
    epoch milliseconds (to a timestamp or a date), DOUBLE carried as text reads as a
    number, LONG and BOOLEAN as themselves, BYTES stays its base64 text."""
    message = {
        "schema": {
            "dataColumn": [
                {"name": "created", "type": "DATE"},
                {"name": "val", "type": "DOUBLE"},
                {"name": "n", "type": "LONG"},
                {"name": "ok", "type": "BOOLEAN"},
                {"name": "raw", "type": "BYTES"},
            ],
            "primaryKey": ["n"],
            "source": {"dbType": "MySQL", "dbName": "d", "tableName": "t"},
        },
        "payload": {"op": "INSERT", "sequenceId": "1"},
    }
    cases = [
        ("created", "1731661114000", "timestamp", "2024-11-15 08:58:34"),
        ("created", "1731661114000", "date", "2024-11-15"),
        ("val", "1.100000", "decimal(10,2)", "1.10"),
        ("val", "1.100000", "double", "1.1"),
        ("n", "42", "bigint", "42"),
        ("ok", "true", "boolean", "true"),
        ("raw", "AAEC", "string", "AAEC"),
    ]
    parts = []
    for i, (column, raw, dtype, _) in enumerate(cases):
        parts.append(
            f"select {i} as id, cast({{{{ cdc_decode_value({json.dumps(_sql_string(raw))}, "
            f"'{dtype}', none, \"types['{column}']\", \"'dataworks'\") }}}} as string) as v "
            "from (select {{ alibaba_dataworks__column_types('parsed') }} as types from "
            f"(select from_json({_sql_string(json.dumps(message))}, "
            "'{{ _cdc_envelope_schema() }}') as envelope) as parsed)"
        )
    rows = render(" union all ".join(parts) + " order by id")
    assert [r["v"] for r in rows] == [expected for *_, expected in cases]


def _render_with_vars(dbt_project, spark, sql: str, vars: dict, project_dir=None) -> list[dict]:  # type: ignore[no-untyped-def]
    result = run_dbt(
        ["compile", "--inline", sql],
        vars=vars,
        target_path=dbt_project.target_path,
        project_dir=project_dir,
    )
    compiled = result.result.results[0].node.compiled_code
    return [row.asDict() for row in spark.sql(compiled).collect()]


SOURCE_MATCHES = [
    # (contract as Jinja, db, schema, table, matches)
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "INV_1", "Inventory", "ORDERS", True),  # case-insensitive
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "invX1", "inventory", "orders", False),  # `_` is literal
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "inv_", "inventory", "orders", True),  # `*` matches nothing too
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "inv_1", None, "orders", False),  # a named schema never matches a source without one
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "inv_1", "app1", "orders", True),
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "inv_1", "app12", "orders", False),  # `?` is one character
    ("{'database': 'inv_*', 'schema': ['inventory', 'app?'], 'table': 'orders'}",
     "inv_1", "inventory", "orders2", False),
    ("{'table': '50%_off'}", None, None, "50%_OFF", True),  # omitted parts: any, null too
    ("{'table': '50%_off'}", "db", "s", "50abcxoff", False),  # `%` is literal
    ("{'database': '*', 'schema': '*', 'table': \"o'brien\"}", "d", None, "O'Brien", True),
    ("{'database': 'testdb', 'schema': 'dbo', 'table': 'orders'}", "testDB", "dbo", "orders", True),
    ("{'database': 'testdb', 'schema': 'dbo', 'table': 'orders'}", "inv", "dbo", "orders", False),
]  # fmt: skip


def test_source_matches_globs_case_insensitively(render) -> None:  # type: ignore[no-untyped-def]
    selects = []
    for index, (contract, db, schema, table, _) in enumerate(SOURCE_MATCHES):
        values = ", ".join(
            "cast(null as string)" if v is None else _sql_string(v) for v in (db, schema, table)
        )
        selects.append(
            f"select {index} as id, {{{{ cdc_source_matches({contract}, 'db', 'sch', 'tbl') }}}} "
            f"as matches from (select {values}) as s(db, sch, tbl)"
        )
    rows = render(" union all ".join(selects) + " order by id")
    assert [row["matches"] for row in rows] == [case[-1] for case in SOURCE_MATCHES]


DATA_COLLECTIONS = [
    # (event's db.schema.table, END's data_collection, matches)
    ("inventory.dbo.orders", "inventory.dbo.orders", True),  # Oracle, SQL Server, Db2
    ("inventory.public.orders", "public.orders", True),  # PostgreSQL: schema.table
    ("inventory.orders", "inventory.orders", True),  # MySQL: no schema, db.table
    ("inventory.dbo.orders", "orders", True),
    ("inventory.dbo.orders", "dbo.order_lines", False),
    ("inventory.dbo.xorders", "orders", False),  # a suffix, not a name
]


def test_data_collection_matches_names_and_their_ends(render) -> None:  # type: ignore[no-untyped-def]
    selects = [
        f"select {index} as id, {{{{ _cdc_data_collection_matches('q', 'c') }}}} as matches "
        f"from (select {_sql_string(name)}, {_sql_string(collection)}) as s(q, c)"
        for index, (name, collection, _) in enumerate(DATA_COLLECTIONS)
    ]
    rows = render(" union all ".join(selects) + " order by id")
    assert [row["matches"] for row in rows] == [case[-1] for case in DATA_COLLECTIONS]


DECLARED_KEYS = [
    # (db, schema, table, image, expected key): keys of the var below and of the project's
    # inventory contracts (schema inventory)
    ("db9", None, "things", {"a": "1", "b": "2", "c": "3"}, {"a": "1"}),  # bare: any source
    ("DB1", None, "THINGS", {"a": "1", "b": "2", "c": "3"}, {"b": "2"}),  # db.table wins
    ("db2", "s1", "things", {"a": "1", "b": "2", "c": "3"}, {"c": "3"}),  # db.schema.table
    ("db2", "s10", "things", {"a": "1", "b": "2", "c": "3"}, {"a": "1"}),
    ("x", "inventory", "orders", {"order_id": "5", "x": "7"}, {"order_id": "5"}),  # contract
    ("x", "dbo", "orders", {"order_id": "5", "x": "7"}, {"order_id": "5", "x": "7"}),  # unbound
    ("db3", "inventory", "orders", {"order_id": "5", "x": "7"}, {"x": "7"}),  # the var wins
    ("x", "inventory", "orders", {"id": "5"}, None),  # the contract's key is missing
]
KEY_VARS = {
    "cdc_table_keys": {
        "things": ["a"],
        "db1.things": ["B"],
        "db2.s?.things": ["c"],
        "DB3.*.Orders": ["x"],
    }
}


def test_declared_keys_bind_to_their_source(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    selects = []
    for index, (db, schema, table, image, _) in enumerate(DECLARED_KEYS):
        values = ", ".join(
            "cast(null as string)" if v is None else _sql_string(v) for v in (db, schema, table)
        )
        image_map = "map(" + ", ".join(f"'{k}', '{v}'" for k, v in image.items()) + ")"
        # as stg_cdc__messages does: the declared key matched once, then read off the image
        selects.append(
            f"select {index} as id, "
            f"{{{{ cdc_lakehouse.cdc_key_from_image('s.declared_key', \"{image_map}\") }}}} "
            "as key "
            f"from (select {{{{ cdc_lakehouse._cdc_declared_key('i.identity') }}}} as declared_key "
            f"from (select named_struct('db', db, 'schema', sch, 'table', tbl) as identity "
            f"from (select {values}) as v(db, sch, tbl)) as i) as s"
        )
    # on the consumer project: its inventory contracts declare keys too
    rows = _render_with_vars(
        dbt_project,
        spark,
        " union all ".join(selects) + " order by id",
        KEY_VARS,
        project_dir=CONSUMER_DIR,
    )
    assert [None if r["key"] is None else json.loads(r["key"]) for r in rows] == [
        case[-1] for case in DECLARED_KEYS
    ]


# (raw JSON value, schema name, decoded text in captured_rows._cdc_row_json)
SIGNED_TIMES = [
    ("-3020399000000", "io.debezium.time.MicroTime", "-838:59:59.000000"),
    ("0", "io.debezium.time.MicroTime", "00:00:00.000000"),
    ("86399999999", "io.debezium.time.MicroTime", "23:59:59.999999"),
    ("3020399000000", "io.debezium.time.MicroTime", "838:59:59.000000"),
    ("-45296123456", "io.debezium.time.MicroTime", "-12:34:56.123456"),
    ("-3020399000", "io.debezium.time.Time", "-838:59:59.000"),
    ("-45296123456789", "io.debezium.time.NanoTime", "-12:34:56.123456789"),
    ("3020399999999999", "io.debezium.time.NanoTime", "838:59:59.999999999"),
    ("null", "io.debezium.time.MicroTime", None),
]


def test_row_images_decode_signed_times_past_a_day(render) -> None:  # type: ignore[no-untyped-def]
    """A MySQL TIME (-838:59:59 to 838:59:59) in a row image typed by its message schema
    becomes [-]HH:mm:ss text at its type's precision, at each boundary."""
    parts = []
    for i, (raw, name, _) in enumerate(SIGNED_TIMES):
        image = _sql_string(json.dumps({"t": json.loads(raw)}))
        types = (
            f"map('t', named_struct('type', 'int64', 'name', '{name}', "
            "'scale', cast(null as string), 'precision', cast(null as string)))"
        )
        decode = f"cdc_decode_row_image({json.dumps(image)}, {json.dumps(types)})"
        parts.append(f"select {i} as id, {{{{ {decode} }}}}.json as decoded")
    rows = render(" union all ".join(parts) + " order by id")
    assert [json.loads(r["decoded"])["t"] for r in rows] == [text for *_, text in SIGNED_TIMES]


QUIET_SOURCES = [
    # (sync_source, hours since its newest event, hours since its newest load, warns)
    ("crm.dbo.customers", 48, 0.1, True),  # a real source gone quiet: its events are old
    ("crm.dbo.orders", 1, 0.1, False),
    ("crm.dbo.lines", None, 0.1, True),  # no event time at all
    ("demo_oracle.INVENTORY.CUSTOMERS", 24 * 400, 0.1, False),  # replayed, loaded just now
    ("demo_db2.INVENTORY.ORDERS", 24 * 400, 48, True),  # replayed, nothing loaded for 2 days
    ("demo_db2", 24 * 400, 1, False),  # the schema-change topic: `<server>` itself
    ("demo_db2.transaction", None, 1, False),  # transaction metadata: no event time
]


def test_quiet_sources_measure_replayed_sources_by_their_loads(render) -> None:  # type: ignore[no-untyped-def]
    """Finding 6 of issue #31: a replayed source (simulated, backfilled: `make demo`) is
    quiet when nothing of it was loaded for `max_quiet_hours`, not because its event times,
    in the past by design, are old; any other source by its newest event time, as before."""

    def hours_ago(hours: float | None) -> str:
        if hours is None:
            return "cast(null as timestamp)"
        return f"current_timestamp() - make_dt_interval(0, 0, 0, {hours * 3600})"

    values = ", ".join(
        f"({_sql_string(source)}, {hours_ago(event)}, {hours_ago(load)})"
        for source, event, load, _ in QUIET_SOURCES
    )
    model = f"(select * from values {values} as t(sync_source, last_event_ts, last_loaded_at))"
    rows = render(
        '{{ test_cdc_quiet_sources(model="' + model + "\", column_name='last_event_ts', "
        "max_quiet_hours=24, replayed_sources=['demo_oracle', 'demo_oracle.*', 'DEMO_DB2', "
        "'demo_db2.*']) }}"
    )
    assert sorted(str(row["sync_source"]) for row in rows) == sorted(
        source for source, *_, warns in QUIET_SOURCES if warns
    )
    assert {str(r["sync_source"]): r["is_replayed"] for r in rows}["demo_db2.INVENTORY.ORDERS"]


# ------------------------------------------------- values beyond 38 digits, arrays (issue 78)
WIDE_INTEGERS = [
    0,
    -1,
    10**35,
    -(10**35),
    2**119 - 1,  # the longest through decimal(38,0): 15 bytes
    -(2**119),
    2**119,  # 16 bytes: the wide path from here
    10**38 - 1,
    10**38,
    -(10**38),
    2**127 - 1,
    -(2**127),
    10**130,
    -(10**130),
    123456789012345678901234567890123456789,
    -999999999 * 10**81 - 1,
    2**400 + 12345,
    -(2**400) - 1,
]


def test_integers_of_any_length_decode_exactly(render) -> None:  # type: ignore[no-untyped-def]
    """Debezium's Decimal and VariableScaleDecimal carry an unscaled two's-complement integer
    of any length (an unconstrained PostgreSQL numeric of 1e130 is 55 bytes): its text, and
    its decimal text at a scale, are exact at every length, past Spark's 38 digits."""
    values = ", ".join(
        f"({i}, {_sql_string(_twos_complement_base64(v))})" for i, v in enumerate(WIDE_INTEGERS)
    )
    rows = render(
        "select id, {{ _cdc_unscaled_text(\"try_to_binary(encoded, 'base64')\") }} as digits, "
        "{{ _cdc_decimal_text(_cdc_unscaled_text(\"try_to_binary(encoded, 'base64')\"), '9') }}"
        f" as scaled from values {values} as cases(id, encoded) order by id"
    )
    assert [int(row["digits"]) for row in rows] == WIDE_INTEGERS
    assert [Decimal(row["scaled"]) for row in rows] == [
        Decimal(v).scaleb(-9, context=Context(prec=200)) for v in WIDE_INTEGERS
    ]
    assert all(len(row["scaled"].split(".")[1]) == 9 for row in rows)


def _variable_scale(value: Decimal) -> str:
    sign, digits, exponent = value.as_tuple()
    unscaled = int("".join(map(str, digits))) * (-1 if sign else 1)
    scale = max(0, -int(exponent))
    unscaled *= 10 ** max(0, int(exponent))
    return json.dumps({"scale": scale, "value": _twos_complement_base64(unscaled)})


WIDE_NUMERICS = [
    Decimal("1E+130"),
    Decimal("1E+40"),
    Decimal("123456789012345678901234567890.123456789"),
    Decimal("-123456789012345678901234567890.123456789"),
    Decimal("1E-130"),
    Decimal("-2.5"),
]


def test_unconstrained_numerics_beyond_38_digits(render) -> None:  # type: ignore[no-untyped-def]
    """A VariableScaleDecimal beyond 38 digits is its exact text in a string column (the
    scaffolder's type for an unconstrained numeric: no type_mismatch) and in the decoded
    row image of captured_rows; a decimal(38,x) column that cannot hold it gets null (a
    type_mismatch), never an overflow error."""
    vsd = (
        "named_struct('type', 'struct', 'name', 'io.debezium.data.VariableScaleDecimal', "
        "'scale', cast(null as string), 'precision', cast(null as string))"
    )
    parts = []
    for i, value in enumerate(WIDE_NUMERICS):
        raw = _sql_string(_variable_scale(value))
        image = _sql_string(json.dumps({"n": json.loads(_variable_scale(value))}))
        parts.append(
            f"select {i} as id, "
            f"{{{{ cdc_decode_value({json.dumps(raw)}, 'string', none, \"{vsd}\", "
            "\"'postgresql'\") }} as text_value, "
            f"cast({{{{ cdc_decode_value({json.dumps(raw)}, 'decimal(38,9)', none, \"{vsd}\", "
            "\"'postgresql'\") }} as string) as narrow, "
            f"{{{{ cdc_decode_row_image({json.dumps(image)}, \"map('n', {vsd})\") }}}}.json "
            "as image"
        )
    rows = render(" union all ".join(parts) + " order by id")
    expected = [format(value, "f") for value in WIDE_NUMERICS]
    assert [row["text_value"] for row in rows] == expected
    assert [json.loads(row["image"])["n"] for row in rows] == expected
    narrow = [None if row["narrow"] is None else Decimal(row["narrow"]) for row in rows]
    assert narrow == [None, None, None, None, Decimal(0), Decimal("-2.5")]


def _type(kind: str, name: str | None = None, scale: str | None = None) -> str:
    text = f"'{name}'" if name else "cast(null as string)"
    scale_text = f"'{scale}'" if scale else "cast(null as string)"
    return (
        f"named_struct('type', '{kind}', 'name', {text}, 'scale', {scale_text}, "
        "'precision', cast(null as string))"
    )


def test_array_elements_decode_as_their_scalar_twins(render) -> None:  # type: ignore[no-untyped-def]
    """An array column's elements decode as their scalar twins, in captured_rows' row image
    and in a typed string column: dates, timestamps, times, decimals (fixed and variable
    scale); nulls stay null, elements of no semantic type (uuid, int) stay; an array that
    is the unavailable-value placeholder (a date[]'s: its bytes as integers) is left for the
    carry-over to recognise."""
    placeholder = list(b"__debezium_unavailable_value")
    image = {
        "days": [19723, None, -25567],
        "stamps": [1704103200123456, -1],
        "clocks": [36000123456],
        "amounts": ["AJY=", _twos_complement_base64(-225)],
        "ratios": [json.loads(_variable_scale(Decimal("1E+40"))), None],
        "ids": ["b68a35a7-17ad-35b3-af2a-ae46edb4545a"],
        "counts": [1, 2],
        "toasted": placeholder,
        "day": 19723,
    }
    types = {
        "days": _type("array", "io.debezium.time.Date"),
        "stamps": _type("array", "io.debezium.time.MicroTimestamp"),
        "clocks": _type("array", "io.debezium.time.MicroTime"),
        "amounts": _type("array", "org.apache.kafka.connect.data.Decimal", "2"),
        "ratios": _type("array", "io.debezium.data.VariableScaleDecimal"),
        "ids": _type("array", "io.debezium.data.Uuid"),
        "counts": _type("array"),
        "toasted": _type("array", "io.debezium.time.Date"),
        "day": _type("int32", "io.debezium.time.Date"),
    }
    column_types = "map(" + ", ".join(f"'{k}', {v}" for k, v in types.items()) + ")"
    image_sql = json.dumps(_sql_string(json.dumps(image)))
    # a typed string column of an array (the scaffolder's encoding `array<name>`): by the
    # message's schema, or without one by the encoding's element type
    no_schema = "cast(null as struct<type:string,name:string,scale:string>)"
    typed = ", ".join(
        f"{{{{ cdc_decode_value(\"get_json_object({image_sql[1:-1]}, '$.{column}')\", "
        f"'string', '{encoding}', \"{column_type}\", \"'postgresql'\") }}}} as {alias}"
        for alias, column, encoding, column_type in (
            ("days", "days", "array<io.debezium.time.Date>", types["days"]),
            ("amounts", "amounts", "array", types["amounts"]),
            ("ratios", "ratios", "array", types["ratios"]),
            ("ids", "ids", "array", types["ids"]),
            ("toasted", "toasted", "array", types["toasted"]),
            ("schemaless", "days", "array<io.debezium.time.Date>", no_schema),
        )
    )
    rows = render(
        f'select {{{{ cdc_decode_row_image({image_sql}, "{column_types}") }}}}.json as image, '
        f"{typed}"
    )
    decoded = json.loads(rows[0]["image"])
    assert decoded == {
        "days": ["2024-01-01", None, "1900-01-01"],
        "stamps": ["2024-01-01T10:00:00.123456", "1969-12-31T23:59:59.999999"],
        "clocks": ["10:00:00.123456"],
        "amounts": ["1.50", "-2.25"],
        "ratios": ["1" + "0" * 40, None],
        "ids": ["b68a35a7-17ad-35b3-af2a-ae46edb4545a"],
        "counts": [1, 2],
        "toasted": placeholder,
        "day": "2024-01-01",
    }
    for column in ("days", "amounts", "ratios", "ids", "toasted"):
        assert json.loads(rows[0][column]) == decoded[column], column
    assert json.loads(rows[0]["schemaless"]) == decoded["days"]


def _placeholder_forms(placeholder: str) -> list[str]:
    """Debezium's forms of a placeholder (UnchangedToastedPlaceholder), as a row image's
    map<string,string> holds each, computed here from Debezium's rules."""
    data = placeholder.encode()
    quoted = json.dumps(placeholder, ensure_ascii=False)
    encoded = base64.b64encode(data).decode()
    name_uuid = str(uuid.UUID(bytes=hashlib.md5(data).digest(), version=3))
    integers = ",".join(str(b - 256 if b > 127 else b) for b in data)
    return [
        f"{{{quoted}:{quoted}}}",
        f'["{encoded}"]',
        f'["{name_uuid}"]',
        f"[{integers}]",
        f"[{quoted}]",
        encoded,
        placeholder,
    ]


@pytest.mark.parametrize("placeholder", ["__debezium_unavailable_value", 'n/a "é" \\ ü'])
def test_unavailable_value_forms(render, placeholder) -> None:  # type: ignore[no-untyped-def]
    """The forms the carry-over recognises are Debezium's, for the default placeholder and
    a configured one (quotes, backslash, non-ASCII: escaped in JSON, UTF-8 bytes)."""
    rows = render(
        "{% set forms = _cdc_unavailable_value_forms("
        + json.dumps(placeholder)
        + ") %}select {% for f in forms %}'{{ _cdc_escape_string(f.text) }}' as t{{ loop.index }}, "
        "'{{ _cdc_escape_string(f.json) }}' as j{{ loop.index }}{{ ', ' if not loop.last }}"
        "{% endfor %}"
    )
    row = rows[0]
    count = len(row) // 2
    texts = {row[f"t{i}"] for i in range(1, count + 1)}
    assert texts == set(_placeholder_forms(placeholder))
    for i in range(1, count + 1):
        # each form's JSON text is what a JSON writer gives its value
        text, written = row[f"t{i}"], row[f"j{i}"]
        parsed = json.loads(written)
        assert (
            parsed == text or json.dumps(parsed, ensure_ascii=False, separators=(",", ":")) == text
        )


RELEASES = "graph.nodes['model.cdc_lakehouse.int_cdc__transaction_releases']"


def test_a_changed_transaction_var_counts_as_a_changed_release_model(dbt_project, spark) -> None:  # type: ignore[no-untyped-def]
    """`int_cdc__transaction_releases` is overwritten when its inputs gained rows or its model
    changed (`cdc_incremental`'s skip, `_cdc_model_fingerprint`: raw SQL and config). Its
    config names the transaction settings, so a changed release or wait var changes the
    fingerprint, and the next run overwrites it even when no message was loaded."""
    sql = f"select '{{{{ _cdc_model_fingerprint({RELEASES}) }}}}' as fingerprint"
    listed = {"cdc_transaction_consistent_sources": ["erp_*"]}

    def fingerprint(vars: dict) -> str:
        return str(_render_with_vars(dbt_project, spark, sql, vars)[0]["fingerprint"])

    first = fingerprint(listed)
    assert len(first) == 32 and fingerprint(listed) == first
    assert fingerprint({**listed, "cdc_transaction_release": ["t1"]}) != first
    assert fingerprint({**listed, "cdc_transaction_wait_max_hours": 2}) != first

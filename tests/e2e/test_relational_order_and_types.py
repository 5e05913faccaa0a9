"""Oracle order inside one SCN, and the key overrides and types the vendor docs list (issue #18,
items 4 and 6). One `dbt build` over one small landing folder:

* `orcltie.debezium.tie_items` (kcat): pairs of Oracle updates of one key sharing
  (`commit_scn`, `scn`) and told apart only by `rs_id` (redo record: log sequence, block,
  offset, hex, with Oracle's surrounding spaces) or `ssn`; each pair lands in reversed
  order and is then replayed (at-least-once), so arrival order alone picks the wrong row;
* `msstypes.dbo.amounts`: SQL Server REAL (float32), FLOAT (float64), MONEY and SMALLMONEY
  (Decimal scale 4) under `decimal.handling.mode` precise (schema-wrapped), double and
  string (schemaless), typed by a contract;
* `orclnum.debezium.rounded`: Oracle NUMBER with a negative scale, as int32, as a Kafka
  Connect Decimal with `scale` -2, and as a VariableScaleDecimal with scale -2; these
  events carry `source.txId` and no `transaction` block (absent or null);
* `keydb.dbo.accounts` (kcat): a `message.key.columns` Kafka key (`email`) that is not the
  primary key (`id`, also declared by `cdc_table_keys`): gold is keyed by the Kafka key.

Expected values are computed here, independently of the SQL: float32 rounding with
`struct`, decimals with `Decimal`, positions by padding the rs_id parts in Python.
"""

from __future__ import annotations

import base64
import json
import struct
from decimal import Decimal
from pathlib import Path

import pytest

from cdc_tools.scaffold import register_typed_change_log
from tests.corpus.captured_state import kcat_line

pytestmark = pytest.mark.spark

VARS = {"cdc_table_keys": {"keydb.dbo.accounts": ["id"]}}


def _unscaled(value: int) -> str:
    """Base64 of the big-endian two's complement of `value` (Java BigInteger.toByteArray)."""
    length = (value if value >= 0 else ~value).bit_length() // 8 + 1
    return base64.b64encode(value.to_bytes(length, "big", signed=True)).decode()


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


# ------------------------------------------------------------------ Oracle: one SCN, two changes
def _oracle_source(db: str, table: str, **position: object) -> dict[str, object]:
    return {
        "version": "2.3.4.Final",
        "connector": "oracle",
        "name": "orcl",
        "ts_ms": 1520085154000,
        "snapshot": "false",
        "db": db,
        # Oracle names as LogMiner reports unquoted identifiers: upper case (a lower-case
        # name is a quoted, case-sensitive one and keeps its case in `_cdc_source_id`)
        "schema": "DEBEZIUM",
        "table": table.upper(),
        "txId": "6.28.807",
        "lcr_position": None,
        "user_name": "app",
        **position,
    }


def _tie_change(op: str, row_id: int, before: str | None, after: str, **position: object) -> str:
    value = {
        "before": None if before is None else {"id": row_id, "val": before},
        "after": {"id": row_id, "val": after},
        "source": _oracle_source("orcltie", "tie_items", **position),
        "op": op,
        "ts_ms": 1532592105975,
    }
    return json.dumps(value)


COMMIT_SCN, SCN = 2122190, 2122185
# (id, earlier change's (rs_id, ssn), later change's (rs_id, ssn))
TIES = [
    (1, ("0x0000a1.000123ff.0010", 1), ("0x0000a1.00012400.0008", 1)),  # block differs
    (2, (" 0x0000a1.00012345.0010 ", 2), (" 0x0000a1.00012345.0010 ", 10)),  # ssn 2 < 10
    # as raw text the later change sorts first (its leading space); padded, it is later
    (3, ("0x00009f.0001ffff.01f0", 1), (" 0x0000a1.00000002.0010 ", 1)),
]


def _tie_lines() -> list[str]:
    """Per key: the insert (an earlier SCN), then the later change, the earlier change, and
    a replay of both (new offsets, as after a connector restart)."""
    values: list[tuple[int, str]] = []
    for row_id, (early_rs, early_ssn), (late_rs, late_ssn) in TIES:
        tie = {"commit_scn": str(COMMIT_SCN), "scn": str(SCN), "redo_thread": 1}
        early = _tie_change("u", row_id, "inserted", "first", rs_id=early_rs, ssn=early_ssn, **tie)
        late = _tie_change("u", row_id, "first", "second", rs_id=late_rs, ssn=late_ssn, **tie)
        insert = _tie_change(
            "c",
            row_id,
            None,
            "inserted",
            commit_scn="2122100",
            scn="2122099",
            rs_id=" 0x00009f.00000001.0010 ",
            ssn=0,
            redo_thread=1,
        )
        values += [
            (row_id, insert),
            (row_id, late),
            (row_id, early),
            (row_id, late),
            (row_id, early),
        ]
    return [
        kcat_line("orcl.debezium.tie_items", offset, json.dumps({"id": row_id}), value)
        for offset, (row_id, value) in enumerate(values)
    ]


def _expected_position(rs_id: str, ssn: int, thread: int) -> str:
    parts = rs_id.strip().lower().removeprefix("0x").split(".")
    return ".".join(
        [f"{COMMIT_SCN:030d}", f"{SCN:030d}", *(p.rjust(16, "0") for p in parts)]
        + [f"{ssn:020d}", f"{thread:010d}"]
    )


# ------------------------------------------------------------------ SQL Server REAL/FLOAT/MONEY
def _field(field: str, kind: str, name: str | None = None, scale: int | None = None) -> dict:
    out: dict[str, object] = {"type": kind, "optional": True, "field": field}
    if name:
        out["name"] = name
    if scale is not None:
        out["parameters"] = {"scale": str(scale)}
    return out


DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE = "io.debezium.data.VariableScaleDecimal"
AMOUNT_FIELDS = [
    _field("id", "int32"),
    _field("price_real", "float32"),
    _field("price_float", "float64"),
    _field("balance", "bytes", DECIMAL, 4),
    _field("fee", "bytes", DECIMAL, 4),
]
# id -> (REAL, FLOAT, MONEY, SMALLMONEY) as the database holds them
AMOUNTS = {
    1: (3.14, 2.718281828459045, Decimal("922337203685477.5807"), Decimal("-214748.3648")),
    2: (0.1, 0.1, Decimal("-922337203685477.5808"), Decimal("214748.3647")),
    3: (16777217.0, -2.5e-10, Decimal("12.3456"), Decimal("0.0001")),
    4: (-1.5, 1e300, Decimal("-1234.5000"), Decimal("-0.5000")),
}


def _sqlserver_source(db: str, table: str, serial: int) -> dict[str, object]:
    lsn = f"00000027:{serial:08x}"
    return {
        "version": "2.3.4.Final",
        "connector": "sqlserver",
        "name": "mss",
        "ts_ms": 1559729468000 + serial,
        "snapshot": "false",
        "db": db,
        "schema": "dbo",
        "table": table,
        "change_lsn": f"{lsn}:0002",
        "commit_lsn": f"{lsn}:0007",
        "event_serial_no": 1,
    }


def _wrapped(fields: list[dict], after: dict, source: dict) -> str:
    row = {"type": "struct", "fields": fields, "optional": True}
    schema = {
        "type": "struct",
        "name": "envelope",
        "fields": [
            {**row, "field": "before"},
            {**row, "field": "after"},
            {"type": "struct", "fields": [], "optional": False, "field": "source"},
            {"type": "string", "optional": False, "field": "op"},
        ],
    }
    payload = {"before": None, "after": after, "source": source, "op": "c", "ts_ms": 1}
    return json.dumps({"schema": schema, "payload": payload})


def _amount_lines() -> list[str]:
    lines = []
    for row_id, (real, double, money, smallmoney) in AMOUNTS.items():
        source = _sqlserver_source("msstypes", "amounts", row_id)
        if row_id <= 2:  # decimal.handling.mode=precise, schema wrapper on
            after = {
                "id": row_id,
                "price_real": real,
                "price_float": double,
                "balance": _unscaled(int(money.scaleb(4))),
                "fee": _unscaled(int(smallmoney.scaleb(4))),
            }
            lines.append(_wrapped(AMOUNT_FIELDS, after, source))
            continue
        # schemaless: double mode (JSON numbers) for 3, string mode for 4
        as_mode = float if row_id == 3 else str
        after = {
            "id": row_id,
            "price_real": real,
            "price_float": double,
            "balance": as_mode(money),
            "fee": as_mode(smallmoney),
        }
        value = {"before": None, "after": after, "source": source, "op": "c", "ts_ms": 1}
        lines.append(json.dumps(value))
    return lines


# ------------------------------------------------------------------ Oracle NUMBER(p, s < 0)
ROUNDED_FIELDS = [
    _field("id", "int32"),
    _field("n_int", "int32"),  # NUMBER(5,-2): P - S = 7 < 10
    _field("n_dec", "bytes", DECIMAL, -2),  # NUMBER(20,-2): P - S >= 19
    {
        "type": "struct",
        "optional": True,
        "field": "n_var",
        "name": VARIABLE,
        "fields": [
            {"type": "int32", "optional": False, "field": "scale"},
            {"type": "bytes", "optional": False, "field": "value"},
        ],
    },
]
# id -> (n_int, unscaled n_dec, unscaled n_var): all at scale -2
ROUNDED = {1: (12300, 123, -45), 2: (-9999900, 12345678901234567890, 7)}


def _rounded_lines() -> list[str]:
    lines = []
    for row_id, (n_int, n_dec, n_var) in ROUNDED.items():
        after = {
            "id": row_id,
            "n_int": n_int,
            "n_dec": _unscaled(n_dec),
            "n_var": {"scale": -2, "value": _unscaled(n_var)},
        }
        source = _oracle_source(
            "orclnum",
            "rounded",
            txId=f"02000a00370300{row_id:02d}",
            scn=str(13234397 + row_id),
            commit_scn=str(13271102 + row_id),
            rs_id=" 0x0000b1.00000010.0010 ",
            ssn=1,
            redo_thread=1,
        )
        value = json.loads(_wrapped(ROUNDED_FIELDS, after, source))
        if row_id == 2:  # the vendor example: `"transaction": null`
            value["payload"]["transaction"] = None
        lines.append(json.dumps(value))
    return lines


# ------------------------------------------------------------------ message.key.columns
def _account(op: str, before: dict | None, after: dict, serial: int) -> str:
    value = {
        "before": before,
        "after": after,
        "source": _sqlserver_source("keydb", "accounts", serial),
        "op": op,
        "ts_ms": 1,
    }
    return json.dumps(value)


ANN = {"id": 1, "email": "ann@example.com", "name": "Ann"}
BOB = {"id": 2, "email": "bob@example.com", "name": "Bob"}
ANN2 = {"id": 10, "email": "ann@example.com", "name": "Ann B"}  # new id, same email
BOB2 = {**BOB, "name": "Bob 2"}
KEY_SCHEMA = {
    "type": "struct",
    "name": "keydb.dbo.accounts.Key",
    "optional": False,
    "fields": [{"type": "string", "optional": False, "field": "email"}],
}


def _account_lines() -> list[str]:
    changes = [("c", None, ANN), ("c", None, BOB), ("u", ANN, ANN2), ("u", BOB, BOB2)]
    lines = []
    for offset, (op, before, after) in enumerate(changes):
        key = json.dumps({"schema": KEY_SCHEMA, "payload": {"email": after["email"]}})
        lines.append(
            kcat_line("mss.dbo.accounts", offset, key, _account(op, before, after, offset + 1))
        )
    return lines


# ------------------------------------------------------------------ contracts
def _contract(name: str, source: dict, columns: dict[str, str]) -> str:
    lines = [
        "version: 2",
        "models:",
        f"- name: {name}",
        "  description: Typed change log (test contract).",
        "  config:",
        "    meta:",
        f"      cdc_source: {json.dumps(source)}",
        "      cdc_key: [id]",
        "  columns:",
    ]
    for column, data_type in columns.items():
        lines += [
            f"  - name: {column}",
            f"    description: {column}",
            f"    data_type: {data_type}",
        ]
    return "\n".join(lines) + "\n"


TYPED_MODEL = (
    "{{ config(materialized='incremental', incremental_strategy='append', "
    "on_schema_change='fail') }}\n\n{{ cdc_lakehouse.cdc_typed_change_log() }}\n"
)
CONTRACTS = {
    "stg_mss__amounts": (
        {"database": "msstypes", "schema": "dbo", "table": "amounts"},
        {
            "id": "int",
            "price_real": "float",
            "price_float": "double",
            "balance": "decimal(19,4)",
            "fee": "decimal(10,4)",
        },
    ),
    "stg_orcl__rounded": (
        {"database": "orclnum", "schema": "debezium", "table": "rounded"},
        {"id": "int", "n_int": "int", "n_dec": "decimal(22,0)", "n_var": "decimal(38,0)"},
    ),
}


@pytest.fixture(scope="module")
def built(dbt_project, tmp_path_factory):  # type: ignore[no-untyped-def]
    project = dbt_project.copy_project(tmp_path_factory.mktemp("relational") / "project")
    folder = Path(project) / "models" / "silver" / "relational"
    folder.mkdir(parents=True)
    for name, (source, columns) in CONTRACTS.items():
        (folder / f"{name}.sql").write_text(TYPED_MODEL)
        (folder / f"_{name}.yml").write_text(_contract(name, source, columns))
    for name in CONTRACTS:  # where cdc_quarantine reads their rejected rows
        register_typed_change_log(name, Path(project))
    landing = dbt_project.landing
    (landing / "tie_items.jsonl").write_text("\n".join(_tie_lines()) + "\n")
    (landing / "amounts.json").write_text("\n".join(_amount_lines()) + "\n")
    (landing / "rounded.json").write_text("\n".join(_rounded_lines()) + "\n")
    (landing / "accounts.jsonl").write_text("\n".join(_account_lines()) + "\n")
    # silver, the quarantine and captured_rows (not the inventory and shop gold models)
    select = ["--select", "+cdc_quarantine", "+captured_rows", "--indirect-selection", "cautious"]
    return dbt_project.run("build", *select, vars=VARS, project_dir=project)


def _captured(dbt_project, table: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return dbt_project.sql(
        f"select _cdc_key, _cdc_position, _cdc_row_json, _cdc_row_json_raw "
        f"from {dbt_project.layer('gold')}.captured_rows where lower(_cdc_source_id) = '{table}'"
    )


def test_nothing_is_quarantined(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select reason_code, raw_line from {dbt_project.layer('silver')}.cdc_quarantine"
    )
    assert rows == []


def test_oracle_changes_in_one_scn_are_ordered_by_rs_id_and_ssn(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    rows = {
        json.loads(r["_cdc_key"])["id"]: r
        for r in _captured(dbt_project, "orcltie.debezium.tie_items")
    }
    assert {k: json.loads(r["_cdc_row_json_raw"])["val"] for k, r in rows.items()} == {
        str(row_id): "second" for row_id, _, _ in TIES
    }
    for row_id, _, (late_rs, late_ssn) in TIES:
        assert rows[str(row_id)]["_cdc_position"] == _expected_position(late_rs, late_ssn, 1)


def test_sqlserver_real_float_money_smallmoney(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        "select id, price_real, price_float, balance, fee, _cdc_error_reason "
        f"from {dbt_project.layer('silver')}.stg_mss__amounts"
    )
    got = {r["id"]: r for r in rows}
    assert set(got) == set(AMOUNTS)
    for row_id, (real, double, money, smallmoney) in AMOUNTS.items():
        row = got[row_id]
        assert row["_cdc_error_reason"] is None, row
        assert row["price_real"] == _float32(real), row_id
        assert row["price_float"] == double, row_id
        assert row["balance"] == money, row_id
        assert row["fee"] == smallmoney, row_id


def test_oracle_number_with_a_negative_scale(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        "select id, n_int, n_dec, n_var, _cdc_error_reason, _cdc_transaction_id "
        f"from {dbt_project.layer('silver')}.stg_orcl__rounded"
    )
    got = {r["id"]: r for r in rows}
    assert set(got) == set(ROUNDED)
    for row_id, (n_int, n_dec, n_var) in ROUNDED.items():
        row = got[row_id]
        assert row["_cdc_error_reason"] is None, row
        assert row["n_int"] == n_int
        assert row["n_dec"] == Decimal(n_dec) * 100
        assert row["n_var"] == Decimal(n_var) * 100
    # captured_rows decodes by the message's schema: plain integer text
    images = {
        json.loads(r["_cdc_key"])["id"]: json.loads(r["_cdc_row_json"])
        for r in _captured(dbt_project, "orclnum.debezium.rounded")
    }
    assert {k: v["n_dec"] for k, v in images.items()} == {
        str(row_id): str(n_dec * 100) for row_id, (_, n_dec, _) in ROUNDED.items()
    }


def test_oracle_txid_without_a_transaction_block(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select id, _cdc_transaction_id from {dbt_project.layer('silver')}.stg_orcl__rounded"
    )
    assert {r["id"]: r["_cdc_transaction_id"] for r in rows} == {
        row_id: f"02000a00370300{row_id:02d}" for row_id in ROUNDED
    }
    changes = dbt_project.sql(
        "select distinct _cdc_transaction_id "
        f"from {dbt_project.layer('silver')}.int_cdc__change_log "
        "where lower(_cdc_source_id) = 'orcltie.debezium.tie_items'"
    )
    assert [r["_cdc_transaction_id"] for r in changes] == ["6.28.807"]


def test_a_message_key_columns_key_keys_gold(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """The Kafka key (`email`) wins over the declared primary key (`id`): the update that
    changed `id` but kept `email` replaces Ann's row; keyed by id, gold would hold 3 rows."""
    rows = _captured(dbt_project, "keydb.dbo.accounts")
    got = {json.loads(r["_cdc_key"])["email"]: json.loads(r["_cdc_row_json_raw"]) for r in rows}
    assert got == {"ann@example.com": ANN2, "bob@example.com": BOB2}
    assert all(set(json.loads(r["_cdc_key"])) == {"email"} for r in rows)

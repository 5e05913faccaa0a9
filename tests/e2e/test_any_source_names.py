"""Any name a source can have: spaces, reserved words, quotes, hostile text (issue #35).

One warehouse, as a new user would go: land, `dbt build`, scaffold, `dbt build`:

* Debezium SQL Server (schema-wrapped) `Northwind.dbo."Order Details"` with the columns
  `OrderID`, `ProductID`, `Unit Price` (a Decimal), `Quantity`, `order`, `date` (a Date)
  and `e-mail`, keyed by `cdc_table_keys`; and, in a database named `sh'op`, a table named
  ``evil`; drop table <canary>; --`` whose column names and values are SQL and Jinja
  (`{{ run_query(...) }}`, `{% do ... %}`, `'); drop table ...; --`, a backtick);
* a MongoDB collection (oplog-era events) whose documents have the fields `e-mail`, `a.b`
  (a field whose name holds a dot), `Name` and a nested `address.city`;
* a Canal table whose columns are reserved words (`order`, `select`, `group`, `user`).

The first build is the generic path (`captured_rows`); then the scaffolder (its command
line, `--from-bronze`) writes the typed models of all four tables into a copy of the
project, and a second build must give typed gold equal to the source state the test
replays from its own events, names mapped to lowercase snake case (`Unit Price` ->
`unit_price`). `dbt docs generate` and the Great Expectations suites of the new models run
on the result, and a canary table named in every hostile text must survive all of it.

Why a build of its own: a project copy with scaffolded contracts (the other modules must
not see these models), and hostile input that must not touch other sources.

On the code before this change: the scaffolder wrote `order details.sql` (every build
failed at parse: `Resource names cannot contain spaces`), and with the files renamed the
typed silver model failed at `unit price`.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from workbench.simulator.debezium import (
    ColumnEncoding,
    _column_schema,
    encode_decimal,
    epoch_days,
    source_schema,
)

pytestmark = pytest.mark.spark

CANARY = "t_any_source_names_canary.survivor"
EVIL_TABLE = f"evil`; drop table {CANARY}; --"
EVIL_DB = "sh'op"
EVIL_COLUMNS = (
    "id",
    f"{{{{ run_query('drop table {CANARY}') }}}}",
    f"'); drop table {CANARY}; --",
    "na`me",
    f"{{% do run_query('drop table {CANARY}') %}}",
)
EVIL_VALUES = (
    f"{{{{ run_query('drop table {CANARY}') }}}}",
    f"'); drop table {CANARY}; --",
    "`; drop table x; --",
    "{% if true %}x{% endif %}",
)
# the gold names of the evil table's columns, by the rule (lowercase snake case)
EVIL_GOLD = {
    "id": "id",
    EVIL_COLUMNS[1]: "run_query_drop_table_t_any_source_names_canary_survivor",
    EVIL_COLUMNS[2]: "drop_table_t_any_source_names_canary_survivor",
    EVIL_COLUMNS[3]: "na_me",
    EVIL_COLUMNS[4]: "do_run_query_drop_table_t_any_source_names_canary_survivor",
}
# value-only lines: the tables are keyed by declarations, as a user would (the evil
# table's by a pattern: its name holds a dot, which a var entry reads as a separator)
VARS = {
    "cdc_table_keys": {
        "Northwind.dbo.Order Details": ["OrderID", "ProductID"],
        f"{EVIL_DB}.dbo.evil*": ["id"],
    }
}

# ------------------------------------------------------------------ SQL Server (Debezium)
ORDER_DETAILS_COLUMNS: dict[str, tuple[ColumnEncoding, bool]] = {
    "OrderID": (ColumnEncoding("int32"), False),
    "ProductID": (ColumnEncoding("int32"), False),
    "Unit Price": (
        ColumnEncoding(
            "bytes",
            "org.apache.kafka.connect.data.Decimal",
            {"scale": "4", "connect.decimal.precision": "19"},
        ),
        False,
    ),
    "Quantity": (ColumnEncoding("int16"), False),
    "order": (ColumnEncoding("string"), True),
    "date": (ColumnEncoding("int32", "io.debezium.time.Date"), True),
    "e-mail": (ColumnEncoding("string"), True),
}
# the names the issue asks gold to publish (lowercase snake case)
ORDER_DETAILS_GOLD = {
    "OrderID": "orderid",
    "ProductID": "productid",
    "Unit Price": "unit_price",
    "Quantity": "quantity",
    "order": "order",
    "date": "date",
    "e-mail": "e_mail",
}


def _sqlserver_row(row: dict[str, object] | None) -> dict[str, object] | None:
    if row is None:
        return None
    encoded = dict(row)
    encoded["Unit Price"] = encode_decimal(row["Unit Price"], 4)  # type: ignore[arg-type]
    encoded["date"] = epoch_days(row["date"]) if row["date"] is not None else None  # type: ignore[arg-type]
    return encoded


def _sqlserver_message(
    db: str, table: str, op: str, before, after, serial: int, wrapped: bool
) -> str:  # type: ignore[no-untyped-def]
    """A Debezium SQL Server change event (vendor doc shape), with or without the schema."""
    lsn = f"0000002a:{serial:08x}"
    payload = {
        "before": before,
        "after": after,
        "source": {
            "version": "2.5.4.Final",
            "connector": "sqlserver",
            "name": "northwind",
            "ts_ms": 1_700_000_000_000 + serial * 1000,
            "snapshot": "false",
            "db": db,
            "sequence": None,
            "schema": "dbo",
            "table": table,
            "change_lsn": f"{lsn}:0002",
            "commit_lsn": f"{lsn}:0003",
            "event_serial_no": 1,
        },
        "op": op,
        "ts_ms": 1_700_000_000_500 + serial * 1000,
    }
    if not wrapped:
        return json.dumps(payload)
    value_fields = [
        _column_schema(encoding, nullable, name)
        for name, (encoding, nullable) in ORDER_DETAILS_COLUMNS.items()
    ]
    # Debezium writes schema names with every character Avro does not allow as `_`
    value_name = f"northwind.{db}.dbo.{table.replace(' ', '_')}.Value"
    schema = {
        "type": "struct",
        "fields": [
            {
                "type": "struct",
                "fields": value_fields,
                "optional": True,
                "name": value_name,
                "field": "before",
            },
            {
                "type": "struct",
                "fields": value_fields,
                "optional": True,
                "name": value_name,
                "field": "after",
            },
            source_schema("sqlserver", "enum", True),
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
        ],
        "optional": False,
        "name": f"northwind.{db}.dbo.{table.replace(' ', '_')}.Envelope",
        "version": 1,
    }
    return json.dumps({"schema": schema, "payload": payload})


def _order_details_events() -> list[tuple[str, dict | None, dict | None]]:  # type: ignore[type-arg]
    def line(order: int, product: int, price: str, qty: int, day: int | None, mail: str | None):  # type: ignore[no-untyped-def]
        return {
            "OrderID": order,
            "ProductID": product,
            "Unit Price": Decimal(price),
            "Quantity": qty,
            "order": f"PO-{order}" if day else None,
            "date": dt.date(1996, 7, day) if day else None,
            "e-mail": mail,
        }

    a = line(10248, 11, "14.0000", 12, 4, "vins@example.com")
    b = line(10248, 42, "9.8000", 10, 4, "vins@example.com")
    c = line(10249, 14, "18.6000", 9, 5, None)
    b2 = {**b, "Unit Price": Decimal("9.7500"), "e-mail": "paul@example.com"}
    d = line(10250, 41, "7.7000", 10, None, "hanari@example.com")
    return [
        ("c", None, a),
        ("c", None, b),
        ("c", None, c),
        ("u", b, b2),
        ("d", c, None),
        ("c", None, d),
    ]


def _evil_events() -> list[tuple[str, dict | None, dict | None]]:  # type: ignore[type-arg]
    def row(key: int, shift: int) -> dict[str, object]:
        values = {
            name: EVIL_VALUES[(i + shift) % len(EVIL_VALUES)]
            for i, name in enumerate(EVIL_COLUMNS[1:])
        }
        return {"id": key, **values}

    one, two, three = row(1, 0), row(2, 1), row(3, 2)
    return [
        ("c", None, one),
        ("c", None, two),
        ("u", one, row(1, 3)),
        ("d", two, None),
        ("c", None, three),
    ]


# ---------------------------------------------------------------------------- MongoDB
def _people_events() -> list[tuple[str, int, dict | None, dict | None]]:  # type: ignore[type-arg]
    """(op, _id, document after as a dict, $set patch)."""
    ann = {
        "_id": 1,
        "e-mail": "ann@example.com",
        "a.b": "dotted",
        "Name": "Ann",
        "address": {"city": "Oslo"},
    }
    bob = {
        "_id": 2,
        "e-mail": "bob@example.com",
        "a.b": "field",
        "Name": "Bob",
        "address": {"city": "Bergen"},
    }
    cid = {"_id": 3, "e-mail": None, "a.b": "x.y", "Name": "Cid", "address": {"city": "Molde"}}
    return [
        ("c", 1, ann, None),
        ("c", 2, bob, None),
        ("u", 1, None, {"$set": {"e-mail": "ann@example.org", "address.city": "Tromsø"}}),
        ("d", 2, None, None),
        ("c", 3, cid, None),
    ]


def _ext(document: dict[str, object]) -> str:
    return json.dumps({**document, "_id": {"$numberLong": str(document["_id"])}})


def _mongodb_message(op: str, doc_id: int, after, patch, serial: int) -> str:  # type: ignore[no-untyped-def]
    """A Debezium MongoDB (oplog era) change event: after/patch/filter as strings."""
    key_filter = json.dumps({"_id": {"$numberLong": str(doc_id)}})
    return json.dumps(
        {
            "after": _ext(after) if after is not None else None,
            "patch": json.dumps(patch) if patch is not None else None,
            "filter": key_filter if op in ("u", "d") else None,
            "source": {
                "version": "1.9.7.Final",
                "connector": "mongodb",
                "name": "crmsrv",
                "ts_ms": 1_700_000_100_000 + serial * 1000,
                "snapshot": "false",
                "db": "crm",
                "rs": "rs0",
                "collection": "people",
                "ord": 1,
                "h": None,
                "tord": None,
            },
            "op": op,
            "ts_ms": 1_700_000_100_400 + serial * 1000,
        }
    )


def _people_state() -> dict[int, dict[str, object]]:
    """A reference consumer: the documents after the events ($set paths applied)."""
    state: dict[int, dict[str, object]] = {}
    for op, doc_id, after, patch in _people_events():
        if op == "c":
            state[doc_id] = copy.deepcopy(after)  # type: ignore[arg-type]
        elif op == "u":
            for path, value in patch["$set"].items():  # type: ignore[index]
                target = state[doc_id]
                *parents, last = path.split(".")  # a $set path is dotted by MongoDB's rule
                for part in parents:
                    target = target[part]  # type: ignore[assignment]
                target[last] = value
        else:
            del state[doc_id]
    return state


# ------------------------------------------------------------------------------ Canal
CANAL_COLUMNS = ("id", "order", "select", "group", "user")


def _canal_events() -> list[tuple[str, dict[str, str], dict[str, str] | None]]:
    one = {"id": "1", "order": "A-1", "select": "yes", "group": "g1", "user": "ann"}
    two = {"id": "2", "order": "A-2", "select": "no", "group": "g2", "user": "bob"}
    three = {"id": "3", "order": "A-3", "select": "yes", "group": "g1", "user": "cid"}
    one2 = {**one, "order": "A-1b", "user": "anne"}
    return [
        ("INSERT", one, None),
        ("INSERT", two, None),
        ("UPDATE", one2, {"order": "A-1", "user": "ann"}),
        ("DELETE", two, None),
        ("INSERT", three, None),
    ]


def _canal_message(kind: str, row: dict[str, str], old: dict[str, str] | None, serial: int) -> str:
    """A Canal flat message (canal-kafka JSON): every value a string."""
    return json.dumps(
        {
            "data": [row],
            "database": "canalshop",
            "es": 1_700_000_200_000 + serial * 1000,
            "id": serial,
            "isDdl": False,
            "mysqlType": {c: "bigint(20)" if c == "id" else "varchar(32)" for c in CANAL_COLUMNS},
            "old": [old] if old is not None else None,
            "pkNames": ["id"],
            "sql": "",
            "sqlType": {c: -5 if c == "id" else 12 for c in CANAL_COLUMNS},
            "table": "orders",
            "ts": 1_700_000_200_100 + serial * 1000,
            "type": kind,
        }
    )


def _replay(events, key):  # type: ignore[no-untyped-def]
    """A reference consumer of relational row events: the rows after them, by key."""
    state = {}
    for op, before, after in events:
        if op in ("d", "DELETE"):
            state.pop(key(before), None)
        else:
            if op == "u" and key(before) != key(after):
                state.pop(key(before), None)
            state[key(after)] = after
    return state


# ------------------------------------------------------------------------- the build
SCAFFOLDS = {
    # table (as --from-bronze names it) -> (system, extra arguments)
    "Order Details": ("northwind", ["--key", "OrderID,ProductID"]),
    EVIL_TABLE: ("hostile", ["--database", EVIL_DB, "--key", "id"]),
    "people": ("crm", []),
    "orders": ("canalshop", ["--database", "canalshop"]),
}


# events of each table landed before the first build; the rest come as a second batch
FIRST_BATCH = {"order_details": 3, "evil": 2, "people": 2, "canal": 2}


def _land(landing: Path, batch: int) -> None:
    """Write batch 0 (the first events of every table) or batch 1 (the rest)."""

    def part(events: list, name: str) -> list[tuple[int, object]]:  # type: ignore[type-arg]
        cut = FIRST_BATCH[name]
        numbered = list(enumerate(events, 1))
        return numbered[:cut] if batch == 0 else numbered[cut:]

    lines = [
        _sqlserver_message(
            "Northwind", "Order Details", op, _sqlserver_row(b), _sqlserver_row(a), i, wrapped=True
        )
        for i, (op, b, a) in part(_order_details_events(), "order_details")
    ]
    lines += [
        _sqlserver_message(EVIL_DB, EVIL_TABLE, op, b, a, 100 + i, wrapped=False)
        for i, (op, b, a) in part(_evil_events(), "evil")
    ]
    people = [
        _mongodb_message(op, i, a, p, n) for n, (op, i, a, p) in part(_people_events(), "people")
    ]
    canal = [_canal_message(k, r, o, n) for n, (k, r, o) in part(_canal_events(), "canal")]
    for folder, name, text in (
        ("northwind", "sqlserver", lines),
        ("crm", "mongodb", people),
        ("canal", "canal", canal),
    ):
        (landing / folder).mkdir(exist_ok=True)
        (landing / folder / f"{name}_{batch}.json").write_text("\n".join(text) + "\n")


@pytest.fixture(scope="module")
def built(dbt_project, tmp_path_factory) -> Iterator[dict[str, object]]:  # type: ignore[no-untyped-def]
    spark = dbt_project.spark
    canary_db = CANARY.split(".")[0]
    spark.sql(f"create database if not exists {canary_db}")
    spark.sql(f"create table if not exists {CANARY} (id int) using parquet")
    spark.sql(f"insert into {CANARY} values (1)")

    # 1. the generic path, as a new user's first build
    _land(dbt_project.landing, 0)
    dbt_project.run(
        "build", "--select", "+captured_rows", "--exclude", "cdc_quarantine+", vars=VARS
    )

    # 2. scaffold the four tables into a copy of the project, by the command line
    project = dbt_project.copy_project(tmp_path_factory.mktemp("names") / "project")
    from cdc_tools import scaffold

    written: dict[str, list[str]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("cdc_tools.local_spark.get_local_spark", lambda: spark)
        for table, (system, extra) in SCAFFOLDS.items():
            before = {p for p in (project / "models").rglob("*.sql")}
            assert (
                scaffold.main(
                    [
                        "--from-bronze",
                        table,
                        "--system",
                        system,
                        "--schema-prefix",
                        dbt_project.schema,
                        "--root",
                        str(project),
                        *extra,
                    ]
                )
                == 0
            )
            written[table] = sorted(
                p.stem for p in (project / "models").rglob("*.sql") if p not in before
            )
    selected = [
        f"{name}+" for names in written.values() for name in names if name.startswith("stg_")
    ]
    # 3. the project keeps building, the new models included
    # (cdc_quarantine reads every typed model: it and its tests would build the
    # inventory's typed models too)
    dbt_project.run(
        "build",
        "--select",
        *selected,
        "--exclude",
        "cdc_quarantine+",
        vars=VARS,
        project_dir=project,
    )
    # 4. one more batch: the incremental paths (silver's append; gold's delta partition,
    # which a high compaction ratio keeps these few rows in, with its carry-over check)
    _land(dbt_project.landing, 1)
    dbt_project.run(
        "build",
        "--select",
        "+captured_rows",
        *selected,
        "--exclude",
        "cdc_quarantine+",
        vars={**VARS, "cdc_compaction_ratio": 1000},
        project_dir=project,
    )
    captured = {
        row["_cdc_source_table"]: row["rows"]
        for row in dbt_project.sql(
            f"select _cdc_source_table, collect_list(_cdc_row_json_raw) as rows "
            f"from {dbt_project.layer('gold')}.captured_rows group by _cdc_source_table"
        )
    }
    yield {"project": project, "written": written, "captured": captured, "selected": selected}
    spark.sql(f"drop database if exists {canary_db} cascade")


def _gold(dbt_project, model: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    return dbt_project.sql(f"select * from {dbt_project.layer('gold')}.{model}")


def test_the_scaffolded_names_are_dbt_names(built) -> None:  # type: ignore[no-untyped-def]
    written = built["written"]
    assert written["Order Details"] == ["order_details", "stg_northwind__order_details"]
    assert written["people"] == ["crm_people", "stg_crm__people"]
    # `orders` is the inventory's gold model already: the next free name
    assert written["orders"] == ["orders_2", "stg_canalshop__orders_2"]
    [gold, silver] = written[EVIL_TABLE]
    assert silver == f"stg_hostile__{gold}"
    for name in (gold, silver):
        assert name.replace("_", "").isalnum() and name == name.lower(), name


def test_typed_gold_equals_the_source(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    expected = _replay(_order_details_events(), lambda r: (r["OrderID"], r["ProductID"]))
    got = {(r["orderid"], r["productid"]): r for r in _gold(dbt_project, "order_details")}
    assert set(got) == set(expected)
    for key, row in expected.items():
        assert {ORDER_DETAILS_GOLD[c]: got[key][ORDER_DETAILS_GOLD[c]] for c in row} == {
            ORDER_DETAILS_GOLD[c]: v for c, v in row.items()
        }, key

    people = {
        r["id"]: {
            "e-mail": r["e_mail"],
            "a.b": r["a_b"],
            "Name": r["name"],
            "address": {"city": r["address_city"]},
        }
        for r in _gold(dbt_project, "crm_people")
    }
    assert people == {
        key: {k: v for k, v in doc.items() if k != "_id"} for key, doc in _people_state().items()
    }
    assert all(not r["_cdc_is_partial"] for r in _gold(dbt_project, "crm_people"))

    # a Canal message's `data` is the row after the change, or the deleted row
    canal = _replay(
        [
            (k, r if k == "DELETE" else None, None if k == "DELETE" else r)
            for k, r, _ in _canal_events()
        ],
        lambda r: r["id"],
    )
    got_canal = {r["id"]: {c: r[c] for c in CANAL_COLUMNS} for r in _gold(dbt_project, "orders_2")}
    assert {k: {c: str(v) for c, v in r.items()} for k, r in got_canal.items()} == canal


def test_hostile_names_and_values_stay_data(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """The canary every hostile text names is still there; the evil table's rows are
    exactly the source's, in captured_rows and in its typed gold, whose columns are the
    source's names made dbt names (`na`me` -> `na_me`)."""
    assert dbt_project.sql(f"select id from {CANARY}") == [{"id": 1}]
    expected = _replay(_evil_events(), lambda r: r["id"])
    captured = sorted(
        (json.loads(text) for text in built["captured"][EVIL_TABLE]), key=lambda r: r["id"]
    )
    assert captured == [expected[k] for k in sorted(expected)]
    [gold_model] = [n for n in built["written"][EVIL_TABLE] if not n.startswith("stg_")]
    got = {r["id"]: r for r in _gold(dbt_project, gold_model)}
    assert set(got) == set(expected)
    for key, row in expected.items():
        assert {EVIL_GOLD[c]: got[key][EVIL_GOLD[c]] for c in row} == {
            EVIL_GOLD[c]: v for c, v in row.items()
        }, key
    silver = dbt_project.sql(
        f"select count(*) as errors from {dbt_project.layer('silver')}.stg_hostile__{gold_model} "
        "where _cdc_error_reason is not null"
    )
    assert silver == [{"errors": 0}]


def test_the_contract_keeps_the_source_names(built) -> None:  # type: ignore[no-untyped-def]
    import yaml

    project: Path = built["project"]
    silver = yaml.safe_load(
        (project / "models/silver/northwind/_northwind__models.yml").read_text()
    )
    [model] = silver["models"]
    assert model["config"]["meta"]["cdc_source"] == {
        "database": "Northwind",
        "schema": "dbo",
        "table": "Order Details",
    }
    names = [c["name"] for c in model["columns"] if not c["name"].startswith("_")]
    assert names == list(ORDER_DETAILS_COLUMNS)
    gold = yaml.safe_load((project / "models/gold/northwind/_northwind__models.yml").read_text())
    [model] = gold["models"]
    columns = {c["name"]: c for c in model["columns"] if not c["name"].startswith("_")}
    assert list(columns) == list(ORDER_DETAILS_GOLD.values())
    assert columns["unit_price"]["meta"]["cdc_source_column"] == "Unit Price"
    assert "Unit Price" in columns["unit_price"]["description"]


def test_docs_generate_and_quality_suites_pass(dbt_project, built, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from cdc_tools.quality import run_quality
    from cdc_tools.quality_suites import load_manifest, suites_from_manifest

    project: Path = built["project"]
    dbt_project.run(
        "docs",
        "generate",
        "--select",
        *built["selected"],
        "--exclude",
        "cdc_quarantine+",
        vars=VARS,
        project_dir=project,
    )
    catalog = json.loads((dbt_project.target_path / "catalog.json").read_text())
    node = catalog["nodes"]["model.cdc_lakehouse_integration_tests.order_details"]
    assert set(ORDER_DETAILS_GOLD.values()) <= {c.lower() for c in node["columns"]}
    manifest = load_manifest(dbt_project.target_path / "manifest.json")
    described = manifest["nodes"]["model.cdc_lakehouse_integration_tests.order_details"]["columns"][
        "unit_price"
    ]
    assert "Unit Price" in described["description"]
    assert "unit_price" in described["description"]

    models = {name for names in built["written"].values() for name in names}
    suites = [s for s in suites_from_manifest(manifest) if s.table in models]
    assert len(suites) == 2 * len(SCAFFOLDS)
    report = run_quality(dbt_project.spark, dbt_project.schema, tmp_path / "gx", suites)
    assert report.success, report.failures()
    assert dbt_project.sql(f"select id from {CANARY}") == [{"id": 1}]

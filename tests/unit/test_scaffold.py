"""The scaffolder writes a table's silver and gold models, YAML and quarantine registration."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import yaml

from cdc_tools.local_spark import REPO_ROOT
from cdc_tools.scaffold import contract_from_spec, doc_block_name, write_table
from workbench.consumer import CONSUMER_DIR

SPEC = {
    "system": "crm",
    "table": "ACCOUNTS",
    "key": ["ID"],
    "columns": [
        {"name": "ID", "data_type": "bigint"},
        {"name": "owner", "data_type": "string", "source_name": "OWNER_NAME"},
        {"name": "opened_at", "data_type": "timestamp", "encoding": "io.debezium.time.Timestamp"},
    ],
}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "models" / "silver").mkdir(parents=True)
    shutil.copy(CONSUMER_DIR / "dbt_project.yml", tmp_path / "dbt_project.yml")
    return tmp_path


def test_writes_models_yaml_and_registration(tmp_path: Path) -> None:
    root = _project(tmp_path)
    paths = write_table(contract_from_spec(SPEC), root)
    silver = root / "models" / "silver" / "crm"
    gold = root / "models" / "gold" / "crm"
    assert silver / "stg_crm__accounts.sql" in paths
    assert "cdc_typed_change_log()" in (silver / "stg_crm__accounts.sql").read_text()
    gold_sql = (gold / "accounts.sql").read_text()
    assert "unique_key=['_cdc_source_id', 'id']" in gold_sql
    assert "ref('stg_crm__accounts')" in gold_sql

    [silver_model] = yaml.safe_load((silver / "_crm__models.yml").read_text())["models"]
    # every part of the source identity is written; the spec names no database or schema;
    # the contract keeps the column names as the spec gives them (case included)
    assert silver_model["config"]["meta"] == {
        "cdc_source": {"database": "*", "schema": "*", "table": "ACCOUNTS"},
        "cdc_key": ["ID"],
    }
    columns = {c["name"]: c for c in silver_model["columns"]}
    assert columns["owner"]["meta"] == {"cdc_source_column": "OWNER_NAME"}
    assert columns["opened_at"]["meta"] == {"cdc_encoding": "io.debezium.time.Timestamp"}
    assert columns["_loaded_at"]["description"] == '{{ doc("cdc_loaded_at") }}'

    [gold_model] = yaml.safe_load((gold / "_crm__models.yml").read_text())["models"]
    gold_columns = [c["name"] for c in gold_model["columns"]]
    assert "_cdc_error_reason" not in gold_columns
    assert gold_columns[:3] == ["id", "owner", "opened_at"]

    # registered where cdc_quarantine reads it: the project's var, its other lines kept
    text = (root / "dbt_project.yml").read_text()
    project = yaml.safe_load(text)
    assert project["vars"]["cdc_typed_change_logs"][-1] == "stg_crm__accounts"
    before = yaml.safe_load((CONSUMER_DIR / "dbt_project.yml").read_text())
    assert project["vars"]["cdc_typed_change_logs"][:-1] == before["vars"]["cdc_typed_change_logs"]
    assert {k: v for k, v in project.items() if k != "vars"} == {
        k: v for k, v in before.items() if k != "vars"
    }
    assert text.count("#") == (CONSUMER_DIR / "dbt_project.yml").read_text().count("#")


def test_registration_writes_the_var_where_there_is_none(tmp_path: Path) -> None:
    from cdc_tools.scaffold import register_typed_change_log

    (tmp_path / "dbt_project.yml").write_text("name: host\nprofile: cdc_spark\n")
    register_typed_change_log("stg_a__b", tmp_path)
    register_typed_change_log("stg_a__b", tmp_path)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "dbt_project.yml").write_text(
        "name: host\nvars:\n  x: 1\n  cdc_typed_change_logs: [stg_a__a]\n  y: 2\n"
    )
    register_typed_change_log("stg_a__b", tmp_path / "other")
    assert yaml.safe_load((tmp_path / "dbt_project.yml").read_text())["vars"] == {
        "cdc_typed_change_logs": ["stg_a__b"]
    }
    assert yaml.safe_load((tmp_path / "other" / "dbt_project.yml").read_text())["vars"] == {
        "x": 1,
        "cdc_typed_change_logs": ["stg_a__a", "stg_a__b"],
        "y": 2,
    }


def test_the_source_identity_is_written_whole(tmp_path: Path) -> None:
    """A spec's `source` (or the older `source_database` / `source_schema`) becomes the
    contract's `meta.cdc_source`, all three parts written."""
    root = _project(tmp_path)
    named = {**SPEC, "source": {"database": "crm_*", "schema": "dbo"}}
    write_table(contract_from_spec(named), root)
    legacy = {**SPEC, "table": "LEDGER", "source_database": "CRM1", "source_schema": "FIN"}
    write_table(contract_from_spec(legacy), root)
    models = yaml.safe_load((root / "models/silver/crm/_crm__models.yml").read_text())["models"]
    assert {m["name"]: m["config"]["meta"]["cdc_source"] for m in models} == {
        "stg_crm__accounts": {"database": "crm_*", "schema": "dbo", "table": "ACCOUNTS"},
        "stg_crm__ledger": {"database": "CRM1", "schema": "FIN", "table": "LEDGER"},
    }
    assert all("cdc_source_table" not in m["config"]["meta"] for m in models)


def test_every_project_contract_names_its_source_identity() -> None:
    """The hand-written typed contracts bind a database, schema and table each (a table
    name alone binds every source that has one: issue #14)."""
    contracts = 0
    for path in (CONSUMER_DIR / "models" / "silver").rglob("_*__models.yml"):
        for model in yaml.safe_load(path.read_text())["models"]:
            meta = (model.get("config") or {}).get("meta") or {}
            if "cdc_key" not in meta:
                continue
            contracts += 1
            assert set(meta.get("cdc_source") or {}) == {"database", "schema", "table"}, model
            assert "cdc_source_table" not in meta, model
    assert contracts == 4


def test_rewriting_a_table_is_idempotent(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write_table(contract_from_spec(SPEC), root)
    first = {p: p.read_text() for p in root.rglob("*") if p.is_file()}
    write_table(contract_from_spec(SPEC), root)
    assert {p: p.read_text() for p in root.rglob("*") if p.is_file()} == first


def test_doc_block_names() -> None:
    assert doc_block_name("_cdc_op") == "cdc_op"
    assert doc_block_name("_loaded_at") == "cdc_loaded_at"
    docs = (REPO_ROOT / "models" / "_cdc__docs.md").read_text()
    from cdc_tools.scaffold import GOLD_METADATA_COLUMNS, TYPED_METADATA_COLUMNS

    for column in {*TYPED_METADATA_COLUMNS, *GOLD_METADATA_COLUMNS}:
        assert f"{{% docs {doc_block_name(column)} %}}" in docs, column


def test_connect_schema_types_map_to_contract_types() -> None:
    from cdc_tools.scaffold import spark_type_for

    assert spark_type_for("int32", None) == ("int", None)
    assert spark_type_for("int64", "io.debezium.time.MicroTimestamp") == (
        "timestamp",
        "io.debezium.time.MicroTimestamp",
    )
    assert spark_type_for("int32", "io.debezium.time.Date") == ("date", "io.debezium.time.Date")
    assert spark_type_for("bytes", "org.apache.kafka.connect.data.Decimal", "2", "12") == (
        "decimal(12,2)",
        None,
    )
    assert spark_type_for("bytes", "org.apache.kafka.connect.data.Decimal", "4", None) == (
        "decimal(38,4)",
        None,
    )
    assert spark_type_for("int64", "io.debezium.time.MicroTime") == (
        "string",
        "io.debezium.time.MicroTime",
    )
    assert spark_type_for("float64", None) == ("double", None)
    # the JsonConverter's schema says `float` and `double` (PostgreSQL real, double precision)
    assert spark_type_for("float", None) == ("float", None)
    assert spark_type_for("double", None) == ("double", None)
    # a Decimal of more than 38 digits (numeric(50,2)) is its exact text
    assert spark_type_for("bytes", "org.apache.kafka.connect.data.Decimal", "2", "50") == (
        "string",
        "org.apache.kafka.connect.data.Decimal",
    )
    # an array is its JSON text; elements of a logical type decode as their scalar twins
    assert spark_type_for("array", "io.debezium.time.Date") == (
        "string",
        "array<io.debezium.time.Date>",
    )
    assert spark_type_for("array", None) == ("string", None)
    # an unconstrained numeric can exceed every Spark decimal: its exact text (real PostgreSQL
    # values of 30 integer digits: tests/realdb)
    assert spark_type_for("struct", "io.debezium.data.VariableScaleDecimal") == (
        "string",
        "io.debezium.data.VariableScaleDecimal",
    )


def test_every_simulated_encoding_scaffolds_to_the_hand_written_contract() -> None:
    """What the scaffolder reads off each column's schema (every flavour and time precision
    mode, decimals precise) is the data type the inventory contract declares."""
    import yaml

    from cdc_tools.scaffold import spark_type_for
    from workbench.simulator import FLAVOURS, TABLES, SimConfig, column_encoding

    doc = yaml.safe_load(
        (CONSUMER_DIR / "models" / "silver" / "inventory" / "_inventory__models.yml").read_text()
    )
    declared = {
        (m["config"]["meta"]["cdc_source"]["table"], c["name"]): c["data_type"]
        for m in doc["models"]
        for c in m["columns"]
        if "data_type" in c
    }
    checked = 0
    for flavour in FLAVOURS:
        for times in ("adaptive", "connect"):
            config = SimConfig(flavour=flavour, schemas_enable=True, time_precision_mode=times)
            for table, spec in TABLES.items():
                for column in spec.columns:
                    encoding = column_encoding(column, config)
                    parameters = encoding.parameters or {}
                    data_type, _ = spark_type_for(
                        encoding.type,
                        encoding.name,
                        parameters.get("scale"),
                        parameters.get("connect.decimal.precision"),
                    )
                    wanted = declared[(table, column.name)]
                    if flavour == "oracle" and column.type == "boolean":
                        wanted = "smallint"  # NUMBER(1): the scaffolder cannot know
                    if flavour == "oracle" and column.type == "date":
                        wanted = "timestamp"  # Oracle DATE has a time part; narrowed by hand
                    assert data_type == wanted, (flavour, times, table, column.name)
                    checked += 1
    assert checked == 6 * sum(len(spec.columns) for spec in TABLES.values())


DOCUMENT_SPEC = {
    "system": "shop",
    "table": "carts",
    "document": True,
    "gold_name": "shop_carts",
    "key": ["id"],
    "columns": [
        {"name": "id", "source_name": "_id", "data_type": "string"},
        {"name": "city", "source_name": "address.city", "data_type": "string"},
    ],
}


def test_a_document_contract_is_marked_and_keeps_dotted_paths(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write_table(contract_from_spec(DOCUMENT_SPEC), root)
    silver = yaml.safe_load((root / "models/silver/shop/_shop__models.yml").read_text())
    [model] = silver["models"]
    assert model["config"]["meta"]["cdc_document"] is True
    columns = {c["name"]: c for c in model["columns"]}
    assert columns["city"]["meta"]["cdc_source_column"] == "address.city"
    assert columns["id"]["meta"]["cdc_source_column"] == "_id"
    gold_sql = (root / "models/gold/shop/shop_carts.sql").read_text()
    assert "_cdc_is_partial" in gold_sql
    assert "ref('stg_shop__carts')" in gold_sql


def test_document_columns_follow_nested_documents_and_extended_json() -> None:
    from cdc_tools.scaffold import document_columns

    columns = document_columns(
        {
            "_id": {"$oid": "5eb626b3452cd570b405bf7d"},
            "qty": 2,
            "price": 2.5,
            "total": {"$numberDecimal": "5.00"},
            "placed": {"$date": 1533868558652},
            "visits": {"$numberLong": "12"},
            "address": {"city": "Oslo", "geo": {"lat": 59.9}},
            "tags": ["a"],
        }
    )
    assert [(c.name, c.source_name, c.data_type, c.encoding) for c in columns] == [
        ("id", "_id", "string", None),
        ("qty", "qty", "bigint", None),
        ("price", "price", "double", None),
        ("total", "total", "decimal(38,10)", "string"),
        ("placed", "placed", "timestamp", None),
        ("visits", "visits", "bigint", None),
        ("address_city", "address.city", "string", None),
        ("address_geo_lat", "address.geo.lat", "double", None),
        ("tags", "tags", "string", None),
    ]


# ------------------------------------------------------------- any name a source can have
def test_source_names_become_dbt_names() -> None:
    from cdc_tools.scaffold import dbt_name, unique_names

    assert dbt_name("Order Details", "t") == "order_details"
    assert dbt_name("e-mail") == "e_mail"
    assert dbt_name("dot.col") == "dot_col"
    assert dbt_name("ünïcode") == "unicode"
    assert dbt_name("Unit Price") == "unit_price"
    assert dbt_name("  --weird;; name``") == "weird_name"
    assert dbt_name("2024 Sales", "t") == "t_2024_sales"
    assert dbt_name("1st") == "c_1st"
    assert dbt_name("?!") == "c"
    assert dbt_name("CUSTOMERS") == "customers"  # plain names as before
    assert unique_names(["e_mail", "e_mail", "x", "e_mail"]) == [
        "e_mail",
        "e_mail_2",
        "x",
        "e_mail_3",
    ]
    assert unique_names(["orders"], taken=["orders"]) == ["orders_2"]


NORTHWIND = {
    "system": "northwind",
    "table": "Order Details",
    "key": ["OrderID", "ProductID"],
    "source": {"database": "Northwind", "schema": "dbo"},
    "columns": [
        {"name": "OrderID", "data_type": "int"},
        {"name": "ProductID", "data_type": "int"},
        {"name": "Unit Price", "data_type": "decimal(19,4)"},
        {"name": "order", "data_type": "string"},
        {"name": "e-mail", "data_type": "string"},
        {"name": "e_mail", "data_type": "string"},
    ],
}


def test_a_table_with_spaces_and_reserved_words_is_scaffolded_under_dbt_names(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    paths = write_table(contract_from_spec(NORTHWIND), root)
    assert root / "models/silver/northwind/stg_northwind__order_details.sql" in paths
    assert root / "models/gold/northwind/order_details.sql" in paths
    assert not [p for p in root.rglob("*") if " " in p.name]
    gold_sql = (root / "models/gold/northwind/order_details.sql").read_text()
    assert "unique_key=['_cdc_source_id', 'orderid', 'productid']" in gold_sql
    # source names quoted by the project's macro, gold names snake case
    assert "{{ cdc_lakehouse.cdc_quote('Unit Price') }} as unit_price," in gold_sql
    assert "{{ cdc_lakehouse.cdc_quote('order') }}," in gold_sql
    assert "{{ cdc_lakehouse.cdc_quote('e-mail') }} as e_mail," in gold_sql
    assert "e_mail as e_mail_2," in gold_sql
    assert "OrderID as orderid," in gold_sql

    [silver] = yaml.safe_load(
        (root / "models/silver/northwind/_northwind__models.yml").read_text()
    )["models"]
    assert [c["name"] for c in silver["columns"][:6]] == [c["name"] for c in NORTHWIND["columns"]]
    assert silver["config"]["meta"]["cdc_key"] == ["OrderID", "ProductID"]
    [gold] = yaml.safe_load((root / "models/gold/northwind/_northwind__models.yml").read_text())[
        "models"
    ]
    columns = {c["name"]: c for c in gold["columns"]}
    assert list(columns)[:6] == [
        "orderid",
        "productid",
        "unit_price",
        "order",
        "e_mail",
        "e_mail_2",
    ]
    assert columns["unit_price"]["meta"] == {"cdc_source_column": "Unit Price"}
    assert "`Unit Price`" in columns["unit_price"]["description"]
    assert columns["order"].get("quote") is True
    position = gold["data_tests"][1]["cdc_lakehouse.cdc_position_not_behind_change_log"][
        "arguments"
    ]
    assert position["key_columns"] == ["_cdc_source_id", "orderid", "productid"]
    assert position["change_key_columns"] == ["_cdc_source_id", "OrderID", "ProductID"]
    # the key's columns not null: one test of the model, none per column
    assert gold["data_tests"][2] == {
        "cdc_lakehouse.cdc_column_checks": {"arguments": {"not_null": ["orderid", "productid"]}}
    }
    assert not [c for c in gold["columns"] if "data_tests" in c]


def test_hostile_names_are_written_as_text(tmp_path: Path) -> None:
    """Names holding SQL and Jinja reach the files escaped: dbt renders the YAML and the
    SQL with Jinja and must get the names back, not run them."""
    import jinja2

    from cdc_tools.scaffold import ColumnContract, TableContract

    evil_table = "evil`; drop table x; --"
    jinja_name = "{{ run_query('drop schema x') }}"
    sql_name = "'); drop table y; --"
    contract = TableContract(
        system="hostile",
        table=evil_table,
        key=["id"],
        columns=[
            ColumnContract("id", "bigint"),
            ColumnContract(jinja_name, "string"),
            ColumnContract(sql_name, "string"),
            ColumnContract("{% do x() %}", "string"),
        ],
        source_database="sh'op",
    )
    root = _project(tmp_path)
    write_table(contract, root)
    calls: list[object] = []

    def render(text: str) -> str:
        return (
            jinja2.Environment()
            .from_string(text)
            .render(
                run_query=calls.append,
                x=lambda: calls.append("x"),
                cdc_lakehouse=SimpleNamespace(cdc_quote=lambda n: f"<{n}>"),
                config=lambda **_: "",
                ref=lambda n: n,
            )
        )

    [silver] = yaml.safe_load(next((root / "models/silver/hostile").glob("_*.yml")).read_text())[
        "models"
    ]
    rendered = [render(c["name"]) for c in silver["columns"][:4]]
    assert rendered == ["id", jinja_name, sql_name, "{% do x() %}"]
    assert render(silver["config"]["meta"]["cdc_source"]["table"]) == evil_table
    assert render(silver["config"]["meta"]["cdc_source"]["database"]) == "sh'op"
    [gold_sql] = (root / "models/gold/hostile").glob("*.sql")
    assert " " not in gold_sql.stem and "`" not in gold_sql.stem
    text = render(gold_sql.read_text())
    assert f"<{jinja_name}> as run_query_drop_schema_x," in text
    assert f"<{sql_name}> as drop_table_y," in text
    assert calls == []


def test_a_name_of_another_source_is_numbered_and_a_rescaffold_keeps_its_own(
    tmp_path: Path,
) -> None:
    from cdc_tools.scaffold import resolve_model_name

    root = _project(tmp_path)
    (root / "models/gold/inventory").mkdir(parents=True)
    (root / "models/gold/inventory/orders.sql").write_text("select 1 as id\n")
    spec = {**NORTHWIND, "table": "orders", "system": "canal"}
    paths = write_table(contract_from_spec(spec), root)
    assert root / "models/gold/canal/orders_2.sql" in paths
    assert resolve_model_name(contract_from_spec(spec), root).model_name == "orders_2"
    named = {**spec, "name": "canal_orders"}
    assert root / "models/gold/canal/canal_orders.sql" in write_table(
        contract_from_spec(named), root
    )


def test_document_fields_with_dots_and_hyphens_are_fields() -> None:
    from cdc_tools.scaffold import TableContract, document_columns

    columns = document_columns(
        {"_id": 1, "e-mail": "a@b", "a.b": "x", "Name": "Ann", "a": {"b": "nested"}}
    )
    assert [(c.name, c.source_path) for c in columns] == [
        ("id", None),
        ("e-mail", None),
        ("a.b", None),
        ("Name", None),
        ("a_b", ("a", "b")),
    ]
    contract = TableContract(system="crm", table="people", key=["id"], columns=columns)
    assert [c.gold_name for c in contract.columns] == ["id", "e_mail", "a_b", "name", "a_b_2"]

"""The scaffolder writes a table's silver and gold models, YAML and quarantine registration."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from cdc_tools.scaffold import REPO_ROOT, contract_from_spec, doc_block_name, write_table

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
    shutil.copy(
        REPO_ROOT / "models" / "silver" / "cdc_quarantine.sql",
        tmp_path / "models" / "silver" / "cdc_quarantine.sql",
    )
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
    # every part of the source identity is written; the spec names no database or schema
    assert silver_model["config"]["meta"] == {
        "cdc_source": {"database": "*", "schema": "*", "table": "ACCOUNTS"},
        "cdc_key": ["id"],
    }
    columns = {c["name"]: c for c in silver_model["columns"]}
    assert columns["owner"]["meta"] == {"cdc_source_column": "OWNER_NAME"}
    assert columns["opened_at"]["meta"] == {"cdc_encoding": "io.debezium.time.Timestamp"}
    assert columns["_loaded_at"]["description"] == '{{ doc("cdc_loaded_at") }}'

    [gold_model] = yaml.safe_load((gold / "_crm__models.yml").read_text())["models"]
    gold_columns = [c["name"] for c in gold_model["columns"]]
    assert "_cdc_error_reason" not in gold_columns
    assert gold_columns[:3] == ["id", "owner", "opened_at"]

    quarantine = (root / "models" / "silver" / "cdc_quarantine.sql").read_text()
    assert "-- depends_on: {{ ref('stg_crm__accounts') }}" in quarantine


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
    for path in (REPO_ROOT / "models" / "silver").rglob("_*__models.yml"):
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


def test_every_simulated_encoding_scaffolds_to_the_hand_written_contract() -> None:
    """What the scaffolder reads off each column's schema (every flavour and time precision
    mode, decimals precise) is the data type the inventory contract declares."""
    import yaml

    from cdc_tools.scaffold import REPO_ROOT, spark_type_for
    from cdc_tools.simulator import FLAVOURS, TABLES, SimConfig, column_encoding

    doc = yaml.safe_load(
        (REPO_ROOT / "models" / "silver" / "inventory" / "_inventory__models.yml").read_text()
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

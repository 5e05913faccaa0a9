"""Write the typed silver model, the gold current-state model and their YAML for one table.

An analyst adds a captured table in one step::

    python -m cdc_tools.scaffold --spec my_table.json                      # a contract file
    python -m cdc_tools.scaffold --from-bronze CUSTOMERS --system crm      # what was seen

The silver model types the table's change log by its column contract; the gold model keeps
one current row per key. Both SQL files are one-liners around project macros, and the YAML
holds the contract (names, types, encodings, key) and every description.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]

# Metadata columns of a typed change-log model, with the doc block that describes each.
TYPED_METADATA_COLUMNS: tuple[str, ...] = (
    "_cdc_op",
    "_cdc_connector",
    "_cdc_source_id",
    "_cdc_source_db",
    "_cdc_source_schema",
    "_cdc_source_table",
    "_cdc_key",
    "_cdc_is_partial",
    "_cdc_position",
    "_cdc_sort_key",
    "_cdc_is_snapshot",
    "_cdc_source_ts",
    "_cdc_transaction_id",
    "_cdc_undeclared_columns",
    "_cdc_error_reason",
    "_message_id",
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_source_file",
    "_source_line",
    "_loaded_at",
)

# Metadata columns a gold current-state model selects from its typed change log.
GOLD_METADATA_COLUMNS: tuple[str, ...] = (
    "_cdc_op",
    "_cdc_connector",
    "_cdc_source_id",
    "_cdc_source_db",
    "_cdc_key",
    "_cdc_position",
    "_cdc_sort_key",
    "_cdc_source_ts",
    "_cdc_undeclared_columns",
    "_cdc_error_reason",
    "_loaded_at",
)

# Columns the materialization uses but does not publish.
GOLD_UNPUBLISHED_COLUMNS: frozenset[str] = frozenset({"_cdc_error_reason", "_cdc_sort_key"})


def doc_block_name(column: str) -> str:
    """`_cdc_op` -> `cdc_op`, `_loaded_at` -> `cdc_loaded_at`: a column's doc block name.

    Metadata columns are described once, in models/_cdc__docs.md.
    """
    name = column.lstrip("_")
    return name if name.startswith("cdc_") else f"cdc_{name}"


@dataclass(frozen=True)
class ColumnContract:
    name: str
    data_type: str
    encoding: str | dict[str, str] | None = None
    """A semantic type or decimal mode, or connector -> semantic type (see cdc_decode_value)."""
    source_name: str | None = None
    description: str = ""
    meta: dict[str, object] = field(default_factory=dict)
    """More column meta, written to silver and gold as given: e.g. the quality bounds
    `cdc_accepted_values`, `cdc_min_value`, `cdc_max_value` (cdc_tools.quality_suites)."""


@dataclass(frozen=True)
class TableContract:
    system: str
    table: str
    key: list[str]
    columns: list[ColumnContract]
    description: str = ""
    source_schema: str | None = None
    """Glob pattern of the source schema; None: any (`*`)."""
    source_database: str | None = None
    """Glob pattern of the source database; None: any (`*`)."""
    delete_mode: str = "hard"
    document: bool = False
    """A document collection (MongoDB): extended JSON unwrapped, dotted source paths."""
    gold_name: str | None = None
    """The gold model's name (default: the table name in lower case)."""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def source(self) -> dict[str, str]:
        """The source identity the contract binds to (`meta.cdc_source`): every part
        written, `*` where the contract names none."""
        return {
            "database": self.source_database or "*",
            "schema": self.source_schema or "*",
            "table": self.table,
        }

    @property
    def silver_model(self) -> str:
        return f"stg_{self.system}__{self.table.lower()}"

    @property
    def gold_model(self) -> str:
        return self.gold_name or self.table.lower()


def silver_sql() -> str:
    return (
        "{{ config(materialized='incremental', incremental_strategy='append', "
        "on_schema_change='fail') }}\n\n{{ cdc_typed_change_log() }}\n"
    )


def gold_sql(contract: TableContract) -> str:
    key = ", ".join(f"'{column}'" for column in ["_cdc_source_id", *contract.key])
    options = f"materialized='cdc_current_state', unique_key=[{key}]"
    if contract.delete_mode != "hard":
        options += f", cdc_delete_mode='{contract.delete_mode}'"
    columns = [column.name for column in contract.columns] + list(GOLD_METADATA_COLUMNS)
    if contract.document:
        columns.append("_cdc_is_partial")
    select_list = ",\n".join(f"        {column}" for column in columns)
    return (
        f"{{{{ config({options}) }}}}\n\n"
        "with\n\n"
        "changes as (\n\n"
        f"    select * from {{{{ ref('{contract.silver_model}') }}}}\n\n"
        "),\n\n"
        "final as (\n\n"
        "    select\n"
        f"{select_list}\n"
        "    from changes\n\n"
        ")\n\n"
        "select * from final\n"
    )


def _metadata_entry(column: str) -> dict[str, object]:
    return {"name": column, "description": f'{{{{ doc("{doc_block_name(column)}") }}}}'}


def _contract_entry(column: ColumnContract, contract: TableContract) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": column.name,
        "description": column.description or f"Source column {column.source_name or column.name}.",
        "data_type": column.data_type,
    }
    meta: dict[str, object] = dict(column.meta)
    if column.encoding:
        meta["cdc_encoding"] = column.encoding
    if column.source_name and column.source_name.lower() != column.name:
        # a dotted path into a document (`address.city`) is matched case-exact
        meta["cdc_source_column"] = column.source_name
    if meta:
        entry["meta"] = meta
    return entry


def silver_yaml_entry(contract: TableContract) -> dict[str, object]:
    meta: dict[str, object] = {"cdc_source": contract.source, "cdc_key": contract.key}
    if contract.document:
        meta["cdc_document"] = True
    return {
        "name": contract.silver_model,
        "description": (
            f"Typed change log of source table {contract.table}: one row per change, "
            "columns decoded by the contract below."
        ),
        "config": {"meta": meta},
        "columns": [_contract_entry(c, contract) for c in contract.columns]
        + [_metadata_entry(c) for c in TYPED_METADATA_COLUMNS],
    }


def gold_yaml_entry(contract: TableContract) -> dict[str, object]:
    published = [c for c in GOLD_METADATA_COLUMNS if c not in GOLD_UNPUBLISHED_COLUMNS]
    if contract.delete_mode == "soft":
        published += ["_cdc_is_deleted", "_cdc_deleted_at"]
    if contract.document:
        published.append("_cdc_is_partial")
    columns: list[dict[str, object]] = [
        {
            "name": c.name,
            "description": c.description or f"Source column {c.source_name or c.name}.",
            "data_type": c.data_type,
            **({"meta": dict(c.meta)} if c.meta else {}),
            **({"data_tests": ["not_null"]} if c.name in contract.key else {}),
        }
        for c in contract.columns
    ]
    columns += [_metadata_entry(c) for c in published]
    return {
        "name": contract.gold_model,
        "description": contract.description
        or f"Current state of source table {contract.table}: one row per key.",
        "data_tests": [
            {"cdc_unique_key": {"arguments": {"columns": ["_cdc_source_id", *contract.key]}}},
            {
                "cdc_position_not_behind_change_log": {
                    "arguments": {
                        "changes": f"{{{{ ref('{contract.silver_model}') }}}}",
                        "key_columns": ["_cdc_source_id", *contract.key],
                    }
                }
            },
        ],
        "columns": columns,
    }


def _merge_yaml(path: Path, entry: dict[str, object]) -> str:
    document: dict[str, object] = {"version": 2, "models": []}
    if path.exists():
        document = yaml.safe_load(path.read_text()) or document
    models = [m for m in document.get("models", []) if m.get("name") != entry["name"]]
    models.append(entry)
    document["models"] = sorted(models, key=lambda m: str(m["name"]))
    return yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)


def register_in_quarantine(model_name: str, root: Path = REPO_ROOT) -> Path:
    """Add `-- depends_on: {{ ref(model) }}` to cdc_quarantine.sql (idempotent)."""
    path = root / "models" / "silver" / "cdc_quarantine.sql"
    line = f"-- depends_on: {{{{ ref('{model_name}') }}}}"
    lines = path.read_text().splitlines()
    if line not in lines:
        last = max(i for i, text in enumerate(lines) if text.startswith("-- depends_on:"))
        lines.insert(last + 1, line)
        path.write_text("\n".join(lines) + "\n")
    return path


def write_table(contract: TableContract, root: Path = REPO_ROOT) -> list[Path]:
    """Write (or rewrite) the four files of one table; returns their paths."""
    silver_dir = root / "models" / "silver" / contract.system
    gold_dir = root / "models" / "gold" / contract.system
    silver_dir.mkdir(parents=True, exist_ok=True)
    gold_dir.mkdir(parents=True, exist_ok=True)
    silver_yaml = silver_dir / f"_{contract.system}__models.yml"
    gold_yaml = gold_dir / f"_{contract.system}__models.yml"
    files = {
        silver_dir / f"{contract.silver_model}.sql": silver_sql(),
        gold_dir / f"{contract.gold_model}.sql": gold_sql(contract),
        silver_yaml: _merge_yaml(silver_yaml, silver_yaml_entry(contract)),
        gold_yaml: _merge_yaml(gold_yaml, gold_yaml_entry(contract)),
    }
    for path, text in files.items():
        path.write_text(text)
    return [*files, register_in_quarantine(contract.silver_model, root)]


def contract_from_spec(spec: dict[str, object]) -> TableContract:
    """A TableContract from a JSON spec (see docs/architecture.md, "Adding a table")."""
    columns = [
        ColumnContract(
            name=str(c["name"]).lower(),
            data_type=str(c["data_type"]),
            encoding=c.get("encoding"),  # type: ignore[arg-type]
            source_name=c.get("source_name"),  # type: ignore[arg-type]
            description=str(c.get("description", "")),
            meta=dict(c.get("meta") or {}),  # type: ignore[call-overload]
        )
        for c in spec["columns"]  # type: ignore[union-attr]
    ]
    source: dict[str, str] = dict(spec.get("source") or {})  # type: ignore[call-overload]
    return TableContract(
        system=str(spec["system"]),
        table=str(spec["table"]),
        key=[str(k).lower() for k in spec["key"]],  # type: ignore[union-attr]
        columns=columns,
        description=str(spec.get("description", "")),
        source_schema=source.get("schema") or spec.get("source_schema"),  # type: ignore[arg-type]
        source_database=source.get("database") or spec.get("source_database"),  # type: ignore[arg-type]
        delete_mode=str(spec.get("delete_mode", "hard")),
        document=bool(spec.get("document", False)),
        gold_name=spec.get("gold_name"),  # type: ignore[arg-type]
    )


# Kafka Connect schema (type, semantic name) -> (Spark type, encoding to record).
_SEMANTIC_TYPES: dict[str, tuple[str, str | None]] = {
    "io.debezium.time.Date": ("date", "io.debezium.time.Date"),
    "org.apache.kafka.connect.data.Date": ("date", "org.apache.kafka.connect.data.Date"),
    "io.debezium.time.Timestamp": ("timestamp", "io.debezium.time.Timestamp"),
    "org.apache.kafka.connect.data.Timestamp": (
        "timestamp",
        "org.apache.kafka.connect.data.Timestamp",
    ),
    "io.debezium.time.MicroTimestamp": ("timestamp", "io.debezium.time.MicroTimestamp"),
    "io.debezium.time.NanoTimestamp": ("timestamp", "io.debezium.time.NanoTimestamp"),
    "io.debezium.time.ZonedTimestamp": ("timestamp", "io.debezium.time.ZonedTimestamp"),
    "io.debezium.time.Time": ("string", "io.debezium.time.Time"),
    "org.apache.kafka.connect.data.Time": ("string", "org.apache.kafka.connect.data.Time"),
    "io.debezium.time.MicroTime": ("string", "io.debezium.time.MicroTime"),
    "io.debezium.time.NanoTime": ("string", "io.debezium.time.NanoTime"),
    "io.debezium.data.VariableScaleDecimal": ("decimal(38,10)", None),
    "io.debezium.data.Xml": ("string", None),
}
_PLAIN_TYPES: dict[str, str] = {
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float32": "double",
    "float64": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "string",
}


def spark_type_for(
    connect_type: str | None,
    semantic: str | None,
    scale: str | None = None,
    precision: str | None = None,
) -> tuple[str, str | None]:
    """The contract type (and encoding) for a column described by a Kafka Connect schema."""
    if semantic == "org.apache.kafka.connect.data.Decimal":
        digits = min(int(precision or 38), 38)
        return f"decimal({digits},{int(scale or 0)})", None
    if semantic in _SEMANTIC_TYPES:
        return _SEMANTIC_TYPES[semantic]
    return _PLAIN_TYPES.get(connect_type or "", "string"), None


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "double"
    return "string"


# MongoDB extended-JSON wrapper -> (contract type, encoding to record).
_EXTENDED_JSON_TYPES: dict[str, tuple[str, str | None]] = {
    "$oid": ("string", None),
    "$numberInt": ("int", None),
    "$numberLong": ("bigint", None),
    "$numberDouble": ("double", None),
    "$numberDecimal": ("decimal(38,10)", "string"),
    "$date": ("timestamp", None),
    "$binary": ("string", None),
}


def _document_value_type(value: object) -> tuple[str, str | None] | None:
    """The contract type of one document value; None for a nested document."""
    if isinstance(value, dict):
        wrapper = next(iter(value), None) if len(value) in (1, 2) else None
        if wrapper in _EXTENDED_JSON_TYPES:
            return _EXTENDED_JSON_TYPES[wrapper]
        return None
    if isinstance(value, list):
        return "string", None  # the array as JSON text
    if isinstance(value, float):
        return "double", None
    return _json_type(value), None


def document_columns(document: dict[str, object], prefix: str = "") -> list[ColumnContract]:
    """Contract columns of a MongoDB document: top-level fields, and the fields of nested
    documents as dotted paths (`address.city` -> column `address_city`). `_id` is `id`."""
    columns: list[ColumnContract] = []
    for name, value in document.items():
        path = f"{prefix}{name}"
        described = _document_value_type(value)
        if described is None:
            columns.extend(document_columns(value, f"{path}."))  # type: ignore[arg-type]
            continue
        data_type, encoding = described
        column = "id" if path == "_id" else path.replace(".", "_").lstrip("_").lower()
        columns.append(
            ColumnContract(
                column,
                data_type,
                encoding,
                source_name=path,
                description=f"Document field {path} (type inferred from a value: check it).",
            )
        )
    return columns


def contract_from_bronze(  # type: ignore[no-untyped-def]
    spark,
    table: str,
    system: str,
    schema_prefix: str = "cdc",
    database: str | None = None,
    key: list[str] | None = None,
) -> TableContract:
    """A contract for `table` from what the pipeline has seen of it.

    The contract binds to the source identity of that message (its database and schema,
    exactly; a part the source does not have, such as a MySQL schema, is `*`).
    Column types come from the newest message that carried a schema (schema wrapper), else
    they are inferred from the newest row image (and say so in their description). The key
    comes from `key`, else the Kafka message key, else the schema-change topic's
    `primaryKeyColumnNames`.
    """
    silver = f"{schema_prefix}_silver"
    where = f"lower(_cdc_source_table) = lower('{table}') and _cdc_op in ('c', 'r', 'u')"
    if database:
        where += f" and lower(_cdc_source_db) = lower('{database}')"
    rows = spark.sql(
        f"select _cdc_source_db, _cdc_source_schema, _cdc_source_table, _cdc_source_id, "
        f"_cdc_after, _cdc_key, _cdc_column_types, "
        f"_cdc_connector "
        f"from {silver}.int_cdc__change_log where {where} "
        f"order by _cdc_column_types is not null desc, _loaded_at desc, _cdc_sort_key desc "
        f"limit 1"
    ).collect()
    if not rows:
        raise SystemExit(f"no change of table {table} in {silver}.int_cdc__change_log")
    row = rows[0]
    after = json.loads(row["_cdc_after"])
    if row["_cdc_connector"] == "mongodb":
        return TableContract(
            system=system,
            table=row["_cdc_source_table"],
            key=["id"],
            columns=document_columns(after),
            source_database=row["_cdc_source_db"],
            source_schema=row["_cdc_source_schema"],
            document=True,
            gold_name=f"{system}_{row['_cdc_source_table'].lower()}",
        )
    types = row["_cdc_column_types"] or {}
    columns = []
    for name, value in after.items():
        described = types.get(name.lower())
        if described is not None:
            data_type, encoding = spark_type_for(
                described["type"], described["name"], described["scale"], described["precision"]
            )
            note = f"Source column {name} ({described['name'] or described['type']})."
        else:
            data_type, encoding = _json_type(value), None
            note = f"Source column {name} (type inferred from a value: check it)."
        columns.append(
            ColumnContract(name.lower(), data_type, encoding, source_name=name, description=note)
        )
    if not key:
        key = sorted(json.loads(row["_cdc_key"]).keys()) if row["_cdc_key"] else None
        if key == sorted(column.name for column in columns):
            key = None  # the whole row: the message carried no key
    if not key:
        history = spark.sql(
            f"select primary_key_columns from {silver}.stg_cdc__schema_changes "
            f"where _cdc_source_id = '{row['_cdc_source_id']}' order by _loaded_at desc limit 1"
        ).collect()
        key = list(history[0]["primary_key_columns"]) if history else None
    if not key:
        raise SystemExit(
            f"cannot tell the key of {table}: no Kafka key, no schema-change event; pass --key"
        )
    return TableContract(
        system=system,
        table=row["_cdc_source_table"],
        key=[k.lower() for k in key],
        columns=columns,
        source_database=row["_cdc_source_db"],
        source_schema=row["_cdc_source_schema"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--spec", type=Path, help="JSON contract file of one table")
    source.add_argument("--from-bronze", metavar="TABLE", help="a captured source table")
    parser.add_argument("--system", help="folder/prefix for the models (with --from-bronze)")
    parser.add_argument("--database", help="only messages of this source database")
    parser.add_argument("--key", help="comma-separated key columns (default: detected)")
    parser.add_argument("--schema-prefix", default=None, help="dbt schema prefix (CDC_SCHEMA)")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="dbt project root")
    args = parser.parse_args(argv)
    if args.spec is not None:
        contract = contract_from_spec(json.loads(args.spec.read_text()))
    else:
        import os

        from cdc_tools.local_spark import get_local_spark

        if not args.system:
            parser.error("--from-bronze needs --system (the models' folder and prefix)")
        contract = contract_from_bronze(
            get_local_spark(),
            args.from_bronze,
            args.system,
            schema_prefix=args.schema_prefix or os.environ.get("CDC_SCHEMA", "cdc"),
            database=args.database,
            key=args.key.split(",") if args.key else None,
        )
    source = contract.source
    print(
        f"the contract binds to database {source['database']!r}, schema {source['schema']!r}, "
        f"table {source['table']!r} (meta.cdc_source; `*` is any)"
    )
    if "*" in (source["database"], source["schema"]):
        print(
            "note: a `*` database or schema binds every source with a table of this name; "
            "name them (spec `source: {database, schema}`) unless that is meant"
        )
    for path in write_table(contract, args.root):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the typed silver model, the gold current-state model and their YAML for one table.

An analyst adds a captured table in one step::

    python -m cdc_tools.scaffold --spec my_table.json                      # a contract file
    python -m cdc_tools.scaffold --from-bronze CUSTOMERS --system crm      # what was seen

The silver model types the table's change log by its column contract; the gold model keeps
one current row per key. Both SQL files are one-liners around project macros, and the YAML
holds the contract (names, types, encodings, key) and every description.

Names (issue #35): the contract keeps each column under the source's own name (any
characters, case kept); model and gold column names are `dbt_name`s (lowercase snake case,
collisions numbered), the source name kept in the gold column's meta and description.
Everything written is escaped: SQL names go through the `cdc_quote` macro, and every source
text in YAML is written so that dbt's Jinja rendering gives it back as it was.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from cdc_tools.local_spark import project_dir

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


# Words Spark SQL (ANSI) reserves: a gold column of such a name is written quoted.
SQL_RESERVED_WORDS: frozenset[str] = frozenset(
    """
    all alter and any array as asc at authorization between both by case cast check collate
    column constraint create cross cube current current_date current_time current_timestamp
    current_user date day default delete desc describe distinct drop else end escape except
    exists external false fetch filter for foreign from full function global grant group
    grouping having hour in inner insert intersect interval into is join lateral leading
    left like local minus minute month natural not null of on only or order out outer
    overlaps partition position primary range references revoke right rollup row rows
    second select session_user set some start table tablesample then time timestamp to
    trailing true union unique unknown update user using values when where window with year
    """.split()
)

_SIMPLE_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dbt_name(name: str, prefix: str = "c") -> str:
    """A source name as a dbt-valid name: lowercase snake case (`Order Details` ->
    `order_details`, `e-mail` -> `e_mail`, `ünïcode` -> `unicode`): accents dropped, every
    run of other characters one `_`, none at either end; a name that starts with a digit
    gets `prefix_` (`2024 Sales` -> `t_2024_sales`), an empty one is `prefix`."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"[^a-z0-9]+", "_", text).strip("_")
    if not text:
        return prefix
    return f"{prefix}_{text}" if text[0].isdigit() else text


def unique_names(names: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """`names` with collisions numbered in order (`e_mail`, `e_mail_2`), never one of `taken`."""
    used = set(taken)
    result = []
    for name in names:
        candidate, number = name, 1
        while candidate in used:
            number += 1
            candidate = f"{name}_{number}"
        used.add(candidate)
        result.append(candidate)
    return result


def needs_quoting(name: str) -> bool:
    """True when `name` cannot be written bare in SQL: not a plain identifier, or reserved."""
    return _SIMPLE_IDENTIFIER.fullmatch(name) is None or name.lower() in SQL_RESERVED_WORDS


def jinja_string(text: str) -> str:
    """`text` as a single-quoted Jinja string literal (its braces stay text)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def sql_column(name: str) -> str:
    """A column as the scaffolded SQL writes it: bare when it can be, else quoted by the
    project's macro (`{{ cdc_lakehouse.cdc_quote('Unit Price') }}`, the adapter's quoting)."""
    return (
        f"{{{{ cdc_lakehouse.cdc_quote({jinja_string(name)}) }}}}" if needs_quoting(name) else name
    )


def jinja_text(text: str) -> str:
    """`text` as YAML text dbt renders with Jinja (names, meta, descriptions, test
    arguments) and gets back unchanged: every `{` written as `{{ '{' }}`, so that
    `{{ ... }}`, `{% ... %}` or `{# ... #}` in a source's names stays text."""
    return text.replace("{", "{{ '{' }}")


class _Jinja(str):
    """YAML text the scaffolder means as Jinja (`{{ doc(...) }}`, `{{ ref(...) }}`)."""


def _escaped(value: object) -> object:
    """`value` (a YAML entry) with every string escaped for dbt's Jinja (`jinja_text`),
    except the scaffolder's own Jinja (`_Jinja`)."""
    if isinstance(value, _Jinja):
        return str(value)
    if isinstance(value, str):
        return jinja_text(value)
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    return value


def doc_block_name(column: str) -> str:
    """`_cdc_op` -> `cdc_op`, `_loaded_at` -> `cdc_loaded_at`: a column's doc block name.

    Metadata columns are described once, in models/_cdc__docs.md.
    """
    name = column.lstrip("_")
    return name if name.startswith("cdc_") else f"cdc_{name}"


@dataclass(frozen=True)
class ColumnContract:
    name: str
    """The typed silver column: the source's own name, as carried (case and any
    characters kept), unless a spec renames it."""
    data_type: str
    encoding: str | dict[str, str] | None = None
    """A semantic type or decimal mode, or connector -> semantic type (see cdc_decode_value)."""
    source_name: str | None = None
    """The source column (`meta.cdc_source_column`) when it is not `name`."""
    description: str = ""
    meta: dict[str, object] = field(default_factory=dict)
    """More column meta, written to silver and gold as given: e.g. the quality bounds
    `cdc_accepted_values`, `cdc_min_value`, `cdc_max_value` (cdc_tools.quality_suites)."""
    source_path: tuple[str, ...] | None = None
    """A field of a nested document, by its path (`meta.cdc_source_path`): each part a
    field name as carried, dots included."""
    gold_name: str | None = None
    """The gold column (default: `dbt_name(name)`, numbered by TableContract on collision)."""

    @property
    def source_label(self) -> str:
        """The source's name of the column, for descriptions."""
        if self.source_path:
            return ".".join(self.source_path)
        return self.source_name or self.name


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
    """The gold model's name (default: the model name, `name`)."""
    extra: dict[str, object] = field(default_factory=dict)
    name: str | None = None
    """The table's model name (`stg_<system>__<name>`, gold `<name>`); default:
    `dbt_name(table)` (`Order Details` -> `order_details`), numbered by write_table when a
    model of another source has it."""
    gold_prefix: str = ""
    """Put before the model name to name the gold model (`shop_` for a collection)."""
    table_pattern: str | None = None
    """The `meta.cdc_source` pattern of the table when it is not `table` itself."""

    def __post_init__(self) -> None:
        # gold column names: dbt_name of the contract names, collisions numbered
        numbered = unique_names(c.gold_name or dbt_name(c.name) for c in self.columns)
        columns = [replace(c, gold_name=g) for c, g in zip(self.columns, numbered, strict=True)]
        object.__setattr__(self, "columns", columns)
        exact = {c.name for c in columns}
        names = {c.name.lower(): c.name for c in reversed(columns)}
        missing = [k for k in self.key if k not in exact and k.lower() not in names]
        if missing:
            raise SystemExit(
                f"key column(s) {', '.join(missing)} not among the columns of {self.table}: "
                + ", ".join(c.name for c in columns)
            )
        object.__setattr__(self, "key", [k if k in exact else names[k.lower()] for k in self.key])

    @property
    def model_name(self) -> str:
        return self.name or dbt_name(self.table, prefix="t")

    @property
    def gold_key(self) -> list[str]:
        """The key as gold names it."""
        by_name = {c.name: c.gold_name or c.name for c in self.columns}
        return [by_name[k] for k in self.key]

    @property
    def source(self) -> dict[str, str]:
        """The source identity the contract binds to (`meta.cdc_source`): every part
        written, `*` where the contract names none."""
        return {
            "database": self.source_database or "*",
            "schema": self.source_schema or "*",
            "table": self.table_pattern or self.table,
        }

    @property
    def silver_model(self) -> str:
        return f"stg_{self.system}__{self.model_name}"

    @property
    def gold_model(self) -> str:
        return self.gold_name or f"{self.gold_prefix}{self.model_name}"


def exact_pattern(name: str) -> str:
    """A source name as a `meta.cdc_source` pattern that matches that name alone: as it is,
    unless it holds a glob character (`*`, `?`) or is itself in double quotes, which then
    go around it (cdc_source_matches: a case-exact, literal match)."""
    if "*" in name or "?" in name or (len(name) > 1 and name[0] == name[-1] == '"'):
        return f'"{name}"'
    return name


def silver_sql() -> str:
    return (
        "{{ config(materialized='cdc_incremental', incremental_strategy='append', "
        "on_schema_change='fail') }}\n\n{{ cdc_lakehouse.cdc_typed_change_log() }}\n"
    )


def gold_select_item(column: ColumnContract) -> str:
    """One item of the gold select list: the silver column under its gold name."""
    gold = column.gold_name or column.name
    if gold == column.name:
        return sql_column(gold)
    return f"{sql_column(column.name)} as {sql_column(gold)}"


def gold_sql(contract: TableContract) -> str:
    key = ", ".join(jinja_string(column) for column in ["_cdc_source_id", *contract.gold_key])
    options = f"materialized='cdc_current_state', unique_key=[{key}]"
    if contract.delete_mode != "hard":
        options += f", cdc_delete_mode='{contract.delete_mode}'"
    items = [gold_select_item(column) for column in contract.columns]
    items += list(GOLD_METADATA_COLUMNS)
    if contract.document:
        items.append("_cdc_is_partial")
    select_list = ",\n".join(f"        {item}" for item in items)
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
    return {"name": column, "description": _Jinja(f'{{{{ doc("{doc_block_name(column)}") }}}}')}


def _description(column: ColumnContract) -> str:
    return column.description or f"Source column `{column.source_label}`."


def _contract_entry(column: ColumnContract, contract: TableContract) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": column.name,
        "description": _description(column),
        "data_type": column.data_type,
    }
    meta: dict[str, object] = dict(column.meta)
    if column.encoding:
        meta["cdc_encoding"] = column.encoding
    if column.source_path:
        # a path into a document, each field as carried (dots included), read case-exact
        meta["cdc_source_path"] = list(column.source_path)
    elif column.source_name and column.source_name != column.name:
        # a dotted path into a document (`address.city`) is matched case-exact
        meta["cdc_source_column"] = column.source_name
    if meta:
        entry["meta"] = meta
    return entry


def _gold_column_entry(column: ColumnContract, contract: TableContract) -> dict[str, object]:
    gold = column.gold_name or column.name
    description = _description(column)
    if gold != column.source_label:
        if f"`{column.source_label}`" in description:
            description += f" Published as `{gold}`."
        else:
            description += f" Source column `{column.source_label}`, published as `{gold}`."
    meta: dict[str, object] = dict(column.meta)
    if gold != column.source_label:
        meta["cdc_source_column"] = column.source_label
    entry: dict[str, object] = {
        "name": gold,
        "description": description,
        "data_type": column.data_type,
    }
    if needs_quoting(gold):
        entry["quote"] = True  # a reserved word: dbt's own tests quote it
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
            f"Typed change log of source table `{contract.table}`: one row per change, "
            "columns decoded by the contract below (column names as the source carries them)."
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
    columns = [_gold_column_entry(c, contract) for c in contract.columns]
    columns += [_metadata_entry(c) for c in published]
    gold_key = ["_cdc_source_id", *contract.gold_key]
    position_arguments: dict[str, object] = {
        "changes": _Jinja(f"{{{{ ref('{contract.silver_model}') }}}}"),
        "key_columns": gold_key,
    }
    if contract.gold_key != contract.key:
        position_arguments["change_key_columns"] = ["_cdc_source_id", *contract.key]
    return {
        "name": contract.gold_model,
        "description": contract.description
        or f"Current state of source table `{contract.table}`: one row per key.",
        "data_tests": [
            {"cdc_lakehouse.cdc_unique_key": {"arguments": {"columns": gold_key}}},
            {"cdc_lakehouse.cdc_position_not_behind_change_log": {"arguments": position_arguments}},
            # the key's columns not null: one test of the model for every column check
            {"cdc_lakehouse.cdc_column_checks": {"arguments": {"not_null": contract.gold_key}}},
        ],
        "columns": columns,
    }


def _merge_yaml(path: Path, entry: dict[str, object]) -> str:
    document: dict[str, object] = {"version": 2, "models": []}
    if path.exists():
        document = yaml.safe_load(path.read_text()) or document
    models = [m for m in document.get("models", []) if m.get("name") != entry["name"]]
    models.append(_escaped(entry))
    document["models"] = sorted(models, key=lambda m: str(m["name"]))
    return yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)


TYPED_CHANGE_LOGS_VAR = "cdc_typed_change_logs"


def register_typed_change_log(model_name: str, root: Path) -> Path:
    """Add `model_name` to the var cdc_typed_change_logs in `root`'s dbt_project.yml, whose
    models cdc_quarantine reads (idempotent; the file's other lines and comments are kept)."""
    path = root / "dbt_project.yml"
    text = path.read_text()
    project = yaml.safe_load(text) or {}
    listed = list((project.get("vars") or {}).get(TYPED_CHANGE_LOGS_VAR) or [])
    if model_name in listed:
        return path
    lines = text.splitlines()
    key = next(
        (
            i
            for i, line in enumerate(lines)
            if line.lstrip().startswith(f"{TYPED_CHANGE_LOGS_VAR}:")
        ),
        None,
    )
    if key is None:
        var_lines = [f"  {TYPED_CHANGE_LOGS_VAR}:", f"    - {model_name}"]
        top = next((i for i, line in enumerate(lines) if line.rstrip() == "vars:"), None)
        if top is None:
            lines += ["", "vars:", *var_lines]
        else:
            lines[top + 1 : top + 1] = var_lines
    else:
        indent = lines[key][: len(lines[key]) - len(lines[key].lstrip())]
        items = [f"{indent}  - {name}" for name in [*listed, model_name]]
        end = key + 1
        while end < len(lines) and (
            lines[end].startswith(indent + " ") and lines[end].strip().startswith(("-", "#"))
        ):
            end += 1
        lines[key:end] = [f"{indent}{TYPED_CHANGE_LOGS_VAR}:", *items]
    path.write_text("\n".join(lines) + "\n")
    return path


def _project_models(root: Path) -> tuple[set[str], dict[str, object]]:
    """The names of the project's models (SQL files), and the `meta.cdc_source` of each
    typed contract, as its YAML holds it."""
    names = {path.stem for path in (root / "models").rglob("*.sql")}
    sources: dict[str, object] = {}
    for path in (root / "models").rglob("_*__models.yml"):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models") or []:
            meta = (model.get("config") or {}).get("meta") or {}
            if "cdc_source" in meta:
                sources[str(model["name"])] = meta["cdc_source"]
    return names, sources


def resolve_model_name(contract: TableContract, root: Path) -> TableContract:
    """The contract with its model name fixed: the one its source identity already has in
    the project (a table scaffolded again rewrites its own files), else `dbt_name(table)`
    numbered past the names other models hold (`order_details_2`). A name given
    (`--name`, spec `name`) is kept as it is."""
    if contract.name:
        return contract
    names, sources = _project_models(root)
    source = _escaped(contract.source)
    base = contract.model_name
    for number in range(1, 1000):
        candidate = base if number == 1 else f"{base}_{number}"
        named = replace(contract, name=candidate)
        if sources.get(named.silver_model) == source:
            return named
        if named.silver_model not in names and named.gold_model not in names:
            return named
    raise SystemExit(f"no free model name for {contract.table}")


def write_table(contract: TableContract, root: Path) -> list[Path]:
    """Write (or rewrite) the four files of one table; returns their paths."""
    contract = resolve_model_name(contract, root)
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
    return [*files, register_typed_change_log(contract.silver_model, root)]


def contract_from_spec(spec: dict[str, object]) -> TableContract:
    """A TableContract from a JSON spec (see docs/contracts.md, "Scaffolding a table")."""
    columns = [
        ColumnContract(
            name=str(c["name"]),
            data_type=str(c["data_type"]),
            encoding=c.get("encoding"),  # type: ignore[arg-type]
            source_name=c.get("source_name"),  # type: ignore[arg-type]
            description=str(c.get("description", "")),
            meta=dict(c.get("meta") or {}),  # type: ignore[call-overload]
            source_path=tuple(c["source_path"]) if c.get("source_path") else None,  # type: ignore[arg-type]
            gold_name=c.get("gold_name"),  # type: ignore[arg-type]
        )
        for c in spec["columns"]  # type: ignore[union-attr]
    ]
    source: dict[str, str] = dict(spec.get("source") or {})  # type: ignore[call-overload]
    return TableContract(
        system=str(spec["system"]),
        table=str(spec["table"]),
        key=[str(k) for k in spec["key"]],  # type: ignore[union-attr]
        columns=columns,
        description=str(spec.get("description", "")),
        source_schema=source.get("schema") or spec.get("source_schema"),  # type: ignore[arg-type]
        source_database=source.get("database") or spec.get("source_database"),  # type: ignore[arg-type]
        delete_mode=str(spec.get("delete_mode", "hard")),
        document=bool(spec.get("document", False)),
        gold_name=spec.get("gold_name"),  # type: ignore[arg-type]
        name=spec.get("name"),  # type: ignore[arg-type]
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
    # an unconstrained numeric (PostgreSQL numeric, Oracle NUMBER) can exceed every Spark
    # decimal: its exact text; declare decimal(p,s) in the contract when its values are bounded
    "io.debezium.data.VariableScaleDecimal": ("string", "io.debezium.data.VariableScaleDecimal"),
    "io.debezium.data.Xml": ("string", None),
}
_PLAIN_TYPES: dict[str, str] = {
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float32": "double",
    "float64": "double",
    # the JsonConverter's schema names Kafka Connect's FLOAT32 and FLOAT64 `float` and `double`
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "string",
}


# the semantic types whose values the decoders turn into text (_cdc_decodable_semantic_names):
# an array of them is typed `string` with the encoding `array<name>`, its elements decoded
_DECODABLE_ELEMENTS: frozenset[str] = frozenset(
    {
        "org.apache.kafka.connect.data.Decimal",
        "io.debezium.data.VariableScaleDecimal",
        "io.debezium.time.Date",
        "org.apache.kafka.connect.data.Date",
        "io.debezium.time.Time",
        "org.apache.kafka.connect.data.Time",
        "io.debezium.time.MicroTime",
        "io.debezium.time.NanoTime",
        "io.debezium.time.Timestamp",
        "org.apache.kafka.connect.data.Timestamp",
        "io.debezium.time.MicroTimestamp",
        "io.debezium.time.NanoTimestamp",
    }
)


def spark_type_for(
    connect_type: str | None,
    semantic: str | None,
    scale: str | None = None,
    precision: str | None = None,
) -> tuple[str, str | None]:
    """The contract type (and encoding) for a column described by a Kafka Connect schema.
    An array (whose `semantic` is its elements', cdc_column_types) is its JSON text,
    `string`; a Decimal of more than 38 digits (PostgreSQL numeric(50,2)) is its exact
    decimal text, `string`, as an unconstrained numeric is."""
    if connect_type == "array":
        return "string", (f"array<{semantic}>" if semantic in _DECODABLE_ELEMENTS else None)
    if semantic == "org.apache.kafka.connect.data.Decimal":
        if precision is not None and int(precision) > 38:
            return "string", semantic
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


def document_columns(
    document: dict[str, object], parents: tuple[str, ...] = ()
) -> list[ColumnContract]:
    """Contract columns of a MongoDB document: top-level fields by their own names (`e-mail`
    and `a.b` are fields, as carried), and the fields of nested documents by their paths
    (`address` > `city` -> column `address_city`, `meta.cdc_source_path`). `_id` is `id`, and
    a top-level name starting with `_` (read as metadata in a contract) its `dbt_name`."""
    columns: list[ColumnContract] = []
    for name, value in document.items():
        path = (*parents, name)
        described = _document_value_type(value)
        if described is None:
            columns.extend(document_columns(value, path))  # type: ignore[arg-type]
            continue
        data_type, encoding = described
        label = ".".join(path)
        if parents:
            column = ColumnContract(
                dbt_name("_".join(path)), data_type, encoding, source_name=label, source_path=path
            )
        elif name.startswith("_"):
            column = ColumnContract(dbt_name(name), data_type, encoding, source_name=name)
        else:
            column = ColumnContract(name, data_type, encoding, source_name=name)
        columns.append(
            replace(
                column,
                description=f"Document field `{label}` (type inferred from a value: check it).",
            )
        )
    return columns


def _exact_or_none(name: str | None) -> str | None:
    return exact_pattern(name) if name else None


def sql_string(text: str) -> str:
    """`text` as a single-quoted Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


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
    exactly; a part the source does not have, such as a MySQL schema, is `*`). `table` is
    matched without regard to case, but a table of exactly that name wins over one that
    differs only by case; when the change log holds tables whose names differ only by
    case, the contract names its table in double quotes, so that it binds that one alone.
    Column types come from the newest message that carried a schema (schema wrapper), else
    they are inferred from the newest row image (and say so in their description). The key
    comes from `key`, else the Kafka message key, else the schema-change topic's
    `primaryKeyColumnNames`.
    """
    silver = f"{schema_prefix}_silver"
    where = f"lower(_cdc_source_table) = lower({sql_string(table)}) and _cdc_op in ('c', 'r', 'u')"
    if database:
        where += f" and lower(_cdc_source_db) = lower({sql_string(database)})"
    # tables whose names differ only by case (PostgreSQL's "OrderLines" and orderlines)
    names = sorted(
        str(row["_cdc_source_table"])
        for row in spark.sql(
            f"select distinct _cdc_source_table from {silver}.int_cdc__change_log where {where}"
        ).collect()
    )
    if len(names) > 1 and table not in names:
        raise SystemExit(
            f"tables whose names differ only by case: {', '.join(names)}; "
            "name the one to scaffold exactly"
        )
    case_twins = len(names) > 1
    if case_twins:
        where += f" and _cdc_source_table = {sql_string(table)}"
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
            source_database=_exact_or_none(row["_cdc_source_db"]),
            source_schema=_exact_or_none(row["_cdc_source_schema"]),
            table_pattern=exact_pattern(row["_cdc_source_table"]),
            document=True,
            gold_prefix=f"{system}_",
        )
    types = row["_cdc_column_types"] or {}
    columns = []
    for name, value in after.items():
        described = types.get(name.lower())
        if described is not None:
            data_type, encoding = spark_type_for(
                described["type"], described["name"], described["scale"], described["precision"]
            )
            note = f"Source column `{name}` ({described['name'] or described['type']})."
        else:
            data_type, encoding = _json_type(value), None
            note = f"Source column `{name}` (type inferred from a value: check it)."
        if name.startswith("_"):  # a contract reads `_` names as metadata: renamed
            columns.append(
                ColumnContract(
                    dbt_name(name), data_type, encoding, source_name=name, description=note
                )
            )
        else:
            columns.append(ColumnContract(name, data_type, encoding, description=note))
    if not key:
        key = sorted(json.loads(row["_cdc_key"]).keys()) if row["_cdc_key"] else None
        if key and [k.lower() for k in key] == sorted(c.name.lower() for c in columns):
            key = None  # the whole row: the message carried no key
    if not key:
        history = spark.sql(
            f"select primary_key_columns from {silver}.stg_cdc__schema_changes "
            f"where _cdc_source_id = {sql_string(row['_cdc_source_id'])} "
            "order by _loaded_at desc limit 1"
        ).collect()
        key = list(history[0]["primary_key_columns"]) if history else None
    if not key:
        raise SystemExit(
            f"cannot tell the key of {table}: no Kafka key, no schema-change event; pass --key"
        )
    return TableContract(
        system=system,
        table=row["_cdc_source_table"],
        key=list(key),
        columns=columns,
        source_database=_exact_or_none(row["_cdc_source_db"]),
        source_schema=_exact_or_none(row["_cdc_source_schema"]),
        table_pattern=(
            f'"{row["_cdc_source_table"]}"'
            if case_twins
            else exact_pattern(row["_cdc_source_table"])
        ),
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
    parser.add_argument(
        "--project-dir",
        "--root",
        dest="project_dir",
        type=Path,
        default=None,
        help="the dbt project to write into (default: DBT_PROJECT_DIR, else the current "
        "folder; --root is the former name)",
    )
    parser.add_argument(
        "--name",
        help="the model name (stg_<system>__<name>, gold <name>); default: the table's name "
        "in lowercase snake case (`Order Details` -> order_details)",
    )
    args = parser.parse_args(argv)
    root = (args.project_dir or project_dir()).resolve()
    if not (root / "dbt_project.yml").exists():
        parser.error(
            f"{root} is not a dbt project (no dbt_project.yml): name one with --project-dir"
        )
    for given, what in ((args.name, "--name"), (args.system, "--system")):
        if given is not None and dbt_name(given) != given:
            parser.error(f"{what} {given!r} is not a dbt name: use {dbt_name(given)!r}")
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
    if args.name:
        contract = replace(contract, name=args.name)
    contract = resolve_model_name(contract, root)
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
    for path in write_table(contract, root):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

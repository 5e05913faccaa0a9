"""Great Expectations suites derived from the dbt manifest: one `TableSuite` per model.

Every model of the bronze, silver and gold layers in `target/manifest.json` gets a suite
built from what the project declares about it, so a table added with `cdc_tools.scaffold`
is validated with no Python edit:

* **contract types**: every column with a `data_type` must have that Spark type;
* **contract meta**: a column's `meta.cdc_accepted_values` (a list) and
  `meta.cdc_min_value` / `meta.cdc_max_value` bound its values; a model's
  `meta.cdc_quality.min_rows` its row count;
* **CDC metadata invariants**, by the columns and role a model declares: a message model
  (`_cdc_message_kind`) has an error reason exactly on errors and an op and position on
  every change; a silver change log (`_cdc_op` and `_cdc_position`) has ops c, u, d, r, t
  and a position on every applicable row, and a typed change log (its contract's
  `meta.cdc_key`) a key on every row that is not a truncate or quarantined; a gold
  current-state model (`cdc_current_state`) is unique and not null on its `unique_key`,
  and its live rows' last op is c, u or r (a soft-delete table keeps deleted rows,
  flagged by `_cdc_is_deleted`, which must be set); every silver row names its message.

A check that only repeats a dbt data test declared on the same model and column
(`not_null`, `unique`, `accepted_values`, `cdc_unique_key`, and the `not_null` and
`accepted_values` checks of a `cdc_column_checks`) is left out: `dbt build` already runs
it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import great_expectations.expectations as gxe
from great_expectations.expectations.row_conditions import (
    Column,
    ComparisonCondition,
    Condition,
    Operator,
)

LAYERS: tuple[str, ...] = ("bronze", "silver", "gold")
CHANGE_OPS = ["c", "u", "d", "r", "t"]
CURRENT_OPS = ["c", "u", "r"]
# Present only in soft-delete gold tables: true when the key's last change was a delete
# or a truncate (the row stays, flagged).
SOFT_DELETE_FLAG = "_cdc_is_deleted"
CURRENT_STATE = "cdc_current_state"
# The package's generic test of a model's column checks (`not_null`, `accepted_values`):
# each of its checks counts as the separate dbt test would
COLUMN_CHECKS = "cdc_column_checks"

# Contract type (its name before any parenthesis) -> pyspark.sql.types class name.
SPARK_TYPE_CLASSES: Mapping[str, str] = {
    "bigint": "LongType",
    "long": "LongType",
    "int": "IntegerType",
    "integer": "IntegerType",
    "smallint": "ShortType",
    "tinyint": "ByteType",
    "boolean": "BooleanType",
    "string": "StringType",
    "double": "DoubleType",
    "float": "FloatType",
    "decimal": "DecimalType",
    "date": "DateType",
    "timestamp": "TimestampType",
    "timestamp_ntz": "TimestampNTZType",
    "binary": "BinaryType",
}


# --- suites as data --------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One expectation: its GX class, its arguments and an optional row condition.

    `only_with` / `only_without` name a column whose presence decides whether the check
    applies to a table (e.g. the soft-delete flag of a gold table).
    """

    expectation: type[gxe.Expectation]
    kwargs: Mapping[str, Any]
    when: Condition | None = None
    only_with: str | None = None
    only_without: str | None = None

    def applies_to(self, columns: Collection[str]) -> bool:
        if self.only_with is not None and self.only_with not in columns:
            return False
        return self.only_without is None or self.only_without not in columns

    def build(self) -> gxe.Expectation:
        extra: dict[str, Any] = {"row_condition": self.when} if self.when is not None else {}
        return self.expectation(**self.kwargs, **extra)

    @property
    def columns(self) -> tuple[str, ...]:
        if "column" in self.kwargs:
            return (str(self.kwargs["column"]),)
        return tuple(str(column) for column in self.kwargs.get("column_list", ()))


@dataclass(frozen=True)
class TableSuite:
    """The checks of one table; `row_id` columns identify an offending row in a sample.

    `dropped` names the checks left out because a dbt data test already runs them.
    """

    layer: str
    table: str
    checks: tuple[Check, ...]
    row_id: tuple[str, ...] = ()
    dropped: tuple[str, ...] = field(default=(), compare=False)

    @property
    def key(self) -> str:
        return f"{self.layer}.{self.table}"

    def checks_for(self, columns: Collection[str]) -> list[Check]:
        """The checks that apply to a table with these columns."""
        return [check for check in self.checks if check.applies_to(columns)]

    def relation(self, schema_prefix: str) -> str:
        return f"{schema_prefix}_{self.layer}.{self.table}"


def not_null(*columns: str, when: Condition | None = None) -> tuple[Check, ...]:
    return tuple(Check(gxe.ExpectColumnValuesToNotBeNull, {"column": c}, when) for c in columns)


def is_null(column: str, when: Condition | None = None) -> Check:
    return Check(gxe.ExpectColumnValuesToBeNull, {"column": column}, when)


def in_set(column: str, values: Sequence[object], when: Condition | None = None) -> Check:
    return Check(
        gxe.ExpectColumnValuesToBeInSet, {"column": column, "value_set": list(values)}, when
    )


def unique(*columns: str) -> Check:
    if len(columns) == 1:
        return Check(gxe.ExpectColumnValuesToBeUnique, {"column": columns[0]})
    return Check(gxe.ExpectCompoundColumnsToBeUnique, {"column_list": list(columns)})


def of_type(column: str, data_type: str) -> Check | None:
    """The column has the Spark type of its contract (`decimal(12,2)`: a decimal)."""
    spark_class = SPARK_TYPE_CLASSES.get(data_type.split("(")[0].strip().lower())
    if spark_class is None:
        return None
    return Check(gxe.ExpectColumnValuesToBeOfType, {"column": column, "type_": spark_class})


def between(column: str, minimum: object, maximum: object) -> Check:
    return Check(
        gxe.ExpectColumnValuesToBeBetween,
        {"column": column, "min_value": minimum, "max_value": maximum},
    )


def min_rows(count: int) -> Check:
    return Check(gxe.ExpectTableRowCountToBeBetween, {"min_value": count})


# --- the manifest ----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """What the manifest declares about one model."""

    layer: str
    name: str
    materialized: str
    columns: dict[str, Mapping[str, Any]]
    meta: Mapping[str, Any]
    unique_key: tuple[str, ...]
    dbt_tests: frozenset[tuple[str, tuple[str, ...]]]
    """(test name, columns) of every generic dbt data test attached to the model."""

    @property
    def is_typed_log(self) -> bool:
        return self.layer == "silver" and bool(self.meta.get("cdc_key") is not None)

    def tested(self, test: str, *columns: str) -> bool:
        return (test, tuple(columns)) in self.dbt_tests or (
            test in ("unique", "cdc_unique_key")
            and any(
                name in ("unique", "cdc_unique_key") and set(cols) == set(columns)
                for name, cols in self.dbt_tests
            )
        )


_COLUMN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _test_columns(node: Mapping[str, Any]) -> tuple[str, ...]:
    kwargs = node.get("test_metadata", {}).get("kwargs", {}) or {}
    columns = kwargs.get("columns") or kwargs.get("arguments", {}).get("columns")
    if isinstance(columns, list):
        return tuple(str(c) for c in columns)
    column = node.get("column_name") or kwargs.get("column_name")
    if column and _COLUMN.match(str(column)):
        return (str(column),)
    return ()


def _column_checks(kwargs: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """The (check, (column,)) of a `cdc_column_checks` test that look at every row: its
    `not_null` and `accepted_values` columns, as the separate dbt tests would name them
    (an item with its own `where` checks some rows only, and is left out)."""
    checks: list[tuple[str, tuple[str, ...]]] = []
    for item in kwargs.get("not_null") or []:
        if isinstance(item, str):
            checks.append(("not_null", (item,)))
        elif isinstance(item, Mapping) and item.get("column") and not item.get("where"):
            checks.append(("not_null", (str(item["column"]),)))
    for column, accepted in (kwargs.get("accepted_values") or {}).items():
        if not (isinstance(accepted, Mapping) and accepted.get("where")):
            checks.append(("accepted_values", (str(column),)))
    return checks


def _dbt_tests(node: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(test name, columns) of the checks of one generic dbt data test."""
    metadata = node.get("test_metadata") or {}
    kwargs = metadata.get("kwargs") or {}
    if metadata.get("name") == COLUMN_CHECKS:
        return _column_checks({**(kwargs.get("arguments") or {}), **kwargs})
    columns = _test_columns(node)
    return [(str(metadata["name"]), columns)] if columns else []


def model_specs(manifest: Mapping[str, Any], package: str | None = None) -> list[ModelSpec]:
    """Every bronze, silver and gold model of the manifest (enabled, not ephemeral)."""
    tests: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
    for node in manifest.get("nodes", {}).values():
        if node.get("resource_type") != "test" or not node.get("test_metadata"):
            continue
        attached = node.get("attached_node") or next(
            iter(node.get("depends_on", {}).get("nodes", [])), None
        )
        if attached:
            tests.setdefault(attached, set()).update(_dbt_tests(node))
    specs = []
    for unique_id, node in manifest.get("nodes", {}).items():
        if node.get("resource_type") != "model":
            continue
        if package is not None and node.get("package_name") != package:
            continue
        fqn = node.get("fqn", [])
        config = node.get("config", {})
        if len(fqn) < 3 or fqn[1] not in LAYERS or config.get("materialized") == "ephemeral":
            continue
        if not config.get("enabled", True):
            continue
        key = config.get("unique_key") or ()
        specs.append(
            ModelSpec(
                layer=fqn[1],
                name=node.get("alias") or node["name"],
                materialized=str(config.get("materialized", "")),
                columns={name: column for name, column in node.get("columns", {}).items()},
                meta={**(node.get("meta") or {}), **(config.get("meta") or {})},
                unique_key=(key,) if isinstance(key, str) else tuple(key),
                dbt_tests=frozenset(tests.get(unique_id, set())),
            )
        )
    return sorted(specs, key=lambda s: (LAYERS.index(s.layer), s.name))


def load_manifest(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


# --- derivation --------------------------------------------------------------------------


def _contract_checks(spec: ModelSpec) -> list[Check]:
    checks: list[Check] = []
    for name, column in spec.columns.items():
        data_type = column.get("data_type")
        if data_type:
            check = of_type(name, str(data_type))
            if check is not None:
                checks.append(check)
        meta = column.get("meta") or {}
        if meta.get("cdc_accepted_values") is not None:
            checks.append(in_set(name, list(meta["cdc_accepted_values"])))
        if meta.get("cdc_min_value") is not None or meta.get("cdc_max_value") is not None:
            checks.append(between(name, meta.get("cdc_min_value"), meta.get("cdc_max_value")))
    return checks


def _message_checks(columns: Collection[str]) -> list[Check]:
    kind = Column("_cdc_message_kind")
    checks: list[Check] = []
    if "_cdc_error_reason" in columns:
        checks += [
            *not_null("_cdc_error_reason", when=kind == "error"),
            is_null("_cdc_error_reason", when=kind != "error"),
        ]
    if "_cdc_op" in columns and "_cdc_position" in columns:
        checks += [
            *not_null("_cdc_op", "_cdc_position", when=kind == "change"),
            in_set("_cdc_op", CHANGE_OPS, when=kind == "change"),
        ]
    return checks


def _change_log_checks(spec: ModelSpec) -> list[Check]:
    """Ops and positions of a silver change log; with `_cdc_error_reason`, of the rows
    that are not quarantined; a typed log's key where the row is neither a truncate nor
    quarantined."""
    columns = spec.columns
    applicable: Condition | None = None
    if "_cdc_error_reason" in columns and not spec.is_typed_log:
        applicable = Column("_cdc_error_reason").is_null()
    checks = [
        *not_null("_cdc_op", "_cdc_position", when=applicable),
        in_set("_cdc_op", CHANGE_OPS, when=applicable),
    ]
    if spec.is_typed_log:
        checks += not_null("_cdc_source_id")
        keyed = (Column("_cdc_op") != "t") & Column("_cdc_error_reason").is_null()
        checks += not_null(*[str(k) for k in spec.meta["cdc_key"]], when=keyed)
    return checks


def _current_state_checks(spec: ModelSpec) -> list[Check]:
    """Keys unique and not null; a live row's last change is c, u or r.

    In a soft-delete table (one with SOFT_DELETE_FLAG) deleted rows stay, so only the rows
    not flagged deleted are held to c, u, r, and the flag itself must be set.
    """
    live = ComparisonCondition(
        column=Column(SOFT_DELETE_FLAG), operator=Operator.EQUAL, parameter=False
    )
    key = spec.unique_key
    return [
        *([unique(*key)] if key else []),
        *not_null(*key, "_cdc_op"),
        replace(in_set("_cdc_op", CURRENT_OPS), only_without=SOFT_DELETE_FLAG),
        replace(in_set("_cdc_op", CURRENT_OPS, when=live), only_with=SOFT_DELETE_FLAG),
        *(replace(c, only_with=SOFT_DELETE_FLAG) for c in not_null(SOFT_DELETE_FLAG)),
    ]


def _repeats_dbt_test(check: Check, spec: ModelSpec) -> bool:
    """True when a dbt data test on the model already runs this (unconditional) check."""
    if check.when is not None or not check.columns:
        return False
    expectation = check.expectation
    if expectation is gxe.ExpectColumnValuesToNotBeNull:
        return spec.tested("not_null", *check.columns)
    if expectation in (gxe.ExpectColumnValuesToBeUnique, gxe.ExpectCompoundColumnsToBeUnique):
        return spec.tested("unique", *check.columns)
    if expectation is gxe.ExpectColumnValuesToBeInSet and check.only_with is None:
        return spec.tested("accepted_values", *check.columns)
    return False


def _row_id(columns: Collection[str]) -> tuple[str, ...]:
    if "_message_id" in columns:
        return tuple(c for c in ("_message_id", "_source_file", "_source_line") if c in columns)
    return tuple(c for c in ("_cdc_source_id", "_cdc_key") if c in columns)


def _describe(check: Check) -> str:
    return f"{check.expectation.__name__}({', '.join(check.columns)})"


def suite_for(spec: ModelSpec) -> TableSuite:
    """The suite of one model: its contract, its meta and the CDC invariants of its role."""
    columns = spec.columns
    quality = spec.meta.get("cdc_quality") or {}
    checks: list[Check] = []
    if quality.get("min_rows"):
        checks.append(min_rows(int(quality["min_rows"])))
    checks += _contract_checks(spec)
    if spec.layer == "silver" and "_message_id" in columns:
        checks += not_null("_message_id")
    if "_cdc_message_kind" in columns:
        checks += _message_checks(columns)
    elif spec.layer == "silver" and {"_cdc_op", "_cdc_position"} <= set(columns):
        checks += _change_log_checks(spec)
    if spec.materialized == CURRENT_STATE:
        checks += _current_state_checks(spec)
    kept = _deduplicate(c for c in checks if not _repeats_dbt_test(c, spec))
    dropped = tuple(_describe(c) for c in checks if _repeats_dbt_test(c, spec))
    return TableSuite(
        layer=spec.layer,
        table=spec.name,
        checks=tuple(kept),
        row_id=_row_id(columns),
        dropped=dropped,
    )


def _identity(check: Check) -> str:
    # Conditions overload ==, so checks are compared by their text
    return repr(
        (
            check.expectation,
            sorted(check.kwargs.items()),
            repr(check.when),
            check.only_with,
            check.only_without,
        )
    )


def _deduplicate(checks: Iterable[Check]) -> list[Check]:
    seen: dict[str, Check] = {}
    for check in checks:
        seen.setdefault(_identity(check), check)
    return list(seen.values())


def suites_from_manifest(
    manifest: Mapping[str, Any], package: str | None = None
) -> tuple[TableSuite, ...]:
    """Every model's suite, bronze to gold; models whose suite would be empty included
    (the table must still exist)."""
    return tuple(suite_for(spec) for spec in model_specs(manifest, package))

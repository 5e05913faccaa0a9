"""Compare gold current-state tables with a simulator's expected source state.

The oracle is independent of the pipeline: the simulator applies each transaction to an
in-memory database (cdc_tools.simulator.source_db) and records the state, while the
pipeline only sees the Kafka messages. Equality here is the proof that bronze, silver and
gold together reconstruct the source database.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from cdc_tools.simulator import TABLES, consumer_row

# {logical table: {key tuple: {column: python value}}}
ExpectedState = Mapping[str, Mapping[tuple[object, ...], Mapping[str, object]]]


@dataclass
class Comparison:
    """The outcome for one source database: per-table counts and every difference."""

    database: str
    rows: dict[str, int] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def gold_state(  # type: ignore[no-untyped-def]
    spark, gold_schema: str, table: str, database: str, columns: Sequence[str] | None = None
) -> dict[tuple, dict]:
    """The live rows of gold table `table` that came from source database `database`
    (the contract columns of the simulated table, or `columns`)."""
    spec = TABLES[table]
    columns = ", ".join(columns or spec.column_names)
    relation = f"{gold_schema}.{table}"
    live_only = ""
    if "_cdc_is_deleted" in spark.table(relation).columns:  # a soft-delete table
        live_only = " and not _cdc_is_deleted"
    rows = spark.sql(
        f"select {columns} from {relation} "
        f"where lower(_cdc_source_db) = lower('{database}'){live_only}"
    ).collect()
    state: dict[tuple, dict] = {}
    for row in rows:
        values = row.asDict()
        key = tuple(values[k] for k in spec.key)
        if key in state:
            raise AssertionError(f"{gold_schema}.{table}: key {key} of {database} appears twice")
        state[key] = values
    return state


def compare_database(
    spark,  # type: ignore[no-untyped-def]
    gold_schema: str,
    database: str,
    expected: ExpectedState,
    max_differences: int = 20,
    columns: Mapping[str, Sequence[str]] | None = None,
    skip: Collection[str] = (),
) -> Comparison:
    """Compare every simulated table of one source database with its gold table.

    Gold holds the columns its contract declares (`columns[table]`, default the
    simulator's base columns): a source column it does not declare (added by schema
    evolution) is not compared, and one the source dropped is absent from `expected`.
    Tables in `skip` (renamed away from their typed model) are not compared.
    """
    outcome = Comparison(database=database)
    for table in TABLES:
        if table in skip:
            continue
        declared = (columns or {}).get(table) or TABLES[table].column_names
        actual = gold_state(spark, gold_schema, table, database, declared)
        wanted = expected.get(table, {})
        outcome.rows[table] = len(actual)
        for key in sorted(set(wanted) | set(actual), key=repr):
            if len(outcome.differences) >= max_differences:
                return outcome
            if key not in actual:
                outcome.differences.append(f"{table} {key}: missing from gold")
            elif key not in wanted:
                outcome.differences.append(f"{table} {key}: in gold but not in the source")
            else:
                for column, value in wanted[key].items():
                    if column in declared and actual[key][column] != value:
                        outcome.differences.append(
                            f"{table} {key}.{column}: gold {actual[key][column]!r}, "
                            f"source {value!r}"
                        )
    return outcome


def _row_images(result, table: str):  # type: ignore[no-untyped-def]
    """(op, after image) of every change of `table` in a simulation, in commit order."""
    for batch in result.transactions:
        for transaction in batch:
            for change in transaction.changes:
                if change.table == table and change.after is not None:
                    yield change.op, change.after


def keys_ever_present(result, table: str) -> set[tuple]:  # type: ignore[no-untyped-def]
    """Every key that existed in `table` at some point of a simulation."""
    key = TABLES[table].key
    return {tuple(after[k] for k in key) for _, after in _row_images(result, table)}


def expected_history(result, table: str) -> dict[tuple, list[dict[str, object]]]:  # type: ignore[no-untyped-def]
    """Per key, the row images a type-2 history must hold (decoded), in change order."""
    key = TABLES[table].key
    versions: dict[tuple, list[dict[str, object]]] = {}
    for op, after in _row_images(result, table):
        if op in ("r", "c", "u"):
            image = consumer_row(table, after, result.config)
            versions.setdefault(tuple(after[k] for k in key), []).append(image)
    return versions


def canonical_key(table: str, row: Mapping[str, object]) -> str:
    """The pipeline's canonical `_cdc_key` text of a row: key columns (lower case, sorted)
    to their values as text (integer keys)."""
    import json

    key = TABLES[table].key
    return json.dumps({c.lower(): str(row[c]) for c in sorted(key)}, separators=(",", ":"))


def compare_captured_images(spark, gold_schema: str, result, batch: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Differences between `captured_rows` and the decoded images a simulation predicts
    after `batch` (cdc_tools.simulator.expected.captured_text, from the source values):
    a schema-wrapped source must show every value its schema types as decoded text, with
    `_cdc_is_decoded` set when it has one; a schemaless source keeps the wire form
    (`_cdc_row_json` equal to `_cdc_row_json_raw`, `_cdc_is_decoded` false)."""
    import json

    from cdc_tools.simulator.debezium import column_encoding
    from cdc_tools.simulator.expected import captured_text

    config = result.config
    differences: list[str] = []
    for table, rows in result.source[batch].items():
        physical = config.table_names.get(table, table)
        gold = {
            row["_cdc_key"]: row
            for row in spark.sql(
                f"select _cdc_key, _cdc_row_json, _cdc_row_json_raw, _cdc_is_decoded "
                f"from {gold_schema}.captured_rows "
                f"where lower(_cdc_source_db) = lower('{config.database}') "
                f"and lower(_cdc_source_table) = lower('{physical}')"
            ).collect()
        }
        columns = {c.name: c for c in TABLES[table].columns}
        for source_row in rows.values():
            key = canonical_key(table, source_row)
            if key not in gold:
                differences.append(f"{physical} {key}: missing from captured_rows")
                continue
            row = gold[key]
            if not config.schemas_enable:
                if row["_cdc_is_decoded"] or row["_cdc_row_json"] != row["_cdc_row_json_raw"]:
                    differences.append(f"{physical} {key}: a schemaless row was decoded")
                continue
            image = {k.lower(): v for k, v in json.loads(row["_cdc_row_json"]).items()}
            wanted = {
                name: captured_text(col, source_row.get(name), column_encoding(col, config).name)
                for name, col in columns.items()
            }
            for name, text in wanted.items():
                if text is not None and image.get(name) != text:
                    differences.append(
                        f"{physical} {key}.{name}: captured {image.get(name)!r}, expected {text!r}"
                    )
            decoded = any(text is not None for text in wanted.values())
            if row["_cdc_is_decoded"] is not decoded:
                differences.append(f"{physical} {key}: _cdc_is_decoded {row['_cdc_is_decoded']}")
    return differences

"""Compare gold current-state tables with a simulator's expected source state.

The oracle is independent of the pipeline: the simulator applies each transaction to an
in-memory database (workbench.simulator.source_db) and records the state, while the
pipeline only sees the Kafka messages. Equality here is the proof that bronze, silver and
gold together reconstruct the source database.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from cdc_tools.local_spark import REPO_ROOT
from workbench.consumer import CONSUMER_DIR
from workbench.simulator import TABLES, SimResult, consumer_row

# The captured_rows column holding each live key's row image as JSON text, as the message
# carried it (the simulator's messages are the reference; decoded values are compared by
# compare_captured_images).
ROW_JSON_COLUMN = "_cdc_row_json_raw"

# dbt's selection of what `compare_database` reads, `captured_rows` and the inventory tables,
# and what feeds them: what a test that only compares a database needs built
COMPARED_MODELS: tuple[str, ...] = (
    "--select", "+captured_rows", "+customers", "+orders", "+order_lines",
)  # fmt: skip

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


# The extra column GoldReader adds to a soft-delete table: `unix_millis(_cdc_deleted_at)`.
_DELETED_AT_MS = "__cdc_deleted_at_ms"


class GoldReader:
    """Each relation read once, whole: its column types and its rows, as Python values.

    Gold is small wherever an oracle checks it, so one `collect` per relation replaces the
    queries per source database and table that a comparison of many databases would run.
    Share one reader among comparisons of the same built warehouse, never across a build.
    """

    def __init__(self, spark) -> None:  # type: ignore[no-untyped-def]
        self.spark = spark
        self._types: dict[str, dict[str, str]] = {}
        self._rows: dict[str, list[dict[str, object]]] = {}

    def types(self, relation: str) -> dict[str, str]:
        """{column: Spark type (simpleString)} of `relation`."""
        if relation not in self._types:
            fields = self.spark.table(relation).schema.fields
            self._types[relation] = {f.name: f.dataType.simpleString() for f in fields}
        return self._types[relation]

    def is_soft_delete(self, relation: str) -> bool:
        return "_cdc_is_deleted" in self.types(relation)

    def rows(self, relation: str) -> list[dict[str, object]]:
        """Every row of `relation`; a soft-delete table's rows also carry its delete time
        in epoch milliseconds (column `__cdc_deleted_at_ms`)."""
        if relation not in self._rows:
            extra = (
                f", unix_millis(_cdc_deleted_at) as {_DELETED_AT_MS}"
                if self.is_soft_delete(relation)
                else ""
            )
            collected = self.spark.sql(f"select *{extra} from {relation}").collect()
            self._rows[relation] = [row.asDict() for row in collected]
        return self._rows[relation]

    def rows_of(self, relation: str, database: str) -> list[dict[str, object]]:
        """The rows of `relation` whose `_cdc_source_db` is `database` (any case)."""
        wanted = database.lower()
        return [
            row
            for row in self.rows(relation)
            if isinstance(row["_cdc_source_db"], str) and row["_cdc_source_db"].lower() == wanted
        ]


def gold_state(  # type: ignore[no-untyped-def]
    spark,
    gold_schema: str,
    table: str,
    database: str,
    columns: Sequence[str] | None = None,
    *,
    reader: GoldReader | None = None,
) -> dict[tuple, dict]:
    """The live rows of gold table `table` that came from source database `database`
    (the contract columns of the simulated table, or `columns`)."""
    spec = TABLES[table]
    reader = reader or GoldReader(spark)
    relation = f"{gold_schema}.{table}"
    names = {name.lower(): name for name in reader.types(relation)}
    selected = [names[column.lower()] for column in (columns or spec.column_names)]
    soft = reader.is_soft_delete(relation)
    state: dict[tuple, dict] = {}
    for row in reader.rows_of(relation, database):
        if soft and row["_cdc_is_deleted"] is not False:  # `where not _cdc_is_deleted`
            continue
        values = {column: row[column] for column in selected}
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
    *,
    result: SimResult,
    batch: int = -1,
    databases: Collection[str] | None = None,
    reader: GoldReader | None = None,
    source_times: bool = True,
) -> Comparison:
    """Compare every simulated table of one source database with its gold table.

    Gold holds the columns its contract declares (`columns[table]`, default the
    simulator's base columns): a source column it does not declare (added by schema
    evolution) is not compared, and one the source dropped is absent from `expected`.
    Tables in `skip` (renamed away from their typed model) are not compared there.

    Beyond the contract columns of the live rows, from the simulation `result` (messages
    of batches 0..`batch`, replayed in the order the source committed them):
    * every gold row of the database: its count (soft-deleted rows included), `_cdc_op`
      (the key's last change), and on soft-delete tables `_cdc_is_deleted` and
      `_cdc_deleted_at` (source time of the delete or truncate);
    * rows no simulated source owns: `_cdc_source_db` (OGG: `_cdc_source_schema`) null or
      not in `databases`
      (default: this database alone feeds the gold schema);
    * the column types of each gold relation against its model contract (the
      `cdc_current_state` materialization publishes a view over its state table, which
      dbt's contract enforcement cannot check: see docs/architecture.md);
    * `captured_rows`: every source table of the database (renamed ones too), the row
      images of its live keys by value, with JSON types, and their `_cdc_op`.

    Each relation is read once (`GoldReader`); callers comparing several databases of one
    built warehouse pass the same `reader`. `source_times=False`: the messages landed
    carried no source time (a producer without a source block), so a soft-deleted row's
    `_cdc_deleted_at` must be null.
    """
    reader = reader or GoldReader(spark)
    outcome = Comparison(database=database)
    owners = [d.lower() for d in (databases or [database])]
    replayed = replay(result, batch)
    renamed = {physical.lower(): logical for logical, physical in result.config.table_names.items()}

    def report(difference: str) -> bool:
        outcome.differences.append(difference)
        return len(outcome.differences) >= max_differences

    for table in TABLES:
        relation = f"{gold_schema}.{table}"
        for difference in _contract_differences(reader, relation, table):
            if report(difference):
                return outcome
        for difference in _foreign_rows(reader, relation, owners):
            if report(difference):
                return outcome
        if table in skip:
            continue
        declared = (columns or {}).get(table) or TABLES[table].column_names
        actual = gold_state(spark, gold_schema, table, database, declared, reader=reader)
        wanted = expected.get(table, {})
        outcome.rows[table] = len(actual)
        for key in sorted(set(wanted) | set(actual), key=repr):
            if key not in actual:
                difference = f"{table} {key}: missing from gold"
            elif key not in wanted:
                difference = f"{table} {key}: in gold but not in the source"
            else:
                difference = "; ".join(
                    f"{table} {key}.{column}: gold {actual[key][column]!r}, source {value!r}"
                    for column, value in wanted[key].items()
                    if column in declared and actual[key][column] != value
                )
            if difference and report(difference):
                return outcome
        source_rows = {
            source: rows
            for source, rows in replayed.items()
            if source.split(".")[0] == database.lower() and source.split(".")[-1] == table
        }
        for difference in _metadata_differences(
            reader, relation, table, database, source_rows, source_times
        ):
            if report(difference):
                return outcome
    for difference in _foreign_rows(reader, f"{gold_schema}.captured_rows", owners):
        if report(difference):
            return outcome
    for source, rows in sorted(replayed.items()):
        if source.split(".")[0] != database.lower():
            continue
        logical = renamed.get(source.split(".")[-1], source.split(".")[-1])
        for difference in _captured_differences(reader, gold_schema, source, logical, rows):
            if report(difference):
                return outcome
    return outcome


@dataclass
class SourceRow:
    """What a consumer holds for one key after replaying the messages: the last change's
    op, its row image (the message's raw `after`), source time, and whether it is gone.
    `also` is an op gold may show instead of `op`: a snapshot read that changes nothing
    (its image is the key's current one) may sort before the change it repeats (a read
    has no change position, and sorts first among the changes of its commit
    position: docs/architecture.md, "Ordering")."""

    op: str
    image: Mapping[str, object]
    ts_ms: int | None
    deleted: bool
    also: str | None = None

    def op_matches(self, op: object) -> bool:
        return op in (self.op, self.also)


def _message_json(text: str | None) -> object:
    if text is None:
        return None
    value = json.loads(text)
    if isinstance(value, dict) and set(value) == {"schema", "payload"}:
        return value["payload"]
    return value


def replay(result: SimResult, batch: int = -1) -> dict[str, dict[str, SourceRow]]:
    """Per `db.schema.table` (lower case), per key (the message key's JSON), the consumer's
    row after the messages of batches 0..`batch` in the order the simulator emitted them,
    which is the source's commit order (not the pipeline's ordering by position)."""
    batches = result.batches[: len(result.batches) + batch + 1 if batch < 0 else batch + 1]
    state: dict[str, dict[str, SourceRow]] = {}
    for message in (m for messages in batches for m in messages):
        payload = _message_json(message.value)
        if not isinstance(payload, dict) or payload.get("op") not in ("r", "c", "u", "d", "t"):
            continue
        source = payload["source"]
        table = f"{source['db']}.{source['schema']}.{source['table']}".lower()
        rows = state.setdefault(table, {})
        ts_ms = source.get("ts_ms")
        op = payload["op"]
        if op == "t":
            for key, row in rows.items():
                if not row.deleted:
                    rows[key] = SourceRow("t", row.image, ts_ms, deleted=True)
            continue
        key = json.dumps(_message_json(message.key), sort_keys=True)
        if op == "d":
            rows[key] = SourceRow("d", payload["before"], ts_ms, deleted=True)
            continue
        previous = rows.get(key)
        repeated = (
            op == "r"
            and previous is not None
            and not previous.deleted
            and previous.image == payload["after"]
        )
        also = previous.op if repeated and previous is not None else None
        rows[key] = SourceRow(op, payload["after"], ts_ms, deleted=False, also=also)
    return state


def _typed(value: object) -> object:
    """A JSON value with its JSON type, so that 1, 1.0, "1" and true differ."""
    if isinstance(value, bool | int | float | str) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, list):
        return ("array", [_typed(item) for item in value])
    if isinstance(value, dict):
        return ("object", sorted((k, _typed(v)) for k, v in value.items()))
    raise TypeError(f"not a JSON value: {value!r}")


def _image_key(table: str, image: Mapping[str, object]) -> tuple[object, ...]:
    lowered = {column.lower(): value for column, value in image.items()}
    return tuple(lowered[column] for column in TABLES[table].key)


@lru_cache(maxsize=1)
def _contracts() -> dict[str, dict[str, str]]:
    """{gold model: {column: data_type}} from the models' YAML contracts."""
    import yaml

    contracts: dict[str, dict[str, str]] = {}
    paths = [*(REPO_ROOT / "models" / "gold").rglob("*.yml")]
    paths += [*(CONSUMER_DIR / "models" / "gold").rglob("*.yml")]
    for path in sorted(paths):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models", []):
            contracts[model["name"]] = {
                column["name"]: column["data_type"]
                for column in model.get("columns", [])
                if column.get("data_type")
            }
    return contracts


def _contract_differences(reader: GoldReader, relation: str, table: str) -> list[str]:
    types = reader.types(relation)
    differences = []
    for column, data_type in _contracts().get(table, {}).items():
        actual = types.get(column)
        if actual is None or actual.replace(" ", "") != data_type.replace(" ", "").lower():
            differences.append(f"{relation}.{column}: type {actual}, contract {data_type}")
    return differences


def _owner(row: dict) -> object:
    """The source a gold row belongs to: its database, else (OGG's `SCHEMA.TABLE`, which
    names no database) its schema."""
    return (
        row["_cdc_source_db"]
        if row["_cdc_source_db"] is not None
        else row.get("_cdc_source_schema")
    )


def _foreign_rows(reader: GoldReader, relation: str, owners: Sequence[str]) -> list[str]:
    """Rows whose source (`_owner`) is null or none of `owners` (lower case)."""
    foreign = sum(
        1
        for row in reader.rows(relation)
        if not isinstance(_owner(row), str) or str(_owner(row)).lower() not in owners
    )
    return [f"{relation}: {foreign} rows of no simulated source"] if foreign else []


def _metadata_differences(
    reader: GoldReader,
    relation: str,
    table: str,
    database: str,
    sources: Mapping[str, Mapping[str, SourceRow]],
    source_times: bool = True,
) -> list[str]:
    """Every gold row of `database` (soft-deleted ones too): count, op, delete flags."""
    soft = reader.is_soft_delete(relation)
    wanted = {
        _image_key(table, row.image): row
        for rows in sources.values()
        for row in rows.values()
        if soft or not row.deleted
    }
    rows = reader.rows_of(relation, database)
    differences = []
    if len(rows) != len(wanted):
        differences.append(f"{table}: {len(rows)} gold rows of {database}, source {len(wanted)}")
    for values in rows:
        key = tuple(values[k] for k in TABLES[table].key)
        source = wanted.get(key)
        if source is None:
            continue  # reported by the comparison of live rows, or by the count
        op = values["_cdc_op"] if source.op_matches(values["_cdc_op"]) else source.op
        got: tuple[object, ...] = (values["_cdc_op"],)
        want: tuple[object, ...] = (op,)
        if soft:
            got += (values["_cdc_is_deleted"], values[_DELETED_AT_MS])
            deleted_at = source.ts_ms if source.deleted and source_times else None
            want += (source.deleted, deleted_at)
        if got != want:
            names = "(_cdc_op, _cdc_is_deleted, _cdc_deleted_at ms)" if soft else "_cdc_op"
            differences.append(f"{table} {key} {names}: gold {got}, source {want}")
    return differences


def _captured_differences(
    reader: GoldReader,
    gold_schema: str,
    source: str,
    logical: str,
    rows: Mapping[str, SourceRow],
) -> list[str]:
    """captured_rows of one source table: the live keys' row images by value, with op."""
    actual = [
        {"_cdc_op": row["_cdc_op"], "row_json": row[ROW_JSON_COLUMN]}
        for row in reader.rows(f"{gold_schema}.captured_rows")
        if row["_cdc_source_id"] == source
    ]
    live = {_image_key(logical, row.image): row for row in rows.values() if not row.deleted}
    got: dict[tuple[object, ...], tuple[object, object]] = {}
    differences = []
    for row in actual:
        image = json.loads(row["row_json"])
        key = _image_key(logical, image)
        if key in got:
            differences.append(f"captured_rows {source} {key}: twice")
        got[key] = (row["_cdc_op"], _typed(image))
    wanted: dict[tuple[object, ...], tuple[object, object]] = {}
    for key, row in live.items():
        gold_op = got.get(key, (None, None))[0]
        wanted[key] = (gold_op if row.op_matches(gold_op) else row.op, _typed(dict(row.image)))
    if len(got) != len(wanted):
        differences.append(f"captured_rows {source}: {len(got)} rows, source {len(wanted)}")
    for key in sorted(set(got) | set(wanted), key=repr):
        if got.get(key) != wanted.get(key):
            differences.append(
                f"captured_rows {source} {key}: gold {got.get(key)}, source {wanted.get(key)}"
            )
    return differences


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


def compare_captured_images(  # type: ignore[no-untyped-def]
    spark, gold_schema: str, result, batch: int, *, reader: GoldReader | None = None
) -> list[str]:
    """Differences between `captured_rows` and the decoded images a simulation predicts
    after `batch` (workbench.simulator.expected.captured_text, from the source values):
    a schema-wrapped source must show every value its schema types as decoded text, with
    `_cdc_is_decoded` set when it has one; a schemaless source keeps the wire form
    (`_cdc_row_json` equal to `_cdc_row_json_raw`, `_cdc_is_decoded` false). Share a
    `reader` among the simulations of one build: the view is read once."""
    import json

    from workbench.simulator.debezium import column_encoding
    from workbench.simulator.expected import captured_text

    config = result.config
    reader = reader or GoldReader(spark)
    differences: list[str] = []
    for table, rows in result.source[batch].items():
        physical = config.table_names.get(table, table).lower()
        gold = {
            row["_cdc_key"]: row
            for row in reader.rows_of(f"{gold_schema}.captured_rows", config.database)
            if str(row["_cdc_source_table"]).lower() == physical
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

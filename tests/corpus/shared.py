"""The corpus modules' shared warehouses: one dbt invocation per step for several modules.

A `dbt build` costs about a minute whatever the data, and the corpus modules used to run 17
of them (a warehouse per fixture group or per step). Their fixtures now land in two shared
warehouses (session-scoped fixtures `corpus_a` and `corpus_b`, tests/corpus/conftest.py),
built step by step: step k of every fixture of a warehouse lands, one `dbt run` runs (`dbt
build` at the last step: the data tests check every table once, whole, with every change
of every step in the change logs), and `captured_rows` is read and kept
(`Warehouse.snapshots`), so a module
compares its checkpoint k with the state right after that build, as it did with builds of
its own. Fixtures cannot share a warehouse when their tables collide, or when the var
`cdc_table_keys` one needs would key another's table (a bare name keys that table in every
source: `_cdc_declared_table_keys`):

- `corpus_a`, 4 steps, keys `products` (the payload-only files) and `customers` (the vendor
  documents): DataWorks file by file, Canal/Maxwell/OGG, the payload-only Debezium files,
  Transferia's key+value captures, the vendor documents' examples, and Maxwell records of
  the documented shape keyed by their Kafka key (`MAXWELL_DOC`).
- `corpus_b`, 3 steps, keys of the wrapped Debezium fixtures: the wrapped Debezium fixtures
  (flink's and postgres' `products` are also the payload-only files' tables, in A) and the
  MongoDB fixtures (paimon's BSON `bigdata_test.sync_test_table` is DataWorks' table, and
  A's `customers` key would key risingwave's `inventory.customers`).

Each group lands under `<landing>/<group>/` (`DbtProject.landed_under`), and every count a module
asserts is scoped to its files or tables. The corpus modules are one pytest-xdist scope
(`CORPUS_MODULES`, tests/conftest.py), so one worker builds each warehouse once.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import DbtProject
from tests.corpus.captured_state import ROW_JSON_COLUMN, corpus_project, kcat_line

# The modules that read the shared warehouses: pytest-xdist runs them on one worker.
CORPUS_MODULES: tuple[str, ...] = tuple(
    f"tests/corpus/{name}.py"
    for name in (
        "test_alibaba_corpus",
        "test_debezium_relational_corpus",
        "test_decoded_values_corpus",
        "test_mongodb_corpus",
        "test_vendor_doc_examples",
    )
)

# --- corpus_a ---------------------------------------------------------------------------
DATAWORKS = "paimon__aliyun-dataworks-event"
DATAWORKS_ORDER = ["event-insert.txt", "event-update-in-one.txt", "event-delete.txt"]
# Their tables do not collide (mydb.*, test.product, OGG.TBL_TEST).
FORMATS = [
    "seatunnel__canal-data-filter-table.txt",
    "seatunnel__maxwell-data-filter-table.txt",
    "seatunnel__ogg-data-filter-table.txt",
]
PAYLOAD_ONLY = [
    "flink__debezium-data-schema-exclude.txt",
    "flink__debezium-postgres-data-replica-identity.txt",
]
KEY_VALUE_DIRS = [
    "transferia__pg2mock-debezium-replication",
    "transferia__mysql2mock-debezium-replication",
]
# Transferia's key+value captures land in steps (first, last message index).
KEY_VALUE_STEPS = [(0, 1), (2, 2), (3, 5), (6, 7)]

VENDOR_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "vendor_docs"
VENDOR_FILES = {
    "oracle": "oracle_examples.jsonl",
    "sqlserver": "sqlserver_examples.jsonl",
    "db2": "db2_examples.jsonl",
}
# The vendor files land in three steps: (first, last) line of each file per step. The Db2
# create and update are printed with trailing commas (invalid JSON, quarantined from the
# file itself): steps 1 and 2 land them with exactly those commas removed (`repaired`),
# in files of their own; step 3 lands the document's whole file.
VENDOR_STEPS: dict[str, list[tuple[int, int]]] = {
    "oracle": [(1, 1), (2, 2), (3, 5)],
    "sqlserver": [(1, 2), (3, 3), (4, 8)],
    "db2": [(1, 1), (2, 2), (1, 3)],
}
REPAIRED_STEPS = {"db2": (0, 1)}  # steps that land the document's lines repaired
TRAILING_COMMA = re.compile(r",(\s*[}\]])")
# The value-only vendor files carry no message key: declared, as a user would.
VENDOR_KEYS = {"customers": ["id"]}

# Maxwell records of the shape maxwells-daemon.io documents (dataformat: the `test.e` table
# and its insert/update/delete rows; producers: the Kafka key `{"database", "table",
# "pk.id"}`), landed as kcat -J records with Maxwell's default options (no
# `primary_key_columns`): two inserts, then one transaction that changes the first row's
# `id` from 1 to 3 (`old` carries the previous id, the Kafka key names the new one) and
# deletes the second. Gold must hold the row of key 3 only.
MAXWELL_DOC = "maxwell_doc"
_E_ROW_1 = {"id": 1, "m": 4.2341, "c": "2016-10-21 05:33:37.523000",
            "comment": "I am a creature of light."}  # fmt: skip
_E_ROW_2 = {"id": 2, "m": 1.0, "c": "2016-10-21 05:33:40.101000", "comment": "a second row"}
_E_ROW_3 = {**_E_ROW_1, "id": 3, "m": 5.444, "c": "2016-10-21 05:33:54.631000"}
MAXWELL_DOC_RECORDS: list[tuple[dict, dict]] = [
    (
        {"database": "test", "table": "e", "pk.id": 1},
        {"database": "test", "table": "e", "type": "insert", "ts": 1477053217, "xid": 23396,
         "commit": True, "data": _E_ROW_1},
    ),
    (
        {"database": "test", "table": "e", "pk.id": 2},
        {"database": "test", "table": "e", "type": "insert", "ts": 1477053220, "xid": 23401,
         "commit": True, "data": _E_ROW_2},
    ),
    (
        {"database": "test", "table": "e", "pk.id": 3},
        {"database": "test", "table": "e", "type": "update", "ts": 1477053234, "xid": 23410,
         "xoffset": 0, "data": _E_ROW_3,
         "old": {"id": 1, "m": 4.2341, "c": "2016-10-21 05:33:37.523000"}},
    ),
    (
        {"database": "test", "table": "e", "pk.id": 2},
        {"database": "test", "table": "e", "type": "delete", "ts": 1477053234, "xid": 23410,
         "commit": True, "data": _E_ROW_2},
    ),
]  # fmt: skip
MAXWELL_DOC_EXPECTED = {"test.e": {"key_columns": ["id"], "rows": [_E_ROW_3]}}

# --- corpus_b ---------------------------------------------------------------------------
WRAPPED = [
    "flink__debezium-data-schema-include.txt",
    "flink__debezium-postgres-data-schema-include.txt",
    "paimon__debezium-alltype-mysql.txt",
    "seatunnel__debezium-oracle.txt",
    "seatunnel__debezium-sqlserver.txt",
]
ZEROMICRO = "zeromicro-cds__debezium-mongodb-oplog-patch-filter"
PAIMON_BSON = "paimon__debezium-bson-event"
PAIMON_BSON_FILES = ("event-insert.txt", "event-update.txt", "event-delete.txt")
RISINGWAVE = "risingwave__debezium_mongo_json_customers.1"
MONGODB_STEPS = 3
MONGODB = "mongodb"  # the landing folder of the MongoDB fixtures


def expected_state(corpus: Path, fixture: str) -> dict[str, dict]:
    stem = fixture.removesuffix(".txt").removesuffix(".jsonl")
    return json.loads((corpus / f"{stem}.expected.json").read_text())


def table_keys(corpus: Path, fixtures: list[str]) -> dict[str, list[str]]:
    """The var cdc_table_keys a user would declare for value-only files: each table's
    `key_columns`, by table name."""
    keys: dict[str, list[str]] = {}
    for fixture in fixtures:
        for table, spec in expected_state(corpus, fixture).items():
            keys[table.rsplit(".", 1)[-1].lower()] = spec["key_columns"]
    return keys


def repaired(line: str) -> str:
    """A line of the Db2 document with its trailing commas (`, }`, `, ]`) removed."""
    fixed = TRAILING_COMMA.sub(r"\1", line)
    json.loads(fixed)  # valid JSON now: the trailing commas were its only defect
    assert len(line) - len(fixed) == len(TRAILING_COMMA.findall(line)) > 0
    return fixed


def vendor_step_file(connector: str, step: int) -> str:
    """The landing file of one step (the last step of Db2 lands the document's file)."""
    stem = VENDOR_FILES[connector].removesuffix(".jsonl")
    if step in REPAIRED_STEPS.get(connector, ()):
        return f"{stem}.repaired-{step + 1}.jsonl"
    if connector in REPAIRED_STEPS:
        return VENDOR_FILES[connector]
    return f"{stem}.{step + 1}.jsonl"


# A captured_rows snapshot: per `_cdc_source_id`, its rows' raw image, decoded image and
# `_cdc_is_decoded`.
Snapshot = dict[str, list[dict[str, object]]]


def snapshot(project: DbtProject) -> Snapshot:
    rows = project.sql(
        f"select _cdc_source_id, {ROW_JSON_COLUMN} as row_json_raw, _cdc_row_json as row_json, "
        f"_cdc_is_decoded as is_decoded from {project.layer('gold')}.captured_rows"
    )
    tables: Snapshot = {}
    for row in rows:
        tables.setdefault(str(row.pop("_cdc_source_id")), []).append(row)
    return tables


@dataclass
class Warehouse:
    """One shared project, built step by step, and captured_rows after each step."""

    project: DbtProject
    snapshots: list[Snapshot] = field(default_factory=list)

    def rows(self, table: str, step: int = -1) -> list[dict]:
        """A table's row images after a step, as the messages carried them (the raw image,
        as `captured_state.gold_rows` reads them)."""
        return [json.loads(str(row["row_json_raw"])) for row in self.captured(table, step)]

    def state(self, tables: list[str], step: int = -1) -> dict[str, list[dict]]:
        """`captured_state.gold_state` of `tables` after a step."""
        return {table: self.rows(table, step) for table in tables}

    def captured(self, table: str, step: int = -1) -> list[dict[str, object]]:
        """A table's captured_rows (`row_json`, `row_json_raw`, `is_decoded`) after a step."""
        return self.snapshots[step].get(table.lower(), [])


# A group's landing: (step, its folder) -> writes that step's files (none: nothing lands).
Landing = Callable[[int, Path], None]


@dataclass(frozen=True)
class Group:
    """Fixtures landing in one folder: what lands at each step, the source tables they
    write (`db.schema.table`) and the keys they declare (var cdc_table_keys)."""

    land: Landing
    tables: list[str]
    keys: Mapping[str, list[str]] = field(default_factory=dict)


def merged_keys(groups: Mapping[str, Group]) -> dict[str, list[str]]:
    """One var cdc_table_keys for all groups: a declared name (a bare table name keys that
    table in every source) must name no other group's table."""
    keys: dict[str, list[str]] = {}
    for name, group in groups.items():
        for table, columns in group.keys.items():
            assert keys.get(table, columns) == columns, f"{name}: {table} keyed twice"
            keys[table] = columns
            for other, group_b in groups.items():
                hits = [t for t in group_b.tables if t.rsplit(".", 1)[-1].lower() == table]
                assert other == name or not hits, f"{name} would key {other}'s {hits}"
    return keys


def build(spark: object, base: Path, name: str, steps: int, groups: dict[str, Group]) -> Warehouse:
    """Land each group's step k under `<landing>/<group>/`, build, snapshot; k < steps."""
    keys = merged_keys(groups)
    project = corpus_project(spark, base, name)
    warehouse = Warehouse(project)
    for step in range(steps):
        for group_name, group in groups.items():
            folder = project.landing / group_name
            folder.mkdir(exist_ok=True)
            group.land(step, folder)
        # the data tests run once, at the last step, on whole tables (the suite's
        # CDC_TEST_SCOPE=all), after every model is built; each step before it is checked
        # by the modules' checkpoints, which read captured_rows alone (`snapshot`): those
        # steps build it and what feeds it (the typed models and gold are 40 % of a run)
        if step == steps - 1:
            project.run("build", vars={"cdc_table_keys": keys})
        else:
            project.run("run", "--select", "+captured_rows", vars={"cdc_table_keys": keys})
        warehouse.snapshots.append(snapshot(project))
    return warehouse


def _copy_at(step: int, corpus: Path, fixtures: list[str]) -> Landing:
    def land(current: int, folder: Path) -> None:
        if current == step:
            for fixture in fixtures:
                shutil.copy(corpus / fixture, folder / fixture)

    return land


def _dataworks(corpus: Path) -> Landing:
    def land(step: int, folder: Path) -> None:
        if step < len(DATAWORKS_ORDER):  # one file per step, names sorting in replay order
            name = DATAWORKS_ORDER[step]
            shutil.copy(corpus / DATAWORKS / name, folder / f"{step:02d}-{name}")

    return land


def _key_value(corpus: Path) -> Landing:
    """Transferia's key+value captures as kcat records, a file per step and fixture."""

    def land(step: int, folder: Path) -> None:
        first, last = KEY_VALUE_STEPS[step]
        for fixture in KEY_VALUE_DIRS:
            source = corpus / fixture
            lines = []
            for index in range(first, last + 1):
                value_file = source / f"debezium_msg_{index}_val.txt"
                key = (source / f"debezium_msg_{index}_key.txt").read_text().strip()
                value = value_file.read_text().strip() if value_file.exists() else None
                lines.append(kcat_line(fixture, index, key, value))
            (folder / f"{fixture}-{first}.jsonl").write_text("\n".join(lines) + "\n")

    return land


def _vendor_docs(step: int, folder: Path) -> None:
    if step >= 3:
        return
    for connector, name in VENDOR_FILES.items():
        lines = (VENDOR_DOCS / name).read_text().splitlines()
        first, last = VENDOR_STEPS[connector][step]
        landed = lines[first - 1 : last]
        if step in REPAIRED_STEPS.get(connector, ()):
            landed = [repaired(line) for line in landed]
        (folder / vendor_step_file(connector, step)).write_text("\n".join(landed) + "\n")


def _maxwell_doc(step: int, folder: Path) -> None:
    """`MAXWELL_DOC_RECORDS` as kcat -J records (topic `maxwell`), with the first step."""
    if step == 0:
        lines = [
            kcat_line("maxwell", offset, json.dumps(key), json.dumps(value))
            for offset, (key, value) in enumerate(MAXWELL_DOC_RECORDS)
        ]
        (folder / f"{MAXWELL_DOC}.jsonl").write_text("\n".join(lines) + "\n")


def mongodb_records(path: Path) -> list[str]:
    """The JSON lines of a fixture file (the Paimon files open with a licence comment)."""
    return [line for line in path.read_text().splitlines() if line.lstrip().startswith("{")]


def _mongodb(corpus: Path) -> Landing:
    """zeromicro's events one per step, paimon's BSON files one per step (key and value
    lines as kcat records), risingwave's snapshot with the first step."""
    zeromicro = mongodb_records(corpus / f"{ZEROMICRO}.jsonl")
    assert len(zeromicro) == MONGODB_STEPS
    offset = 0

    def land(step: int, folder: Path) -> None:
        nonlocal offset
        (folder / f"{ZEROMICRO}-{step}.json").write_text(zeromicro[step] + "\n")
        pairs = mongodb_records(corpus / PAIMON_BSON / PAIMON_BSON_FILES[step])
        lines = []
        for key, value in zip(pairs[0::2], pairs[1::2], strict=True):
            lines.append(kcat_line("paimon_bson", offset, key, value))
            offset += 1
        (folder / f"{PAIMON_BSON}-{step}.jsonl").write_text("\n".join(lines) + "\n")
        if step == 0:
            shutil.copy(corpus / RISINGWAVE, folder / RISINGWAVE)

    return land


def _tables(corpus: Path, fixtures: list[str]) -> list[str]:
    return [table for fixture in fixtures for table in expected_state(corpus, fixture)]


def _vendor_tables() -> list[str]:
    return [
        table
        for name in VENDOR_FILES.values()
        for table in json.loads(
            (VENDOR_DOCS / f"{name.removesuffix('.jsonl')}.expected.json").read_text()
        )
    ]


def build_a(spark: object, corpus: Path, base: Path) -> Warehouse:
    """DataWorks, Canal/Maxwell/OGG, payload-only Debezium, Transferia, vendor documents,
    Maxwell records of the documented shape."""
    groups = {
        DATAWORKS: Group(_dataworks(corpus), _tables(corpus, [DATAWORKS])),
        "formats": Group(_copy_at(0, corpus, FORMATS), _tables(corpus, FORMATS)),
        "payload_only": Group(
            _copy_at(0, corpus, PAYLOAD_ONLY),
            _tables(corpus, PAYLOAD_ONLY),
            table_keys(corpus, PAYLOAD_ONLY),
        ),
        "key_value": Group(_key_value(corpus), _tables(corpus, KEY_VALUE_DIRS)),
        "vendor_docs": Group(_vendor_docs, _vendor_tables(), VENDOR_KEYS),
        MAXWELL_DOC: Group(_maxwell_doc, [*MAXWELL_DOC_EXPECTED]),
    }
    return build(spark, base, "shared_a", len(KEY_VALUE_STEPS), groups)


def build_b(spark: object, corpus: Path, base: Path) -> Warehouse:
    """The wrapped Debezium fixtures (first step) and the MongoDB fixtures step by step."""
    groups = {
        "wrapped": Group(
            _copy_at(0, corpus, WRAPPED), _tables(corpus, WRAPPED), table_keys(corpus, WRAPPED)
        ),
        MONGODB: Group(_mongodb(corpus), _tables(corpus, [ZEROMICRO, PAIMON_BSON, RISINGWAVE])),
    }
    return build(spark, base, "shared_b", MONGODB_STEPS, groups)

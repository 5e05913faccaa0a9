"""One batch at a time: the workload on a real database, the real capture, a build, the check.

Shared by tests/realdb/ and `make demo-postgres` (workbench.realdb.demo): the caller passes
how to build (a dbt build of captured_rows and what feeds it) and how to query the warehouse.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from cdc_tools.scaffold import (
    TableContract,
    contract_from_bronze,
    dbt_name,
    resolve_model_name,
    write_table,
)
from workbench.realdb import databases, sink_formats
from workbench.realdb.capture import CaptureRun, run_capture, write_config
from workbench.realdb.compare import differences
from workbench.realdb.mariadb import MariaDbServer
from workbench.realdb.postgres import PostgresServer
from workbench.realdb.sink_formats import SinkForm
from workbench.realdb.source import AVRO_PARQUET, Source
from workbench.realdb.workload import TABLE_KEYS

# what a batch's `dbt build` selects: captured_rows, the quarantine and what feeds them (and
# the typed gold models scaffolded), and only the data tests of those models
BUILD_SELECT: tuple[str, ...] = ("+captured_rows", "+cdc_quarantine")


def build_args(*models: str) -> tuple[str, ...]:
    """The arguments of a batch's `dbt build`, also selecting `models` and what feeds them."""
    selected = (*BUILD_SELECT, *(f"+{model}" for model in models))
    return ("build", "--select", *selected, "--indirect-selection", "cautious")


BUILD_ARGS = build_args()

# the forms Avro and Parquet sink files (AVRO_PARQUET) take by turns: the container
# alternates file by file, each cycling through its codecs
SINK_FORMS: dict[str, tuple[SinkForm, ...]] = {
    "avro": tuple(SinkForm("avro", codec) for codec in ("null", "deflate", "snappy", "zstandard")),
    "parquet": tuple(SinkForm("parquet", codec) for codec in ("snappy", "gzip", "zstd", "none")),
}


def truncate_blind(database: list[dict], gold: list[dict], key: Sequence[str]) -> list[dict]:
    """Gold's rows of a table a flattened source saw truncated, without the rows whose keys
    the database no longer holds: the transform drops TRUNCATE events, so gold keeps the
    rows a truncate removed and no later change touched (docs/formats.md)."""
    held = {tuple(str(row.get(column)) for column in key) for row in database}
    return [row for row in gold if tuple(str(row.get(c)) for c in key) in held]


def declared_keys(sources: Sequence[Source]) -> dict[str, list[str]]:
    """The var `cdc_table_keys` for PostgreSQL sources landed without their Kafka keys
    (`sink`): value-only sink files carry no Kafka key, and a PostgreSQL connector writes no
    schema-change topic (a MariaDB one does: its sink files need none)."""
    return {
        databases.postgres_source_id(source.database, table): key
        for source in sources
        if source.landing_format in ("sink", AVRO_PARQUET)
        for table, key in TABLE_KEYS.items()
    }


def change_identity(line: str) -> str | None:
    """A landed change as the database made it (op, source position, images), without the
    capture's processing time: what a re-emission repeats. None for a tombstone. `line`: a
    sink file's line, or a kcat record (also bronze's raw_line of a record read from Kafka)."""
    value = json.loads(line)
    if isinstance(value, dict) and "topic" in value:  # a kcat record (bronze's: no null fields)
        value = None if value.get("payload") is None else json.loads(value["payload"])
    if value is None:
        return None
    payload = value.get("payload", value) if "schema" in value else value
    source = payload.get("source") or {}
    position = [source.get(name) for name in ("lsn", "file", "pos", "row")]  # PostgreSQL, binlog
    return json.dumps([payload.get("op"), position, payload.get("before"), payload.get("after")])


class RealPipeline:
    """The workload, the capture and the builds of `sources`, one batch at a time."""

    def __init__(
        self,
        server: PostgresServer | MariaDbServer,
        sources: Sequence[Source],
        landing: Path,
        state: Path,
        build: Callable[[Sequence[str]], None],
        sql: Callable[[str], list[dict]],
        schema_prefix: str,
        seed: int = 61,
        project: Path | None = None,
        bootstrap_servers: str = "",
    ) -> None:
        """`bootstrap_servers`: the broker the `kafka` sources' captures produce to."""
        self.server = server  # sql(), session(), restart()
        self.db = databases.real_database(server)
        self.sources = tuple(sources)
        self.landing_root = landing
        self.state = state
        self.build = build
        self.query = sql
        self.schema_prefix = schema_prefix
        self.project = project  # the dbt project `build` builds, for the typed models
        self.bootstrap_servers = bootstrap_servers
        self.batches = 0
        self.sink_files_written = {container: 0 for container in SINK_FORMS}
        self.workloads = {s.database: self.db.workload(seed) for s in self.sources}
        self.open_sessions: list = []
        # typed gold models scaffolded from bronze: (source, table) -> contract
        self.typed: dict[tuple[Source, str], TableContract] = {}
        for source in self.sources:
            self.db.create_database(source.database)

    def landing(self, source: Source) -> Path:
        return self.landing_root / source.database

    def captured(self, source: Source) -> Path:
        """Where the capture of `source` writes: its landing folder, or, for Avro and Parquet
        files, a folder aside of the sink files they are written from."""
        if source.landing_format == AVRO_PARQUET:
            return self.state / source.database / "sink_files"
        return self.landing(source)

    def capture(self, source: Source, mark: str, halt_after: int | None = None) -> CaptureRun:
        folder = self.state / source.database
        settings = {**self.db.connector_config(source, folder), **dict(source.options)}
        config = write_config(folder / "connector.properties", settings)
        return run_capture(
            config,
            self.captured(source),
            folder / "offsets.dat",
            schemas=source.schemas,
            landing_format=(
                "sink" if source.landing_format == AVRO_PARQUET else source.landing_format
            ),
            until=(self.db.watermark_table(source), mark),
            halt_after=halt_after,
            bootstrap_servers=self.bootstrap_servers if source.landing_format == "kafka" else "",
            lib=self.db.lib,
        )

    def run_batch(
        self, *, halt_after: int | None = None, restart: bool = False, spanning: bool = False
    ) -> dict[str, list[Path]]:
        """The next batch on every source, captured, landed and built; the files each
        capture landed (a halted capture's, then its restart's). `halt_after`: the first
        capture of each source ends its JVM at once after that many records; `restart`: the
        server restarts between the workload and the capture; `spanning`: a transaction of
        each source opened before this batch's workload, left open over its capture and
        committed first in the next."""
        index = self.batches
        mark = f"batch-{index}"
        for session in self.open_sessions:
            _, errors = session.communicate("commit;\n", timeout=60)
            if session.returncode != 0:
                raise RuntimeError(f"the open transaction failed: {errors}")
        self.open_sessions = []
        for source in self.sources:
            if spanning:
                session = self.server.session(source.database)
                assert session.stdin is not None and session.stdout is not None
                session.stdin.write("begin;\n" + self.workloads[source.database].spanning())
                session.stdin.write("select 'ready';\n")
                session.stdin.flush()
                if session.stdout.readline().strip() != "ready":
                    raise RuntimeError("the open transaction did not start")
                self.open_sessions.append(session)
            for script in self.workloads[source.database].batch(index):
                self.server.sql(script, database=source.database)
            watermark = self.workloads[source.database].watermark(mark)
            self.server.sql(watermark, database=source.database)
        if restart:
            self.server.restart()
        # one capture per source, all at once (each a JVM that mostly waits on its database)
        with ThreadPoolExecutor(len(self.sources)) as pool:
            files = list(pool.map(lambda s: self._capture_batch(s, mark, halt_after), self.sources))
        self.build(self.build_args())
        self.batches += 1
        return {source.database: paths for source, paths in zip(self.sources, files, strict=True)}

    def _capture_batch(self, source: Source, mark: str, halt_after: int | None) -> list[Path]:
        """The batch captured from `source` (first halted after `halt_after` records, then
        restarted, when given): the files it landed (for Avro and Parquet files, the sink
        files they were written from)."""
        before = set(self.captured(source).rglob("*.json*"))
        if halt_after is not None:
            halted = self.capture(source, mark, halt_after=halt_after)
            if halted.returncode != 137:
                raise RuntimeError(f"the halted capture ended otherwise:\n{halted.output[-3000:]}")
        done = self.capture(source, mark)
        if done.returncode != 0:
            raise RuntimeError(f"the capture failed:\n{done.output[-3000:]}")
        landed = sorted(set(self.captured(source).rglob("*.json*")) - before)
        if source.landing_format == AVRO_PARQUET:
            self.write_sink_forms(source, landed)
        return landed

    def write_sink_forms(self, source: Source, files: Sequence[Path]) -> list[Path]:
        """The sink files of a batch landed as Avro and Parquet files: the container by turns
        (file by file, starting with the other one each batch, so every topic lands in both),
        each cycling through its codecs."""
        planned = []
        for position, path in enumerate(files):
            container = ("avro", "parquet")[(self.batches + position) % 2]
            forms = SINK_FORMS[container]
            planned.append((path, forms[self.sink_files_written[container] % len(forms)]))
            self.sink_files_written[container] += 1
        return sink_formats.write(planned, self.captured(source), self.landing(source))

    def build_args(self) -> tuple[str, ...]:
        """BUILD_ARGS and the typed gold models scaffolded so far."""
        return build_args(*(contract.gold_model for contract in self.typed.values()))

    def scaffold_typed_gold(self, spark: object) -> list[TableContract]:
        """Typed silver and gold models of every keyed table of the sources landed with
        schemas, written into `project` as a user writes them (`python -m cdc_tools.scaffold
        --from-bronze TABLE --system SOURCE --database SOURCE --key ...`): the types come
        from the newest message's schema. The next batch's build builds them."""
        if self.project is None:
            raise ValueError("typed models need the pipeline's project (RealPipeline(project=))")
        project = self.project
        written = []
        for source in self.sources:
            # Avro and Parquet files hold the messages their sink files do: scaffolded from those
            if not source.schemas or source.landing_format == AVRO_PARQUET:
                continue
            prefix = self.db.connector_config(source, self.state)["topic.prefix"]
            system = dbt_name(str(prefix))  # the connector's topic prefix
            for table, key in self.db.table_keys.items():
                if source.typed is not None and table not in source.typed:
                    continue
                contract = contract_from_bronze(
                    spark,
                    table,
                    system,
                    schema_prefix=self.schema_prefix,
                    database=source.database,
                    key=key,
                )
                contract = resolve_model_name(replace(contract, gold_prefix=f"{system}_"), project)
                write_table(contract, project)
                self.typed[(source, table)] = contract
                written.append(contract)
        return written

    def gold_rows(self, source: Source, table: str) -> list[dict]:
        rows = self.query(
            f"select _cdc_row_json from {self.schema_prefix}_gold.captured_rows "
            f"where _cdc_source_id = '{self.db.source_id(source, table)}'"
        )
        return [json.loads(str(row["_cdc_row_json"]), parse_float=Decimal) for row in rows]

    def differences(self) -> list[str]:
        """Every difference between gold and the database, table by table, and every
        quarantined message (none is expected)."""
        found: list[str] = []
        for source in self.sources:
            for table in self.db.tables:
                if source.flattened and table not in self.db.table_keys:
                    continue  # not captured: a flattened row of a keyless table has no key
                cols, database = self.db.rows(table, source.database)
                gold = self.gold_rows(source, table)
                if source.flattened and table in self.db.truncated_tables:
                    gold = truncate_blind(database, gold, self.db.table_keys[table])
                found += [
                    f"{source.database}.{table}: {d}"
                    for d in differences(
                        cols, database, gold, source.schemas, self.db.forms_for(source)
                    )
                ]
        found += self.typed_differences()
        quarantined = self.query(
            f"select reason_code, _source_file, raw_line "
            f"from {self.schema_prefix}_silver.cdc_quarantine limit 20"
        )
        found += [f"quarantined: {row}" for row in quarantined]
        return found

    def typed_differences(self) -> list[str]:
        """Every difference between a typed gold model and the database, on the columns
        both have (a column added after the scaffold is not in the contract; one dropped
        since is not in the database), in the normal form of compare.typed_value."""
        found: list[str] = []
        for (source, table), contract in self.typed.items():
            cols, database = self.db.rows(table, source.database)
            gold_names = {c.name: c.gold_name or c.name for c in contract.columns}
            shared = [c for c in cols if c.name in gold_names]
            select = ", ".join(f"`{gold_names[c.name]}`" for c in shared)
            rows = self.query(
                f"select {select} from {self.schema_prefix}_gold.{contract.gold_model}"
            )
            forms = self.db.forms_for(source)
            typed = [
                {c.name: forms.typed(c, row[gold_names[c.name]]) for c in shared} for row in rows
            ]
            found += [
                f"{contract.gold_model}: {d}"
                for d in differences(shared, database, typed, True, forms)
            ]
        return found


def landed_once(landed: dict[str, list[Path]]) -> list[str]:
    """The sources of which no change landed twice in `landed` (a capture halted and
    restarted re-emits what it landed after its last committed offset)."""
    once = []
    for database, files in landed.items():
        lines = [line for path in files for line in Path(path).read_text().splitlines()]
        changes = [change for line in lines if (change := change_identity(line)) is not None]
        if len(changes) == len(set(changes)):
            once.append(database)
    return once

"""What the real pipeline (workbench.realdb.pipeline) needs of each kind of database.

A `RealDatabase` adapts one server (PostgreSQL, MariaDB): its workload, the Debezium
connector's settings as a user writes them, the classpath the connector runs on, how
captured_rows names a table, `SELECT *` on a table and the normal forms of its types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from workbench.realdb import compare, compare_mariadb, workload, workload_mariadb
from workbench.realdb.compare import Column, NormalForms
from workbench.realdb.mariadb import MariaDbServer
from workbench.realdb.postgres import PostgresServer

if TYPE_CHECKING:
    from workbench.realdb.source import Source


class Workload(Protocol):
    def batch(self, index: int) -> list[str]: ...

    def spanning(self) -> str: ...

    def watermark(self, mark: str) -> str: ...


class RealDatabase(Protocol):
    """One kind of database, for the pipeline."""

    tables: tuple[str, ...]
    table_keys: Mapping[str, list[str]]
    truncated_tables: tuple[str, ...]  # the tables the workload truncates
    forms: NormalForms
    lib: str  # the capture's classpath folder of its connector (workbench.realdb.capture)

    def create_database(self, name: str) -> None: ...

    def workload(self, seed: int) -> Workload: ...

    def connector_config(self, source: Source, state: Path) -> dict[str, object]: ...

    def watermark_table(self, source: Source) -> str: ...

    def source_id(self, source: Source, table: str) -> str: ...

    def rows(self, table: str, database: str) -> tuple[list[Column], list[dict]]: ...

    def forms_for(self, source: Source) -> NormalForms: ...


def postgres_source_id(database: str, table: str) -> str:
    """How captured_rows names a table of schema `public` of a PostgreSQL database: a name
    PostgreSQL would not fold to (`"OrderLines"`) in double quotes (cdc_source_id)."""
    name = table if table == table.lower() else '"' + table.replace('"', '""') + '"'
    return f"{database}.public.{name}"


@dataclass
class PostgresDatabase:
    """PostgreSQL: schema `public` of each source database, the pgoutput connector."""

    server: PostgresServer
    tables: tuple[str, ...] = workload.TABLES
    table_keys: Mapping[str, list[str]] = field(default_factory=lambda: workload.TABLE_KEYS)
    truncated_tables: tuple[str, ...] = ("truncated",)
    forms: NormalForms = compare.POSTGRES
    lib: str = "lib"

    def create_database(self, name: str) -> None:
        existing = self.server.sql("select datname from pg_database", database="postgres")
        if name not in existing:
            self.server.sql(f"create database {name}", database="postgres")

    def workload(self, seed: int) -> Workload:
        return workload.Workload(seed=seed)

    def connector_config(self, source: Source, state: Path) -> dict[str, object]:
        """The PostgreSQL connector's settings, as a user writes them
        (docs/real-databases.md)."""
        return {
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "127.0.0.1",
            "database.port": self.server.port,
            "database.user": self.server.user,
            "database.password": self.server.password,
            "database.dbname": source.database,
            "topic.prefix": f"pg_{source.database}",
            "plugin.name": "pgoutput",
            "slot.name": f"cdc_{source.database}",
            "publication.name": f"cdc_{source.database}",
            "publication.autocreate.mode": "filtered",
            "schema.include.list": "public",
            "snapshot.mode": "initial",
            # Debezium skips truncates unless told otherwise
            "skipped.operations": "none",
        }

    def watermark_table(self, source: Source) -> str:
        return f"public.{workload.WATERMARK_TABLE}"

    def source_id(self, source: Source, table: str) -> str:
        return postgres_source_id(source.database, table)

    def rows(self, table: str, database: str) -> tuple[list[Column], list[dict]]:
        return compare.database_rows(self.server, table, database=database)

    def forms_for(self, source: Source) -> NormalForms:
        """The normal forms under the source's connector options (compare.Modes)."""
        return compare.postgres_forms(compare.Modes.of(dict(source.options)))


@dataclass
class MariaDbDatabase:
    """MariaDB: one database per source, Debezium's MariaDB connector (binlog)."""

    server: MariaDbServer
    tables: tuple[str, ...] = workload_mariadb.TABLES
    table_keys: Mapping[str, list[str]] = field(default_factory=lambda: workload_mariadb.TABLE_KEYS)
    truncated_tables: tuple[str, ...] = ("truncated",)
    forms: NormalForms = compare_mariadb.MARIADB
    lib: str = "lib-mariadb"

    def create_database(self, name: str) -> None:
        self.server.sql(f"create database if not exists `{name}` character set utf8mb4")

    def workload(self, seed: int) -> Workload:
        return workload_mariadb.MariaDbWorkload(seed=seed)

    def connector_config(self, source: Source, state: Path) -> dict[str, object]:
        """The MariaDB connector's settings, as a user writes them
        (docs/real-databases.md): a server id of its own among the server's replicas, the schema
        history in a file (no Kafka), the snapshot then the binlog, TRUNCATE not skipped."""
        return {
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
            "database.hostname": "127.0.0.1",
            "database.port": self.server.port,
            "database.user": self.server.user,
            "database.password": self.server.password,
            "database.server.id": 6100 + sum(map(ord, source.database)) % 1000,
            "database.include.list": source.database,
            "topic.prefix": f"maria_{source.database}",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "schema.history.internal.file.filename": state / "schema-history.dat",
            "include.schema.changes": "true",
            "snapshot.mode": "initial",
            "skipped.operations": "none",
        }

    def watermark_table(self, source: Source) -> str:
        return f"{source.database}.{workload_mariadb.WATERMARK_TABLE}"

    def source_id(self, source: Source, table: str) -> str:
        return f"{source.database}.{table}"

    def rows(self, table: str, database: str) -> tuple[list[Column], list[dict]]:
        return compare_mariadb.database_rows(self.server, table, database)

    def forms_for(self, source: Source) -> NormalForms:
        """MariaDB's normal forms: its sources set no option that changes an encoding."""
        changing = {"decimal.handling.mode", "binary.handling.mode", "time.precision.mode"}
        if changing & {name for name, _ in source.options}:
            raise ValueError(f"{source.database}: MariaDB's forms cover the default modes only")
        return self.forms


def real_database(server: PostgresServer | MariaDbServer) -> RealDatabase:
    """The adapter of a server."""
    if isinstance(server, MariaDbServer):
        return MariaDbDatabase(server)
    return PostgresDatabase(server)

"""Simulation configuration."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

FLAVOURS: tuple[str, ...] = ("oracle", "sqlserver", "db2")
DECIMAL_HANDLING_MODES: tuple[str, ...] = ("precise", "double", "string")
TIME_PRECISION_MODES: tuple[str, ...] = ("adaptive", "connect")

DEFAULT_INITIAL_ROWS: Mapping[str, int] = {"customers": 20, "orders": 30, "order_lines": 40}


def _default_initial_rows() -> dict[str, int]:
    return dict(DEFAULT_INITIAL_ROWS)


@dataclass(frozen=True)
class SimConfig:
    """Everything that determines a simulation run (same config -> same output).

    ``schema`` is the logical source schema name; ``None`` means ``INVENTORY``, the schema
    the project's inventory contracts bind to (every flavour, SQL Server included: a
    ``dbo`` table is another application's). Emitters apply identifier case.

    ``decimal_handling_mode`` and ``time_precision_mode`` are the connector settings of the
    same names. ``time_precision_mode="connect"`` needs ``schemas_enable``: without the
    schema a consumer cannot tell Kafka Connect milliseconds from the adaptive mode's
    micro- or nanoseconds of the same column (the decimal modes it can tell by the value).
    """

    seed: int = 1
    flavour: str = "oracle"
    database: str = "SIMDB1"
    server: str = "sim1"
    schema: str | None = None
    initial_rows: Mapping[str, int] = field(default_factory=_default_initial_rows)
    transactions: int = 60
    batches: int = 2
    schemas_enable: bool = False
    tombstones: bool = True
    truncate_probability: float = 0.02
    pk_change_probability: float = 0.05
    # --- event-stream options (Debezium connector settings and workload events) ---
    snapshot_style: str | None = None
    """``source.snapshot`` form: ``"string"`` ("true"/"last"/"false"), ``"boolean"``
    (true/false), or None for the flavour default (string snapshot markers; streaming
    ``false`` as a boolean on Oracle/Db2, ``"false"`` on SQL Server)."""
    transaction_metadata: bool | None = None
    """``provide.transaction.metadata``: True writes the ``<server>.transaction`` topic
    (BEGIN/END) and the ``transaction`` block; False neither (block null); None only the
    block (the simulator's historical default)."""
    schema_change_topic: bool = False
    """Write the ``<server>`` schema-change topic (CREATE per table, then each ALTER)."""
    incremental_snapshot_batches: tuple[int, ...] = ()
    """Batches in which a signal starts an incremental snapshot of every table."""
    incremental_chunk_size: int = 8
    resnapshot_batch: int | None = None
    """Batch that starts after an outage of capture: while the connector was down the
    source deleted ``resnapshot_deletes`` rows of every table (never captured), then a new
    blocking snapshot of every table was taken (reads at one position, the last one
    ``last``) before streaming resumed."""
    resnapshot_deletes: int = 4
    resnapshot_complete: bool = True
    """False: the re-snapshot stops a third before its end and never sends ``last``."""
    evolve_batch: int | None = None
    """Batch in which ``customers`` gains a column and ``orders`` loses one."""
    table_names: Mapping[str, str] = field(default_factory=dict)
    """Logical table -> physical table name (e.g. a table no contract declares)."""
    decimal_handling_mode: str = "precise"
    time_precision_mode: str = "adaptive"

    def __post_init__(self) -> None:
        if self.flavour not in FLAVOURS:
            raise ValueError(f"flavour must be one of {FLAVOURS}, got {self.flavour!r}")
        if self.transactions < 0 or self.batches < 0:
            raise ValueError("transactions and batches must be >= 0")
        if not 0.0 <= self.truncate_probability <= 1.0:
            raise ValueError("truncate_probability must be within [0, 1]")
        if not 0.0 <= self.pk_change_probability <= 1.0:
            raise ValueError("pk_change_probability must be within [0, 1]")
        if self.snapshot_style not in (None, "string", "boolean"):
            raise ValueError("snapshot_style must be None, 'string' or 'boolean'")
        if self.incremental_chunk_size < 1:
            raise ValueError("incremental_chunk_size must be >= 1")
        if self.resnapshot_batch is not None and not 0 < self.resnapshot_batch < self.batches:
            raise ValueError("resnapshot_batch must name a batch after the first")
        if self.resnapshot_deletes < 0:
            raise ValueError("resnapshot_deletes must be >= 0")
        if self.evolve_batch is not None and not 0 <= self.evolve_batch < max(self.batches, 1):
            raise ValueError("evolve_batch must name one of the batches")
        if any(n < 0 for n in self.initial_rows.values()):
            raise ValueError("initial_rows must be >= 0")
        if self.decimal_handling_mode not in DECIMAL_HANDLING_MODES:
            raise ValueError(f"decimal_handling_mode must be one of {DECIMAL_HANDLING_MODES}")
        if self.time_precision_mode not in TIME_PRECISION_MODES:
            raise ValueError(f"time_precision_mode must be one of {TIME_PRECISION_MODES}")
        if self.time_precision_mode == "connect" and not self.schemas_enable:
            raise ValueError(
                "time_precision_mode='connect' needs schemas_enable=True: without the schema "
                "its milliseconds cannot be told from the adaptive mode's micro/nanoseconds"
            )

    @property
    def logical_schema(self) -> str:
        """The source schema name as configured, or ``INVENTORY``."""
        if self.schema is not None:
            return self.schema
        return "INVENTORY"

    @property
    def sync_sources(self) -> tuple[str, ...]:
        """Glob patterns of the sync sources (stg_cdc__sync_progress.sync_source) of the
        topics the simulation writes: ``<server>`` (schema changes) and ``<server>.*``
        (tables, transaction metadata). Its event times replay a past, so a build that loads
        it lists these in the var ``cdc_replayed_sources`` (``make demo``)."""
        return (self.server, f"{self.server}.*")

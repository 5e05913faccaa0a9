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

    ``schema`` is the logical source schema name; ``None`` means the flavour default
    (``INVENTORY`` for oracle/db2, ``dbo`` for sqlserver). Emitters apply identifier case.

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
        """The source schema name as configured, or the flavour default."""
        if self.schema is not None:
            return self.schema
        return "dbo" if self.flavour == "sqlserver" else "INVENTORY"

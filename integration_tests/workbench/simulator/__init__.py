"""Deterministic simulator of a relational source DB captured by Debezium.

* :mod:`.source_db` - logical source DB, random workload, expected-state oracle.
* :mod:`.debezium` - Debezium relational emitter (``oracle``, ``sqlserver``, ``db2``).
* :mod:`.landing` - landing files (Kafka Connect sink layout or ``kcat -J`` lines).
* :mod:`.alibaba_source`, :mod:`.dataworks`, :mod:`.canal`, :mod:`.maxwell`, :mod:`.ogg`,
  :mod:`.alibaba_sim` - a MySQL-like source captured by Alibaba DataWorks real-time sync,
  Canal JSON, Maxwell's daemon or Oracle GoldenGate's JSON formatter, with its own oracle.

>>> result = simulate(SimConfig(seed=1, flavour="oracle", schemas_enable=True))
>>> result.batches[0][0].topic
'sim1.INVENTORY.CUSTOMERS'
"""

from .alibaba_sim import (
    AlibabaSimResult,
    ExpectedTable,
    simulate_canal,
    simulate_dataworks,
    simulate_maxwell,
    simulate_ogg,
    write_expected_json,
)
from .alibaba_source import AlibabaSimConfig
from .config import FLAVOURS, SimConfig
from .dataworks import DataWorksOptions, Heartbeat
from .debezium import DebeziumEmitter, Message, column_encoding, encode_decimal
from .expected import consumer_row, consumer_state, consumer_value
from .landing import FORMATS, write_batch
from .schema import TABLES, ColumnSpec, TableSpec, ZonedValue
from .simulation import BatchResult, SimResult, iter_simulation, simulate
from .source_db import (
    Change,
    SourceDatabase,
    Transaction,
    state_to_jsonable,
    write_expected,
)

__all__ = [
    "FLAVOURS",
    "FORMATS",
    "TABLES",
    "AlibabaSimConfig",
    "AlibabaSimResult",
    "DataWorksOptions",
    "ExpectedTable",
    "Heartbeat",
    "BatchResult",
    "Change",
    "ColumnSpec",
    "DebeziumEmitter",
    "Message",
    "SimConfig",
    "SimResult",
    "SourceDatabase",
    "TableSpec",
    "Transaction",
    "ZonedValue",
    "column_encoding",
    "consumer_row",
    "consumer_state",
    "consumer_value",
    "encode_decimal",
    "iter_simulation",
    "simulate",
    "simulate_canal",
    "simulate_dataworks",
    "simulate_maxwell",
    "simulate_ogg",
    "state_to_jsonable",
    "write_batch",
    "write_expected",
    "write_expected_json",
]

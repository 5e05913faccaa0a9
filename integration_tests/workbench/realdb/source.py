"""A captured database as the real pipeline sees it: its landing form and connector options.

Shared by workbench.realdb.pipeline and workbench.realdb.databases (which reads a source's
options to configure its connector).
"""

from __future__ import annotations

from dataclasses import dataclass

# the landing form of Avro and Parquet sink files (Source.landing_format)
AVRO_PARQUET = "avro_parquet"


@dataclass(frozen=True)
class Source:
    """One captured database: JsonConverter schemas on or off, landed as Kafka Connect sink
    files (`sink`: one value per line) or `kcat -J` records (`kcat`: keys kept), or produced
    to a Kafka broker (`kafka`: nothing lands, bronze reads the topics), or landed as the S3
    sink's Avro and Parquet files (`avro_parquet`: the sink files, schemas on, are captured
    aside and each is written again as AvroFormat or ParquetFormat write it, the two by turns,
    codecs varied: workbench.realdb.sink_formats). `options`: connector properties of this
    source over the database's defaults, (name, value) pairs (e.g. `decimal.handling.mode`,
    `transforms`), as a user adds them to the connector's settings. `typed`: the tables whose
    typed models are scaffolded from it (schemas on; None: every keyed table)."""

    database: str
    schemas: bool
    landing_format: str
    options: tuple[tuple[str, str], ...] = ()
    typed: tuple[str, ...] | None = None

    @property
    def flattened(self) -> bool:
        """Its records pass Debezium's ExtractNewRecordState transform (alias `unwrap`)."""
        return dict(self.options).get("transforms.unwrap.type") == FLATTEN


FLATTEN = "io.debezium.transforms.ExtractNewRecordState"


def flattened_options(
    add_fields: str, mode: str, keyless: str, add_headers: str = ""
) -> tuple[tuple[str, str], ...]:
    """The connector properties of the transform, as a user adds them (`add_headers`: the
    transform's `add.headers`, none when empty), and the keyless table left out (`keyless`,
    table.exclude.list): a flattened row carries no `before`, so a row without a key cannot
    be found again (docs/formats.md: `flattened_without_key`)."""
    headers = (("transforms.unwrap.add.headers", add_headers),) if add_headers else ()
    return (
        ("table.exclude.list", keyless),
        ("transforms", "unwrap"),
        ("transforms.unwrap.type", FLATTEN),
        ("transforms.unwrap.add.fields", add_fields),
        *headers,
        ("transforms.unwrap.delete.tombstone.handling.mode", mode),
    )

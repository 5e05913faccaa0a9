"""End to end: compressed landing files reach gold as their plain twins do.

Kafka Connect's S3, GCS and HDFS sinks write `<topic>+<partition>+<offset>.json.gz` when
compression is on. Three simulated SQL Server sources of the same workload (same seed, own
database and server names) land each batch as Kafka Connect sink files: one plain, one
gzip-compressed (`.json.gz`), one bzip2-compressed (`.json.bz2`). After each batch (the
second read incrementally, by the new-files path of bronze), every twin's gold must equal
its simulated source, and bronze must hold each compressed file's lines as the file holds
them once decompressed: every line in order (`_source_line` 1..n, the offset its file name
starts at plus its line), its text unchanged, valid UTF-8, nothing quarantined.

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `compressed/` of the stream's landing folder.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import BATCHES, Part, register
from tests.e2e.test_simulated_sources import _assert_gold_matches
from workbench.simulator import SimConfig, SimResult, simulate, write_batch

pytestmark = pytest.mark.spark

PART = "compressed"
# twin -> how its files are written: plain, or compressed under an added extension
COMPRESSORS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "plain": ("", lambda data: data),
    "gzip": (".gz", gzip.compress),
    "bzip2": (".bz2", bz2.compress),
}


def _config(twin: str) -> SimConfig:
    return SimConfig(
        seed=610,
        flavour="sqlserver",
        database=f"CZ_{twin.upper()}",
        server=f"cz_{twin}",
        schemas_enable=True,
        batches=2,
        transactions=30,
    )


@functools.cache
def _simulations() -> dict[str, SimResult]:
    return {twin: simulate(_config(twin)) for twin in COMPRESSORS}


def _land(step: str, folder: Path) -> None:
    """Each twin's batch as Kafka Connect sink files, compressed as the twin says."""
    if step not in BATCHES:
        return
    batch = BATCHES[step]
    for twin, result in _simulations().items():
        suffix, compress = COMPRESSORS[twin]
        with tempfile.TemporaryDirectory() as plain:
            for written in write_batch(result.batches[batch], plain, batch, "value_lines"):
                target = folder / result.config.database / written.relative_to(plain)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.with_name(target.name + suffix).write_bytes(compress(written.read_bytes()))


register(Part(PART, land=_land, databases=tuple(_config(twin).database for twin in COMPRESSORS)))


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


def _assert_every_twin_equals_its_source(dbt_project: DbtProject, batch: int) -> None:
    _assert_gold_matches(
        dbt_project, [(result, "value_lines") for result in _simulations().values()], batch
    )


def _assert_bronze_holds_the_decompressed_lines(dbt_project: DbtProject) -> None:
    """Every compressed file's lines in bronze: in order, with their offsets, unchanged."""
    landing = dbt_project.landing / PART
    bronze = dbt_project.layer("bronze")
    rows = dbt_project.sql(
        f"select _source_file, _source_line, _kafka_offset, raw_line, _is_valid_utf8 "
        f"from {bronze}.bronze_cdc_messages "
        f"where _source_file like '{dbt_project.landed_under(PART)}'"
    )
    got: dict[str, list[tuple[int, int, str, bool]]] = {}
    for row in rows:
        name = str(row["_source_file"]).split(f"/{PART}/", 1)[1]
        got.setdefault(name, []).append(
            (row["_source_line"], row["_kafka_offset"], row["raw_line"], row["_is_valid_utf8"])
        )
    expected: dict[str, list[tuple[int, int, str, bool]]] = {}
    compressed = 0
    for path in sorted(landing.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data, compressed = gzip.decompress(data), compressed + 1
        elif path.suffix == ".bz2":
            data, compressed = bz2.decompress(data), compressed + 1
        match = re.search(r"\+(\d+)\.json", path.name)
        assert match, path.name
        lines = data.decode("utf-8").split("\n")
        assert lines[-1] == "", f"{path.name}: no newline at its end"
        expected[str(path.relative_to(landing))] = [
            (index, int(match.group(1)) + index - 1, line, True)
            for index, line in enumerate(lines[:-1], start=1)
        ]
    assert compressed >= 4, "the workload lands too few compressed files"
    assert {name: sorted(lines) for name, lines in got.items()} == expected


@pytest.mark.stream("batch0")
def test_compressed_twins_equal_their_sources_after_the_first_batch(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_bronze_holds_the_decompressed_lines(dbt_project)
    _assert_every_twin_equals_its_source(dbt_project, 0)


@pytest.mark.stream("batch1")
def test_compressed_twins_equal_their_sources_after_an_incremental_batch(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_bronze_holds_the_decompressed_lines(dbt_project)
    _assert_every_twin_equals_its_source(dbt_project, 1)
    silver = dbt_project.layer("silver")
    [row] = dbt_project.sql(
        f"select count(*) as quarantined from {silver}.cdc_quarantine "
        f"where _source_file like '{dbt_project.landed_under(PART)}'"
    )
    assert row["quarantined"] == 0

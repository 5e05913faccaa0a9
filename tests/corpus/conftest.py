"""The corpus modules' shared warehouses (tests/corpus/shared.py), built once per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.corpus.shared import Warehouse, build_a, build_b


@pytest.fixture(scope="session")
def corpus_a(spark, corpus_dir: Path, tmp_path_factory) -> Iterator[Warehouse]:  # type: ignore[no-untyped-def]
    """DataWorks, Canal/Maxwell/OGG, payload-only Debezium, Transferia and the vendor
    documents' examples: 4 steps, a `dbt run` each (`dbt build` the last)."""
    warehouse = build_a(spark, corpus_dir, tmp_path_factory.mktemp("corpus_a"))
    yield warehouse
    warehouse.project.drop_schemas()


@pytest.fixture(scope="session")
def corpus_b(spark, corpus_dir: Path, tmp_path_factory) -> Iterator[Warehouse]:  # type: ignore[no-untyped-def]
    """The wrapped Debezium fixtures and the MongoDB fixtures: 3 steps, a `dbt run` each
    (`dbt build` the last)."""
    warehouse = build_b(spark, corpus_dir, tmp_path_factory.mktemp("corpus_b"))
    yield warehouse
    warehouse.project.drop_schemas()

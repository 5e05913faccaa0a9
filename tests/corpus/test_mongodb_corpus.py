"""Real Debezium MongoDB events from other projects' test suites (../shared/corpus).

One test per fixture. The fixtures' events land step by step in one landing folder (their
collections do not collide), `dbt build` runs after each step, and `captured_rows` must
hold each fixture's published checkpoint after that step and its expected final state:
the current document of every live key, compared value by value with JSON types (1, 1.0
and "1" differ). The corpus is read in place; nothing is copied into the repo.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import gold_rows, kcat_line, quarantine_rows, typed

pytestmark = pytest.mark.spark

ZEROMICRO = "zeromicro-cds__debezium-mongodb-oplog-patch-filter"
PAIMON = "paimon__debezium-bson-event"
PAIMON_FILES = ("event-insert.txt", "event-update.txt", "event-delete.txt")
RISINGWAVE = "risingwave__debezium_mongo_json_customers.1"
RISINGWAVE_NO_SCHEMA = "risingwave__debezium_mongo_json_customers_no_schema_field.1"
STEPS = 3
# fixture -> (reason code, why): nothing here is expected to be unreadable
EXPECTED_QUARANTINE: dict[str, tuple[str, str]] = {}


def _records(path: Path) -> list[str]:
    """The JSON lines of a fixture file (the Paimon files open with a licence comment)."""
    return [line for line in path.read_text().splitlines() if line.lstrip().startswith("{")]


def _state(project: DbtProject, expected: dict[str, dict]) -> dict[str, object]:
    """captured_rows of the tables of `expected`, as {table: {key JSON: typed document}}."""
    state: dict[str, object] = {}
    for table, spec in expected.items():
        rows = gold_rows(project, table)
        state[table] = {
            json.dumps({k: row[k] for k in spec["key_columns"]}, sort_keys=True): typed(row)
            for row in rows
        }
    return state


def _wanted(expected: dict[str, dict]) -> dict[str, object]:
    return {
        table: {
            json.dumps({k: row[k] for k in spec["key_columns"]}, sort_keys=True): typed(row)
            for row in spec["rows"]
        }
        for table, spec in expected.items()
    }


def _checkpoints(corpus: Path, fixture: str) -> dict[str, dict]:
    return json.loads((corpus / f"{fixture}.checkpoints.json").read_text())


def _expected(corpus: Path, fixture: str) -> dict[str, dict]:
    stem = fixture.removesuffix(".jsonl")
    return json.loads((corpus / f"{stem}.expected.json").read_text())


@pytest.fixture(scope="module")
def stepped(spark, corpus_dir: Path, tmp_path_factory) -> Iterator[dict[str, list]]:  # type: ignore[no-untyped-def]
    """Land the fixtures in three steps, build after each, and keep captured_rows."""
    base = tmp_path_factory.mktemp("mongodb_corpus")
    project = DbtProject(
        spark=spark,
        schema="t_corpus_mongodb",
        landing=base / "landing",
        target_path=base / "target",
    )
    project.landing.mkdir()
    project.drop_schemas()
    zeromicro = _records(corpus_dir / f"{ZEROMICRO}.jsonl")
    assert len(zeromicro) == STEPS
    wanted = {
        ZEROMICRO: _expected(corpus_dir, ZEROMICRO),
        PAIMON: _expected(corpus_dir, PAIMON),
        RISINGWAVE: _expected(corpus_dir, RISINGWAVE),
    }
    states: dict[str, list] = {fixture: [] for fixture in wanted}
    offset = 0
    for step in range(STEPS):
        (project.landing / f"{ZEROMICRO}-{step}.json").write_text(zeromicro[step] + "\n")
        pairs = _records(corpus_dir / PAIMON / PAIMON_FILES[step])
        lines = []
        for key, value in zip(pairs[0::2], pairs[1::2], strict=True):
            lines.append(kcat_line("paimon_bson", offset, key, value))
            offset += 1
        (project.landing / f"{PAIMON}-{step}.jsonl").write_text("\n".join(lines) + "\n")
        if step == 0:
            shutil.copy(corpus_dir / RISINGWAVE, project.landing / RISINGWAVE)
        project.run("build")
        for fixture, expected in wanted.items():
            states[fixture].append(_state(project, expected))
    states["quarantine"] = quarantine_rows(project)
    yield states
    project.drop_schemas()


@pytest.mark.parametrize("fixture", [f"{ZEROMICRO}.jsonl"])
def test_zeromicro_oplog_patch_and_filter(stepped, corpus_dir: Path, fixture: str) -> None:  # type: ignore[no-untyped-def]
    """Oplog era: c, then a `$set` patch folded onto the document, then a delete by filter."""
    checkpoints = _checkpoints(corpus_dir, ZEROMICRO)
    for step in range(STEPS):
        assert stepped[ZEROMICRO][step] == _wanted(checkpoints[f"after_event_{step + 1}"]), step
    assert stepped[ZEROMICRO][-1] == _wanted(_expected(corpus_dir, ZEROMICRO))


@pytest.mark.parametrize("fixture", [PAIMON])
def test_paimon_change_streams_bson_events(stepped, corpus_dir: Path, fixture: str) -> None:  # type: ignore[no-untyped-def]
    """Change streams (Debezium 2.7): key and value lines, updates with full documents, and
    three encodings of a delete (one for a string `_id` that is another document)."""
    checkpoints = _checkpoints(corpus_dir, PAIMON)
    for step, name in enumerate(PAIMON_FILES):
        assert stepped[PAIMON][step] == _wanted(checkpoints[f"after_{name}"]), name
    assert stepped[PAIMON][-1] == _wanted(_expected(corpus_dir, PAIMON))


@pytest.mark.parametrize("fixture", [RISINGWAVE])
def test_risingwave_snapshot_with_schema(stepped, corpus_dir: Path, fixture: str) -> None:  # type: ignore[no-untyped-def]
    for state in stepped[RISINGWAVE]:
        assert state == _wanted(_expected(corpus_dir, RISINGWAVE))


def test_nothing_is_quarantined(stepped) -> None:  # type: ignore[no-untyped-def]
    """Nothing of the MongoDB fixtures is quarantined: the fixtures hold no bad message."""
    assert stepped["quarantine"] == []


@pytest.mark.parametrize("fixture", [RISINGWAVE_NO_SCHEMA])
def test_risingwave_snapshot_without_schema(
    spark, corpus_dir: Path, tmp_path: Path, fixture: str
) -> None:  # type: ignore[no-untyped-def]
    project = DbtProject(
        spark=spark,
        schema="t_corpus_mongodb_payload",
        landing=tmp_path / "landing",
        target_path=tmp_path / "target",
    )
    project.landing.mkdir()
    project.drop_schemas()
    shutil.copy(corpus_dir / RISINGWAVE_NO_SCHEMA, project.landing / RISINGWAVE_NO_SCHEMA)
    project.run("build")
    expected = _expected(corpus_dir, RISINGWAVE_NO_SCHEMA)
    assert _state(project, expected) == _wanted(expected)
    project.drop_schemas()

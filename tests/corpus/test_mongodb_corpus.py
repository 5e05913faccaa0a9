"""Real Debezium MongoDB events from other projects' test suites (../shared/corpus).

One test per fixture. The fixtures' events land step by step in the corpus modules'
shared warehouse `corpus_b` (tests/corpus/shared.py; their collections do not collide with
each other nor with the wrapped Debezium fixtures there), `dbt build` runs after each step,
and `captured_rows` must hold each fixture's published checkpoint after that step and its
expected final state: the current document of every live key, compared value by value with
JSON types (1, 1.0 and "1" differ). The corpus is read in place; nothing is copied into the
repo.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import gold_state, quarantine_rows, typed
from tests.corpus.shared import MONGODB, MONGODB_STEPS, RISINGWAVE, ZEROMICRO, Warehouse
from tests.corpus.shared import PAIMON_BSON as PAIMON
from tests.corpus.shared import PAIMON_BSON_FILES as PAIMON_FILES

pytestmark = pytest.mark.spark

RISINGWAVE_NO_SCHEMA = "risingwave__debezium_mongo_json_customers_no_schema_field.1"
STEPS = MONGODB_STEPS
# fixture -> (reason code, why): nothing here is expected to be unreadable
EXPECTED_QUARANTINE: dict[str, tuple[str, str]] = {}


def _state(rows: dict[str, list[dict]], expected: dict[str, dict]) -> dict[str, object]:
    """captured_rows of the tables of `expected` (`gold_state`), as {table: {key JSON:
    typed document}}."""
    state: dict[str, object] = {}
    for table, spec in expected.items():
        state[table] = {
            json.dumps({k: row[k] for k in spec["key_columns"]}, sort_keys=True): typed(row)
            for row in rows[table]
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
def stepped(corpus_b: Warehouse, corpus_dir: Path) -> dict[str, list]:
    """captured_rows of each fixture after each of `corpus_b`'s three steps, and the
    quarantined messages of the MongoDB fixtures' files."""
    states: dict[str, list] = {}
    for fixture in (ZEROMICRO, PAIMON, RISINGWAVE):
        expected = _expected(corpus_dir, fixture)
        states[fixture] = [
            _state(corpus_b.state([*expected], step), expected) for step in range(STEPS)
        ]
    states["quarantine"] = [
        q for q in quarantine_rows(corpus_b.project) if f"/{MONGODB}/" in q["_source_file"]
    ]
    return states


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
    """A build of its own: its collection is the one of the file with a schema (in
    `corpus_b`), and `corpus_a`'s declared key `customers` would key it. It builds what
    the check reads, captured_rows and what feeds it, with their data tests."""
    project = DbtProject(
        spark=spark,
        schema="t_corpus_mongodb_payload",
        landing=tmp_path / "landing",
        target_path=tmp_path / "target",
    )
    project.landing.mkdir()
    project.drop_schemas()
    shutil.copy(corpus_dir / RISINGWAVE_NO_SCHEMA, project.landing / RISINGWAVE_NO_SCHEMA)
    project.run("build", "--select", "+captured_rows", "--indirect-selection", "cautious")
    expected = _expected(corpus_dir, RISINGWAVE_NO_SCHEMA)
    assert _state(gold_state(project, expected), expected) == _wanted(expected)
    project.drop_schemas()

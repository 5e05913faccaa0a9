"""Real Debezium relational events from other projects' test suites (../shared/corpus).

Each fixture's events land in a temporary landing folder (the corpus itself is read in
place and never copied into the repo), the pipeline runs, and `captured_rows` must hold
exactly the fixture's expected final state: the raw last row image of every live key.
Keys are declared the way a user would for value-only files (the dbt var cdc_table_keys),
from the fixture's `key_columns`. Envelopes this project does not read yet (MongoDB,
DataWorks, canal, maxwell, OGG) are not run here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import (
    by_key,
    corpus_project,
    gold_rows,
    kcat_line,
    quarantine_rows,
)

pytestmark = pytest.mark.spark

# Fixtures whose tables do not collide share one build.
SNAPSHOT_AND_STREAM = [
    "flink__debezium-data-schema-include.txt",
    "flink__debezium-postgres-data-schema-include.txt",
    "paimon__debezium-alltype-mysql.txt",
    "seatunnel__debezium-oracle.txt",
    "seatunnel__debezium-sqlserver.txt",
]
PAYLOAD_ONLY = [
    "flink__debezium-data-schema-exclude.txt",
    "flink__debezium-postgres-data-replica-identity.txt",
]
KEY_VALUE_DIRS = [
    "transferia__pg2mock-debezium-replication",
    "transferia__mysql2mock-debezium-replication",
]


def _expected(corpus: Path, fixture: str) -> dict[str, dict]:
    stem = fixture.removesuffix(".txt").removesuffix(".jsonl")
    return json.loads((corpus / f"{stem}.expected.json").read_text())


def _table_keys(expectations: list[dict[str, dict]]) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for expected in expectations:
        for table, spec in expected.items():
            keys[table.rsplit(".", 1)[-1].lower()] = spec["key_columns"]
    return keys


def _assert_state(project: DbtProject, expected: dict[str, dict], ignore: set[str] = frozenset()):  # type: ignore[assignment]
    for table, spec in expected.items():
        actual = by_key(gold_rows(project, table), spec["key_columns"])
        wanted = by_key(spec["rows"], spec["key_columns"])
        assert actual.keys() == wanted.keys(), f"{table}: keys differ"
        for key, row in wanted.items():
            got = {c: v for c, v in actual[key].items() if c not in ignore}
            assert got == {c: v for c, v in row.items() if c not in ignore}, f"{table} {key}"


def test_snapshots_and_streams_with_schema(spark, corpus_dir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    project = corpus_project(spark, tmp_path, "wrapped")
    for fixture in SNAPSHOT_AND_STREAM:
        shutil.copy(corpus_dir / fixture, project.landing / fixture)
    expectations = [_expected(corpus_dir, f) for f in SNAPSHOT_AND_STREAM]
    project.run("run", vars={"cdc_table_keys": _table_keys(expectations)})
    for expected in expectations:
        _assert_state(project, expected)
    # The Apache licence header of the Paimon file is not CDC: quarantined, line by line.
    quarantined = quarantine_rows(project)
    assert quarantined, "the licence header lines must be quarantined, not dropped"
    assert {q["reason_code"] for q in quarantined} == {"malformed_json"}
    assert all(
        q["_source_file"].endswith("paimon__debezium-alltype-mysql.txt") for q in quarantined
    )
    assert all(q["raw_line"].lstrip().startswith(("/*", "*")) for q in quarantined)
    project.drop_schemas()


def test_payload_only_and_replica_identity_default(spark, corpus_dir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    project = corpus_project(spark, tmp_path, "payload")
    for fixture in PAYLOAD_ONLY:
        shutil.copy(corpus_dir / fixture, project.landing / fixture)
    expectations = [_expected(corpus_dir, f) for f in PAYLOAD_ONLY]
    project.run("run", vars={"cdc_table_keys": _table_keys(expectations)})
    _assert_state(project, expectations[0])
    # REPLICA IDENTITY DEFAULT: the final delete has neither before nor a message key, so
    # the pipeline cannot know which row it deletes. It must say so, not guess: the delete
    # is quarantined as delete_without_key and key 111 stays ("needs key").
    [replica] = [e for f, e in zip(PAYLOAD_ONLY, expectations, strict=True) if "replica" in f]
    table, spec = next(iter(replica.items()))
    actual = by_key(gold_rows(project, table), spec["key_columns"])
    wanted = by_key(spec["rows"], spec["key_columns"])
    assert set(actual) - set(wanted) == {("111",)}
    assert all(actual[key] == row for key, row in wanted.items())
    quarantined = quarantine_rows(project)
    assert [q["reason_code"] for q in quarantined] == ["delete_without_key"]
    assert quarantined[0]["_source_file"].endswith("replica-identity.txt")
    project.drop_schemas()


def test_key_value_messages_incrementally(spark, corpus_dir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Transferia's key+value captures, as kcat records, loaded in steps to check checkpoints."""
    project = corpus_project(spark, tmp_path, "keyvalue")
    steps = [(0, 2), (3, 5), (6, 7)]
    checkpoints = {2: "after_msg_2", 5: "after_msg_5"}
    for first, last in steps:
        for fixture in KEY_VALUE_DIRS:
            folder = corpus_dir / fixture
            lines = []
            for index in range(first, last + 1):
                value_file = folder / f"debezium_msg_{index}_val.txt"
                key = (folder / f"debezium_msg_{index}_key.txt").read_text().strip()
                value = value_file.read_text().strip() if value_file.exists() else None
                lines.append(kcat_line(fixture, index, key, value))
            (project.landing / f"{fixture}-{first}.jsonl").write_text("\n".join(lines) + "\n")
        project.run("run")
        for fixture in KEY_VALUE_DIRS:
            stem = corpus_dir / f"{fixture}.checkpoints.json"
            if last in checkpoints:
                expected = json.loads(stem.read_text())[checkpoints[last]]
                # PostgreSQL sends unchanged TOAST columns as a placeholder: after msg 2 and
                # after the primary-key change of msg 5, `t` must be the text carried over.
                _assert_state(project, expected)
            else:
                _assert_state(project, _expected(corpus_dir, fixture))
    assert quarantine_rows(project) == []
    project.drop_schemas()

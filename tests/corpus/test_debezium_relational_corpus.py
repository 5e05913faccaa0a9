"""Real Debezium relational events from other projects' test suites (../shared/corpus).

One test per fixture (its id is the fixture's file or folder name). Fixtures whose tables
do not collide share one landing folder and one `dbt build` (data tests included); each
test then compares `captured_rows` with its fixture's expected final state strictly: the
raw last row image of every live key, with JSON types (`1`, `1.0`, `"1"` and `true`
differ). Keys are declared the way a user would for value-only files (the dbt var
cdc_table_keys), from the fixture's `key_columns`. A fixture the pipeline cannot fully
read is listed in EXPECTED_QUARANTINE with the reason, and its test checks exactly that
outcome. The corpus is read in place and never copied into the repo.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import (
    assert_strict_state,
    assert_strict_tables,
    corpus_project,
    gold_state,
    kcat_line,
    quarantine_rows,
)

pytestmark = pytest.mark.spark

# Fixtures whose tables do not collide share one build.
WRAPPED = [
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
REPLICA_IDENTITY = "flink__debezium-postgres-data-replica-identity.txt"
# fixture -> (reason code, why): what the pipeline cannot read in it, on purpose
EXPECTED_QUARANTINE = {
    REPLICA_IDENTITY: (
        "delete_without_key",
        "REPLICA IDENTITY DEFAULT: the final delete (line 16) has neither `before` nor "
        "`after` and the file carries no Kafka key, so the deleted key (111) cannot be "
        "known; it is quarantined and 111 keeps its last image",
    ),
}
# Transferia's key+value captures land in steps (first, last message index); the state
# after each step is kept to compare with the published checkpoints.
KEY_VALUE_STEPS = [(0, 1), (2, 2), (3, 5), (6, 7)]


def _expected(corpus: Path, fixture: str) -> dict[str, dict]:
    stem = fixture.removesuffix(".txt").removesuffix(".jsonl")
    return json.loads((corpus / f"{stem}.expected.json").read_text())


def _table_keys(corpus: Path, fixtures: list[str]) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for fixture in fixtures:
        for table, spec in _expected(corpus, fixture).items():
            keys[table.rsplit(".", 1)[-1].lower()] = spec["key_columns"]
    return keys


def _landed(spark, corpus: Path, base: Path, name: str, fixtures: list[str]) -> DbtProject:  # type: ignore[no-untyped-def]
    project = corpus_project(spark, base, name)
    for fixture in fixtures:
        shutil.copy(corpus / fixture, project.landing / fixture)
    project.run("build", vars={"cdc_table_keys": _table_keys(corpus, fixtures)})
    return project


@pytest.fixture(scope="module")
def wrapped(spark, corpus_dir: Path, tmp_path_factory) -> Iterator[DbtProject]:  # type: ignore[no-untyped-def]
    project = _landed(spark, corpus_dir, tmp_path_factory.mktemp("wrapped"), "wrapped", WRAPPED)
    yield project
    project.drop_schemas()


@pytest.fixture(scope="module")
def key_value(spark, corpus_dir: Path, tmp_path_factory) -> Iterator[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Transferia's key+value captures as kcat records, built after each step, and the
    payload-only files (their tables do not collide) with the first step."""
    project = corpus_project(spark, tmp_path_factory.mktemp("keyvalue"), "keyvalue")
    for fixture in PAYLOAD_ONLY:
        shutil.copy(corpus_dir / fixture, project.landing / fixture)
    table_keys = _table_keys(corpus_dir, PAYLOAD_ONLY)
    tables = {f: list(_expected(corpus_dir, f)) for f in KEY_VALUE_DIRS}
    states: dict[str, object] = {f: {} for f in KEY_VALUE_DIRS}
    for first, last in KEY_VALUE_STEPS:
        for fixture in KEY_VALUE_DIRS:
            folder = corpus_dir / fixture
            lines = []
            for index in range(first, last + 1):
                value_file = folder / f"debezium_msg_{index}_val.txt"
                key = (folder / f"debezium_msg_{index}_key.txt").read_text().strip()
                value = value_file.read_text().strip() if value_file.exists() else None
                lines.append(kcat_line(fixture, index, key, value))
            (project.landing / f"{fixture}-{first}.jsonl").write_text("\n".join(lines) + "\n")
        project.run("build", vars={"cdc_table_keys": table_keys})
        for fixture in KEY_VALUE_DIRS:
            states[fixture][f"after_msg_{last}"] = gold_state(project, tables[fixture])  # type: ignore[index]
    states["quarantine"] = quarantine_rows(project)
    states["project"] = project
    yield states
    project.drop_schemas()


@pytest.fixture(scope="module")
def payload_only(key_value: dict[str, object]) -> DbtProject:
    return key_value["project"]  # type: ignore[return-value]


@pytest.mark.parametrize("fixture", WRAPPED)
def test_wrapped_fixture(wrapped: DbtProject, corpus_dir: Path, fixture: str) -> None:
    assert_strict_state(wrapped, _expected(corpus_dir, fixture))
    quarantined = [q for q in quarantine_rows(wrapped) if q["_source_file"].endswith(fixture)]
    if fixture == "paimon__debezium-alltype-mysql.txt":
        # The Apache licence header is not CDC: quarantined line by line, not dropped.
        assert quarantined, "the licence header lines must be quarantined, not dropped"
        assert {q["reason_code"] for q in quarantined} == {"malformed_json"}
        assert all(q["raw_line"].lstrip().startswith(("/*", "*")) for q in quarantined)
    else:
        assert quarantined == []


@pytest.mark.parametrize("fixture", PAYLOAD_ONLY)
def test_payload_only_fixture(payload_only: DbtProject, corpus_dir: Path, fixture: str) -> None:
    expected = _expected(corpus_dir, fixture)
    quarantined = [q for q in quarantine_rows(payload_only) if q["_source_file"].endswith(fixture)]
    if fixture not in EXPECTED_QUARANTINE:
        assert quarantined == []
        assert_strict_state(payload_only, expected)
        return
    # The pipeline cannot know which row the final delete removes: it must say so (one
    # quarantined message, that delete), not guess, and 111 keeps the last image the
    # file carries for it (line 15's `after`): the README's "needs key" outcome.
    reason, _ = EXPECTED_QUARANTINE[fixture]
    lines = (corpus_dir / fixture).read_text().splitlines()
    assert [(q["reason_code"], q["raw_line"]) for q in quarantined] == [(reason, lines[15])]
    last_111 = [json.loads(line)["after"] for line in lines[:15]]
    needs_key = [image for image in last_111 if image and image["id"] == 111][-1]
    for spec in expected.values():
        spec["rows"] = [*spec["rows"], needs_key]
    assert_strict_state(payload_only, expected)


@pytest.mark.parametrize("fixture", KEY_VALUE_DIRS)
def test_key_value_fixture(key_value: dict[str, object], corpus_dir: Path, fixture: str) -> None:
    """Checkpoints (PostgreSQL sends an unchanged TOAST column as a placeholder: after msg 2
    and after the primary-key change of msg 5, `t` must be the text carried over), then the
    final state; nothing is quarantined."""
    states = key_value[fixture]
    checkpoints = json.loads((corpus_dir / f"{fixture}.checkpoints.json").read_text())
    compared = 0
    for name, expected in checkpoints.items():
        if name.startswith("after_msg_"):
            assert name in states, f"no step ends at {name}"  # type: ignore[operator]
            assert_strict_tables(states[name], expected)  # type: ignore[index]
            compared += 1
    assert compared >= 2
    final = f"after_msg_{KEY_VALUE_STEPS[-1][1]}"
    assert_strict_tables(states[final], _expected(corpus_dir, fixture))  # type: ignore[index]
    assert [q for q in key_value["quarantine"] if fixture in q["_source_file"]] == []  # type: ignore[attr-defined]

"""Real Debezium relational events from other projects' test suites (../shared/corpus).

One test per fixture (its id is the fixture's file or folder name). The fixtures land in
the corpus modules' shared warehouses (tests/corpus/shared.py), whose builds run data
tests: the wrapped fixtures in `corpus_b`; the payload-only files and Transferia's
key+value captures (4 steps, checkpoints after each) in `corpus_a`, since flink's and
postgres' `products` are in both a wrapped and a payload-only file. Each test compares
`captured_rows` with its fixture's expected final state strictly: the raw last row image
of every live key, with JSON types (`1`, `1.0`, `"1"` and `true` differ), and scopes what
it counts to its fixture's files. Keys are declared the way a user would for value-only
files (the dbt var cdc_table_keys), from the fixture's `key_columns`. A fixture the
pipeline cannot fully read is listed in EXPECTED_QUARANTINE with the reason, and its test
checks exactly that outcome. The corpus is read in place and never copied into the repo.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import assert_strict_state, assert_strict_tables, quarantine_rows
from tests.corpus.shared import (
    KEY_VALUE_DIRS,
    KEY_VALUE_STEPS,
    PAYLOAD_ONLY,
    WRAPPED,
    Warehouse,
)
from tests.corpus.shared import expected_state as _expected

pytestmark = pytest.mark.spark

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


@pytest.fixture(scope="module")
def wrapped(corpus_b: Warehouse) -> DbtProject:
    """The wrapped fixtures, landed with `corpus_b`'s first step."""
    return corpus_b.project


@pytest.fixture(scope="module")
def key_value(corpus_a: Warehouse, corpus_dir: Path) -> dict[str, object]:
    """Transferia's key+value captures as kcat records, one file per step of `corpus_a`
    (the payload-only files land with its first step), and the state after each step."""
    states: dict[str, object] = {
        fixture: {
            f"after_msg_{last}": corpus_a.state([*_expected(corpus_dir, fixture)], step)
            for step, (_, last) in enumerate(KEY_VALUE_STEPS)
        }
        for fixture in KEY_VALUE_DIRS
    }
    states["quarantine"] = quarantine_rows(corpus_a.project)
    states["project"] = corpus_a.project
    return states


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

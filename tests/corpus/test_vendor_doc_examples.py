"""The example change events of the Debezium Oracle, SQL Server and Db2 documentation.

`tests/fixtures/vendor_docs/` holds one landing file per connector, extracted from the
vendor documents in `../shared/seeds` (its README says from which lines and what was
removed: callout numbers, line wrapping, `"schema": { ... }` placeholders). The files land
in three steps of the corpus modules' shared warehouse `corpus_a` (tests/corpus/shared.py:
the var `cdc_table_keys: customers` keys no other fixture's table there), one `dbt build`
(data tests included) after each; per connector,
`captured_rows` must then hold, compared strictly (every column, with its JSON type), the
state derived by hand from the events in source order after each step
(`*.checkpoints.json`) and at the end (`*.expected.json`): the SQL Server and Db2 examples
end with no row, so the steps before their delete are what a pipeline writing nothing
fails. Every message that carries a source block must name its connector, and what the
documents print as invalid JSON (the Db2 examples' trailing commas) must be quarantined
while the rest of the file loads. Every count is scoped to the connector's files.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import assert_strict_state, assert_strict_tables
from tests.corpus.shared import REPAIRED_STEPS, Warehouse
from tests.corpus.shared import VENDOR_DOCS as FIXTURES
from tests.corpus.shared import VENDOR_FILES as FILES
from tests.corpus.shared import VENDOR_STEPS as STEPS
from tests.corpus.shared import vendor_step_file as _step_file

pytestmark = pytest.mark.spark

# The Oracle document's create/update/delete examples carry no source.db/schema/table:
# their table comes from the value schema name `server1.DEBEZIUM.CUSTOMERS.Envelope` or the
# topic, so `captured_rows` names it `debezium.customers`. See the fixture README.


def _pad(scn: str) -> str:
    return scn.rjust(30, "0")


def _oracle_position(commit_scn: str, scn: str) -> str:
    # every example's redo record: rs_id "001234.00012345.0124" (each hex part padded to
    # 16), ssn 1 (20 digits), redo_thread 1 (10 digits)
    redo = "0000000000001234.0000000000012345.0000000000000124"
    return f"{_pad(commit_scn)}.{_pad(scn)}.{redo}.{1:020d}.{1:010d}"


def _checkpoints(connector: str) -> dict[str, dict]:
    stem = FILES[connector].removesuffix(".jsonl")
    return json.loads((FIXTURES / f"{stem}.checkpoints.json").read_text())


def _expected(connector: str) -> dict[str, dict]:
    stem = FILES[connector].removesuffix(".jsonl")
    return json.loads((FIXTURES / f"{stem}.expected.json").read_text())


@pytest.fixture(scope="module")
def stepped(corpus_a: Warehouse) -> dict[str, object]:
    """The shared project after its last step, and per connector the state after each of
    the three steps that land the vendor files (the Db2 create and update with their
    trailing commas removed first: `shared.repaired`)."""
    states = {
        connector: [corpus_a.state([*_expected(connector)], step) for step in range(3)]
        for connector in FILES
    }
    return {"project": corpus_a.project, "states": states}


@pytest.fixture(scope="module")
def project(stepped: dict[str, object]) -> DbtProject:
    return stepped["project"]  # type: ignore[return-value]


def _original_line(connector: str, source_file: str, line: int) -> int | None:
    """The document-file line of a landed (file, line), None for a repaired line."""
    for step in range(3):
        if source_file.endswith("/" + _step_file(connector, step)):
            if step in REPAIRED_STEPS.get(connector, ()):
                return None
            return STEPS[connector][step][0] + line - 1
    return None


def _messages(project: DbtProject, connector: str) -> dict[int, dict]:
    stem = FILES[connector].removesuffix(".jsonl")
    rows = project.sql(
        "select _source_file, _source_line, _cdc_message_kind, _cdc_error_reason, "
        "_cdc_connector, _cdc_op, _cdc_source_id, _cdc_key, _cdc_position "
        f"from {project.layer('silver')}.stg_cdc__messages "
        f"where _source_file like '%/{stem}%'"
    )
    by_line = {}
    for row in rows:
        line = _original_line(connector, str(row["_source_file"]), int(row["_source_line"]))
        if line is not None:
            assert line not in by_line, f"line {line} loaded twice"
            by_line[line] = row
    return by_line


def _quarantine(project: DbtProject, connector: str) -> dict[int, dict]:
    stem = FILES[connector].removesuffix(".jsonl")
    rows = project.sql(
        "select reason_code, _cdc_error_reason, _source_file, _source_line, raw_line "
        f"from {project.layer('silver')}.cdc_quarantine "
        f"where _source_file like '%/{stem}%'"
    )
    by_line = {}
    for row in rows:
        line = _original_line(connector, str(row["_source_file"]), int(row["_source_line"]))
        assert line is not None, f"a repaired line was quarantined: {row}"
        by_line[line] = row
    return by_line


@pytest.mark.parametrize("connector", list(FILES))
def test_captured_rows_equal_the_expected_state(project: DbtProject, connector: str) -> None:
    """The final state, every column compared with its JSON type."""
    assert_strict_state(project, _expected(connector))


@pytest.mark.parametrize("connector", list(FILES))
def test_checkpoints_after_each_step(stepped: dict[str, object], connector: str) -> None:
    """The state after each step equals the hand-derived checkpoint: a pipeline that
    writes nothing (or ignores updates) fails on the steps before the final delete."""
    checkpoints = _checkpoints(connector)
    states = stepped["states"][connector]  # type: ignore[index]
    names = [f"after_step_{step + 1}" for step in range(3)]
    assert [*checkpoints] == names
    assert checkpoints[names[-1]] == _expected(connector)
    assert any(spec["rows"] for step in names[:2] for spec in checkpoints[step].values())
    for step, name in enumerate(names):
        assert_strict_tables(states[step], checkpoints[name])


@pytest.mark.parametrize("connector", list(FILES))
def test_connector_is_detected_for_every_message_with_a_source(
    project: DbtProject, connector: str
) -> None:
    messages = _messages(project, connector)
    lines = (FIXTURES / FILES[connector]).read_text().splitlines()
    assert sorted(messages) == list(range(1, len(lines) + 1)), "one message per line"
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # unreadable: quarantined (test_db2_trailing_commas_are_quarantined)
        if "topic" in record:  # a kcat record: the message value is its payload
            record = json.loads(record["payload"]) if record["payload"] else None
        source = (record or {}).get("source") or {}
        if set(source) & {"connector", "scn", "commit_scn", "commit_lsn", "change_lsn"}:
            assert messages[number]["_cdc_connector"] == connector, f"line {number}"


def test_oracle_examples(project: DbtProject) -> None:
    messages = _messages(project, "oracle")
    # create, update, delete of ID 1004 (kcat records with the document's key), its tombstone
    assert [messages[n]["_cdc_op"] for n in (1, 2, 3)] == ["c", "u", "d"]
    assert {messages[n]["_cdc_key"] for n in (1, 2, 3)} == {'{"id":"1004"}'}
    # Source order is delete (SCN 2122184) < create (2122185) < update (2125544): not the
    # order of the document nor of the file.
    assert messages[3]["_cdc_position"] == _oracle_position("2122184", "2122184")
    assert messages[1]["_cdc_position"] == _oracle_position("2122185", "2122185")
    assert messages[2]["_cdc_position"] == _oracle_position("2125544", "2125544")
    assert messages[4]["_cdc_message_kind"] == "tombstone"
    # The truncate of another table (message key null) is applied as a change.
    truncate = messages[5]
    assert truncate["_cdc_message_kind"] == "change", truncate["_cdc_error_reason"]
    assert (truncate["_cdc_op"], truncate["_cdc_source_id"]) == (
        "t",
        "orclpdb1.debezium.test_table",
    )
    assert truncate["_cdc_position"] == _oracle_position("13271102", "13234397")
    assert 5 not in _quarantine(project, "oracle")


def test_sqlserver_examples(project: DbtProject) -> None:
    messages = _messages(project, "sqlserver")
    kinds = {n: m["_cdc_message_kind"] for n, m in messages.items()}
    assert kinds[1] == "schema_change"
    assert [kinds[n] for n in (2, 3, 4)] == ["change"] * 3
    assert [messages[n]["_cdc_op"] for n in (2, 3, 4)] == ["c", "u", "d"]
    assert {messages[n]["_cdc_key"] for n in (2, 3, 4)} == {'{"id":"1005"}'}
    assert {messages[n]["_cdc_source_id"] for n in (1, 2, 3, 4)} == {"testdb.dbo.customers"}
    assert [messages[n]["_cdc_position"] for n in (2, 3, 4)] == [
        "00000027:00000758:0005.00000027:00000758:0003.000000000000000001",
        "00000027:00000ac0:0007.00000027:00000ac0:0002.000000000000000002",
        "00000027:00000db0:0007.00000027:00000db0:0005.000000000000000001",
    ]
    assert (kinds[5], kinds[6]) == ("transaction", "transaction")
    # The incremental-snapshot and transaction-enrichment examples elide their source
    # block (`...`): a change without a position is ordered by arrival, but they name no
    # table (nor does a topic: they land as a plain file) and cannot be applied. Their
    # `ts_ms` (and `transaction.total_order`) are JSON strings, which must not make them
    # unreadable.
    quarantined = _quarantine(project, "sqlserver")
    assert sorted(quarantined) == [7, 8]
    for number in (7, 8):
        assert kinds[number] == "error"
        assert quarantined[number]["reason_code"] == "missing_table"


def test_db2_trailing_commas_are_quarantined(project: DbtProject) -> None:
    lines = (FIXTURES / FILES["db2"]).read_text().splitlines()
    quarantined = _quarantine(project, "db2")
    # The create (line 1) and the update (line 2) are printed with trailing commas.
    assert sorted(quarantined) == [1, 2]
    for number in (1, 2):
        row = quarantined[number]
        assert row["reason_code"] == "malformed_json", row["_cdc_error_reason"]
        assert row["_source_file"].endswith("/db2_examples.jsonl")
        assert row["raw_line"] == lines[number - 1]
    # The delete of the same file loads.
    delete = _messages(project, "db2")[3]
    assert delete["_cdc_message_kind"] == "change", delete["_cdc_error_reason"]
    assert (delete["_cdc_op"], delete["_cdc_key"]) == ("d", '{"id":"1005"}')
    assert delete["_cdc_source_id"] == "mydatabase.myschema.customers"
    assert delete["_cdc_position"] == "00000027:00000db0:0007.00000027:00000db0:0005"

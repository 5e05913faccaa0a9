"""Real DataWorks, Canal, Maxwell and OGG events from other projects' tests (../shared/corpus).

Each fixture lands in a temporary landing folder, `dbt build` runs (data tests included),
and `captured_rows` must hold exactly the fixture's expected final state: the raw last row
image of every live key, compared strictly (1, 1.0, "1" and true all differ: values are
compared as parsed JSON with their types, and numbers by their JSON text). Keys come from
the messages themselves (DataWorks `primaryKey`, Canal `pkNames`, Maxwell
`primary_key_columns`, OGG `primary_keys`): no key is declared for their tables, and the
project's own typed contracts bind other sources. They land in the shared warehouse
`corpus_a` (tests/corpus/shared.py: DataWorks one file per step, the formats with the first
step), whose declared keys name none of their tables; every count is scoped to their files.
With them land Maxwell records of the shape Maxwell's documentation gives, keyed by their
Kafka key only (`shared.MAXWELL_DOC`: Maxwell's default options).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import assert_strict_state, assert_strict_tables, quarantine_rows
from tests.corpus.shared import (
    DATAWORKS,
    DATAWORKS_ORDER,
    FORMATS,
    MAXWELL_DOC,
    MAXWELL_DOC_EXPECTED,
    Warehouse,
    expected_state,
)

pytestmark = pytest.mark.spark

# fixture -> (reason code, why): nothing here is expected to be unreadable
EXPECTED_QUARANTINE: dict[str, tuple[str, str]] = {}


@pytest.mark.parametrize("fixture", [DATAWORKS])
def test_dataworks_fixture_replayed_file_by_file(
    corpus_a: Warehouse, corpus_dir: Path, fixture: str
) -> None:
    """insert (full load, sequenceId -1), update in one message, delete of an unknown key:
    one file per step of `corpus_a` (file names sort in replay order), checkpoint after
    each step's build."""
    project = corpus_a.project
    checkpoints = json.loads((corpus_dir / f"{fixture}.checkpoints.json").read_text())
    expected = expected_state(corpus_dir, fixture)
    for step, name in enumerate(DATAWORKS_ORDER):
        assert_strict_tables(corpus_a.state([*expected], step), checkpoints[f"after_{name}"])
    assert_strict_state(project, expected)
    # The Apache licence header lines are not CDC: quarantined, nothing else is.
    files = project.landed_under(DATAWORKS)
    quarantined = [q for q in quarantine_rows(project) if f"/{DATAWORKS}/" in q["_source_file"]]
    assert {q["reason_code"] for q in quarantined} == {"malformed_json"}
    assert all(q["raw_line"].lstrip().startswith(("/*", "*")) for q in quarantined)
    kinds = project.sql(
        "select _cdc_op, _cdc_is_snapshot, _cdc_position "
        f"from {project.layer('silver')}.stg_cdc__messages "
        f"where _cdc_message_kind = 'change' and _source_file like '{files}' "
        "order by _cdc_sort_key"
    )
    # by sequenceId: the delete (...000000) precedes the update (...000001), unlike file order
    assert [k["_cdc_op"] for k in kinds] == ["r", "d", "u"]
    assert kinds[0]["_cdc_is_snapshot"] is True
    assert kinds[2]["_cdc_position"] == "01731663842292000001.1"


@pytest.fixture(scope="module")
def formats_project(corpus_a: Warehouse) -> DbtProject:
    """The Canal, Maxwell and OGG fixtures, landed with `corpus_a`'s first step. No key is
    declared for their tables: the project's inventory contract for `orders` binds schema
    `inventory` only, so its key (order_id) does not key Canal's mydb.orders, whose
    pkNames (order_number) do."""
    return corpus_a.project


@pytest.mark.parametrize("fixture", FORMATS)
def test_format_fixture(formats_project, corpus_dir, fixture) -> None:  # type: ignore[no-untyped-def]
    project = formats_project
    expected = expected_state(corpus_dir, fixture)
    assert_strict_state(project, expected)
    envelope = {"canal": "canal", "maxwell": "maxwell", "ogg": "ogg"}[
        fixture.split("__")[1].split("-")[0]
    ]
    rows = project.sql(
        f"select distinct _cdc_envelope, _cdc_message_kind, _cdc_error_reason "
        f"from {project.layer('silver')}.stg_cdc__messages where _source_file like '%{fixture}'"
    )
    assert {r["_cdc_envelope"] for r in rows} == {envelope}
    assert {r["_cdc_error_reason"] for r in rows} == {None}
    if envelope == "canal":
        # the two CREATE messages are schema changes, with their DDL text
        ddl = project.sql(
            f"select * from {project.layer('silver')}.stg_cdc__schema_changes "
            f"where _source_file like '%{fixture}'"
        )
        assert sorted((d["_cdc_source_id"], d["change_type"]) for d in ddl) == [
            ("mydb.orders", "CREATE"),
            ("mydb.projects", "CREATE"),
        ]
        assert all(d["ddl"].startswith("CREATE TABLE") for d in ddl)
        # multi-row messages: one silver row per row change, index 0..n-1
        [first] = project.sql(
            "select count(*) as n, max(_cdc_row_index) as last "
            f"from {project.layer('silver')}.stg_cdc__messages "
            f"where _source_file like '%{fixture}' and _source_line = 1"
        )
        assert first == {"n": 9, "last": 8}


def test_formats_quarantine_nothing(formats_project) -> None:  # type: ignore[no-untyped-def]
    """Every message is read and nothing is rejected: mydb.orders is not the inventory
    contract's `orders` (it binds schema `inventory`; Canal has no schema), so its rows
    never reach the typed model nor its quarantine (they used to be `missing_key` there);
    they stay in captured_rows (test_format_fixture)."""
    silver = formats_project.layer("silver")
    of_formats = " or ".join(f"_source_file like '%{fixture}'" for fixture in FORMATS)
    assert formats_project.sql(f"select * from {silver}.cdc_quarantine where {of_formats}") == []
    typed = formats_project.sql(
        f"select _cdc_source_id from {silver}.stg_inventory__orders "
        "where _cdc_source_id like 'mydb.%' or _cdc_source_id like 'test.%' "
        "or _cdc_source_id like 'ogg.%'"
    )
    assert typed == []
    keys = formats_project.sql(
        f"select distinct _cdc_key from {silver}.int_cdc__change_log "
        "where _cdc_source_id = 'mydb.orders' and _cdc_op in ('c', 'r', 'u', 'd')"
    )
    assert keys and all(set(json.loads(k["_cdc_key"])) == {"order_number"} for k in keys)


def test_maxwell_kafka_key_change_of_the_documented_shape(corpus_a: Warehouse) -> None:
    """Issue #31, finding 5, on Maxwell's documented shape (kcat -J records, no
    `primary_key_columns`): the update whose `old` carries `"id": 1` while its Kafka key
    names `pk.id` 3 is a delete of key 1 (read off `data` overlaid with `old`) and then the
    update of key 3, so gold holds key 3 only, after the step that landed it and at the
    end; nothing is quarantined."""
    project = corpus_a.project
    assert_strict_tables(corpus_a.state([*MAXWELL_DOC_EXPECTED], 0), MAXWELL_DOC_EXPECTED)
    assert_strict_state(project, MAXWELL_DOC_EXPECTED)
    rows = project.sql(
        "select _source_line, _cdc_row_index, _cdc_envelope, _cdc_op, _cdc_key, "
        f"_cdc_error_reason from {project.layer('silver')}.stg_cdc__messages "
        f"where _source_file like '{project.landed_under(MAXWELL_DOC)}' order by all"
    )
    assert [tuple(r.values()) for r in rows] == [
        (1, 0, "maxwell", "c", '{"id":"1"}', None),
        (2, 0, "maxwell", "c", '{"id":"2"}', None),
        (3, 0, "maxwell", "d", '{"id":"1"}', None),
        (3, 1, "maxwell", "u", '{"id":"3"}', None),
        (4, 0, "maxwell", "d", '{"id":"2"}', None),
    ]

"""Real DataWorks, Canal, Maxwell and OGG events from other projects' tests (../shared/corpus).

Each fixture lands in a temporary landing folder, `dbt build` runs (data tests included),
and `captured_rows` must hold exactly the fixture's expected final state: the raw last row
image of every live key, compared strictly (1, 1.0, "1" and true all differ: values are
compared as parsed JSON with their types, and numbers by their JSON text). Keys come from
the messages themselves (DataWorks `primaryKey`, Canal `pkNames`, Maxwell
`primary_key_columns`, OGG `primary_keys`): no `cdc_table_keys` is declared, and the
project's own typed contracts bind other sources.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import assert_strict_state, corpus_project, quarantine_rows

pytestmark = pytest.mark.spark

DATAWORKS = "paimon__aliyun-dataworks-event"
DATAWORKS_ORDER = ["event-insert.txt", "event-update-in-one.txt", "event-delete.txt"]
# Their tables do not collide (mydb.*, test.product, OGG.TBL_TEST): one build.
FORMATS = [
    "seatunnel__canal-data-filter-table.txt",
    "seatunnel__maxwell-data-filter-table.txt",
    "seatunnel__ogg-data-filter-table.txt",
]
# fixture -> (reason code, why): nothing here is expected to be unreadable
EXPECTED_QUARANTINE: dict[str, tuple[str, str]] = {}


def _silver(project: DbtProject, model: str) -> list[dict]:
    return project.sql(f"select * from {project.layer('silver')}.{model}")


@pytest.mark.parametrize("fixture", [DATAWORKS])
def test_dataworks_fixture_replayed_file_by_file(spark, corpus_dir, tmp_path, fixture) -> None:  # type: ignore[no-untyped-def]
    """insert (full load, sequenceId -1), update in one message, delete of an unknown key."""
    project = corpus_project(spark, tmp_path, "dataworks")
    checkpoints = json.loads((corpus_dir / f"{fixture}.checkpoints.json").read_text())
    for index, name in enumerate(DATAWORKS_ORDER):
        # one landing file per step, in replay order (file names sort in that order)
        shutil.copy(corpus_dir / fixture / name, project.landing / f"{index:02d}-{name}")
        project.run("build")
        assert_strict_state(project, checkpoints[f"after_{name}"])
    assert_strict_state(project, json.loads((corpus_dir / f"{fixture}.expected.json").read_text()))
    # The Apache licence header lines are not CDC: quarantined, nothing else is.
    quarantined = quarantine_rows(project)
    assert {q["reason_code"] for q in quarantined} == {"malformed_json"}
    assert all(q["raw_line"].lstrip().startswith(("/*", "*")) for q in quarantined)
    kinds = project.sql(
        "select _cdc_op, _cdc_is_snapshot, _cdc_position "
        f"from {project.layer('silver')}.stg_cdc__messages "
        "where _cdc_message_kind = 'change' order by _cdc_sort_key"
    )
    # by sequenceId: the delete (...000000) precedes the update (...000001), unlike file order
    assert [k["_cdc_op"] for k in kinds] == ["r", "d", "u"]
    assert kinds[0]["_cdc_is_snapshot"] is True
    assert kinds[2]["_cdc_position"] == "01731663842292000001.1"
    project.drop_schemas()


@pytest.fixture(scope="module")
def formats_project(spark, corpus_dir, tmp_path_factory):  # type: ignore[no-untyped-def]
    """The Canal, Maxwell and OGG fixtures in one landing folder and one `dbt build`."""
    project = corpus_project(spark, tmp_path_factory.mktemp("formats"), "formats")
    for fixture in FORMATS:
        shutil.copy(corpus_dir / fixture, project.landing / fixture)
    # No key is declared: the project's inventory contract for `orders` binds schema
    # `inventory` only, so its key (order_id) does not key Canal's mydb.orders, whose
    # pkNames (order_number) do.
    project.run("build")
    yield project
    project.drop_schemas()


@pytest.mark.parametrize("fixture", FORMATS)
def test_format_fixture(formats_project, corpus_dir, fixture) -> None:  # type: ignore[no-untyped-def]
    project = formats_project
    expected = json.loads(
        (corpus_dir / f"{fixture.removesuffix('.txt')}.expected.json").read_text()
    )
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
        ddl = _silver(project, "stg_cdc__schema_changes")
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
    assert formats_project.sql(f"select * from {silver}.cdc_quarantine") == []
    typed = formats_project.sql(f"select _cdc_source_id from {silver}.stg_inventory__orders")
    assert typed == []
    keys = formats_project.sql(
        f"select distinct _cdc_key from {silver}.int_cdc__change_log "
        "where _cdc_source_id = 'mydb.orders' and _cdc_op in ('c', 'r', 'u', 'd')"
    )
    assert keys and all(set(json.loads(k["_cdc_key"])) == {"order_number"} for k in keys)

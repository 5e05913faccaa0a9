"""What the README promises about landing files, rebuilding and reasons, each shown on data.

One schema and one landing folder, a handful of hand-written PostgreSQL messages (no
schema wrapper, no Kafka key; the key comes from `cdc_table_keys`) and four dbt runs, each
test one step after the previous one:

1. first run: three unreadable messages get `unsupported_connector`, `missing_table` and
   `bad_position` and stay in bronze; a `.txt` file is left out by `cdc_landing_glob`;
2. the landing file is rewritten in place (two more messages): the next run reads it again
   and gold takes the new messages, the duplicates it re-reads change nothing;
3. the landing files are deleted and `--full-refresh` runs: bronze keeps every message and
   gold is rebuilt to exactly what it was;
4. `dbt run-operation cdc_drop_bronze`, then `--full-refresh`: bronze is reloaded from the
   landing files there are now, and gold follows it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

VARS = {"cdc_landing_glob": "*.json", "cdc_table_keys": {"widgets": ["id"]}}
SELECT = ("--select", "+captured_rows", "+cdc_quarantine")


def _message(op: str, row: dict[str, object], lsn: object, **source: object) -> dict[str, object]:
    block: dict[str, object] = {
        "connector": "postgresql",
        "name": "claims",
        "db": "claimsdb",
        "schema": "public",
        "table": "widgets",
        "lsn": lsn,
        "ts_ms": 1_700_000_000_000,
    }
    block.update(source)
    return {
        "before": None,
        "after": row,
        "source": {k: v for k, v in block.items() if v is not None},
        "op": op,
        "ts_ms": 1_700_000_000_000,
    }


GOOD = [
    _message("c", {"id": 1, "name": "one"}, 100),
    _message("c", {"id": 2, "name": "two"}, 110),
]
BAD = {
    "unsupported_connector": _message("c", {"id": 3, "name": "x"}, 120, connector="vitess"),
    "missing_table": _message("c", {"id": 3, "name": "x"}, 130, table=None, schema=None),
    "bad_position": _message("c", {"id": 3, "name": "x"}, "not-a-number"),
}
LATER = [
    _message("u", {"id": 1, "name": "one, renamed"}, 140),
    _message("c", {"id": 3, "name": "three"}, 150),
]
RELOADED = [_message("c", {"id": 7, "name": "seven"}, 200)]


def _lines(messages: list[dict[str, object]]) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def _widgets(dbt_project) -> dict[int, str]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select _cdc_row_json from {dbt_project.layer('gold')}.captured_rows "
        "where _cdc_source_table = 'widgets'"
    )
    images = [json.loads(r["_cdc_row_json"]) for r in rows]
    widgets = {int(image["id"]): str(image["name"]) for image in images}
    assert len(widgets) == len(images), f"one gold row per key: {images}"
    return widgets


def _bronze(dbt_project) -> list[tuple[str, int, object, str]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        "select _source_file, _source_line, _source_file_modified_at, message_value "
        f"from {dbt_project.layer('bronze')}.bronze_cdc_messages"
    )
    return sorted(
        (
            Path(r["_source_file"]).name,
            r["_source_line"],
            r["_source_file_modified_at"],
            r["message_value"],
        )
        for r in rows
    )


def _gold_state(dbt_project) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        "select _cdc_source_id, _cdc_key, _cdc_row_json, _cdc_op, _cdc_position "
        f"from {dbt_project.layer('gold')}.captured_rows"
    )
    return sorted(tuple(r.values()) for r in rows)


def _run(dbt_project, *args: str) -> None:  # type: ignore[no-untyped-def]
    dbt_project.run("run", *SELECT, *args, vars=VARS)


@pytest.fixture(scope="module")
def landing_file(dbt_project) -> Path:  # type: ignore[no-untyped-def]
    """The first run: good and unreadable messages in one file, a `.txt` file beside it."""
    folder = dbt_project.landing / "pg"
    folder.mkdir()
    path = folder / "widgets.json"
    path.write_text(_lines([*GOOD, *BAD.values()]))
    (folder / "notes.txt").write_text(_lines([_message("c", {"id": 99, "name": "txt"}, 999)]))
    _run(dbt_project)
    return path


def test_each_unreadable_message_gets_its_reason_and_stays_in_bronze(  # type: ignore[no-untyped-def]
    dbt_project, landing_file
) -> None:
    quarantined = dbt_project.sql(
        "select quarantine.reason_code, quarantine._cdc_error_reason, bronze.message_value "
        f"from {dbt_project.layer('silver')}.cdc_quarantine as quarantine "
        f"left join {dbt_project.layer('bronze')}.bronze_cdc_messages as bronze "
        "on quarantine._source_file = bronze._source_file "
        "and quarantine._source_line = bronze._source_line"
    )
    by_reason = {r["reason_code"]: r for r in quarantined}
    assert sorted(by_reason) == sorted(BAD), quarantined
    assert len(quarantined) == len(BAD)
    for reason, message in BAD.items():
        row = by_reason[reason]
        assert row["_cdc_error_reason"].startswith(reason + ": ")
        assert row["message_value"] is not None, f"bronze lost the {reason} message"
        assert json.loads(row["message_value"]) == message
    assert "vitess" in by_reason["unsupported_connector"]["_cdc_error_reason"]
    assert _widgets(dbt_project) == {1: "one", 2: "two"}


def test_landing_glob_filters_file_names(dbt_project, landing_file) -> None:  # type: ignore[no-untyped-def]
    files = {name for name, *_ in _bronze(dbt_project)}
    assert files == {"widgets.json"}, "notes.txt does not match cdc_landing_glob '*.json'"
    assert 99 not in _widgets(dbt_project)


def test_a_file_rewritten_in_place_is_read_again(dbt_project, landing_file) -> None:  # type: ignore[no-untyped-def]
    before = _bronze(dbt_project)
    old_mtime = landing_file.stat().st_mtime
    landing_file.write_text(_lines([*GOOD, *BAD.values(), *LATER]))
    os.utime(landing_file, (old_mtime + 60, old_mtime + 60))  # a later version, surely
    _run(dbt_project)

    after = _bronze(dbt_project)
    versions = sorted({modified for _, _, modified, _ in after if modified is not None})
    assert len(versions) == 2, "bronze holds both versions of the file"
    reread = [line for line in after if line[2] == versions[1]]
    assert len(reread) == len(GOOD) + len(BAD) + len(LATER), "the whole file is read again"
    assert set(before) <= set(after)
    # the duplicates re-read are harmless: one row per key, the later messages applied
    assert _widgets(dbt_project) == {1: "one, renamed", 2: "two", 3: "three"}
    reasons = dbt_project.sql(
        f"select reason_code, count(*) as n from {dbt_project.layer('silver')}.cdc_quarantine "
        "group by reason_code"
    )
    assert {r["reason_code"]: r["n"] for r in reasons} == dict.fromkeys(BAD, 2)


def _loaded_files(dbt_project) -> list[tuple[str, object]]:  # type: ignore[no-untyped-def]
    """Bronze's table of loaded files: (file name, modification time), sorted."""
    rows = dbt_project.sql(
        "select _source_file, _source_file_modified_at "
        f"from {dbt_project.layer('bronze')}.bronze_cdc_messages__cdc_files"
    )
    return sorted((Path(r["_source_file"]).name, r["_source_file_modified_at"]) for r in rows)


def _read_through(dbt_project, table: str) -> str:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(f"show tblproperties {dbt_project.layer('bronze')}.{table}")
    return {r["key"]: r["value"] for r in rows}["cdc.read_through"]


def test_new_files_are_found_in_the_table_of_loaded_files(  # type: ignore[no-untyped-def]
    dbt_project, landing_file
) -> None:
    """Bronze finds its new files in `bronze_cdc_messages__cdc_files`, not by reading itself,
    and a run whose bookkeeping of that table died is made good by the next one."""
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    files = f"{bronze}__cdc_files"
    in_bronze = sorted({(name, modified) for name, _, modified, _ in _bronze(dbt_project)})
    assert _loaded_files(dbt_project) == in_bronze, "one row per file version bronze holds"
    assert _read_through(dbt_project, "bronze_cdc_messages__cdc_files") == _read_through(
        dbt_project, "bronze_cdc_messages"
    )
    # The last run's bookkeeping of the table did not happen (a run killed after bronze's
    # insert): the table knows the first load only, and says so.
    [first] = dbt_project.sql(f"select cast(min(_loaded_at) as string) as t from {bronze}")
    first_load = first["t"]
    dbt_project.sql(f"drop table {files}")
    dbt_project.sql(
        f"create table {files} using parquet as select _source_file, _source_file_modified_at, "
        f"max(_loaded_at) as _loaded_at from {bronze} where _loaded_at <= timestamp'{first_load}' "
        "group by _source_file, _source_file_modified_at"
    )
    dbt_project.sql(f"alter table {files} set tblproperties ('cdc.read_through' = '{first_load}')")
    # A new file that the table names as loaded is not read: the table is what bronze asks.
    extra = landing_file.parent / "extra.json"
    extra.write_text(_lines([_message("c", {"id": 8, "name": "eight"}, 160)]))
    dbt_project.sql(
        f"insert into {files} select path, modificationTime, current_timestamp() "
        f"from binaryFile.`{extra.as_uri()}`"
    )
    named = _loaded_files(dbt_project)
    assert [name for name, _ in named].count("extra.json") == 1
    before = _bronze(dbt_project)
    _run(dbt_project)
    extra.unlink()

    assert _bronze(dbt_project) == before, "no file read again, the named one not read"
    extra_named = [f for f in named if f[0] == "extra.json"]
    assert _loaded_files(dbt_project) == sorted([*in_bronze, *extra_named])
    assert _read_through(dbt_project, "bronze_cdc_messages__cdc_files") == _read_through(
        dbt_project, "bronze_cdc_messages"
    )


def test_bronze_survives_full_refresh_when_its_landing_files_are_gone(  # type: ignore[no-untyped-def]
    dbt_project, landing_file
) -> None:
    bronze_before, gold_before = _bronze(dbt_project), _gold_state(dbt_project)
    assert gold_before
    shutil.rmtree(dbt_project.landing)
    dbt_project.landing.mkdir()
    _run(dbt_project, "--full-refresh")
    assert _bronze(dbt_project) == bronze_before
    assert _gold_state(dbt_project) == gold_before
    assert _widgets(dbt_project) == {1: "one, renamed", 2: "two", 3: "three"}


def test_drop_bronze_then_full_refresh_reloads_bronze(dbt_project, landing_file) -> None:  # type: ignore[no-untyped-def]
    (dbt_project.landing / "reloaded.json").write_text(_lines(RELOADED))
    dbt_project.run("run-operation", "cdc_drop_bronze", vars=VARS)
    for table in ("bronze_cdc_messages", "bronze_cdc_messages__cdc_files"):
        assert not dbt_project.spark.catalog.tableExists(  # type: ignore[attr-defined]
            f"{dbt_project.layer('bronze')}.{table}"
        )
    _run(dbt_project, "--full-refresh")
    assert [(name, line) for name, line, *_ in _bronze(dbt_project)] == [("reloaded.json", 1)]
    assert _widgets(dbt_project) == {7: "seven"}
    quarantined = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('silver')}.cdc_quarantine"
    )
    assert quarantined == [{"n": 0}], "silver was rebuilt from the reloaded bronze"

"""Bad input gets a clear reason and loses nothing, while the good data still lands right.

One simulated Db2 database (schema wrapper on) plus a folder of bad input: each bad
message must be quarantined with its own reason, bronze and silver must count every line,
and gold must still equal the source for the good data. The build fails naming each source
it read nothing of (a landing file of only unreadable lines, an unreadable or empty file),
and only those: a table some of whose messages were quarantined is a warning. Control
messages (transaction metadata, schema changes) ride along and must be read, not rejected.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
import pytest

from workbench.oracle_check import compare_database
from workbench.realdb import sink_formats
from workbench.realdb.sink_formats import SinkForm
from workbench.simulator import SimConfig, simulate, write_batch

pytestmark = pytest.mark.spark

CONFIG = SimConfig(
    seed=5,
    flavour="db2",
    database="BAD_DB2",
    server="bad",
    schemas_enable=True,
    batches=1,
    transactions=30,
)


CONTROL = [
    json.dumps(
        {"status": "BEGIN", "id": "571:53195829", "event_count": None, "data_collections": None}
    ),
    json.dumps(
        {
            "status": "END",
            "id": "571:53195829",
            "event_count": 2,
            "data_collections": [
                {"data_collection": "s1.dbo.a", "event_count": 1},
                {"data_collection": "s1.dbo.b", "event_count": 1},
            ],
        }
    ),
    json.dumps(
        {
            "source": {
                "version": "2.3.4.Final",
                "connector": "sqlserver",
                "name": "s1",
                "ts_ms": 1559729468470,
                "snapshot": "true",
                "db": "testDB",
                "schema": "dbo",
                "table": "customers",
                "change_lsn": None,
                "commit_lsn": "00000025:00000d98:00a2",
                "event_serial_no": None,
            },
            "databaseName": "testDB",
            "schemaName": "dbo",
            "ddl": None,
            "tableChanges": [
                {
                    "type": "CREATE",
                    "id": '"testDB"."dbo"."customers"',
                    "table": {
                        "primaryKeyColumnNames": ["id"],
                        "columns": [
                            {
                                "name": "id",
                                "jdbcType": 4,
                                "typeName": "int identity",
                                "length": 10,
                                "scale": 0,
                                "position": 1,
                                "optional": False,
                                "autoIncremented": False,
                                "generated": False,
                            }
                        ],
                    },
                }
            ],
        }
    ),
]


def _a_message(result, table: str, op: str) -> dict:  # type: ignore[no-untyped-def]
    for message in result.batches[0]:
        if message.value and message.topic.endswith(table):
            value = json.loads(message.value)
            if value["payload"]["op"] == op:
                return value
    raise AssertionError(f"no {op} message for {table}")


@pytest.fixture(scope="module")
def bad_run(dbt_project):  # type: ignore[no-untyped-def]
    result = simulate(CONFIG)
    good_files = write_batch(result.batches[0], dbt_project.landing / "good", 0, "value_lines")
    bad = dbt_project.landing / "bad"
    bad.mkdir()
    order = _a_message(result, "ORDERS", "r")
    lines: dict[str, str] = {}

    lines["malformed_json"] = '{"payload": {"op": "c",, "after": {"ID": 1}}}'
    lines["truncated_json"] = json.dumps(order)[: len(json.dumps(order)) // 2]
    lines["not_an_object"] = '[{"op": "c"}]'
    unknown_op = copy.deepcopy(order)
    unknown_op["payload"]["op"] = "x"
    lines["unknown_op"] = json.dumps(unknown_op)
    # (a change without a source block is read, by arrival: Flink SQL writes no source)
    other_connector = copy.deepcopy(order)
    other_connector["payload"]["source"]["connector"] = "vitess"
    lines["unsupported_connector"] = json.dumps(other_connector)
    # an object no registered family reads (Maxwell-like lines are read by the maxwell family)
    lines["unknown_envelope"] = json.dumps(
        {"kind": "row-insert", "collection": "t", "row": {"id": 1}}
    )
    wrong_type = copy.deepcopy(order)
    wrong_type["payload"]["op"] = "c"
    wrong_type["payload"]["after"]["ORDER_ID"] = 999_999_999
    wrong_type["payload"]["after"]["QUANTITY"] = "many"
    lines["type_mismatch"] = json.dumps(wrong_type)
    not_an_image = copy.deepcopy(order)
    not_an_image["payload"]["op"] = "u"
    not_an_image["payload"]["after"] = [1, 2]
    lines["missing_after"] = json.dumps(not_an_image)
    (bad / "bad-lines.json").write_text("\n".join(lines.values()) + "\n")

    (bad / "latin1.json").write_bytes('{"note": "caf\u00e9"}\n'.encode("latin-1"))
    big = copy.deepcopy(order)
    big["payload"]["op"] = "c"
    big["payload"]["source"]["table"] = "BLOBS"
    big["payload"]["after"] = {"ID": 1, "PAYLOAD": "x" * 10_000_000}
    (bad / "ten-megabytes.json").write_text(json.dumps(big) + "\n")
    shutil.copy(good_files[0], bad / ("copy-of-" + good_files[0].name))
    (dbt_project.landing / "control.json").write_text("\n".join(CONTROL) + "\n")
    # one good file lands gzip-compressed, beside compressed files its codec cannot read whole
    compressed_good = good_files[1].with_name(good_files[1].name + ".gz")
    compressed_good.write_bytes(gzip.compress(good_files[1].read_bytes()))
    good_files[1].unlink()
    _land_unreadable_files(bad / "files")
    good_records = _land_record_files(good_files, dbt_project.landing, bad / "record-files")
    # files Spark's listing skips: a sink's heartbeat topic file (loads) and markers (ignored)
    heartbeat = dbt_project.landing / "good" / HEARTBEAT_FILE
    heartbeat.write_text("".join(json.dumps({"ts_ms": 1700000000000 + i}) + "\n" for i in (0, 1)))
    for marker in MARKERS:
        (bad / marker).parent.mkdir(parents=True, exist_ok=True)
        (bad / marker).write_bytes(b'{"not": "data"}\n' if marker.endswith("inprogress.1") else b"")

    # the files of only unreadable lines, the unreadable and the empty files are sources
    # the run read nothing of: the build fails on them (every model is built all the same)
    build = dbt_project.run("build", expect_success=False)
    return result, lines, good_files, build, good_records


LEAKED = b"".join(json.dumps({"leaked": i, "pad": "x" * 40}).encode() + b"\n" for i in range(3000))


def _cut(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flipped(data: bytes) -> bytes:
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    return bytes(damaged)


UNREADABLE = {
    # an interrupted copy or upload, a damaged block, a zstd frame cut short
    "truncated.json.gz": lambda: _cut(gzip.compress(LEAKED)),
    "corrupt.json.bz2": lambda: _flipped(bz2.compress(LEAKED)),
    "cut.json.zst": lambda: _cut(pa.compress(LEAKED, codec="zstd", asbytes=True)),
}


# a zero-byte file (an upload that never wrote): recorded as a file, `empty_file`
EMPTY = "zero-bytes.json"
# Kafka Connect names a topic's files after it: Spark's listing hides them (leading `_`)
HEARTBEAT_FILE = "__debezium-heartbeat.bad+0+0000000000.json"
# written on purpose, not data (var cdc_landing_ignored_names): never read nor reported
MARKERS = ("_SUCCESS", ".part-0.json.crc", "_temporary/0/part-0.json", ".part-1.inprogress.1")


# Avro and Parquet files (Kafka Connect's AvroFormat, ParquetFormat) that cannot be read:
# name -> how the file is made from a whole Avro or Parquet one
UNREADABLE_RECORD_FILES: dict[str, Callable[[bytes, bytes], bytes]] = {
    "cut.avro": lambda avro, parquet: _cut(avro),  # Avro's own reader would end quietly
    "damaged-sync.avro": lambda avro, parquet: avro[:-1] + bytes([avro[-1] ^ 0xFF]),
    "cut.snappy.parquet": lambda avro, parquet: _cut(parquet),
    "text.parquet": lambda avro, parquet: b'{"not": "parquet"}\n',
}
# an Avro container of no records (its header only): recorded as `empty_file`, as a
# zero-byte `.parquet` is
EMPTY_RECORD_FILES: dict[str, Callable[[bytes, bytes], bytes]] = {
    "header-only.avro": lambda avro, parquet: avro[: _avro_header_size(avro)],
    "zero-bytes.parquet": lambda avro, parquet: b"",
}


def _avro_header_size(avro: bytes) -> int:
    """The length of an Avro object container's header: magic, metadata map, sync marker."""
    position = 4

    def varint() -> int:
        nonlocal position
        shift = value = 0
        while True:
            byte = avro[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return (value >> 1) ^ -(value & 1)

    while count := varint():
        if count < 0:
            count = -count
            varint()
        for _ in range(2 * count):  # each key and value: its length, then its bytes
            length = varint()
            position += length
    return position + 16


# a heartbeat topic's Avro file (schemas on), which Spark's listing hides (leading `_`)
HEARTBEAT_AVRO = "__debezium-heartbeat.bad+0+0000000002.avro"
HEARTBEAT_VALUE = {
    "schema": {
        "type": "struct",
        "fields": [{"type": "int64", "optional": False, "field": "ts_ms"}],
        "optional": False,
        "name": "io.debezium.connector.common.Heartbeat",
    },
    "payload": {"ts_ms": 1700000000002},
}


class RecordFiles(NamedTuple):
    """The Avro and Parquet files landed good, each with the sink lines it holds, in order;
    and the tombstones of the topic they replace, which they do not hold."""

    landed: dict[Path, list[str]]
    tombstones: int


def _land_record_files(good_files: list[Path], landing: Path, bad: Path) -> RecordFiles:
    """A good topic's changes landed instead as an Avro file then a Parquet file
    (workbench.realdb.sink_formats: as the S3 sink's format classes write them, a new file
    where the schema changes), as a connector with tombstones.on.delete=false sends them (the
    sink's default behavior.on.null.values=fail takes no tombstone); and a heartbeat topic's
    Avro file. Then Avro and Parquet files made unreadable from them, in `bad`."""
    source = good_files[2]
    lines = source.read_text().splitlines()
    changes = [line for line in lines if line != "null"]
    topic, partition, _ = source.name.split("+")
    halves = {0: changes[: len(changes) // 2], len(changes) // 2: changes[len(changes) // 2 :]}
    heartbeat_json = landing / "good" / HEARTBEAT_AVRO.replace(".avro", ".json")
    heartbeat_json.write_text(json.dumps(HEARTBEAT_VALUE, separators=(",", ":")) + "\n")
    planned = [(heartbeat_json, SinkForm("avro", "null"), 2, [heartbeat_json.read_text().strip()])]
    for (offset, records), form in zip(
        halves.items(), (SinkForm("avro", "deflate"), SinkForm("parquet", "snappy")), strict=True
    ):
        half = source.with_name(f"{topic}+{partition}+{offset:010d}.json")
        half.write_text("\n".join(records) + "\n")
        planned.append((half, form, offset, records))
    written = sink_formats.write([(path, form) for path, form, *_ in planned], landing, landing)
    landed: dict[Path, list[str]] = {}
    for json_file, _, first, records in planned:
        json_file.unlink()
        # the files written from it: its topic's, from its first offset to the next one's
        last = first + len(records)
        mine = sorted(
            (int(path.name.split("+")[2].split(".")[0]), path)
            for path in written
            if path.name.startswith(json_file.name.split("+")[0] + "+")
            and first <= int(path.name.split("+")[2].split(".")[0]) < last
        )
        # each holds the records from its start offset to the next file's
        for (start, path), end in zip(mine, [*(s for s, _ in mine[1:]), last], strict=True):
            landed[path] = records[start - first : end - first]
    avro = next(path for path in landed if path.suffix == ".avro" and path.name != HEARTBEAT_AVRO)
    parquet = next(path for path in landed if path.suffix == ".parquet")
    bad.mkdir(parents=True, exist_ok=True)
    for name, make in {**UNREADABLE_RECORD_FILES, **EMPTY_RECORD_FILES}.items():
        (bad / name).write_bytes(make(avro.read_bytes(), parquet.read_bytes()))
    return RecordFiles(landed, lines.count("null"))


def _land_unreadable_files(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in UNREADABLE.items():
        (folder / name).write_bytes(content())
    (folder / EMPTY).write_bytes(b"")
    return [folder / name for name in (*UNREADABLE, EMPTY)]


def test_good_data_still_equals_the_source(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    result, *_ = bad_run
    outcome = compare_database(
        dbt_project.spark,
        dbt_project.layer("gold"),
        CONFIG.database,
        result.expected[0],
        result=result,
        batch=0,
    )
    # The type_mismatch order (ORDER_ID 999999999, QUANTITY "many") is readable JSON: its
    # typed model quarantines it, but captured_rows, which keeps every readable row image
    # untyped, holds it. That row, and the count it adds, are the only differences.
    orders = f"captured_rows {CONFIG.database.lower()}.inventory.orders"
    expected_rows = len(result.expected[0]["orders"])
    injected = [
        f"{orders}: {expected_rows + 1} rows, source {expected_rows}",
        f"{orders} (999999999,): ",
    ]
    unexplained = [d for d in outcome.differences if not any(d.startswith(i) for i in injected)]
    assert unexplained == [], outcome.differences
    assert len(outcome.differences) == len(injected), outcome.differences


def test_every_bad_message_has_its_reason(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    _, lines, *_ = bad_run
    rows = dbt_project.sql(
        f"select reason_code, _cdc_error_reason, _source_file, _source_line, quarantine_stage "
        f"from {dbt_project.layer('silver')}.cdc_quarantine"
    )
    by_place = {(Path(r["_source_file"]).name, r["_source_line"]): r for r in rows}
    for line_number, reason in enumerate(lines, start=1):
        row = by_place.get(("bad-lines.json", line_number))
        assert row is not None, f"{reason} line was not quarantined"
        assert row["reason_code"] == reason, row["_cdc_error_reason"]
        assert row["_cdc_error_reason"].startswith(reason + ": ")
    assert by_place[("latin1.json", 1)]["reason_code"] == "invalid_utf8"
    assert by_place[("bad-lines.json", 7)]["quarantine_stage"] == "stg_inventory__orders"
    assert (
        "quantity = many is not a smallint" in by_place[("bad-lines.json", 7)]["_cdc_error_reason"]
    )
    files = len(UNREADABLE) + 1  # and the empty file
    files += len(UNREADABLE_RECORD_FILES) + len(EMPTY_RECORD_FILES)
    assert len(rows) == len(lines) + 1 + files, "only the bad messages and files are quarantined"


def test_counts_reconcile(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    result, lines, good_files, _, good_records = bad_run
    # the topic landed as Avro and Parquet files holds no tombstone
    good = len(result.batches[0]) - good_records.tombstones
    duplicated = sum(1 for _ in good_files[0].read_text().splitlines())
    # + latin1 line + 10 MB message + control messages + one row per unreadable or empty
    # file + the heartbeat file's two lines and its Avro file's record
    files = len(UNREADABLE) + 1 + len(UNREADABLE_RECORD_FILES) + len(EMPTY_RECORD_FILES)
    expected = good + duplicated + len(lines) + 1 + 1 + len(CONTROL) + files + 2 + 1
    bronze, silver = dbt_project.layer("bronze"), dbt_project.layer("silver")
    [counts] = dbt_project.sql(
        f"select (select count(*) from {bronze}.bronze_cdc_messages) as bronze, "
        f"(select count(*) from {silver}.stg_cdc__messages) as silver, "
        f"(select count(*) from {silver}.stg_cdc__messages where _cdc_message_kind = 'error') "
        f"as unreadable"
    )
    assert counts == {
        "bronze": expected,
        "silver": expected,
        "unreadable": len(lines) - 1 + 1 + files,
    }
    [raw] = dbt_project.sql(
        f"select raw_line_base64 from {bronze}.bronze_cdc_messages "
        f"where _source_file like '%latin1.json'"
    )
    import base64

    assert base64.b64decode(raw["raw_line_base64"]) == '{"note": "caf\u00e9"}'.encode("latin-1")


def test_a_ten_megabyte_message_is_kept_whole(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    [row] = dbt_project.sql(
        f"select length(_cdc_row_json) as size from {dbt_project.layer('gold')}.captured_rows "
        f"where _cdc_source_table = 'BLOBS'"
    )
    assert row["size"] > 10_000_000


def test_control_messages_are_read(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    silver = dbt_project.layer("silver")
    transactions = dbt_project.sql(
        f"select transaction_id, transaction_status, event_count, data_collections "
        f"from {silver}.stg_cdc__transactions order by transaction_status"
    )
    assert [(t["transaction_status"], t["event_count"]) for t in transactions] == [
        ("BEGIN", None),
        ("END", 2),
    ]
    assert json.loads(transactions[1]["data_collections"])[1] == {
        "data_collection": "s1.dbo.b",
        "event_count": 1,
    }
    [change] = dbt_project.sql(
        f"select change_type, _cdc_source_id, primary_key_columns, columns_json "
        f"from {silver}.stg_cdc__schema_changes"
    )
    assert change["change_type"] == "CREATE"
    assert change["_cdc_source_id"] == "testdb.dbo.customers"
    assert change["primary_key_columns"] == ["id"]
    assert json.loads(change["columns_json"])[0]["typeName"] == "int identity"


def _quarantined_files(dbt_project, folder: str) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select _source_file, _source_line, reason_code, quarantine_stage, raw_line "
        f"from {dbt_project.layer('silver')}.cdc_quarantine "
        f"where _source_file like '{dbt_project.landed_under(folder)}'"
    )
    return {Path(str(r["_source_file"])).name: r for r in rows}


def test_unreadable_compressed_files_are_quarantined_by_name(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """A gzip file cut short, a bzip2 file with a damaged block and a zstd frame cut short
    do not stop bronze: each is one quarantined row of its own (unreadable_file, line 0,
    its size and the lines read before its codec failed), and none of its lines is kept."""
    quarantined = _quarantined_files(dbt_project, "bad/files")
    assert set(quarantined) == {*UNREADABLE, EMPTY}, quarantined
    empty = quarantined.pop(EMPTY)
    assert (empty["reason_code"], empty["quarantine_stage"], empty["_source_line"]) == (
        "empty_file",
        "file",
        0,
    ), empty
    assert str(empty["raw_line"]).startswith("empty_file: the file has no bytes"), empty
    landing = dbt_project.landing / "bad" / "files"
    for name, row in quarantined.items():
        assert (row["reason_code"], row["quarantine_stage"], row["_source_line"]) == (
            "unreadable_file",
            "file",
            0,
        ), row
        raw_line = str(row["raw_line"])
        assert f"{(landing / name).stat().st_size} bytes" in raw_line, raw_line
        assert " lines were read before the failure and none is kept" in raw_line, raw_line
    [leaked] = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '{dbt_project.landed_under('bad/files')}' "
        f"and _record_format != 'unreadable_file'"
    )
    assert leaked["n"] == 0, "no line of an unreadable file is kept"
    [gzipped] = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '%.json.gz' and _source_file not like '%/bad/files/%'"
    )
    assert gzipped["n"] > 0, "the good gzip file beside them loaded"


# the sources of the bad input the run read nothing of: a file whose every line is
# unreadable, an unreadable or an empty file (their names carry no topic: each is its own
# source); and the reason codes each is named with
UNREAD_SOURCES = {
    "bad/bad-lines.json": "malformed_json, not_an_object, truncated_json, unknown_envelope",
    "bad/latin1.json": "invalid_utf8",
    **{f"bad/files/{name}": "unreadable_file" for name in UNREADABLE},
    f"bad/files/{EMPTY}": "empty_file",
    **{f"bad/record-files/{name}": "unreadable_file" for name in UNREADABLE_RECORD_FILES},
    **{f"bad/record-files/{name}": "empty_file" for name in EMPTY_RECORD_FILES},
}


# a `dbt build` checks what it loaded (the suite's default is every row: tests/conftest.py);
# a source the run read nothing of only warns
WARN_VARS = {"cdc_test_scope": "loaded", "cdc_unread_source_severity": "warn"}


def _quarantine_test(build):  # type: ignore[no-untyped-def]
    (test,) = [
        r for r in build.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    return test


def test_the_build_fails_naming_each_source_it_read_nothing_of(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """The error names each source the run read nothing of, with its reasons, and each
    quarantined file; the Db2 tables, some of whose messages were quarantined beside the
    changes that reached gold, are no such source (a warning)."""
    *_, build, _ = bad_run
    test = _quarantine_test(build)
    assert str(getattr(test.status, "value", test.status)) == "error", test.message
    failed = [
        r.node.name for r in build.result.results
        if str(getattr(r.status, "value", r.status)) in ("error", "fail")
    ]  # fmt: skip
    assert failed == ["assert_no_new_quarantined_messages"], failed
    message = str(test.message)
    assert f"{len(UNREAD_SOURCES)} sources of this run reached nothing" in message, message
    for path, reasons in UNREAD_SOURCES.items():
        assert f"{reasons}: nothing of the file {_landed(dbt_project, path)} reached gold" in (
            message
        ), (path, message)
    # the table of the unknown_op, missing_after and type_mismatch messages: partial
    assert message.count("reached gold") == len(UNREAD_SOURCES), message
    assert "bad_db2.inventory.orders, none reached gold" not in message
    # and each quarantined file is named, with its reason
    for name in UNREADABLE:
        assert (
            f"unreadable_file: the file {_landed(dbt_project, 'bad/files/' + name)} could "
            "not be read whole, none of its lines loaded" in message
        ), message
    assert f"empty_file: the file {_landed(dbt_project, 'bad/files/' + EMPTY)} is empty" in (
        message
    )
    assert f"unknown_op: 1 message of {len(lines_of(bad_run))} in " in message, message
    assert not [m for m in ("heartbeat", *MARKERS) if m in message]


def test_the_var_lowers_a_source_read_nothing_of_to_a_warning(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """With var cdc_unread_source_severity: warn, the same test warns: one row per reason,
    source and file, those of the sources the run read nothing of marked `reaches_nothing`
    (`dbt test` checks every load; the share of the messages quarantined stays below
    cdc_quarantine_error_share's 1)."""
    result = dbt_project.run(
        "test", "--select", "assert_no_new_quarantined_messages", vars=WARN_VARS
    )
    test = _quarantine_test(result)
    assert str(getattr(test.status, "value", test.status)) == "warn", test.message
    rows = dbt_project.sql(test.node.compiled_code)
    unread = {str(r["_source_file"]) for r in rows if r["reaches_nothing"]}
    assert unread == {_landed(dbt_project, path) for path in UNREAD_SOURCES}, unread
    by_source = {}
    for row in rows:
        by_source.setdefault((row["source_kind"], row["source_name"]), []).append(row)
    orders = by_source[("table", "bad_db2.inventory.orders")]
    assert {r["reason_code"] for r in orders} >= {"unknown_op", "missing_after"}, orders
    assert not [r for r in orders if r["reaches_nothing"]], orders
    [line] = {
        str(r["source_message"]) for r in rows
        if r["_source_file"] == _landed(dbt_project, "bad/latin1.json")
    }  # fmt: skip
    assert line == (
        f"invalid_utf8: nothing of the file {_landed(dbt_project, 'bad/latin1.json')} reached "
        "gold (1 message quarantined; it is not UTF-8 text)"
    ), line


def _landed(dbt_project, path: str) -> str:  # type: ignore[no-untyped-def]
    """The `_source_file` of a file landed at `path` under the landing folder."""
    return f"file:{dbt_project.landing / path}"


def lines_of(bad_run) -> list[str]:  # type: ignore[no-untyped-def]
    """The lines of bad-lines.json."""
    _, lines, *_ = bad_run
    return list(lines.values())


def test_a_run_of_only_unreadable_files_fails_and_names_them(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    _land_unreadable_files(dbt_project.landing / "only-unreadable")
    stopped = dbt_project.run(
        # stg_cdc__messages reads through what all its inputs hold: its upstream with it; the
        # data tests check what this build loaded, as a user's build does (the suite's
        # default is every row: tests/conftest.py)
        "build", "--select", "+stg_cdc__messages", "assert_no_new_quarantined_messages",
        # the share of the run quarantined (cdc_quarantine_error_share's 1: all) fails the
        # run whatever var cdc_unread_source_severity says (the vars of the test before:
        # one parse for both)
        vars=WARN_VARS, expect_success=False,
    )  # fmt: skip
    (test,) = [
        r for r in stopped.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    assert str(getattr(test.status, "value", test.status)) == "error", test.message
    assert "quarantined 0 of the 0 messages it loaded and 4 landing files" in test.message
    assert "sources of this run reached nothing" not in test.message, "the share's error"
    for name in UNREADABLE:
        assert f"/only-unreadable/{name} could not be read whole" in test.message, test.message
    assert f"/only-unreadable/{EMPTY} is empty" in test.message, test.message


def test_files_spark_hides_load_and_markers_are_ignored(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """A Kafka Connect sink's file of the `__debezium-heartbeat.<server>` topic (a name Spark's
    listing skips) loads with its topic, partition and offsets, and its messages are read
    as heartbeats, not quarantined; the markers (`_SUCCESS`, a `.crc`, `_temporary/`, a
    Flink in-progress part) are neither loaded nor quarantined."""
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    rows = dbt_project.sql(
        f"select _kafka_topic, _kafka_partition, _kafka_offset, _source_line from {bronze} "
        f"where _source_file like '%/{HEARTBEAT_FILE}' order by _source_line"
    )
    assert [(r["_kafka_topic"], r["_kafka_partition"], r["_kafka_offset"]) for r in rows] == [
        ("__debezium-heartbeat.bad", 0, 0),
        ("__debezium-heartbeat.bad", 0, 1),
    ]
    [kinds] = dbt_project.sql(
        f"select collect_set(_cdc_message_kind) as kinds "
        f"from {dbt_project.layer('silver')}.stg_cdc__messages "
        f"where _source_file like '%/{HEARTBEAT_FILE}'"
    )
    assert list(kinds["kinds"]) == ["heartbeat"], kinds
    markers = dbt_project.sql(
        f"select _source_file from {bronze} where _source_file like '%/bad/%' and ("
        + " or ".join(f"_source_file like '%/{m}'" for m in MARKERS)
        + ")"
    )
    assert markers == []


def test_a_readable_copy_of_an_unreadable_file_loads(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """The file version that could not be read stays quarantined; a readable one (a new
    modification time) loads whole in the next run."""
    folder = dbt_project.landing / "bad" / "files"
    (folder / "truncated.json.gz").write_bytes(gzip.compress(LEAKED))
    *_, good_records = bad_run
    avro = next(p for p in good_records.landed if p.suffix == ".avro" and p.name != HEARTBEAT_AVRO)
    damaged = dbt_project.landing / "bad" / "record-files" / "damaged-sync.avro"
    damaged.write_bytes(avro.read_bytes())  # the same size: its quarantined row still says so
    dbt_project.run("run", "--select", "bronze_cdc_messages")
    [copy] = dbt_project.sql(
        f"select collect_list(_record_format) as formats "
        f"from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '%/bad/record-files/{damaged.name}'"
    )
    assert sorted(copy["formats"]) == sorted(
        ["unreadable_file"] + ["avro"] * len(good_records.landed[avro])
    ), "the readable copy of the damaged Avro file loads its every record"
    rows = dbt_project.sql(
        f"select _record_format, count(*) as n, count(distinct _source_file_modified_at) as "
        f"versions from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '%/bad/files/truncated.json.gz' group by _record_format"
    )
    assert {r["_record_format"]: r["n"] for r in rows} == {
        "unreadable_file": 1,
        "value_line": LEAKED.count(b"\n"),
    }


def test_new_files_with_glob_characters_in_their_names_load_alone(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """An incremental bronze run reads its new files through one glob of their names
    (_cdc_landing_files_subset_relation): names with glob characters, a folder with a
    space, CRLF lines; the files loaded before are not read again."""
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    [before] = dbt_project.sql(f"select count(*) as n from {bronze}")
    odd = dbt_project.landing / "odd folder {x}"
    odd.mkdir()
    names = ["a {1,2} [b] *?,.json", "c\\d.json"]
    for index, name in enumerate(names):
        lines = [json.dumps({"file": index, "line": line}) for line in (1, 2)]
        (odd / name).write_bytes(("\r\n".join(lines) + "\r\n").encode())
    dbt_project.run("run", "--select", "bronze_cdc_messages")
    rows = dbt_project.sql(
        f"select _source_file, _source_line, raw_line from {bronze} "
        f"where _source_file like '%odd folder%' order by _source_file, _source_line"
    )
    assert [(Path(r["_source_file"]).name, r["_source_line"]) for r in rows] == [
        (names[0], 1),
        (names[0], 2),
        (names[1], 1),
        (names[1], 2),
    ]
    assert all(not str(r["raw_line"]).endswith("\r") for r in rows)
    [after] = dbt_project.sql(f"select count(*) as n from {bronze}")
    assert after["n"] == before["n"] + 4, "only the new files' lines were added"


def test_avro_and_parquet_files_load_each_record_as_its_json_twin(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """Each record of an Avro or Parquet sink file is one bronze message at its index in the
    file (its offset the file's start offset plus the index, less one), and the message is
    the very line of the JSON sink file it was written from; the heartbeat topic's Avro file,
    which Spark's listing hides, loads too and is read as heartbeats."""
    *_, good_records = bad_run
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    assert {path.suffix for path in good_records.landed} == {".avro", ".parquet"}
    for path, lines in good_records.landed.items():
        rows = dbt_project.sql(
            f"select _source_line, _kafka_topic, _kafka_offset, raw_line, _record_format "
            f"from {bronze} where _source_file like '%/{path.name}' order by _source_line"
        )
        start = int(path.name.split("+")[2].split(".")[0])
        topic = path.name.split("+")[0]
        container = "avro" if path.suffix == ".avro" else "parquet"
        assert [
            (r["_source_line"], r["_kafka_topic"], r["_kafka_offset"], r["_record_format"])
            for r in rows
        ] == [(index, topic, start + index - 1, container) for index in range(1, len(lines) + 1)]
        assert [r["raw_line"] for r in rows] == lines, path.name
    [kinds] = dbt_project.sql(
        f"select collect_set(_cdc_message_kind) as kinds "
        f"from {dbt_project.layer('silver')}.stg_cdc__messages "
        f"where _source_file like '%/{HEARTBEAT_AVRO}'"
    )
    assert list(kinds["kinds"]) == ["heartbeat"], kinds


def test_unreadable_avro_and_parquet_files_are_quarantined_by_name(dbt_project, bad_run) -> None:  # type: ignore[no-untyped-def]
    """An Avro file cut short (where Avro's own reader would end quietly at the last whole
    block), one whose block does not end with the file's sync marker, a Parquet file cut
    short and a text file named .parquet do not stop bronze: each is one quarantined row
    (unreadable_file, line 0, its size, the records read before the failure and why), and
    none of its records is kept; an Avro container of no records and a zero-byte Parquet
    file are recorded as empty_file. The build's warning names each."""
    quarantined = _quarantined_files(dbt_project, "bad/record-files")
    assert set(quarantined) == {*UNREADABLE_RECORD_FILES, *EMPTY_RECORD_FILES}, quarantined
    landing = dbt_project.landing / "bad" / "record-files"
    for name in UNREADABLE_RECORD_FILES:
        row = quarantined[name]
        assert (row["reason_code"], row["quarantine_stage"], row["_source_line"]) == (
            "unreadable_file",
            "file",
            0,
        ), row
        raw_line = str(row["raw_line"])
        container = "avro" if name.endswith(".avro") else "parquet"
        assert raw_line.startswith(f"unreadable_file: the {container} file could not be read"), (
            raw_line
        )
        assert f"{(landing / name).stat().st_size} bytes" in raw_line, raw_line
        assert " records were read before the failure and none is kept" in raw_line, raw_line
    assert "the file ends inside " in str(quarantined["cut.avro"]["raw_line"])
    assert "does not end with the file's sync marker" in str(
        quarantined["damaged-sync.avro"]["raw_line"]
    )
    header_only = quarantined["header-only.avro"]
    assert header_only["reason_code"] == "empty_file", header_only
    assert str(header_only["raw_line"]).startswith("empty_file: the avro file holds no records")
    assert quarantined["zero-bytes.parquet"]["reason_code"] == "empty_file"
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    [leaked] = dbt_project.sql(
        f"select count(*) as n from {bronze} as kept "
        f"where kept._source_file like '{dbt_project.landed_under('bad/record-files')}' "
        f"and kept._record_format != 'unreadable_file' and exists (select 1 from {bronze} as "
        f"file_row where file_row._record_format = 'unreadable_file' "
        f"and file_row._source_file = kept._source_file "
        f"and file_row._source_file_modified_at = kept._source_file_modified_at)"
    )
    assert leaked["n"] == 0, "no record of an unreadable file version is kept"
    *_, build, _ = bad_run
    (test,) = [
        r for r in build.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    # the build's error names each (its SQL raises it: the message holds every row's)
    message = str(test.message)
    for name in UNREADABLE_RECORD_FILES:
        landed = _landed(dbt_project, f"bad/record-files/{name}")
        assert f"unreadable_file: the file {landed} could not be read whole" in message, name
    for name in EMPTY_RECORD_FILES:
        landed = _landed(dbt_project, f"bad/record-files/{name}")
        assert f"empty_file: the file {landed} is empty (no bytes, or no records;" in message, name

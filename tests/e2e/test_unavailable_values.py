"""PostgreSQL TOAST: silver carries unchanged values over; gold never shows Debezium's placeholder.

A small PostgreSQL source (`toast_pg`), written here as Debezium value lines: `docs` (only in
the generic `captured_rows`, key declared by var) and `customers` (also typed gold). Updates
send `__debezium_unavailable_value` for the TOASTed columns they do not change, in the form of
each column's type (Debezium's UnchangedToastedPlaceholder): the string (text), base64 of its
bytes (bytea), an array of one string (text[]), an array of its bytes (int[]), an array of
one name-based UUID (uuid[]), a map of it to itself (hstore); a primary-key
change sends the delete of the old key (before image: the key only, REPLICA IDENTITY DEFAULT)
and the create of the new key (placeholders again) at the same LSN. Silver
(int_cdc__carried_changes) resolves them; the source's true rows are kept here, in Python, and
gold must equal them after every run, whichever path the run takes (full build, delta,
compaction: forced by cdc_compaction_ratio) and when the halves of
a primary-key change arrive in different runs. A final --full-refresh must give the same gold.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import uuid
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from workbench.gold_runs import properties_of, run_record

pytestmark = pytest.mark.spark

PLACEHOLDER = "__debezium_unavailable_value"
_BYTES = PLACEHOLDER.encode()
# the placeholder in the form of each TOASTed column's type (Debezium 3.6,
# UnchangedToastedPlaceholder): the string, base64 of its bytes, an array of one string, an
# array of its bytes as signed integers, an array of one UUID.nameUUIDFromBytes, a map
PLACEHOLDER_FORMS: dict[str, object] = {
    "t": PLACEHOLDER,
    "b": base64.b64encode(_BYTES).decode(),
    "tags": [PLACEHOLDER],
    "nums": [b - 256 if b > 127 else b for b in _BYTES],
    "ids": [str(uuid.UUID(bytes=hashlib.md5(_BYTES).digest(), version=3))],
    "h": {PLACEHOLDER: PLACEHOLDER},
    "email": PLACEHOLDER,
}
TOASTED = {"docs": ("t", "b", "tags", "nums", "ids", "h"), "customers": ("email",)}
KEYS = {"docs": "k", "customers": "id"}
SELECT = ["--select", "+captured_rows", "+customers"]
# the first test also builds the type-2 history of customers (cdc_history)
WITH_HISTORY = [*SELECT, "+customer_history"]
VARS = {"cdc_table_keys": {"docs": ["k"]}}


def _text(tag: str) -> str:
    """A long text with characters JSON must escape."""
    return f'{tag}: "quoted" \\ back\\slash é ' * 200


def _doc(key: int, tag: str, x: int = 0) -> dict[str, object]:
    """A `docs` row whose TOASTed columns hold long values of every type (tag-seeded)."""
    seed = hashlib.sha256(tag.encode()).digest()
    return {
        "k": key,
        "t": _text(tag),
        "b": base64.b64encode(seed * 100).decode(),
        "tags": [f"{tag} {n}" for n in range(30)],
        "nums": [n * seed[0] for n in range(200)],
        "ids": [str(uuid.UUID(bytes=hashlib.md5(seed + bytes([n])).digest())) for n in range(20)],
        "h": {f"{tag}{n}": str(n) for n in range(5)},
        "x": x,
    }


class PgSource:
    """The source's true rows, and the Debezium events its changes produce."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[object, dict[str, object]]] = {"docs": {}, "customers": {}}
        self.lsn = 24_000_000
        self.tx = 700

    def _event(self, table: str, op: str, before: dict | None, after: dict | None) -> str:
        source = {
            "version": "2.5.0.Final",
            "connector": "postgresql",
            "name": "toast",
            "ts_ms": 1_700_000_000_000 + self.lsn,
            "snapshot": "false",
            "db": "toast_pg",
            "schema": "inventory",
            "table": table,
            "txId": self.tx,
            "lsn": self.lsn,
            "xmin": None,
        }
        return json.dumps(
            {"before": before, "after": after, "source": source, "op": op, "ts_ms": 0}
        )

    def _next(self) -> None:
        self.lsn += 100
        self.tx += 1

    def insert(self, table: str, row: dict[str, object]) -> list[str]:
        self._next()
        self.rows[table][row[KEYS[table]]] = dict(row)
        return [self._event(table, "c", None, dict(row))]

    def update(self, table: str, key: object, **changes: object) -> list[str]:
        """An update: the TOASTed columns it does not set are sent as the placeholder."""
        self._next()
        row = self.rows[table][key]
        row.update(changes)
        after = {
            c: (PLACEHOLDER_FORMS[c] if c in TOASTED[table] and c not in changes else v)
            for c, v in row.items()
        }
        return [self._event(table, "u", None, after)]

    def _delete(self, table: str, key: object) -> str:
        row = self.rows[table].pop(key)
        before = {c: (v if c == KEYS[table] else None) for c, v in row.items()}
        return self._event(table, "d", before, None)

    def delete(self, table: str, key: object) -> list[str]:
        self._next()
        return [self._delete(table, key)]

    def change_key(self, table: str, old: object, new: object) -> list[str]:
        """UPDATE ... SET key = new: delete + create at one LSN, TOASTed columns unavailable."""
        self._next()
        row = dict(self.rows[table][old])
        deleted = self._delete(table, old)
        row[KEYS[table]] = new
        self.rows[table][new] = row
        after = {c: (PLACEHOLDER_FORMS[c] if c in TOASTED[table] else v) for c, v in row.items()}
        return [deleted, self._event(table, "c", None, after)]


def _gold(project: DbtProject) -> dict[str, dict[object, dict[str, object]]]:
    gold = project.layer("gold")
    docs = project.sql(
        f"select _cdc_row_json from {gold}.captured_rows where _cdc_source_id like '%.docs'"
    )
    customers = project.sql(f"select id, first_name, last_name, email from {gold}.customers")
    return {
        "docs": {row["k"]: row for row in (json.loads(d["_cdc_row_json"]) for d in docs)},
        "customers": {c["id"]: c for c in customers},
    }


def _history_emails(project: DbtProject) -> dict[object, list[object]]:
    # the type-2 history of customers (cdc_history): each key's emails, version by version
    versions = project.sql(
        f"select id, email from {project.layer('gold')}.customer_history "
        "order by id, _cdc_valid_from_position"
    )
    emails: dict[object, list[object]] = {}
    for version in versions:
        emails.setdefault(version["id"], []).append(version["email"])
    return emails


def _last_kind(project: DbtProject, model: str) -> str:
    # the state's run record (decision 0023): the kind of its last applied run
    record = run_record(
        properties_of(project.sql(f"show tblproperties {project.layer('gold')}.{model}__cdc_state"))
    )
    assert record.status == "applied", record
    return str(record.kind)


def _no_placeholder(gold: dict[str, dict[object, dict[str, object]]]) -> None:
    shown = json.dumps(gold, default=str)
    for column, form in PLACEHOLDER_FORMS.items():
        text = form if isinstance(form, str) else json.dumps(form)
        assert text not in shown, f"gold shows the placeholder of {column}: {text}"


def test_unavailable_values_are_carried_over(dbt_project: DbtProject) -> None:
    pg = PgSource()
    landing: Path = dbt_project.landing
    customer = {"first_name": "Ann", "last_name": "Lee"}
    # (events, compaction ratio or None for the first run, path the run must take, the
    # source's rows once these events happened)
    runs: list[tuple[list[str], float | None, str, dict]] = []

    # 1. full build: same-key carry-over inside one batch, and a null set on purpose.
    events = pg.insert("docs", _doc(1, "A", 1))
    events += pg.update("docs", 1, x=2)
    for key, tag in ((4, "C"), (6, "D"), (9, "F")):
        events += pg.insert("docs", _doc(key, tag))
    events += pg.insert("docs", _doc(8, "E"))
    events += pg.update("docs", 8, t=None)
    events += pg.update("docs", 8, x=9)
    events += pg.insert("customers", {"id": 1, **customer, "email": "ann@example.com"})
    events += pg.update("customers", 1, first_name="Anne")
    runs.append((events, None, "full", copy.deepcopy(pg.rows)))

    # 2. delta: carry from the compacted row; a key change whose delete comes first.
    events = pg.update("docs", 1, x=3)
    events += pg.insert("docs", _doc(2, "B"))
    k4_to_k5 = pg.change_key("docs", 4, 5)
    events += k4_to_k5[:1]
    events += pg.update("customers", 1, last_name="Lee-Smith")
    runs.append((events, 100, "delta", copy.deepcopy(pg.rows)))

    # 3. delta: carry from the delta row; key changes within one batch (old rows in the
    #    delta); the create of a key change whose delete comes in the next run.
    events = pg.update("docs", 1, x=4)
    events += pg.change_key("docs", 2, 3)
    events += pg.change_key("customers", 1, 2)
    k9_to_k10 = pg.change_key("docs", 9, 10)
    events += k9_to_k10[1:]
    runs.append((events, 100, "delta", copy.deepcopy(pg.rows)))

    # 4. compaction: carry across it; the late create of k5 finds the stored tombstone of k4;
    #    the late delete of k9 resolves the stored create of k10; a create that waits.
    events = pg.update("docs", 1, x=5)
    events += k4_to_k5[1:]
    events += k9_to_k10[:1]
    k6_to_k7 = pg.change_key("docs", 6, 7)
    events += k6_to_k7[1:]
    events += pg.update("customers", 2, first_name="Annie")
    runs.append((events, 0, "compaction", copy.deepcopy(pg.rows)))

    # 5. delta: the waiting create of k7 is resolved from the compacted buckets.
    events = k6_to_k7[:1]
    events += pg.update("docs", 5, x=6)
    events += pg.update("docs", 3, x=7)
    events += pg.update("customers", 2, last_name="Lee")
    runs.append((events, 100, "delta", copy.deepcopy(pg.rows)))

    for number, (events, ratio, path, expected) in enumerate(runs, start=1):
        (landing / f"toast_pg-{number}.jsonl").write_text("\n".join(events) + "\n")
        variables = dict(VARS) if ratio is None else {**VARS, "cdc_compaction_ratio": ratio}
        dbt_project.run("run", *WITH_HISTORY, vars=variables)
        assert _last_kind(dbt_project, "captured_rows") == path, f"run {number}"
        assert _last_kind(dbt_project, "customers") == path, f"run {number}"
        gold = _gold(dbt_project)
        _no_placeholder(gold)
        wanted_docs = dict(expected["docs"])
        if number == 4:
            # k7's create arrived before the delete of k6 it takes `t` from: unknown (null)
            # for now, never the placeholder; k6 is still there until its delete arrives.
            assert all(gold["docs"][7][c] is None for c in TOASTED["docs"])
            wanted_docs[7] = {**wanted_docs[7], **dict.fromkeys(TOASTED["docs"])}
            wanted_docs[6] = _doc(6, "D")
        if number in (2, 3):
            del wanted_docs[5]  # k4 is deleted, the create of k5 not delivered yet
        if number == 3:
            wanted_docs[9] = _doc(9, "F")
            wanted_docs[10] = {**wanted_docs[10], **dict.fromkeys(TOASTED["docs"])}
        assert gold["docs"] == wanted_docs, f"run {number}"
        assert gold["customers"] == expected["customers"], f"run {number}"
        # the history reads the same resolved changes: every version of customer 1 (an
        # insert, then updates that leave the TOASTed email alone) shows the email, and so
        # does every version of key 2, which a key change created with the placeholder
        history = _history_emails(dbt_project)
        assert history[1] == ["ann@example.com"] * len(history[1]), f"run {number}"
        assert len(history[1]) == (2 if number == 1 else 3), f"run {number}"
        assert history.get(2, []) == ["ann@example.com"] * len(history.get(2, [])), f"run {number}"
        assert len(history.get(2, [])) == {1: 0, 2: 0, 3: 1, 4: 2, 5: 3}[number], f"run {number}"

    final = _gold(dbt_project)
    final_history = _history_emails(dbt_project)
    assert final["docs"][8]["t"] is None  # set to null on purpose: the null is carried
    dbt_project.run("run", *WITH_HISTORY, "--full-refresh", vars=VARS)
    assert _last_kind(dbt_project, "captured_rows") == "full"
    assert _gold(dbt_project) == final
    assert _history_emails(dbt_project) == final_history  # resolved again, carried again


def _carried(project: DbtProject) -> list[tuple[object, str, bool]]:
    # int_cdc__carried_changes: each written resolution as (key, op, waiting), oldest first
    rows = project.sql(
        f"select _cdc_key, _cdc_op, _cdc_is_waiting from {project.layer('silver')}."
        "int_cdc__carried_changes where _cdc_source_table = 'docs' order by _cdc_sort_key"
    )
    return [(int(json.loads(r["_cdc_key"])["k"]), r["_cdc_op"], r["_cdc_is_waiting"]) for r in rows]


def test_silver_writes_what_it_carries_and_resolves_a_waiting_create_again(
    dbt_project: DbtProject,
) -> None:
    # Silver (int_cdc__carried_changes) writes only the changes it alters: nothing for
    # inserts; a delete whose image holds the key alone, filled; an update's placeholders;
    # the create of a key change whose delete has not arrived, with nulls and waiting; and,
    # in the run that brings that delete, the create again, resolved. A warehouse of its own
    # (the module's project is shared): no state, no landing file.
    dbt_project.drop_schemas()
    landing: Path = dbt_project.landing
    for landed in landing.iterdir():
        landed.unlink()
    pg = PgSource()
    # (events, the resolutions written so far of docs as (key, op, waiting), the source's rows)
    runs: list[tuple[list[str], list[tuple[object, str, bool]], dict]] = []
    # 1. full build of inserts: nothing to carry
    events: list[str] = []
    for key, tag in ((1, "A"), (2, "B"), (3, "C")):
        events += pg.insert("docs", _doc(key, tag))
    events += pg.insert(
        "customers", {"id": 1, "first_name": "Ann", "last_name": "Lee", "email": "a@x.org"}
    )
    runs.append((events, [], copy.deepcopy(pg.rows)))
    # 2. a delete with its key only (filled from the row before), an insert (as sent)
    events = pg.delete("docs", 3) + pg.insert("docs", _doc(4, "D"))
    written = [(3, "d", False)]
    runs.append((events, list(written), copy.deepcopy(pg.rows)))
    # 3. an update carried from the row before, and the create of a key change whose
    #    delete comes next run (it waits, with nulls)
    k2_to_k5 = pg.change_key("docs", 2, 5)
    events = pg.update("docs", 1, x=7) + k2_to_k5[1:] + pg.update("customers", 1, first_name="Anne")
    written += [(1, "u", False), (5, "c", True)]
    runs.append((events, list(written), copy.deepcopy(pg.rows)))
    # 4. the late delete (filled) resolves the waiting create: written again
    written += [(2, "d", False), (5, "c", False)]
    runs.append((k2_to_k5[:1], list(written), copy.deepcopy(pg.rows)))
    for number, (events, carried, expected) in enumerate(runs, start=1):
        (landing / f"toast_pg-silver-{number}.jsonl").write_text("\n".join(events) + "\n")
        dbt_project.run("run", *SELECT, vars={**VARS, "cdc_compaction_ratio": 100})
        assert sorted(_carried(dbt_project), key=str) == sorted(carried, key=str), f"run {number}"
        gold = _gold(dbt_project)
        _no_placeholder(gold)
        wanted_docs = dict(expected["docs"])
        if number == 3:
            # k5's create waits for the delete of k2 it takes its values from
            wanted_docs[5] = {**wanted_docs[5], **dict.fromkeys(TOASTED["docs"])}
            wanted_docs[2] = _doc(2, "B")
        assert gold["docs"] == wanted_docs, f"run {number}"
        assert gold["customers"] == expected["customers"], f"run {number}"

"""A seeded, repeatable workload on PostgreSQL, in transactions, batch by batch.

Batch 0 creates the tables and their first rows (the capture's initial snapshot reads them);
every later batch is streamed: inserts, updates (also of the primary key), deletes, TRUNCATE,
large text that PostgreSQL TOASTs (REPLICA IDENTITY DEFAULT and FULL tables), a table without
a primary key, ALTER TABLE ADD/DROP COLUMN between changes, and a rolled-back transaction.
The same seed gives the same statements.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field

# The tables the workload writes (schema public), and the capture's watermark table: the
# capture stops at its row (workbench.realdb.capture, `until`) and does not land it.
TABLES: tuple[str, ...] = (
    "customers",
    "notes",
    "notes_full",
    "events",
    "truncated",
    "blobs",
    "wide_values",
    "OrderLines",
    "orderlines",
)
WATERMARK_TABLE = "capture_watermark"
# The primary keys: value-only sink files carry no Kafka key, and a PostgreSQL connector
# writes no schema-change topic, so a user declares them (var cdc_table_keys)
TABLE_KEYS: dict[str, list[str]] = {
    "customers": ["id"],
    "notes": ["id"],
    "notes_full": ["id"],
    "truncated": ["id"],
    "blobs": ["id"],
    "wide_values": ["id"],
    "OrderLines": ["id"],
    "orderlines": ["id"],
}

SCHEMA = f"""
create type mood as enum ('sad', 'ok', 'happy', 'très content');
create table customers (
    id integer primary key,
    small smallint,
    big bigint,
    amount numeric(12, 2),
    ratio numeric,
    real_v real,
    dbl double precision,
    active boolean,
    name text,
    code varchar(20),
    payload bytea,
    born date,
    wakes time,
    seen timestamp,
    seen_tz timestamptz,
    waited interval,
    doc json,
    docb jsonb,
    uid uuid,
    feeling mood
);
create table notes (id integer primary key, title text, body text);
create table notes_full (id integer primary key, title text, body text);
alter table notes_full replica identity full;
-- no primary key: updates and deletes need REPLICA IDENTITY FULL in a publication
create table events (kind text, at_ms bigint, detail text);
alter table events replica identity full;
create table truncated (id integer primary key, label text);
-- REPLICA IDENTITY DEFAULT, every large column stored out of line uncompressed: an update
-- that leaves them alone sends Debezium's placeholder in each one's form (issue 78)
create table blobs (
    id integer primary key,
    small text,
    payload bytea,
    tags text[],
    nums integer[],
    docb jsonb
);
alter table blobs
    alter column payload set storage external,
    alter column tags set storage external,
    alter column nums set storage external,
    alter column docb set storage external;
-- numerics beyond 38 digits, and arrays whose elements have a logical type
create table wide_values (
    id integer primary key,
    huge numeric,
    wide numeric(50, 2),
    days date[],
    stamps timestamp[],
    amounts numeric(8, 2)[],
    uids uuid[]
);
-- two tables whose names differ only by case
create table "OrderLines" (id integer primary key, item text, quantity integer);
create table orderlines (id integer primary key, note text);
create table {WATERMARK_TABLE} (mark text primary key);
"""

CUSTOMER_COLUMNS = (
    "id",
    "small",
    "big",
    "amount",
    "ratio",
    "real_v",
    "dbl",
    "active",
    "name",
    "code",
    "payload",
    "born",
    "wakes",
    "seen",
    "seen_tz",
    "waited",
    "doc",
    "docb",
    "uid",
    "feeling",
)
NAMES = (
    "Zoë",
    "Łukasz",
    "Ærøskøbing",
    "北京",
    "Ωmega",
    "plain",
    "O'Brien",
    'say "hi"',
    "tab\there",
)
MOODS = ("sad", "ok", "happy", "très content")


HUGE = (
    "1e130",
    "-1E+40",
    "123456789012345678901234567890.123456789",
    "-0.0000000000000000000000000000000000000000001",
    "1e-130",
    "0",
)
WIDE = (
    "123456789012345678901234567890123456789012345678.90",
    "-99999999999999999999999999999999999999999999999.99",
    "0.01",
)


def _text(value: str | None) -> str:
    return "null" if value is None else "'" + value.replace("'", "''") + "'"


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids))


def insert_events(rng: random.Random, before: int, count: int) -> str:
    """An insert of `count` rows into the keyless table `events`, after `before` rows (their
    `at_ms` follow: 1000 per row)."""
    rows = []
    for number in range(before + 1, before + count + 1):
        kind = rng.choice(["click", "view", "buy"])
        rows.append(f"('{kind}', {number * 1000}, {_text(rng.choice(NAMES))})")
    return "insert into events values " + ", ".join(rows) + ";"


@dataclass
class Workload:
    """The statements of each batch, drawn from `seed`; `next_id` and the live ids are
    tracked so that updates and deletes hit rows that exist."""

    seed: int = 61
    customers: set[int] = field(default_factory=set)
    notes: set[int] = field(default_factory=set)
    next_id: int = 1
    events: int = 0
    added_column: bool = False
    dropped_column: bool = False

    def __post_init__(self) -> None:
        self.rng = random.Random(f"realdb:{self.seed}")

    # ------------------------------------------------------------------ values
    def _customer_values(self, row_id: int) -> str:
        r = self.rng
        amount = f"{r.randint(-(10**9), 10**9)}.{r.randint(0, 99):02d}"
        ratio = r.choice(["0", "1.5", "-0.000001", "123456789012345678901234567890.125", "2.50"])
        real_v = r.choice(["3.14", "-0.1", "16777217", "1e-10"])
        dbl = r.choice(["2.718281828459045", "-1e300", "0.1", "42"])
        payload = bytes(r.randrange(256) for _ in range(r.randint(0, 24))).hex()
        born = f"{r.randint(1900, 2099)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
        wakes = self._clock()
        seen = f"{born} {wakes}"
        zone = f"+0{r.randint(0, 9)}:30"
        seen_tz = f"{r.randint(1971, 2037)}-0{r.randint(1, 9)}-1{r.randint(0, 9)} {wakes}{zone}"
        waited = f"{r.randint(0, 40)} days {self._clock()}"
        doc = (
            '{"a": ' + str(r.randint(0, 99)) + ', "b": [true, null, "x\\u00e9"], "c": {"d": 1.50}}'
        )
        uid = uuid.UUID(int=r.getrandbits(128))
        values = [
            str(row_id),
            str(r.randint(-32768, 32767)),
            str(r.randint(-(2**63), 2**63 - 1)),
            amount,
            ratio,
            f"'{real_v}'",
            f"'{dbl}'",
            r.choice(["true", "false", "null"]),
            _text(r.choice(NAMES) + f" {row_id}"),
            _text(r.choice(NAMES)[:8]),
            f"'\\x{payload}'",
            f"'{born}'",
            f"'{wakes}'",
            f"'{seen}'",
            f"'{seen_tz}'",
            f"'{waited}'",
            _text(doc),
            _text(doc),
            f"'{uid}'",
            _text(r.choice(MOODS)),
        ]
        if self.dropped_column:
            del values[1]
        return "(" + ", ".join(values) + ")"

    def _clock(self) -> str:
        r = self.rng
        return (
            f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
            f".{r.randint(0, 999999):06d}"
        )

    def _big_text(self, row_id: int) -> str:
        """Text PostgreSQL TOASTs (over 2 kB, compressible and not)."""
        r = self.rng
        words = " ".join(r.choice(NAMES) for _ in range(400))
        noise = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(3000))
        return f"{row_id}: {words} {noise}"

    def _blob_values(self, row_id: int) -> str:
        """A row of `blobs`: a 4,000-byte bytea, 30 long strings, 1,500 integers and a large
        jsonb, each TOASTed (stored out of line)."""
        r = self.rng
        payload = bytes(r.randrange(256) for _ in range(4000)).hex()
        tags = [f"{r.choice(NAMES)} {i} " + "x" * r.randint(60, 120) for i in range(30)]
        tags_literal = "array[" + ", ".join(_text(t) for t in tags) + "]::text[]"
        nums = "array[" + ", ".join(str(r.randint(-(2**31), 2**31 - 1)) for _ in range(1500)) + "]"
        docb = json.dumps({"row": row_id, "items": [r.random() for _ in range(200)]})
        return (
            f"({row_id}, 'small {row_id}', '\\x{payload}', {tags_literal}, {nums}, "
            f"{_text(docb)}::jsonb)"
        )

    def _wide_values(self, row_id: int) -> str:
        """A row of `wide_values`: numerics beyond 38 digits, arrays of logical types."""
        r = self.rng
        days = ", ".join(
            f"'{r.randint(1900, 2099)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}'"
            for _ in range(3)
        )
        stamps = ", ".join(
            f"'2024-0{r.randint(1, 9)}-1{r.randint(0, 9)} {self._clock()}'" for _ in range(2)
        )
        amounts = ", ".join(f"{r.randint(-999999, 999999) / 100:.2f}" for _ in range(3))
        uids = ", ".join(f"'{uuid.UUID(int=r.getrandbits(128))}'" for _ in range(2))
        return (
            f"({row_id}, {r.choice(HUGE)}, {r.choice(WIDE)}, array[{days}, null]::date[], "
            f"array[{stamps}]::timestamp[], array[{amounts}]::numeric(8, 2)[], "
            f"array[{uids}]::uuid[])"
        )

    def _insert_twins(self, first: int, count: int) -> str:
        """Rows of the case twins: `"OrderLines"` and `orderlines` (not the same rows)."""
        return (
            f"insert into \"OrderLines\" select g, 'item ' || g, g * 2 "
            f"from generate_series({first}, {first + count - 1}) as g;\n"
            f"insert into orderlines select g, 'note ' || g "
            f"from generate_series({100 + 2 * first}, {100 + 2 * (first + count) - 1}) as g;"
        )

    # ------------------------------------------------------------------ batches
    def batch(self, index: int) -> list[str]:
        """The transactions of batch `index` (each a script `begin; ...; commit;`)."""
        return self._first() if index == 0 else self._streamed(index)

    def _insert_customers(self, count: int) -> str:
        rows = []
        for _ in range(count):
            rows.append(self._customer_values(self.next_id))
            self.customers.add(self.next_id)
            self.next_id += 1
        columns = [c for c in CUSTOMER_COLUMNS if not (self.dropped_column and c == "small")]
        return f"insert into customers ({', '.join(columns)}) values " + ", ".join(rows) + ";"

    def _insert_notes(self, count: int) -> str:
        statements = []
        for _ in range(count):
            row_id = self.next_id
            self.next_id += 1
            self.notes.add(row_id)
            body = _text(self._big_text(row_id))
            for table in ("notes", "notes_full"):
                statements.append(
                    f"insert into {table} values ({row_id}, 'note {row_id}', {body});"
                )
        return "\n".join(statements)

    def _insert_events(self, count: int) -> str:
        statement = insert_events(self.rng, self.events, count)
        self.events += count
        return statement

    def _first(self) -> list[str]:
        return [
            SCHEMA,
            "begin;\n" + self._insert_customers(12) + "\n" + self._insert_notes(4) + "\ncommit;",
            "begin;\n" + self._insert_events(6) + "\n"
            "insert into truncated select g, 'before ' || g from generate_series(1, 5) as g;\n"
            "commit;",
            "begin;\ninsert into blobs values "
            + ", ".join(self._blob_values(i) for i in (1, 2, 3))
            + ";\ninsert into wide_values values "
            + ", ".join(self._wide_values(i) for i in (1, 2, 3, 4, 5, 6))
            + ";\n"
            + self._insert_twins(1, 3)
            + "\ncommit;",
        ]

    def _streamed(self, index: int) -> list[str]:
        r = self.rng
        ids = sorted(self.customers)
        notes = sorted(self.notes)
        scripts: list[str] = []
        # inserts and updates of every column, in one transaction
        updated = r.sample(ids, 4)
        sets = []
        for row_id in updated:
            sets.append(
                f"update customers set amount = amount + 1.01, name = {_text(r.choice(NAMES))}, "
                f"seen = seen + interval '1 second', ratio = ratio * 2 where id = {row_id};"
            )
        scripts.append(
            "begin;\n" + self._insert_customers(5) + "\n" + "\n".join(sets) + "\ncommit;"
        )
        # a primary-key update, and deletes
        moved, gone = r.sample(sorted(set(ids) - set(updated)), 2)
        self.customers.discard(moved)
        new_id = self.next_id
        self.next_id += 1
        self.customers.add(new_id)
        self.customers.discard(gone)
        scripts.append(
            f"begin;\nupdate customers set id = {new_id}, code = 'moved' where id = {moved};\n"
            f"delete from customers where id = {gone};\ncommit;"
        )
        # TOASTed text: updates that leave it alone (DEFAULT identity: not sent), then one
        # that changes it; a delete
        toast = []
        for row_id in notes[:2]:
            for table in ("notes", "notes_full"):
                toast.append(f"update {table} set title = 'edited {index}' where id = {row_id};")
        if len(notes) > 2:
            body = _text(self._big_text(notes[2] * 100 + index))
            for table in ("notes", "notes_full"):
                toast.append(f"update {table} set body = {body} where id = {notes[2]};")
        if len(notes) > 3:
            self.notes.discard(notes[3])
            for table in ("notes", "notes_full"):
                toast.append(f"delete from {table} where id = {notes[3]};")
        scripts.append("begin;\n" + "\n".join(toast) + "\n" + self._insert_notes(1) + "\ncommit;")
        # TOASTed bytea, arrays and jsonb left alone by an update (DEFAULT identity: the
        # placeholder in each one's form), one of them changed; wide numerics and arrays of
        # logical types updated and inserted; the case twins updated apart
        scripts.append(
            "begin;\n"
            f"update blobs set small = 'edited {index}' where id in (1, 2);\n"
            f"update blobs set nums = array[{index}, -{index}], small = 'nums' where id = 3;\n"
            f"insert into blobs values {self._blob_values(3 + index)};\n"
            f"update wide_values set huge = huge * -1, wide = 0.01 * {index} where id = {index};\n"
            f"update wide_values set days = array['2024-01-01', '1970-01-01']::date[], "
            f"amounts = array[1.50, -0.05, null]::numeric(8, 2)[] where id = {index + 2};\n"
            f"insert into wide_values values {self._wide_values(6 + index)};\n"
            f'update "OrderLines" set quantity = quantity + {index} where id = 1;\n'
            f"update orderlines set note = 'edited {index}' where id = 102;\n"
            + self._insert_twins(3 + 2 * index, 1)
            + "\ncommit;"
        )
        # the keyless table: insert, update, delete
        scripts.append(
            "begin;\n" + self._insert_events(3) + "\n"
            "update events set detail = 'updated' where at_ms = 2000;\n"
            f"delete from events where at_ms = {1000 * (2 + index)};\ncommit;"
        )
        # a rolled-back transaction: nothing of it may reach gold
        scripts.append(
            "begin;\ninsert into customers (id, name) values (999999, 'rolled back');\n"
            f"update customers set name = 'never' where id = {ids[0]};\n"
            "delete from truncated;\nrollback;"
        )
        # TRUNCATE, then new rows
        scripts.append(
            "begin;\ntruncate truncated;\n"
            f"insert into truncated select g, 'after {index} ' || g "
            "from generate_series(1, 3) as g;\n"
            "commit;"
        )
        # schema changes while streaming: a column added and written, then dropped later
        if index == 1:
            self.added_column = True
            scripts.append("alter table customers add column nickname text;")
            scripts.append(
                "begin;\n" + self._insert_customers(2) + "\n"
                "update customers set nickname = 'nick ' || id "
                f"where id in ({_ids(sorted(self.customers)[:3])});\n"
                "commit;"
            )
        elif index == 2 and self.added_column:
            self.dropped_column = True
            scripts.append("alter table customers drop column small;")
            scripts.append(
                "begin;\n"
                "update customers set big = big / 2 "
                f"where id in ({_ids(sorted(self.customers)[-3:])});\n"
                "commit;"
            )
        return scripts

    def spanning(self) -> str:
        """The statements of a transaction opened before a batch's workload, left open over
        its capture and committed in the next batch: its changes carry LSNs older than the
        batch's. Inserts only, into tables the batch's DDL and TRUNCATE leave alone (an open
        transaction's locks would block those)."""
        return self._insert_events(1) + "\n" + self._insert_notes(1) + "\n"

    @staticmethod
    def watermark(mark: str) -> str:
        return f"insert into {WATERMARK_TABLE} values ('{mark}');"

"""A seeded, repeatable workload on MariaDB, in transactions, batch by batch.

Batch 0 creates the tables and their first rows (the capture's initial snapshot reads them);
every later batch is streamed: inserts, updates (also of the primary key), deletes, TRUNCATE,
a table without a primary key, ALTER TABLE ADD/DROP COLUMN between changes, and a
rolled-back transaction. `customers` has a column of every type users have: integers
(signed and unsigned, tinyint to bigint), decimal, float, double, boolean (tinyint(1)),
varchar and text with non-ASCII, blob, varbinary, date, datetime(6), datetime, timestamp(6),
time(6), year, bit(1), bit(10), enum, set and json. The same seed gives the same statements.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from workbench.realdb.workload import MOODS, NAMES, insert_events

# The tables the workload writes (in the database of the source), and the capture's
# watermark table: the capture stops at its row and does not land it.
TABLES: tuple[str, ...] = ("customers", "notes", "events", "truncated")
WATERMARK_TABLE = "capture_watermark"
TABLE_KEYS: dict[str, list[str]] = {"customers": ["id"], "notes": ["id"], "truncated": ["id"]}

SCHEMA = f"""
create table customers (
    id int primary key,
    tiny tinyint,
    tiny_u tinyint unsigned,
    small smallint,
    small_u smallint unsigned,
    medium mediumint,
    medium_u mediumint unsigned,
    regular_u int unsigned,
    big bigint,
    big_u bigint unsigned,
    amount decimal(12, 2),
    wide decimal(38, 10),
    real_v float,
    dbl double,
    active boolean,
    name varchar(60),
    note text,
    payload blob,
    code varbinary(16),
    born date,
    seen datetime(6),
    seen_s datetime,
    stamped timestamp(6) null,
    wakes time(6),
    since year,
    flag bit(1),
    flags bit(10),
    mood enum('sad', 'ok', 'happy', 'très content'),
    tags set('red', 'green', 'blue', 'ünïcode'),
    doc json
);
create table notes (id int primary key, title varchar(80), body mediumtext);
-- no primary key: Debezium sends whole row images (binlog_row_image=FULL)
create table events (kind varchar(10), at_ms bigint, detail varchar(80));
create table truncated (id int primary key, label varchar(40));
create table {WATERMARK_TABLE} (mark varchar(40) primary key);
"""

TAGS = ("red", "green", "blue", "ünïcode")


def _text(value: str | None) -> str:
    if value is None:
        return "null"
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass
class MariaDbWorkload:
    """The statements of each batch, drawn from `seed`; the live ids are tracked so that
    updates and deletes hit rows that exist."""

    seed: int = 61
    customers: set[int] = field(default_factory=set)
    notes: set[int] = field(default_factory=set)
    next_id: int = 1
    events: int = 0
    dropped: bool = False

    def __post_init__(self) -> None:
        self.rng = random.Random(f"realdb-mariadb:{self.seed}")

    def _clock(self, hours: int = 23) -> str:
        r = self.rng
        return (
            f"{r.randint(0, hours):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
            f".{r.randint(0, 999999):06d}"
        )

    def _day(self, first: int, last: int) -> str:
        r = self.rng
        return f"{r.randint(first, last)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"

    def _row(self, row_id: int) -> dict[str, str]:
        """One customer's values as SQL literals, by column."""
        r = self.rng
        payload = bytes(r.randrange(256) for _ in range(r.randint(0, 24))).hex()
        wakes = r.choice([self._clock(), f"-{self._clock(838)}", f"{r.randint(24, 838)}:00:00"])
        doc = '{"a": ' + str(r.randint(0, 99)) + ', "b": [true, null, "x\\u00e9"], "c": 1.50}'
        return {
            "id": str(row_id),
            "tiny": str(r.randint(-128, 127)),
            "tiny_u": str(r.randint(0, 255)),
            "small": str(r.randint(-32768, 32767)),
            "small_u": str(r.randint(0, 65535)),
            "medium": str(r.randint(-(2**23), 2**23 - 1)),
            "medium_u": str(r.randint(0, 2**24 - 1)),
            "regular_u": str(r.randint(0, 2**32 - 1)),
            "big": str(r.randint(-(2**63), 2**63 - 1)),
            "big_u": str(r.choice([0, 2**63 - 1, 2**63, 2**64 - 1, r.randint(0, 2**64 - 1)])),
            "amount": f"{r.randint(-(10**9), 10**9)}.{r.randint(0, 99):02d}",
            "wide": f"{r.randint(-(10**27), 10**27)}.{r.randint(0, 10**10 - 1):010d}",
            "real_v": r.choice(["3.14", "-0.1", "16777217", "1e-10"]),
            "dbl": r.choice(["2.718281828459045", "-1e300", "0.1", "42"]),
            "active": r.choice(["true", "false", "null"]),
            "name": _text(r.choice(NAMES) + f" {row_id}"),
            "note": _text(" ".join(r.choice(NAMES) for _ in range(r.randint(0, 30)))),
            "payload": f"x'{payload}'",
            "code": f"x'{payload[:16]}'",
            "born": f"'{self._day(1000, 2099)}'",
            "seen": f"'{self._day(1000, 2099)} {self._clock()}'",
            "seen_s": f"'{self._day(1000, 2099)} {self._clock()[:8]}'",
            "stamped": f"'{self._day(1971, 2037)} {self._clock()}'",
            "wakes": f"'{wakes}'",
            "since": str(r.randint(1901, 2155)),
            "flag": r.choice(["b'0'", "b'1'", "null"]),
            "flags": f"b'{r.getrandbits(10):010b}'",
            "mood": _text(r.choice(MOODS)),
            "tags": _text(",".join(sorted(r.sample(TAGS, r.randint(0, 3)), key=TAGS.index))),
            "doc": _text(doc),
        }

    def _insert_customers(self, count: int) -> str:
        rows = []
        for _ in range(count):
            values = self._row(self.next_id)
            if self.dropped:
                del values["small"]
            self.customers.add(self.next_id)
            self.next_id += 1
            rows.append("(" + ", ".join(values.values()) + ")")
        columns = ", ".join(values)
        return f"insert into customers ({columns}) values " + ", ".join(rows) + ";"

    def _insert_notes(self, count: int) -> str:
        rows = []
        for _ in range(count):
            self.notes.add(self.next_id)
            body = " ".join(self.rng.choice(NAMES) for _ in range(200))
            rows.append(f"({self.next_id}, 'note {self.next_id}', {_text(body)})")
            self.next_id += 1
        return "insert into notes values " + ", ".join(rows) + ";"

    def _insert_events(self, count: int) -> str:
        statement = insert_events(self.rng, self.events, count)  # names without backslashes
        self.events += count
        return statement

    def batch(self, index: int) -> list[str]:
        """The transactions of batch `index` (each a script `begin; ...; commit;`)."""
        return self._first() if index == 0 else self._streamed(index)

    def _first(self) -> list[str]:
        labels = ", ".join(f"({i}, 'before {i}')" for i in range(1, 6))
        return [
            SCHEMA,
            f"begin;\n{self._insert_customers(12)}\n{self._insert_notes(3)}\ncommit;",
            f"begin;\n{self._insert_events(6)}\ninsert into truncated values {labels};\ncommit;",
        ]

    def _updates(self, ids: list[int]) -> str:
        r = self.rng
        return "\n".join(
            f"update customers set amount = amount + 1.01, name = {_text(r.choice(NAMES))}, "
            "seen = seen + interval 1 second, wide = -wide, big_u = big_u div 2, "
            f"flags = ~flags & 1023, tags = 'blue', wakes = '-00:00:01.5' where id = {row_id};"
            for row_id in ids
        )

    def _streamed(self, index: int) -> list[str]:
        r = self.rng
        ids = sorted(self.customers)
        updated = r.sample(ids, 4)
        moved, gone = r.sample(sorted(set(ids) - set(updated)), 2)
        new_id = self.next_id
        self.next_id += 1
        self.customers -= {moved, gone}
        self.customers.add(new_id)
        note = sorted(self.notes)[0]
        labels = ", ".join(f"({i}, 'after {index} {i}')" for i in range(1, 4))
        scripts = [
            f"begin;\n{self._insert_customers(5)}\n{self._updates(updated)}\ncommit;",
            # a primary-key update, and a delete
            f"begin;\nupdate customers set id = {new_id}, code = x'00' where id = {moved};\n"
            f"delete from customers where id = {gone};\ncommit;",
            f"begin;\nupdate notes set title = 'edited {index}' where id = {note};\n"
            f"{self._insert_notes(1)}\ncommit;",
            # the keyless table: insert, update, delete
            f"begin;\n{self._insert_events(3)}\n"
            "update events set detail = 'updated' where at_ms = 2000;\n"
            f"delete from events where at_ms = {1000 * (2 + index)};\ncommit;",
            # a rolled-back transaction: nothing of it may reach gold
            "begin;\ninsert into customers (id, name) values (999999, 'rolled back');\n"
            f"update customers set name = 'never' where id = {ids[0]};\n"
            "delete from truncated;\nrollback;",
            f"truncate table truncated;\nbegin;\ninsert into truncated values {labels};\ncommit;",
        ]
        return scripts + self._schema_change(index)

    def _schema_change(self, index: int) -> list[str]:
        """A column added and written in batch 1, one dropped in batch 2, while streaming."""
        if index == 1:
            some = ", ".join(map(str, sorted(self.customers)[:3]))
            return [
                "alter table customers add column nickname varchar(40);",
                f"begin;\n{self._insert_customers(2)}\n"
                f"update customers set nickname = concat('nick ', id) where id in ({some});\n"
                "commit;",
            ]
        if index == 2 and not self.dropped:
            self.dropped = True
            last = ", ".join(map(str, sorted(self.customers)[-3:]))
            return [
                "alter table customers drop column small;",
                f"begin;\nupdate customers set big = big div 2 where id in ({last});\ncommit;",
            ]
        return []

    def spanning(self) -> str:
        """The statements of a transaction opened before a batch's workload, left open over
        its capture and committed in the next batch: the binlog writes it at its commit.
        Inserts into `notes` only: an open transaction's metadata locks would block the
        batch's DDL and TRUNCATE, and its row locks the keyless table's full-scan update."""
        return self._insert_notes(2) + "\n"

    @staticmethod
    def watermark(mark: str) -> str:
        return f"insert into {WATERMARK_TABLE} values ('{mark}');"

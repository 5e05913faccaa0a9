"""Gold stays equal to the source under at-least-once, out-of-order delivery.

Six simulated source databases (three connectors, both wrapper modes, different seeds,
decimals sent as doubles or strings, Kafka Connect temporal types where the schema is on)
have all their messages shuffled across three deliveries, each loaded by its own
incremental `dbt build`: newer changes often land before older ones (late events), 10 % of
each delivery is duplicated within it, and a fifth of the first delivery is replayed in the
last one, as after a connector restart. Three of the sources also run incremental
snapshots (their reads shuffled among the streamed changes like everything else), two
with transaction metadata and the schema-change topic, two with a column added and one
dropped mid-stream, `source.snapshot` as strings or booleans. Only the final state is
defined, and it must equal the source database; a full refresh must then give the same
gold tables. The second delivery goes to the gold delta partitions (merge on read), the
third folds them into the buckets (compaction), so both write paths meet late events and
duplicates.

Deliveries can also lose messages (issue #31): a seventh source, `GAP_MSS`, lands its first
batch without two ranges of Kafka offsets, one in Kafka Connect sink files (the file after
the range starts past it: never delivered) and one in kcat records (delivered late, with the
second batch); `cdc_delivery_gaps` must list exactly those ranges, and the build that loads
them warn (`assert_no_new_delivery_gaps`).

The sources are this module's part of the shared stream (tests/e2e/stream.py): the three
deliveries are its steps `batch0`, `batch1` (gold keeps them in the delta partitions) and
`replay` (compaction), landed under `deliveries/` beside the other parts' files.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import (
    PARTS,
    Part,
    Stream,
    gold_rows_of,
    owned_by,
    register,
    stream_databases,
)
from workbench.gold_runs import properties_of, run_record
from workbench.oracle_check import GoldReader, compare_database
from workbench.simulator import SimConfig, SimResult, simulate, write_batch
from workbench.simulator.debezium import Message
from workbench.simulator.landing import sink_file_name

pytestmark = pytest.mark.spark

_EVENTS: dict[str, object] = {"transaction_metadata": True, "schema_change_topic": True}
# (flavour, schemas_enable, landing format, seed, SimConfig options: value encodings and
# event kinds)
SOURCES: list[tuple[str, bool, str, int, dict[str, object]]] = [
    ("oracle", True, "kcat", 11, {
        "decimal_handling_mode": "double", "time_precision_mode": "connect",
        **_EVENTS, "snapshot_style": "boolean", "incremental_snapshot_batches": (0, 1, 2),
    }),
    ("oracle", False, "value_lines", 12, {
        "decimal_handling_mode": "string", "time_precision_mode": "adaptive",
    }),
    ("sqlserver", True, "value_lines", 13, {
        "decimal_handling_mode": "string", "time_precision_mode": "connect",
        **_EVENTS, "snapshot_style": "string", "incremental_snapshot_batches": (1,),
        "evolve_batch": 1,
    }),
    ("sqlserver", False, "kcat", 14, {
        "decimal_handling_mode": "double", "time_precision_mode": "adaptive",
    }),
    ("db2", True, "kcat", 15, {
        "decimal_handling_mode": "double", "time_precision_mode": "connect",
    }),
    ("db2", False, "value_lines", 16, {
        "decimal_handling_mode": "string", "time_precision_mode": "adaptive",
        "transaction_metadata": False, "incremental_snapshot_batches": (0, 2),
        "evolve_batch": 2,
    }),
]  # fmt: skip
DELIVERIES = 3
# The stream step that loads each delivery (the stream sets the gold compaction ratio:
# `batch1` keeps every change in the delta partitions, `replay` compacts).
DELIVERY_STEPS = ("batch0", "batch1", "replay")
GOLD_TABLES = ("customers", "orders", "order_lines", "captured_rows")
PART = "deliveries"


def _database(index: int, flavour: str) -> str:
    return f"LATE{index}_{flavour.upper()}"


@functools.cache
def _deliveries() -> list[tuple[SimResult, str, int, list[list[Message]]]]:
    """Per source: its simulation, landing format, seed and delivery plan (the chunks)."""
    plans = []
    for index, (flavour, wrapped, fmt, seed, options) in enumerate(SOURCES):
        result = simulate(
            SimConfig(
                seed=seed,
                flavour=flavour,
                database=_database(index, flavour),
                server=f"late{index}",
                schemas_enable=wrapped,
                batches=3,
                transactions=40,
                truncate_probability=0.05,
                pk_change_probability=0.1,
                **options,  # type: ignore[arg-type]
            )
        )
        rng = random.Random(seed)
        messages = list(result.messages)
        rng.shuffle(messages)
        cuts = sorted(rng.sample(range(1, len(messages)), DELIVERIES - 1))
        chunks = [messages[a:b] for a, b in zip([0, *cuts], [*cuts, len(messages)], strict=True)]
        chunks[-1] = chunks[-1] + rng.sample(chunks[0], len(chunks[0]) // 5)
        plans.append((result, fmt, seed, chunks))
    return plans


@pytest.fixture(scope="session")
def deliveries():  # type: ignore[no-untyped-def]
    return _deliveries()


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


# A source whose first batch skips offsets: `LOST` in its customers topic (sink files; never
# delivered) and `LATE` in its orders topic (kcat; delivered with the second batch).
GAP = SimConfig(
    seed=31, flavour="sqlserver", database="GAP_MSS", server="gap", batches=2, transactions=6
)


@dataclass(frozen=True)
class GapPlan:
    """The gap source's batches and the offset ranges its first batch skips."""

    result: SimResult
    lost: tuple[str, int, int]  # (topic, first, last offset) never delivered
    late: tuple[str, int, int]  # (topic, first, last offset) delivered with the second batch

    def skipped(self, message: Message, *ranges: tuple[str, int, int]) -> bool:
        return any(message.topic == t and a <= message.offset <= b for t, a, b in ranges)


@functools.cache
def _gap_plan() -> GapPlan:
    result = simulate(GAP)
    first = result.batches[0]

    def inner_range(suffix: str, start: int, length: int) -> tuple[str, int, int]:
        (topic,) = {m.topic for m in first if m.topic.endswith(suffix)}
        offsets = sorted(m.offset for m in first if m.topic == topic)
        assert len(offsets) > start + length  # a range inside the batch, offsets after it
        return topic, offsets[start], offsets[start + length - 1]

    return GapPlan(result, inner_range(".customers", 2, 3), inner_range(".orders", 4, 2))


def _land_gaps(step: str, folder: Path) -> None:
    plan = _gap_plan()
    if step == "batch0":
        lost_topic = plan.lost[0]
        kept = [m for m in plan.result.batches[0] if not plan.skipped(m, plan.lost, plan.late)]
        # the customers topic as sink files: the offsets before the range in one file, the
        # offsets after it in a file named by its first offset
        sink = [m for m in kept if m.topic == lost_topic]
        write_batch([m for m in sink if m.offset < plan.lost[1]], folder, 0, "value_lines")
        write_batch([m for m in sink if m.offset > plan.lost[2]], folder, 0, "value_lines")
        write_batch([m for m in kept if m.topic != lost_topic], folder, 0, "kcat")
    elif step == "batch1":
        late = [m for m in plan.result.batches[0] if plan.skipped(m, plan.late)]
        write_batch(plan.result.batches[1] + late, folder, 1, "kcat")


def _deliver(step: str, folder: Path) -> None:
    _land_gaps(step, folder / GAP.database)
    if step not in DELIVERY_STEPS:
        return
    number = DELIVERY_STEPS.index(step)
    for result, fmt, seed, chunks in _deliveries():
        write_batch(
            chunks[number],
            folder / result.config.database,
            number,
            fmt,
            shuffle=True,
            duplicate_fraction=0.1,
            seed=seed,
        )


register(
    Part(
        PART,
        land=_deliver,
        databases=(
            *(_database(i, flavour) for i, (flavour, *_) in enumerate(SOURCES)),
            GAP.database,
        ),
        before={"full_refresh": lambda p: gold_rows_of(p, PART, GOLD_TABLES)},
    )
)


def _differences(dbt_project, deliveries) -> list[str]:  # type: ignore[no-untyped-def]
    problems = []
    reader = GoldReader(dbt_project.spark)
    for result, *_ in deliveries:
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[-1],
            result=result,
            batch=-1,
            databases=stream_databases(),
            reader=reader,
        )
        problems += [f"{result.config.database}: {d}" for d in outcome.differences]
    return problems


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_shuffled_duplicated_and_late_deliveries_converge_to_the_source(
    dbt_project, deliveries
) -> None:  # type: ignore[no-untyped-def]
    assert len(DELIVERY_STEPS) == DELIVERIES
    problems = _differences(dbt_project, deliveries)
    assert not problems, "\n".join(problems[:30])


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_the_faults_really_happened(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    """Guard against a test that cannot fail: late events and duplicates were loaded."""
    silver = dbt_project.layer("silver")
    [row] = dbt_project.sql(
        f"select count(*) - count(distinct _cdc_source_id, _cdc_sort_key) as duplicates "
        f"from {silver}.int_cdc__change_log where _kafka_offset is not null and {owned_by(PART)}"
    )
    assert row["duplicates"] > 0
    late = dbt_project.sql(
        f"""
        select count(*) as late
        from {silver}.int_cdc__change_log as newer
        inner join {silver}.int_cdc__change_log as older
            on newer._cdc_source_id = older._cdc_source_id
            and newer._cdc_key = older._cdc_key
            and newer._cdc_position > older._cdc_position
            and newer._loaded_at < older._loaded_at
        where {owned_by(PART, "newer._cdc_source_db")}
        """
    )
    assert late[0]["late"] > 0


@pytest.mark.stream(DELIVERY_STEPS[-1])
def test_both_gold_write_paths_ran(dbt_project, deliveries) -> None:  # type: ignore[no-untyped-def]
    """Guard: every gold table took a delta run and a compaction run."""
    gold = dbt_project.layer("gold")
    for table in GOLD_TABLES:
        # the run record in the state's properties counts the runs of each kind (decision 0023)
        kinds = run_record(
            properties_of(dbt_project.sql(f"show tblproperties {gold}.{table}__cdc_state"))
        ).kinds
        assert {"full", "delta", "compaction"} <= kinds, (table, kinds)


# customer_history's value columns (models/gold/inventory/customer_history.sql)
HISTORY_VALUES = (
    "first_name", "last_name", "email", "balance", "birth_date", "created_at", "is_active",
    "contact_time", "last_seen_at",
)  # fmt: skip


@pytest.mark.stream("batch1")
def test_the_history_kept_in_its_delta_equals_the_history_resolved_again(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """After `batch1` (a large compaction ratio) customer_history holds the second delivery
    in its delta partition, appended without reading anything else (cdc_history): late
    events, copies and key changes among them (the simulator truncates order lines only:
    truncates in the delta are tests/macros/test_history.py's). Its view, which resolves
    the touched keys when read, must equal the history resolved from the whole typed change
    log (the `cdc_history` macro's query), row for row."""
    gold = dbt_project.layer("gold")
    state = f"{gold}.customer_history__cdc_state"
    [delta] = dbt_project.sql(f"select count(*) as changes from {state} where cdc_bucket = -2")
    [late] = dbt_project.sql(
        f"""
        select count(*) as late from {state} as newer
        left semi join {state} as older
            on older.cdc_bucket = 0
            and older._cdc_source_id = newer._cdc_source_id
            and older.id = newer.id
            and older._cdc_position > newer._cdc_position
        where newer.cdc_bucket = -2
        """
    )
    assert delta["changes"] > 0 and late["late"] > 0, (delta, late)
    resolved = dbt_project.run(
        "compile",
        "--inline",
        "{{ cdc_lakehouse.cdc_history(ref('stg_inventory__customers'), key_columns=['id'], "
        + "value_columns="
        + repr(list(HISTORY_VALUES))
        + ") }}",
    )
    expected = resolved.result.results[0].node.compiled_code
    view = f"select * from {gold}.customer_history"
    for name, query in (("missing", f"({expected}) except all ({view})"),
                        ("extra", f"({view}) except all ({expected})")):  # fmt: skip
        rows = dbt_project.sql(f"select * from ({query}) limit 5")
        assert not rows, f"{name} in customer_history: {rows}"
    [counts] = dbt_project.sql(f"select count(*) as versions from {gold}.customer_history")
    assert counts["versions"] > 0


@pytest.mark.stream("full_refresh")
def test_full_refresh_equals_the_incremental_result(dbt_project, deliveries, stream) -> None:  # type: ignore[no-untyped-def]
    assert gold_rows_of(dbt_project, PART, GOLD_TABLES) == stream.before(PART, "full_refresh")
    assert not _differences(dbt_project, deliveries)


def _gaps(dbt_project: DbtProject, where: str) -> list[dict[str, object]]:
    return dbt_project.sql(
        "select gap_kind, _kafka_topic, _kafka_partition, first_missing_offset, "
        "last_missing_offset, missing_count, source_file_before, source_file_after, "
        "loaded_before_at, loaded_after_at, _loaded_at "
        f"from {dbt_project.layer('silver')}.cdc_delivery_gaps where {where} order by all"
    )


def _offset_gap(topic: str, first: int, last: int) -> tuple[object, ...]:
    return ("kafka_offsets", topic, 0, first, last, last - first + 1)


SHAPE = (
    "gap_kind",
    "_kafka_topic",
    "_kafka_partition",
    "first_missing_offset",
    "last_missing_offset",
    "missing_count",
)


def _shape(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [tuple(row[k] for k in SHAPE) for row in rows]


@pytest.mark.stream("batch0")
def test_offsets_a_landing_skips_are_listed_and_warned_of(dbt_project, stream: Stream) -> None:
    """The two ranges the gap source's first batch skips, and nothing else of its topics:
    with the loads and files around them; the build that loaded them warns, saying how
    many offsets are missing and where."""
    plan = _gap_plan()
    rows = _gaps(dbt_project, f"_kafka_topic like '{GAP.server}.%'")
    assert _shape(rows) == sorted([_offset_gap(*plan.lost), _offset_gap(*plan.late)])
    lost_topic, first, last = plan.lost
    sink_files = {
        row["_kafka_topic"]: (row["source_file_before"], row["source_file_after"]) for row in rows
    }
    before, after = sink_files[lost_topic]
    lost_offsets = sorted(m.offset for m in plan.result.batches[0] if m.topic == lost_topic)
    assert str(before).endswith(sink_file_name(lost_topic, 0, lost_offsets[0]))
    assert str(after).endswith(sink_file_name(lost_topic, 0, last + 1))
    assert all(str(f).endswith("kcat/batch-0000.jsonl") for f in sink_files[plan.late[0]])
    loads = ("loaded_before_at", "loaded_after_at", "_loaded_at")
    (loaded,) = {row[k] for row in rows for k in loads}
    assert loaded is not None  # the batch0 load, on both sides

    warning = stream.data_test("batch0", "assert_no_new_delivery_gaps")
    assert warning.status == "warn"
    messages = {
        row["gap_place"]: row["message"]
        for row in warning.rows(dbt_project)
        if str(row["gap_place"]).startswith(f"topic {GAP.server}.")
    }
    late_topic, late_first, late_last = plan.late
    assert messages == {
        f"topic {lost_topic} partition 0": (
            f"3 offsets missing in 1 range of topic {lost_topic} partition 0: {first}-{last}"
        ),
        f"topic {late_topic} partition 0": (
            f"2 offsets missing in 1 range of topic {late_topic} partition 0: "
            f"{late_first}-{late_last}"
        ),
    }


@pytest.mark.stream("batch1")
def test_a_gap_filled_by_a_late_delivery_leaves_the_list(dbt_project) -> None:  # type: ignore[no-untyped-def]
    plan = _gap_plan()
    rows = _gaps(dbt_project, f"_kafka_topic like '{GAP.server}.%'")
    assert _shape(rows) == [_offset_gap(*plan.lost)]


def _expected_gaps() -> dict[str, str]:
    """The topics (by server, the topic's first part) where parts of the stream leave gaps
    on purpose, and why."""
    shuffled_sink_files = (
        "shuffled Kafka Connect sink files (write_batch(shuffle=True)): a line's offset read "
        "off the file name is not the message's own, so some offsets are never read"
    )
    return {
        "txn": "test_transaction_consistency: the END of T2 is lost (txn.transaction)",
        **{
            f"late{index}": shuffled_sink_files
            for index, (_, _, fmt, *_) in enumerate(SOURCES)
            if fmt == "value_lines"
        },
    }


@pytest.mark.stream("full_refresh")
def test_no_other_part_of_the_stream_leaves_gaps(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """Every gap the whole stream leaves is one a part makes on purpose: this part's lost
    range, and the topics of `_expected_gaps`. Among them the kcat sources of the
    deliveries, out of order and partial until the last one, end with none."""
    plan = _gap_plan()
    expected = _expected_gaps()
    shapes = _shape(_gaps(dbt_project, "true"))
    unexplained = [
        row for row in shapes
        if row != _offset_gap(*plan.lost) and str(row[1]).split(".")[0] not in expected
    ]  # fmt: skip
    assert not unexplained, f"parts of the stream: {sorted(PARTS)}"
    kcat_servers = {f"late{i}" for i, (_, _, fmt, *_) in enumerate(SOURCES) if fmt == "kcat"}
    assert not [row for row in shapes if str(row[1]).split(".")[0] in kcat_servers]

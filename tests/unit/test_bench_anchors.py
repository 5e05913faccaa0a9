"""The bench's anchors without a JVM: DuckDB's run of the baseline's rules (full and
incremental) against the simulated sources' rows, the check of the anchors' rows, the step
table's ratios and issue 74's targets.

The hand-written PySpark jobs are held to the same rows in tests/e2e/test_bench_baselines.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from tests.bench_oracle import Landing, differences, make_landing, state_rows
from workbench import bench
from workbench.bench import anchor_check, anchor_table, duckdb_anchor, targets
from workbench.bench.anchor_check import AnchorState
from workbench.bench.baseline import STATE_COLUMNS, TABLE_COLUMNS, partition_path


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Landing:
    """3,000 simulated events of six sources (Oracle, SQL Server, Db2; wrapped or not;
    value lines and kcat records), the last 300 held back."""
    return make_landing(tmp_path_factory.mktemp("anchors"))


def _duckdb_rows(database: Path) -> list[dict[str, object]]:
    return state_rows("anchor.state", {"anchor": database})


def test_the_landing_holds_deletes_truncates_and_tombstones(landing: Landing) -> None:
    """What the rules must handle is there: the simulated sources delete and truncate, and
    the held-back files change keys of the state."""
    text = "".join(p.read_text() for p in landing.landing.rglob("*") if p.is_file())
    assert '"op":"d"' in text.replace('\\"', '"') and '"op":"t"' in text.replace('\\"', '"')
    assert "\nnull\n" in text and '"payload":null' in text  # tombstones of both layouts
    changed = {k for k in landing.after if k in landing.before}
    assert any(landing.after[k].image != landing.before[k].image for k in changed)
    assert set(landing.before) - set(landing.after)  # keys the increment deletes


def test_duckdb_full_and_incremental_hold_the_sources_rows(
    landing: Landing, tmp_path: Path
) -> None:
    database = tmp_path / "state.duckdb"
    con = duckdb_anchor.connect(database)
    duckdb_anchor.full_run(con, landing.landing)
    con.close()
    before = _duckdb_rows(database)
    assert differences(before, landing.before) == []
    assert len([r for r in before if r["op"] != "t"]) == len(landing.before)
    # a truncate marker per table truncated so far, no key
    assert all(r["key"] is None for r in before if r["op"] == "t")
    con = duckdb_anchor.connect(database)
    duckdb_anchor.incremental_run(con, landing.increment)
    assert duckdb_anchor.live_rows(con) == len(landing.after)
    con.close()
    assert differences(_duckdb_rows(database), landing.after) == []
    # the comparison can fail: the state after the increment is not the one before it
    assert differences(_duckdb_rows(database), landing.before)


def test_duckdb_incremental_with_no_new_files_changes_nothing(
    landing: Landing, tmp_path: Path
) -> None:
    database = tmp_path / "state.duckdb"
    con = duckdb_anchor.connect(database)
    duckdb_anchor.full_run(con, landing.landing)
    (tmp_path / "empty").mkdir()
    duckdb_anchor.incremental_run(con, tmp_path / "empty")
    con.close()
    assert differences(_duckdb_rows(database), landing.before) == []


def test_the_position_sorts_in_source_order_on_duckdb() -> None:
    """The baseline's position (one SQL text for Spark and DuckDB): commit, then change;
    a snapshot read below a streamed change at the same position; LSNs by text."""
    con = duckdb.connect()

    def position(**source: object) -> str:
        fields = {f: source.get(f) for f in duckdb_anchor._SOURCE_FIELDS}
        struct = ", ".join(
            f"'{k}': {'null' if v is None else repr(str(v))}::varchar" for k, v in fields.items()
        )
        sql = f"select {bench.BASELINE_POSITION_SQL} from (select {{{struct}}} as source)"
        return str(con.execute(sql).fetchall()[0][0])

    oracle = [
        position(scn=95, commit_scn=None, snapshot="true"),
        position(scn=100, commit_scn=None, snapshot="last"),
        position(scn=99, commit_scn=120, snapshot="false"),
        position(scn=110, commit_scn=120, snapshot="false"),
        position(scn=101, commit_scn=121),
    ]
    assert oracle == sorted(oracle)
    assert position(scn=100, snapshot="true") < position(scn=100, snapshot="false")
    lsn = [
        position(commit_lsn="0000002A:00000010:0003", change_lsn=None, snapshot="true"),
        position(commit_lsn="0000002a:00000020:0005", change_lsn="0000002a:00000020:0002"),
        position(
            commit_lsn="0000002a:00000020:0005",
            change_lsn="0000002a:00000020:0002",
            event_serial_no=2,
        ),
        position(commit_lsn="0000002a:00000020:0005", change_lsn="0000002a:00000020:0004"),
    ]
    assert lsn == sorted(lsn)
    assert position(commit_lsn=None, snapshot="false") == "None"  # null, as Spark's


def _workspace(landing: Landing, root: Path) -> bench.Workspace:
    """A bench workspace holding the small landing (before the increment) and the new
    files the incremental anchors are handed."""
    ws = bench.Workspace(root)
    shutil.copytree(landing.landing, ws.landing)
    shutil.copytree(landing.increment, ws.anchor_increment)
    return ws


def _copy_as_parquet(database: Path, out: Path, partitioned: bool) -> None:
    """DuckDB's state as Spark would write it: a parquet folder, partitioned by source
    table (hive layout) or not."""
    con = duckdb.connect()
    con.execute(f"attach '{database}' as anchor (read_only)")
    options = f"partition_by ({', '.join(TABLE_COLUMNS)})" if partitioned else ""
    target = out if partitioned else out / "part-0.parquet"
    out.mkdir(parents=True, exist_ok=True)
    con.execute(
        f"copy (select {', '.join(STATE_COLUMNS)} from anchor.state) to '{target}' "
        f"(format parquet{', ' + options if options else ''})"
    )
    con.close()


def test_the_bench_runs_duckdb_and_checks_the_anchors_as_subprocesses(
    landing: Landing, tmp_path: Path
) -> None:
    """The bench's own path (`python -m workbench.bench --anchor STEP --workspace DIR`,
    measured): DuckDB full, its state copied, DuckDB incremental; then the check of every
    state of the workspace (the parquet ones here written from DuckDB's, no Spark) against
    DuckDB's full run over everything landed, and a state with one changed value found."""
    ws = _workspace(landing, tmp_path / "n3000")
    full = bench.run_anchor_step("duckdb-full", landing.events, ws, delta=False)
    assert full.wall_s > 0 and full.detail["job_s"] > 0
    assert differences(_duckdb_rows(ws.duckdb_state), landing.before) == []
    shutil.copyfile(ws.duckdb_state, ws.duckdb_full_state)
    _copy_as_parquet(ws.duckdb_state, ws.baseline_out, partitioned=False)
    incremental = bench.run_anchor_step("duckdb-incremental", landing.held_back, ws, delta=False)
    assert incremental.step == "duckdb-incremental" and incremental.events == landing.held_back
    assert differences(_duckdb_rows(ws.duckdb_state), landing.after) == []
    _copy_as_parquet(ws.duckdb_state, ws.parquet_state, partitioned=True)
    # the landing after the increment: the check's reference reads every file
    shutil.copytree(landing.increment, ws.landing, dirs_exist_ok=True)
    check = bench.run_anchor_step("anchor-check", 0, ws, delta=False).detail
    assert check["equal"] is True
    assert check["groups"]["full"]["rows"] == {
        "baseline": len(landing.before),
        "duckdb-full": len(landing.before),
    }
    assert check["groups"]["incremental"]["rows"] == {
        "reference": len(landing.after),
        "baseline-incremental": len(landing.after),
        "duckdb-incremental": len(landing.after),
    }
    assert anchor_check.check_lines(check)[0] == "The anchors' rows are equal."
    # one value of one row changed in the parquet state: the check says so
    con = duckdb.connect()
    con.execute(f"attach '{ws.duckdb_state}' as anchor")
    changed = "(select min(rowid) from anchor.state where op = 'u')"
    (changed_key,) = con.execute(f"select key from anchor.state where rowid = {changed}").fetchone()
    con.execute(
        "update anchor.state set image = map_concat(image, map {'STATUS': 'CHANGED'}) "
        f"where rowid = {changed}"
    )
    con.close()
    check = bench.run_anchor_step("anchor-check", 0, ws, delta=False).detail
    assert check["equal"] is False
    (comparison,) = [
        c
        for c in check["groups"]["incremental"]["comparisons"]
        if c["right"] == "duckdb-incremental"
    ]
    assert (comparison["only_left"], comparison["only_right"]) == (1, 1)
    # the sample is the row's first 400 characters: its table and key, not always the value
    assert f"'{changed_key}'" in comparison["only_right_sample"][0]
    lines = anchor_check.check_lines(check)
    assert lines[0] == "The anchors' rows are DIFFERENT."
    assert any("1 rows only in reference, 1 only in duckdb-incremental" in line for line in lines)


def test_the_check_reads_numbers_as_numbers_and_counts_duplicates(tmp_path: Path) -> None:
    """Spark writes a JSON number it reads as text the JVM's way (1.23456789E7), DuckDB
    its own (12345678.9): equal. A different number, a different text or a row twice: not."""
    con = duckdb.connect()

    def state(name: str, values: list[str]) -> AnchorState:
        out = tmp_path / name
        out.mkdir()
        rows = ", ".join(
            f"('db', 'sch', 'orders', 'u', 'p{i}', map {{'AMOUNT': '{v}', 'NOTE': 'x'}}, 'k{i}')"
            for i, v in enumerate(values)
        )
        columns = ", ".join(STATE_COLUMNS)
        con.execute(
            f"copy (select * from (values {rows}) as t({columns})) "
            f"to '{out / 'part-0.parquet'}' (format parquet)"
        )
        return AnchorState(name, "parquet", out)

    spark = state("spark", ["1.23456789E7", "1.0E20", "abc"])
    same = state("duckdb", ["12345678.9", "1e+20", "abc"])
    other = state("other", ["12345678.8", "1e+20", "abd"])
    result = anchor_check.check_states({"g": [spark, same, other]})
    (first, second) = result["groups"]["g"]["comparisons"]
    assert (first["only_left"], first["only_right"]) == (0, 0)
    assert (second["only_left"], second["only_right"]) == (2, 2)
    assert result["equal"] is False
    con.execute(
        f"copy (select * from read_parquet('{spark.path}/*.parquet') union all "
        f"select * from read_parquet('{spark.path}/*.parquet') limit 4) "
        f"to '{tmp_path / 'twice.parquet'}' (format parquet)"
    )
    (tmp_path / "twice").mkdir()
    shutil.move(tmp_path / "twice.parquet", tmp_path / "twice" / "part-0.parquet")
    twice = anchor_check.check_states(
        {"g": [spark, AnchorState("twice", "parquet", tmp_path / "twice")]}
    )
    assert twice["groups"]["g"]["comparisons"][0]["only_right"] == 1


def test_partition_path_escapes_as_spark_does(tmp_path: Path) -> None:
    path = partition_path(tmp_path, ("DB:1", "a b", "t=1%"))
    assert path == tmp_path / "source_db=DB%3A1" / "source_schema=a b" / "source_table=t%3D1%25"
    assert partition_path(tmp_path, (None, "", "x")).parts[-3:] == (
        "source_db=__HIVE_DEFAULT_PARTITION__",
        "source_schema=__HIVE_DEFAULT_PARTITION__",
        "source_table=x",
    )


def test_anchor_options_and_an_unknown_anchor(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(["--anchor", "duckdb-full"])
    args = bench.parse_args(["--anchor", "baseline", "--workspace", str(tmp_path)])
    assert (args.anchor, args.workspace, args.without_delta) == ("baseline", tmp_path, False)
    from workbench.bench.anchors import anchor_main

    with pytest.raises(bench.BenchError, match="no anchor"):
        anchor_main("no-such-anchor", tmp_path, delta=False)
    ws = bench.Workspace(tmp_path)
    assert bench.steps.anchor_argv("anchor-check", ws, delta=False)[-1] == "--without-delta"


def _seconds(
    full: float, incremental: float, noop: float, floor: float | None = None
) -> dict[str, float]:
    steps = {"full": full, "incremental": incremental, "no-op": noop}
    return {**steps, "floor": floor} if floor is not None else steps


def test_issue_74_targets_pass_fail_and_not_measured() -> None:
    seconds = {
        "parquet": {
            2_000: _seconds(70.0, 75.0, 20.0),
            1_000_000: _seconds(100.0, 40.0, 20.0, floor=12.0),
            5_000_000: _seconds(500.0, 52.0, 22.0),
        },
        "connect": {
            2_000: _seconds(29.0, 25.0, 7.0),
            1_000_000: _seconds(75.0, 16.0, 10.0, floor=4.0),
            5_000_000: _seconds(400.0, 19.0, 11.0),
        },
        "anchors": {
            1_000_000: {"baseline": 25.0, "baseline-incremental": 6.0},
            5_000_000: {"baseline": 120.0, "baseline-incremental": 9.0},
        },
    }
    increments = {2_000: 20, 1_000_000: 10_000, 5_000_000: 10_000}
    checks = {c["target"]: c for c in targets.check_targets(seconds, increments)}
    assert [c["target"] for c in checks.values()] == [t.label for t in targets.TARGETS]

    def verdict(label: str) -> tuple[object, object]:
        return checks[label]["shown"], checks[label]["passed"]

    assert verdict("1M full <= 3.0x the baseline on connect") == ("3.00x", True)
    assert verdict("1M full <= 4.0x the baseline on local") == ("4.00x", True)
    assert verdict("1M (incremental - no-op) <= 10% of (full - no-op) on connect") == (
        "9.2%",
        True,
    )
    assert verdict("1M incremental <= 3.0x the incremental baseline on connect") == (
        "2.67x",
        True,
    )
    assert verdict("5M increment <= 1.25x the 1M increment on connect") == ("1.19x", True)
    assert verdict("5M increment <= 1.25x the 1M increment on local") == ("1.30x", False)
    assert verdict("demo-size full <= 30 s on connect") == ("29.0 s", True)
    assert verdict("demo-size incremental <= 20 s on connect") == ("25.0 s", False)
    assert verdict("demo-size no-op <= 8 s on connect") == ("7.0 s", True)
    assert verdict("(issue 64) floor <= 5 s on connect") == ("4.0 s", True)
    assert verdict("(issue 64) demo-size no-op <= 1.3x its floor on local") == ("1.67x", False)
    # another increment at 5M: the growth is not measured; nor without --scaling
    other = targets.check_targets(seconds, {**increments, 5_000_000: 50_000})
    assert [c["passed"] for c in other if c["target"].startswith("5M")] == [None, None]
    nothing = targets.check_targets({"parquet": {2_000: _seconds(9.0, 8.0, 7.0)}}, {2_000: 20})
    assert [c["passed"] for c in nothing].count(None) == len(nothing)
    assert targets.target_rows(nothing)[0][1:] == ["not measured", "not measured"]


def test_step_table_and_ratios_with_a_larger_size() -> None:
    seconds = {
        "parquet": {1_000_000: _seconds(200.0, 60.0, 20.0), 5_000_000: _seconds(900.0, 90.0, 24.0)},
        "delta": {1_000_000: _seconds(220.0, 50.0, 22.0)},
    }
    anchors = {
        1_000_000: dict(zip(bench.ANCHOR_STEPS, (25.0, 10.0, 5.0, 4.0, 2.0), strict=True)),
        5_000_000: dict(zip(bench.ANCHOR_STEPS, (110.0, 50.0, 7.5, 6.0, 3.0), strict=True)),
        2_000: {"baseline": 6.0},
    }
    increments = {1_000_000: 10_000, 5_000_000: 10_000, 2_000: 20}
    formats = ["parquet", "delta"]
    rows = anchor_table.step_rows(formats, seconds, anchors)
    assert anchor_table.step_headers(formats) == [
        "events",
        "step",
        "parquet (local)",
        "delta",
        "PySpark",
        "PySpark Delta",
        "DuckDB",
    ]
    assert rows[0] == [2_000, "full", None, None, 6.0, None, None]
    assert [1_000_000, "full", 200.0, 220.0, 25.0, None, 10.0] in rows
    assert [1_000_000, "incremental", 60.0, 50.0, 5.0, 4.0, 2.0] in rows
    assert [1_000_000, "no-op", 20.0, 22.0, None, None, None] in rows
    assert [5_000_000, "incremental", 90.0, None, 7.5, 6.0, 3.0] in rows
    ratios = anchor_table.ratio_rows(formats, seconds, anchors, increments, 1_000_000)
    assert [
        1_000_000,
        "parquet (local)",
        "8.00x",
        "20.00x",
        "22.2%",
        "12.00x",
        "30.00x",
        None,
    ] in ratios
    # gold on Delta is held to the Delta incremental baseline
    assert [1_000_000, "delta", "8.80x", "22.00x", "14.1%", "12.50x", "25.00x", None] in ratios
    assert [
        5_000_000,
        "parquet (local)",
        "8.18x",
        "18.00x",
        "7.5%",
        "12.00x",
        "30.00x",
        "1.50x",
    ] in ratios
    # the anchors' own growth, at the larger size only
    anchor_rows = [r for r in ratios if r[1] in ("PySpark", "PySpark Delta", "DuckDB")]
    assert anchor_rows == [
        [5_000_000, "PySpark", None, None, None, None, None, "1.50x"],
        [5_000_000, "PySpark Delta", None, None, None, None, None, "1.50x"],
        [5_000_000, "DuckDB", None, None, None, None, None, "1.50x"],
    ]
    assert anchor_table.incremental_anchor("connect") == "baseline-incremental"
    assert anchor_table.incremental_anchor("iceberg") == "baseline-incremental"


def test_the_anchors_run_in_order_and_only_the_timed_ones_are_steps(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    from workbench.bench import anchors

    calls: list[tuple[str, bool]] = []

    def fake(step: str, events: int, ws: bench.Workspace, delta: bool = True) -> bench.StepResult:
        calls.append((step, delta))
        if step == "duckdb-full":
            ws.duckdb_state.parent.mkdir(parents=True, exist_ok=True)
            ws.duckdb_state.write_bytes(b"state")
        detail = {"equal": True, "groups": {}} if step == "anchor-check" else {"job_s": 1.0}
        return bench.StepResult(step, 1.0, events, 1.0, detail=detail)

    monkeypatch.setattr(anchors, "run_anchor_step", fake)
    ws = bench.Workspace(tmp_path)
    for delta in (True, False):
        calls.clear()
        full = anchors.run_full_anchors(100, ws, delta)
        assert ws.duckdb_full_state.read_bytes() == b"state"
        incremental, check = anchors.run_incremental_anchors(10, ws, delta)
        timed = ["baseline-incremental", "baseline-incremental-delta", "duckdb-incremental"]
        if not delta:
            timed.remove("baseline-incremental-delta")
        assert calls == [
            (step, delta)
            for step in ("baseline", "duckdb-full", "anchor-prepare", *timed, "anchor-check")
        ]
        assert list(full) == ["baseline", "duckdb-full"] and list(incremental) == timed
        assert check == {"equal": True, "groups": {}}
    groups = anchors.check_groups(ws, delta=False)
    assert [s.name for s in groups["incremental"]] == ["baseline-incremental", "duckdb-incremental"]
    assert [s.path for s in anchors.check_groups(ws, delta=True)["incremental"]][
        1
    ] == ws.delta_export

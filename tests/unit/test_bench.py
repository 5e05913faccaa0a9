"""Unit tests for workbench.bench: the parts that need neither Spark nor dbt."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench import bench, spark_profile
from workbench.bench import StepResult, formats, sampling


# ------------------------------------------------------------------- planning
@pytest.mark.parametrize(("total", "parts"), [(0, 3), (1, 6), (20_000, 6), (1_000_001, 6), (7, 7)])
def test_split_events_sums_to_the_total_and_is_even(total: int, parts: int) -> None:
    counts = bench.split_events(total, parts)
    assert len(counts) == parts
    assert sum(counts) == total
    assert max(counts) - min(counts) <= 1
    assert counts == sorted(counts, reverse=True)


def test_split_events_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        bench.split_events(10, 0)
    with pytest.raises(ValueError):
        bench.split_events(-1, 2)


def test_split_weighted_keeps_the_total() -> None:
    shares = bench.split_weighted(1001, {"a": 2, "b": 3, "c": 4})
    assert sum(shares.values()) == 1001
    assert shares["a"] < shares["b"] < shares["c"]


def test_plan_sources_covers_flavours_wrappers_and_formats() -> None:
    plans = bench.plan_sources(1_000_000, ["oracle", "sqlserver", "db2"], 10_000)
    assert sum(p.events for p in plans) == 1_000_000
    assert sum(p.held_back for p in plans) == 10_000
    assert {(p.flavour, p.wrapped) for p in plans} == {
        (f, w) for f in ("oracle", "sqlserver", "db2") for w in (False, True)
    }
    for flavour in ("oracle", "sqlserver", "db2"):
        assert {p.fmt for p in plans if p.flavour == flavour} == {"kcat", "value_lines"}
    for wrapped in (False, True):
        assert {p.fmt for p in plans if p.wrapped == wrapped} == {"kcat", "value_lines"}
    assert len({p.name for p in plans}) == len(plans)
    for plan in plans:
        assert sum(plan.initial_rows.values()) == round(plan.events * bench.SNAPSHOT_SHARE)


def test_plan_sources_rejects_an_increment_larger_than_the_events() -> None:
    with pytest.raises(ValueError):
        bench.plan_sources(10, ["oracle"], 11)
    with pytest.raises(ValueError):
        bench.plan_sources(10, [], 1)


def test_parse_counts() -> None:
    assert bench.parse_counts("100000, 1_000_000,") == [100_000, 1_000_000]


def _lines(folder: Path) -> int:
    return sum(
        len([line for line in path.read_bytes().split(b"\n") if line.strip()])
        for path in folder.rglob("*")
        if path.is_file()
    )


@pytest.mark.parametrize(("wrapped", "fmt"), [(False, "value_lines"), (True, "kcat")])
def test_generate_source_writes_exactly_the_planned_events(
    tmp_path: Path, wrapped: bool, fmt: str
) -> None:
    plan = bench.SourcePlan(0, "sqlserver", wrapped, fmt, events=700, held_back=25)
    landing, increment = tmp_path / "landing", tmp_path / "increment"
    written, held = bench.generate_source(plan, landing, increment, batch_events=200)
    assert (written, held) == (675, 25)
    assert _lines(landing) == 675
    assert _lines(increment) == 25
    # no file holds more than batch_events messages, the initial snapshot's batch included
    sizes = [len(p.read_text().splitlines()) for p in landing.rglob("*") if p.is_file()]
    assert max(sizes) <= 200 and len(sizes) >= 4
    assert bench.add_increment(increment, landing) >= 1
    assert _lines(landing) == 700
    assert _lines(increment) == 0


# ---------------------------------------------------------------- process-tree sampling
def test_sample_tree_of_a_missing_process_is_empty() -> None:
    assert sampling.sample_tree(2**22 + 12345) == sampling.TreeSample(0, {})


def test_sample_tree_counts_child_processes() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        for _ in range(50):  # wait until the child is a python process with some memory
            if sampling.sample_tree(child.pid).rss_kb > 1000:
                break
            time.sleep(0.05)
        sample = sampling.sample_tree(os.getpid())
        assert child.pid in sample.cpu_s and sample.cpu_s[os.getpid()] > 0
        alone = sampling.sample_tree(child.pid).rss_kb
        assert sample.rss_kb >= alone // 2 + 1000
    finally:
        child.kill()
        child.wait()


def test_run_measured_sees_a_grandchild_allocation(tmp_path: Path) -> None:
    grandchild = "x = bytearray(80 * 2**20); import time; time.sleep(1.0)"
    parent = (
        f"import subprocess, sys; subprocess.run([sys.executable, '-c', {grandchild!r}], "
        "check=True); print('done')"
    )
    run = bench.run_measured(
        [sys.executable, "-c", parent],
        env=dict(os.environ),
        log_path=tmp_path / "log.txt",
        cwd=tmp_path,
        interval=0.05,
    )
    assert run.returncode == 0
    assert run.peak_rss_mb >= 80
    assert run.wall_s >= 1.0
    assert run.samples >= 5
    assert (tmp_path / "log.txt").read_text().strip() == "done"


# ----------------------------------------------------------------- results
def _steps(full: float, incremental: float, noop: float, baseline: float) -> dict[str, StepResult]:
    full, incremental, noop, baseline = map(float, (full, incremental, noop, baseline))
    return {
        "full": StepResult("full", full, 990_000, 5000.0, 300.0),
        "incremental": StepResult("incremental", incremental, 10_000, 4000.0, 50.0),
        "no-op": StepResult("no-op", noop, 0, 3000.0, 30.0),
        "baseline": StepResult("baseline", baseline, 990_000, 2000.0, 150.0),
    }


def test_ratios_and_targets_pass() -> None:
    ratios = bench.compute_ratios(_steps(full=200, incremental=45, noop=40, baseline=120))
    assert ratios["full_over_baseline"] == pytest.approx(200 / 120)
    assert ratios["incremental_share"] == pytest.approx(5 / 160)
    assert ratios["full_peak_rss_mb"] == 5000.0
    targets = bench.check_targets(ratios)
    # the fixture's full build peaks at 5,000 MB: over the 4 GB target
    assert [t["passed"] for t in targets] == [True, True, False, None]


def test_ratios_on_cpu_time() -> None:
    ratios = bench.compute_ratios(_steps(full=200, incremental=45, noop=40, baseline=120), "cpu_s")
    assert ratios["full_over_baseline"] == pytest.approx(300 / 150)
    assert ratios["incremental_share"] == pytest.approx(20 / 270)
    assert "full_peak_rss_mb" not in ratios  # memory is a target of the wall-time run only


def test_ratios_and_targets_fail() -> None:
    ratios = bench.compute_ratios(_steps(full=400, incremental=100, noop=40, baseline=100))
    assert ratios["incremental_share"] == pytest.approx(60 / 360)
    assert [t["passed"] for t in bench.check_targets(ratios)] == [False, False, False, None]


def test_format_ratio() -> None:
    assert bench.format_ratio("full_over_baseline", 1.6666) == "1.67x"
    assert bench.format_ratio("incremental_share", 0.04321) == "4.3%"
    assert bench.format_ratio("incremental_share", None) is None


def test_ratios_without_a_baseline_or_a_no_op() -> None:
    steps = _steps(full=300, incremental=100, noop=40, baseline=100)
    del steps["baseline"], steps["no-op"]
    ratios = bench.compute_ratios(steps)
    assert ratios == {
        "full_over_baseline": None,
        "incremental_share": None,
        "full_peak_rss_mb": 5000.0,
    }
    assert [t["passed"] for t in bench.check_targets(ratios)] == [None, None, False, None]


def test_step_row_and_events_per_second() -> None:
    row = StepResult("full", 200.0, 1_000_000, 5123.4, 310.25, 1.5).row()
    assert row == {
        "step": "full",
        "wall_s": 200.0,
        "events": 1_000_000,
        "events_per_s": 5000,
        "peak_rss_mb": 5123,
        "cpu_s": 310.2,
        "load_before": 1.5,
    }
    assert StepResult("no-op", 30.0, 0, 1.0).row()["events_per_s"] is None


def _phases(start: str, compile_end: str, end: str) -> list[dict[str, str]]:
    day = "2026-01-01T10:"
    return [
        {"name": "compile", "started_at": day + start, "completed_at": day + compile_end},
        {"name": "execute", "started_at": day + compile_end, "completed_at": day + end},
    ]


RUN_RESULTS = {
    "metadata": {"invocation_started_at": "2026-01-01T10:00:00.000000Z"},
    "elapsed_time": 90.0,
    "results": [
        {
            "unique_id": "model.p.bronze",
            "status": "success",
            "execution_time": 30.0,
            "timing": _phases("00:20.000000Z", "00:30.000000Z", "00:50.000000Z"),
        },
        {"unique_id": "model.p.silver", "status": "success", "execution_time": 40.0},
        {"unique_id": "test.p.cdc_column_checks_x.abc123", "status": "pass", "execution_time": 5.0},
        {"unique_id": "seed.p.codes", "status": "success", "execution_time": None},
    ],
}


def test_timing_summary_orders_nodes_and_splits_by_kind() -> None:
    summary = bench.timing_summary(RUN_RESULTS, wall_s=120.0)
    assert [n["node"] for n in summary["nodes"]][:3] == [
        "model.p.silver",
        "model.p.bronze",
        "test.p.cdc_column_checks_x.abc123",
    ]
    assert [n["name"] for n in summary["nodes"]][:3] == [
        "model silver",
        "model bronze",
        "test cdc_column_checks_x",
    ]
    bronze = summary["nodes"][1]
    assert (bronze["compile_s"], bronze["execute_s"]) == (10.0, 20.0)
    assert summary["seconds_by_kind"] == {"model": 70.0, "test": 5.0, "seed": 0.0}
    assert summary["dbt_elapsed_s"] == 90.0
    assert summary["outside_dbt_s"] == 30.0
    assert summary["setup_s"] == 20.0


def test_setup_seconds_needs_timestamps() -> None:
    assert bench.setup_seconds({"results": []}) is None


def _report() -> dict[str, object]:
    main = bench.Scenario(1_000_000, 10_000, bench.GenerationStats(990_000, 10_000, 200, 2**30))
    main.steps = _steps(full=200, incremental=100, noop=40, baseline=120)
    main.steps["full"].detail = bench.timing_summary(RUN_RESULTS, 200.0)
    main.steps["floor"] = StepResult("floor", 15.0, 0, 900.0, 20.0)
    main.steps["full"].detail["spark_profile"] = [spark_profile.NodeProfile("model x", 3.0).row()]
    small = bench.Scenario(100_000, 10_000, bench.GenerationStats())
    small.steps = _steps(full=80, incremental=60, noop=40, baseline=50)
    return bench.build_report(main, [main, small], {"events": 1_000_000})


def test_build_report_and_markdown() -> None:
    report = _report()
    steps = [r["step"] for r in report["rows"]]
    assert steps == ["full", "incremental", "no-op", "floor", "baseline"]
    assert [s["events"] for s in report["scaling"]] == [100_000, 1_000_000]
    assert report["scaling"][1]["incremental_minus_noop_s"] == 60
    assert report["scaling"][1]["noop_cpu_s"] == 30.0
    assert [s["events"] for s in report["scenarios"]] == [100_000, 1_000_000]
    assert report["scenarios"][1]["node_seconds"]["full"]["model silver"] == 40.0
    assert report["machine"]["nproc"] >= 1
    text = bench.render_markdown(report)
    assert "| step | wall s | events | events/s | peak RSS MB | CPU s | load1 before |" in text
    assert "| full | 200.0 | 990,000 | 4,950 | 5,000 | 300.0 |" in text
    assert "| no-op | 40.0 | 0 | - |" in text
    assert "| floor | 15.0 | 0 | - | 900 | 20.0 |" in text
    assert "| full dbt build <= 3.0x baseline | 1.67x | PASS | 2.00x |" in text
    assert "| full peak RSS <= 4 GB | 5,000 MB | FAIL |" in text
    assert "| (incremental - no-op) <= 5% of (full - no-op) | 37.5% | FAIL | 7.4% |" in text
    assert "| model silver | 40.0 | 0.0 | 0.0 | 53% |" in text
    assert "| model bronze | 30.0 | 10.0 | 20.0 | 40% |" in text
    assert "Scaling:" in text
    assert "Spark statements by node (full run" in text
    assert "| model x | 3.0 | 0 | 0 | 0.0 |" in text
    assert "incremental run, from" not in text
    plain = bench.render_text(report)
    assert "PASS" in plain and "FAIL" in plain and "model silver" in plain


def test_increment_growth_is_the_largest_scaling_size_over_the_main_one() -> None:
    """#28's fourth target: the same increment at the largest --scaling size above
    --events, over --events; a smaller size or one whose runs did not complete gives none."""
    main = bench.Scenario(1_000_000, 10_000, bench.GenerationStats())
    main.steps = _steps(full=200, incremental=100, noop=40, baseline=120)
    large = bench.Scenario(5_000_000, 10_000, bench.GenerationStats())
    large.steps = _steps(full=900, incremental=130, noop=50, baseline=500)
    larger = bench.Scenario(3_000_000, 10_000, bench.GenerationStats())
    larger.steps = _steps(full=600, incremental=500, noop=45, baseline=300)
    small = bench.Scenario(100_000, 10_000, bench.GenerationStats())
    small.steps = _steps(full=80, incremental=60, noop=40, baseline=50)
    assert bench.incremental_growth(main, [small, larger, large]) == pytest.approx(1.3)
    assert bench.incremental_growth(main, [small, larger, large], "cpu_s") == pytest.approx(1.0)
    assert bench.incremental_growth(main, [main, small]) is None
    incomplete = bench.Scenario(5_000_000, 10_000, bench.GenerationStats())
    incomplete.steps = {"full": large.steps["full"]}
    assert bench.incremental_growth(main, [incomplete]) is None
    report = bench.build_report(main, [main, small, large], {"events": 1_000_000})
    (growth,) = [t for t in report["targets"] if t["ratio"] == "incremental_growth"]
    assert (growth["value"], growth["passed"]) == (1.3, False)
    text = bench.render_markdown(report)
    label = "incremental at the largest --scaling size <= 1.25x at --events"
    assert f"| {label} | 1.30x | FAIL |" in text


def test_report_names_the_large_file_scenario_when_it_ran() -> None:
    main = bench.Scenario(1_000, 10, bench.GenerationStats(990, 10, 2, 2**20))
    main.steps = _steps(full=20, incremental=10, noop=4, baseline=12)
    assert "landing file" not in bench.render_text(bench.build_report(main, [], {}))
    large = StepResult("large-file", 300.0, 480_000, 3_200.0, 500.0, detail={"file_mb": 1_030})
    report = bench.build_report(main, [], {}, large)
    assert report["large_file"]["file_mb"] == 1_030
    line = (
        "One landing file of 1,030 MB (480,000 events): full build 300.0 s, peak RSS "
        "3,200 MB, on the default driver memory."
    )
    assert line in bench.render_text(report)
    assert line in bench.render_markdown(report)


def test_large_file_scenario_writes_one_kcat_file(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from workbench.bench import scenario

    seen: dict[str, object] = {}

    def fake_step(step: str, events: int, ws: object, gold_format: str = "?") -> StepResult:
        files = [p for p in ws.landing.rglob("*") if p.is_file()]  # type: ignore[attr-defined]
        seen.update(files=files, lines=files[0].read_text().splitlines(), fmt=gold_format)
        return StepResult(step, 1.0, events, 10.0)

    monkeypatch.setattr(scenario, "run_dbt_step", fake_step)
    monkeypatch.setattr(scenario, "snapshot_project", lambda *args: None)
    step = scenario.run_large_file_scenario(
        1, 2_000.0, flavours=["oracle"], results_dir=tmp_path, keep=True, gold_format="delta"
    )
    assert seen["fmt"] == "delta"
    assert len(seen["files"]) == 1  # type: ignore[arg-type]
    lines = seen["lines"]
    assert step.events == len(lines) > 400  # type: ignore[arg-type]
    assert all(line.startswith('{"topic":') for line in lines)  # type: ignore[union-attr]
    assert step.detail["file_mb"] == round(seen["files"][0].stat().st_size / 2**20)  # type: ignore[index]


def test_floor_project_is_one_table_model_on_the_project_profile(tmp_path: Path) -> None:
    import yaml

    bench.write_floor_project(tmp_path / "floor")
    (tmp_path / "floor" / "stale.sql").write_text("")
    bench.write_floor_project(tmp_path / "floor")
    files = sorted(
        p.relative_to(tmp_path / "floor").as_posix() for p in (tmp_path / "floor").rglob("*.*")
    )
    assert files == ["dbt_project.yml", "models/floor.sql"]
    project = yaml.safe_load((tmp_path / "floor" / "dbt_project.yml").read_text())
    main_project = yaml.safe_load((bench.REPO_ROOT / "dbt_project.yml").read_text())
    assert project["profile"] == main_project["profile"]
    assert "materialized='table'" in (tmp_path / "floor" / "models" / "floor.sql").read_text()


def test_write_report(tmp_path: Path) -> None:
    json_path, md_path = bench.write_report(_report(), tmp_path / "out")
    assert json_path.read_text().startswith("{")
    assert md_path.read_text().startswith("# Benchmark")


def test_baseline_key_sql_names_every_table_key() -> None:
    sql = bench.baseline_key_sql()
    for column in ("'ID'", "'ORDER_ID'", "'LINE_NO'", "'order_id'"):
        assert column in sql


def test_parse_args_defaults() -> None:
    args = bench.parse_args([])
    assert args.events == 1_000_000
    assert args.increment_fraction == 0.01
    assert args.results_dir == Path("results/bench")
    assert args.flavours == "oracle,sqlserver,db2"
    assert not args.keep and args.scaling == []
    assert args.large_file_mb == 1024
    assert bench.parse_args(["--large-file-mb", "0"]).large_file_mb == 0
    assert bench.parse_args(["--events", "1_000", "--scaling", "10,20"]).scaling == [10, 20]
    with pytest.raises(SystemExit):
        bench.parse_args(["--increment-fraction", "0"])


def test_plot_report_draws_the_scaling_table_and_the_node_split(tmp_path: Path) -> None:
    from PIL import Image

    from workbench.bench import plot

    report = _report()
    series = plot.scaling_series(report)
    assert series["full build"] == ([100_000, 1_000_000], [80.0, 200.0])
    assert series["no-op build"][1] == [40.0, 40.0]
    split = plot.node_split(report)
    assert split[0][0] == "model silver"
    assert split[1] == ("model bronze", 10.0, 20.0, 0.0)
    path = plot.plot_report(report, tmp_path / "bench.png")
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1400, 600)
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20


def test_plot_without_scaling_uses_the_main_steps(tmp_path: Path) -> None:
    from workbench.bench import plot

    report = {**_report(), "scaling": []}
    series = plot.scaling_series(report)
    assert series["full build"] == ([1_000_000], [200.0])
    assert "baseline (PySpark)" in series
    assert plot.plot_report(report, tmp_path / "p.png").stat().st_size > 10_000


def test_write_report_links_the_plot(tmp_path: Path) -> None:
    _, md_path = bench.write_report(_report(), tmp_path / "out")
    assert (tmp_path / "out" / "bench.png").is_file()
    assert "![scaling and time per node](bench.png)" in md_path.read_text()


def test_run_measured_shows_dbt_node_lines_as_they_come(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        "12:00:00  Running with dbt=1.11",
        "12:00:01  1 of 2 START sql table model a ..... [RUN]",
        "12:00:02  1 of 2 OK created sql table model a ..... [OK in 1.0s]",
        "\x1b[32m12:00:03  2 of 2 ERROR creating sql view model b ..... [ERROR in 0.1s]\x1b[0m",
    ]
    bar = "[Stage 3:=====>       (1 + 1) / 2]\r        \r"
    script = f"import time\nfor line in {lines!r}:\n    print(line, flush=True); time.sleep(0.2)"
    shown: list[str] = []
    run = bench.run_measured(
        [sys.executable, "-c", script],
        env=dict(os.environ),
        log_path=tmp_path / "run.log",
        interval=0.05,
        progress=shown.append,
    )
    assert run.returncode == 0
    assert shown == lines
    show = sampling.dbt_progress("[full]")
    for line in lines:
        show(bar + line if " of 2 " in line else line)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2
    assert printed[0].startswith("  [full] +") and "Stage" not in printed[0]
    assert "1 of 2 OK created sql table model a" in printed[0]
    assert "2 of 2 ERROR creating sql view model b" in printed[1] and "\x1b" not in printed[1]


# ------------------------------------------------------------- gold formats
def _measured(
    demo: tuple[float, float, float], million: tuple[float, float, float] | None = None
) -> dict[str, dict[int, dict[str, dict[str, float]]]]:
    """parquet at 10/5/4 s (demo) and 200/100/40 s (1M); delta at the given wall seconds,
    CPU at twice the wall."""
    parquet = {2_000: {"full": 10.0, "incremental": 5.0, "no-op": 4.0}}
    delta = {2_000: dict(zip(formats.FORMAT_STEPS, demo, strict=True))}
    if million is not None:
        parquet[1_000_000] = {"full": 200.0, "incremental": 100.0, "no-op": 40.0}
        delta[1_000_000] = dict(zip(formats.FORMAT_STEPS, million, strict=True))
    return {
        fmt: {
            events: {step: {"wall_s": s, "cpu_s": 2 * s} for step, s in steps.items()}
            for events, steps in by_size.items()
        }
        for fmt, by_size in (("parquet", parquet), ("delta", delta))
    }


def test_comparison_rows_give_each_format_and_the_ratio_to_parquet() -> None:
    rows = formats.comparison_rows(_measured((12.0, 5.5, 4.0), (230.0, 90.0, 50.0)))
    assert [(r["events"], r["step"]) for r in rows] == [
        (2_000, "full"),
        (2_000, "incremental"),
        (2_000, "no-op"),
        (1_000_000, "full"),
        (1_000_000, "incremental"),
        (1_000_000, "no-op"),
    ]
    assert rows[0]["seconds"] == {
        "parquet": {"wall_s": 10.0, "cpu_s": 20.0},
        "delta": {"wall_s": 12.0, "cpu_s": 24.0},
    }
    assert rows[0]["ratios"]["delta"]["wall_s"] == pytest.approx(1.2)
    assert rows[4]["ratios"]["delta"]["cpu_s"] == pytest.approx(0.9)
    assert "parquet" not in rows[0]["ratios"]


def test_comparison_rows_without_parquet_have_no_ratio() -> None:
    measured = _measured((12.0, 5.5, 4.0))
    del measured["parquet"]
    (full, *_) = formats.comparison_rows(measured)
    assert full["ratios"]["delta"] == {"wall_s": None, "cpu_s": None}


def test_decision_passes_when_every_comparison_holds() -> None:
    rows = formats.comparison_rows(_measured((12.5, 6.0, 4.0), (300.0, 100.0, 40.0)))
    decision = formats.decide(rows)
    assert [c["passed"] for c in decision["checks"]] == [True, True, True]
    assert [c["events"] for c in decision["checks"]] == [2_000, 2_000, 1_000_000]
    assert decision["verdict"] == "delta becomes the default format of gold"


def test_decision_fails_on_one_comparison() -> None:
    # the 1M increment 1% slower than parquet's: parquet stays, whatever else passed
    rows = formats.comparison_rows(_measured((10.0, 5.0, 4.0), (150.0, 101.0, 40.0)))
    decision = formats.decide(rows)
    assert [c["passed"] for c in decision["checks"]] == [True, True, False]
    assert decision["verdict"] == "parquet stays the default format of gold"
    # a failure decides even when another size was not measured
    rows = formats.comparison_rows(_measured((12.6, 5.0, 4.0)))
    decision = formats.decide(rows)
    assert [c["passed"] for c in decision["checks"]] == [False, True, None]
    assert decision["verdict"] == "parquet stays the default format of gold"


def test_decision_without_the_1m_size_is_not_decided() -> None:
    decision = formats.decide(formats.comparison_rows(_measured((11.0, 5.0, 4.0))))
    assert [c["passed"] for c in decision["checks"]] == [True, True, None]
    assert decision["checks"][2]["events"] is None
    assert decision["verdict"] == "not decided: a comparison was not measured"


def test_matching_size_takes_the_nearest_within_a_quarter() -> None:
    assert formats.matching_size([1_000, 2_400, 1_000_000], 2_000) == 2_400
    assert formats.matching_size([1_400, 2_600], 2_000) is None
    assert formats.matching_size([900_000, 1_000_000, 1_200_000], 1_000_000) == 1_000_000
    assert formats.matching_size([], 2_000) is None


def test_render_formats_prints_the_table_and_each_comparison() -> None:
    rows = formats.comparison_rows(_measured((12.6, 5.0, 4.0)))
    section = {"formats": ["parquet", "delta"], "rows": rows, "decision": formats.decide(rows)}
    text = formats.render_formats(section, markdown=True)
    header = (
        "| events | step | parquet wall s | parquet CPU s | delta wall s | delta CPU s | "
        "delta/parquet wall | delta/parquet CPU |"
    )
    assert header in text
    assert "| 2,000 | full | 10.0 | 20.0 | 12.6 | 25.2 | 1.26x | 1.26x |" in text
    assert "| demo-size full <= 1.25x parquet | 2,000 | 1.26x | FAIL | 1.26x |" in text
    assert "| demo-size incremental <= 1.25x parquet | 2,000 | 1.00x | PASS | 1.00x |" in text
    assert "| 1M incremental <= 1.00x parquet | - | - | not measured | - |" in text
    assert "Decision: parquet stays the default format of gold." in text
    assert "the anchors and the large file ran on parquet only, the floor on it" in text
    plain = formats.render_formats(section, markdown=False)
    assert "not measured" in plain and "delta/parquet wall" in plain


def test_statement_rows_show_totals_and_the_nodes_that_differ() -> None:
    counts = {
        "parquet": {2_000: {"full": {"model a": 3, "model orders": 4}}},
        "delta": {2_000: {"full": {"model a": 3, "model orders": 7, "test t": 1}}},
    }
    assert formats.statement_rows(counts, ["parquet", "delta"]) == [
        [2_000, "full", "(all nodes)", 7, 11],
        [2_000, "full", "model orders", 4, 7],
        [2_000, "full", "test t", 0, 1],
    ]


def test_parse_formats() -> None:
    assert formats.parse_formats(" parquet, Delta,iceberg ") == ["parquet", "delta", "iceberg"]
    for bad in ("parquet,hudi", "", "delta,delta"):
        with pytest.raises(ValueError):
            formats.parse_formats(bad)
    assert bench.parse_args([]).formats == ["parquet", "delta", "connect"]
    assert bench.parse_args(["--formats", "iceberg"]).formats == ["iceberg"]
    assert bench.parse_args(["--thrift-port", "10000"]).formats == ["parquet"]
    with pytest.raises(SystemExit):
        bench.parse_args(["--formats", "orc"])


def test_scaling_increment_is_the_main_one_above_and_a_share_below() -> None:
    assert bench.scaling_increment(5_000_000, 1_000_000, 10_000, 0.01) == 10_000
    assert bench.scaling_increment(2_000, 1_000_000, 10_000, 0.01) == 20
    assert bench.scaling_increment(100_000, 1_000_000, 10_000, 0.01) == 1_000


def test_spark_env_selects_the_format_and_its_target(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DBT_TARGET", raising=False)
    env = bench.spark_env(tmp_path / "home", tmp_path / "landing", "delta")
    assert (env["DBT_TARGET"], env["CDC_GOLD_FILE_FORMAT"]) == ("delta", "delta")
    assert Path(env["CDC_SPARK_JARS_DIR"]).is_absolute()
    env = bench.spark_env(tmp_path / "home", tmp_path / "landing", "parquet")
    assert (env["DBT_TARGET"], env["CDC_GOLD_FILE_FORMAT"]) == ("local", "parquet")
    monkeypatch.setenv("DBT_TARGET", "thrift")
    env = bench.spark_env(tmp_path / "home", tmp_path / "landing", "iceberg")
    assert (env["DBT_TARGET"], env["CDC_GOLD_FILE_FORMAT"]) == ("thrift", "iceberg")


def test_missing_format_jars(tmp_path: Path) -> None:
    assert bench.missing_format_jars(["parquet", "delta"], tmp_path) == ["delta"]
    (tmp_path / "delta-spark_2.13-4.0.1.jar").write_bytes(b"")
    assert bench.missing_format_jars(["parquet", "delta", "iceberg"], tmp_path) == ["iceberg"]


def test_report_puts_the_formats_side_by_side() -> None:
    by_format: dict[str, list[bench.Scenario]] = {}
    for fmt, scale in (("parquet", 1.0), ("delta", 1.1)):
        scenario = bench.Scenario(2_000, 20, bench.GenerationStats(1_980, 20, 12, 2**22))
        scenario.gold_format = fmt
        scenario.steps = _steps(full=20 * scale, incremental=10 * scale, noop=4, baseline=12)
        scenario.steps["full"].detail = {
            **bench.timing_summary(RUN_RESULTS, 20.0),
            "spark_statements": {"model a": 3 if fmt == "parquet" else 5},
        }
        if fmt == "delta":
            del scenario.steps["baseline"]
        by_format[fmt] = [scenario]
    main = by_format["parquet"][0]
    report = bench.build_report(main, [], {"events": 2_000}, by_format=by_format)
    section = report["gold_formats"]
    assert section["formats"] == ["parquet", "delta"]
    assert section["rows"][0]["ratios"]["delta"]["wall_s"] == pytest.approx(1.1)
    assert [c["passed"] for c in section["decision"]["checks"]] == [True, True, None]
    assert section["statements"][0] == [2_000, "full", "(all nodes)", 3, 5]
    assert [r["step"] for r in section["scenarios"]["delta"][0]["rows"]] == [
        "full",
        "incremental",
        "no-op",
    ]
    text = bench.render_text(report)
    assert "Decision: not decided: a comparison was not measured." in text
    assert text.index("delta/parquet wall") > text.index("load1 before")  # printed at the end
    assert "delta/parquet wall" in text and "not measured" in text
    assert "Decision: not decided" in bench.render_markdown(report)
    # one format: the report of before, no side-by-side section
    single = bench.build_report(main, [], {"events": 2_000}, by_format={"parquet": [main]})
    assert single["gold_formats"] is None
    assert "side by side" not in bench.render_markdown(single)


def test_format_workspaces_and_linked_landing(tmp_path: Path) -> None:
    from workbench.bench import scenario

    first = scenario.format_workspace(tmp_path, 2_000, "parquet", True)
    other = scenario.format_workspace(tmp_path, 2_000, "delta", False)
    assert (first.root.name, other.root.name) == ("n2000", "n2000-delta")
    (first.landing / "src").mkdir(parents=True)
    (first.landing / "src" / "f.jsonl").write_text("x\n")
    scenario._link_tree(first.landing, other.landing)
    assert (other.landing / "src" / "f.jsonl").read_text() == "x\n"
    scenario._link_tree(first.increment, other.increment)  # no increment: nothing
    assert not other.increment.exists()


ANCHOR_WALLS = {
    "baseline": 8.0,
    "duckdb-full": 4.0,
    "baseline-incremental": 3.0,
    "baseline-incremental-delta": 3.5,
    "duckdb-incremental": 1.0,
}


def _fake_anchors(monkeypatch, calls: list[tuple[str, ...]]) -> None:  # type: ignore[no-untyped-def]
    """The anchors' steps as fakes (no Spark, no DuckDB): each records its phase, the
    workspace and the new files it is handed, and takes ANCHOR_WALLS seconds."""
    from workbench.bench import scenario

    def full(events: int, ws: bench.Workspace, delta: bool) -> dict[str, StepResult]:
        calls.append(("anchors-full", "-", ws.root.name, 0))
        return {n: StepResult(n, ANCHOR_WALLS[n], events, 1.0) for n in bench.ANCHOR_STEPS[:2]}

    def incremental(
        events: int, ws: bench.Workspace, delta: bool
    ) -> tuple[dict[str, StepResult], dict[str, object]]:
        new = len([p for p in ws.anchor_increment.rglob("*") if p.is_file()])
        calls.append(("anchors-incremental", "-", ws.root.name, new))
        names = bench.ANCHOR_STEPS[2:] if delta else ("baseline-incremental", "duckdb-incremental")
        steps = {n: StepResult(n, ANCHOR_WALLS[n], events, 1.0) for n in names}
        return steps, {"equal": True, "groups": {}}

    monkeypatch.setattr(scenario, "run_full_anchors", full)
    monkeypatch.setattr(scenario, "run_incremental_anchors", incremental)
    monkeypatch.setattr(scenario, "delta_anchor_available", lambda: True)


def test_run_scenarios_alternates_formats_and_runs_floor_and_anchors_once(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    from workbench.bench import scenario

    calls: list[tuple[str, ...]] = []

    def fake_dbt(step: str, events: int, ws: bench.Workspace, **kwargs: object) -> StepResult:
        files = len([p for p in ws.landing.rglob("*") if p.is_file()])
        calls.append((step, str(kwargs.get("gold_format")), ws.root.name, files))
        return StepResult(step, 1.0, events, 10.0)

    monkeypatch.setattr(scenario, "run_dbt_step", fake_dbt)
    _fake_anchors(monkeypatch, calls)
    monkeypatch.setattr(scenario, "snapshot_project", lambda *args: None)
    done = scenario.run_scenarios(
        600,
        30,
        formats=["parquet", "delta"],
        flavours=["oracle"],
        results_dir=tmp_path,
        with_floor=True,
        keep=True,
        batch_events=100,
    )
    assert [s.gold_format for s in done] == ["parquet", "delta"]
    assert [(c[0], c[1], c[2]) for c in calls] == [
        ("full", "parquet", "n600"),
        ("full", "delta", "n600-delta"),
        ("anchors-full", "-", "n600"),
        ("incremental", "parquet", "n600"),
        ("incremental", "delta", "n600-delta"),
        ("anchors-incremental", "-", "n600"),
        ("no-op", "parquet", "n600"),
        ("no-op", "delta", "n600-delta"),
        ("floor", "parquet", "n600"),
    ]
    # both formats see the same files: the first landing, then the increment added; the
    # incremental anchors are handed the increment's files alone
    assert calls[0][3] == calls[1][3] < calls[3][3] == calls[4][3]
    assert 0 < calls[5][3] == calls[3][3] - calls[0][3]
    assert set(done[0].steps) == {"full", "incremental", "no-op", "floor", *bench.ANCHOR_STEPS}
    assert set(done[1].steps) == {"full", "incremental", "no-op"}
    assert done[0].anchor_check == {"equal": True, "groups": {}}
    # without a floor (a --scaling size), the anchors still run; without anchors, none
    calls.clear()
    runs = {"formats": ["parquet"], "flavours": ["oracle"], "keep": True, "batch_events": 100}
    scenario.run_scenarios(300, 30, results_dir=tmp_path, with_floor=False, **runs)  # type: ignore[arg-type]
    assert [c[0] for c in calls] == [
        "full",
        "anchors-full",
        "incremental",
        "anchors-incremental",
        "no-op",
    ]
    calls.clear()
    scenario.run_scenarios(200, 20, results_dir=tmp_path, with_floor=False, anchors=False, **runs)  # type: ignore[arg-type]
    assert [c[0] for c in calls] == ["full", "incremental", "no-op"]


def test_main_prints_and_writes_the_formats_side_by_side(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    """The command line end to end on fake steps (no Spark): parquet's and delta's seconds,
    the decision with the 1M comparison not measured, in the output and in bench.md."""
    from workbench.bench import cli, rendering, scenario

    def fake_generate(plans: object, landing: Path, *args: object) -> bench.GenerationStats:
        (landing / "src").mkdir(parents=True)
        (landing / "src" / "f.jsonl").write_text("x\n")
        return bench.GenerationStats(1_980, 20, 1, 2)

    def fake_dbt(step: str, events: int, ws: bench.Workspace, **kwargs: object) -> StepResult:
        wall = {"full": 20.0, "incremental": 10.0, "no-op": 5.0, "floor": 3.0}[step]
        wall *= 1.1 if kwargs.get("gold_format") == "delta" else 1.0
        return StepResult(step, wall, events, 100.0, 2 * wall)

    monkeypatch.setattr(scenario, "run_dbt_step", fake_dbt)
    _fake_anchors(monkeypatch, [])
    monkeypatch.setattr(scenario, "snapshot_project", lambda *args: None)
    monkeypatch.setattr(scenario, "generate", fake_generate)
    monkeypatch.setattr(rendering, "plot_report", lambda report, path: path)
    monkeypatch.setattr(cli, "project_info", lambda rev: {})
    monkeypatch.setattr(cli, "missing_format_jars", lambda formats, folder: [])
    argv = ["--events", "2000", "--large-file-mb", "0", "--flavours", "oracle"]
    argv += ["--formats", "parquet,delta"]  # the warm engine's column starts a server
    assert bench.main([*argv, "--results-dir", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    written = (tmp_path / "bench.md").read_text()
    assert "| 2,000 | full | 20.0 | 40.0 | 22.0 | 44.0 | 1.10x | 1.10x |" in written
    assert "| 1M incremental <= 1.00x parquet | - | - | not measured | - |" in written
    for text in (printed, written):
        assert "Decision: not decided: a comparison was not measured." in text
        # every format beside the anchors, and issue 74's targets
        assert "PySpark Delta" in text and "target (issue 74, wall time)" in text
    header = "| events | step | parquet (local) | delta | PySpark | PySpark Delta | DuckDB |"
    assert header in written
    assert "| 2,000 | full | 20.0 | 22.0 | 8.0 | - | 4.0 |" in written
    assert "| 2,000 | incremental | 10.0 | 11.0 | 3.0 | 3.5 | 1.0 |" in written
    assert "| 2,000 | no-op | 5.0 | 5.5 | - | - | - |" in written
    assert "| 2,000 | delta | 2.75x | 5.50x | 33.3% | 3.14x | 11.00x | - |" in written
    assert "| demo-size full <= 30 s on connect | not measured | not measured |" in written
    assert "The anchors' rows are equal." in written
    assert '"gold_formats"' in (tmp_path / "bench.json").read_text()


def test_the_connect_column_runs_parquet_on_the_connect_target_in_schemas_of_its_own(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.delenv("DBT_TARGET", raising=False)
    monkeypatch.setenv("CDC_BENCH_SCHEMA", "bench1")
    env = bench.spark_env(tmp_path / "n2000-connect" / "spark-home", tmp_path, "connect")
    assert (env["DBT_TARGET"], env["CDC_GOLD_FILE_FORMAT"]) == ("connect", "parquet")
    assert env["CDC_SCHEMA"] == "bench1_n2000_connect_spark_home"
    floor = bench.spark_env(tmp_path / "n2000-connect" / "floor-spark-home", tmp_path, "connect")
    assert floor["CDC_SCHEMA"] != env["CDC_SCHEMA"]


def test_run_scenarios_gives_the_warm_server_one_first_build_and_a_floor(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    from workbench.bench import scenario

    calls: list[tuple[str, str, str]] = []

    def fake_dbt(step: str, events: int, ws: bench.Workspace, **kwargs: object) -> StepResult:
        calls.append((step, str(kwargs.get("gold_format")), ws.root.name))
        return StepResult(step, 1.0, events, 10.0)

    monkeypatch.setattr(scenario, "run_dbt_step", fake_dbt)
    _fake_anchors(monkeypatch, [])
    monkeypatch.setattr(scenario, "snapshot_project", lambda *args: None)
    monkeypatch.setattr(scenario.warm_server, "warmed", False)
    runs = {
        "formats": ["parquet", "connect"],
        "flavours": ["oracle"],
        "results_dir": tmp_path,
        "keep": True,
        "batch_events": 100,
    }
    scenario.run_scenarios(600, 30, with_floor=True, **runs)  # type: ignore[arg-type]
    scenario.run_scenarios(300, 30, with_floor=False, **runs)  # type: ignore[arg-type]
    assert [c for c in calls if c[1] == "connect"] == [
        ("first-build", "connect", "n600-connect"),
        ("full", "connect", "n600-connect"),
        ("incremental", "connect", "n600-connect"),
        ("no-op", "connect", "n600-connect"),
        ("floor", "connect", "n600-connect"),
        ("full", "connect", "n300-connect"),  # the server is warm: no second first build
        ("incremental", "connect", "n300-connect"),
        ("no-op", "connect", "n300-connect"),
    ]

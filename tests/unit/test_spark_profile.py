"""workbench.spark_profile on a synthetic event log: executions, nesting, attribution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import spark_profile as sp

T0 = 1_795_000_000_000  # epoch ms of 2026-11-18T...; run_results below use the same instant
PLAN_INSERT = "== Physical Plan ==\nExecute InsertIntoHadoopFsRelationCommand (3)\n+- Scan (1)\n"
PLAN_SELECT = "== Physical Plan ==\nAdaptiveSparkPlan (6)\n+- HashAggregate (5)\n"


def _iso(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _start(execution: int, root: int, at: int, plan: str) -> dict:
    return {
        "Event": sp._SQL_START,
        "executionId": str(execution),
        "rootExecutionId": str(root),
        "time": str(at),
        "physicalPlanDescription": plan,
    }


def _end(execution: int, at: int) -> dict:
    return {"Event": sp._SQL_END, "executionId": execution, "time": at}


def _job(stages: list[int], execution: int | None) -> dict:
    properties = {} if execution is None else {"spark.sql.execution.id": str(execution)}
    return {"Event": "SparkListenerJobStart", "Stage IDs": stages, "Properties": properties}


def _task(stage: int, run_ms: int, read: int = 0, written: int = 0) -> dict:
    return {
        "Event": "SparkListenerTaskEnd",
        "Stage ID": stage,
        "Task Metrics": {
            "Executor Run Time": run_ms,
            "Executor CPU Time": run_ms * 500_000,
            "JVM GC Time": 10,
            "Memory Bytes Spilled": 2**20,
            "Disk Bytes Spilled": 0,
            "Input Metrics": {"Bytes Read": read},
            "Output Metrics": {"Bytes Written": written},
            "Shuffle Read Metrics": {"Remote Bytes Read": 0, "Local Bytes Read": 5},
            "Shuffle Write Metrics": {"Shuffle Bytes Written": 2**20},
        },
    }


EVENTS = [
    # a CTAS (root 0) whose write is nested execution 1, inside node `model bronze`
    _start(
        0, 0, T0 + 1_000, "== Physical Plan ==\nExecute CreateDataSourceTableAsSelectCommand (1)"
    ),
    _start(1, 0, T0 + 1_100, PLAN_INSERT),
    _job([0, 1], 1),
    _task(0, 400, read=3 * 2**20),
    _task(1, 600, written=2**20),
    _end(1, T0 + 3_000),
    _end(0, T0 + 3_200),
    # a query of node `test cdc_column_checks_x`
    _start(2, 2, T0 + 5_000, PLAN_SELECT),
    _job([2], 2),
    _task(2, 100),
    _end(2, T0 + 5_500),
    # a job outside SQL (ignored), and a statement outside every node
    _job([3], None),
    _task(3, 999),
    _start(3, 3, T0 + 9_000, PLAN_SELECT),
    _end(3, T0 + 9_100),
]

RUN_RESULTS = {
    "results": [
        {
            "unique_id": "model.p.bronze",
            "execution_time": 4.0,
            "timing": [
                {"name": "compile", "started_at": _iso(T0 + 500), "completed_at": _iso(T0 + 600)},
                {"name": "execute", "started_at": _iso(T0 + 600), "completed_at": _iso(T0 + 4_500)},
            ],
        },
        {
            "unique_id": "test.p.cdc_column_checks_x.abc",
            "execution_time": 1.0,
            "timing": [
                {
                    "name": "execute",
                    "started_at": _iso(T0 + 4_600),
                    "completed_at": _iso(T0 + 5_600),
                },
            ],
        },
        {"unique_id": "seed.p.codes", "execution_time": 0.1, "timing": []},
    ]
}


def _write(tmp_path: Path, events: list[dict], tail: str = "") -> Path:
    path = tmp_path / "local-1"
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + tail)
    return path


def test_executions_collect_the_tasks_of_their_jobs(tmp_path: Path) -> None:
    executions = sp.parse_executions(sp.read_events(_write(tmp_path, EVENTS)))
    assert [e.id for e in executions] == [0, 1, 2, 3]
    ctas, write, query, outside = executions
    assert (ctas.tasks, write.tasks, query.tasks, outside.tasks) == (0, 2, 1, 0)
    assert write.task_ms == 1000 and write.input_bytes == 3 * 2**20
    assert write.operation == "Execute InsertIntoHadoopFsRelationCommand"
    assert query.operation == "AdaptiveSparkPlan"
    assert ctas.seconds == pytest.approx(2.2)


def test_nested_executions_add_to_their_root() -> None:
    [ctas, query, outside] = sp.roots(sp.parse_executions(EVENTS))
    assert (ctas.id, ctas.tasks, ctas.task_ms, ctas.output_bytes) == (0, 2, 1000, 2**20)
    assert ctas.seconds == pytest.approx(2.2)
    assert query.id == 2 and outside.id == 3


def test_statements_are_attributed_to_the_node_running_at_their_start() -> None:
    profiles = sp.attribute(sp.parse_executions(EVENTS), sp.node_windows(RUN_RESULTS))
    by_name = {p.name: p for p in profiles}
    assert set(by_name) == {"model bronze", "test cdc_column_checks_x.abc", sp.UNATTRIBUTED}
    assert profiles[0].name == "model bronze"
    bronze = by_name["model bronze"].row()
    assert bronze == {
        "node": "model bronze",
        "node_s": 4.0,
        "statements": 1,
        "spark_s": 2.2,
        "task_s": 1.0,
        "cpu_s": 0.5,
        "gc_s": 0.02,
        "spill_mb": 2.0,
        "read_mb": 3.0,
        "written_mb": 1.0,
        "shuffled_mb": 2.0,
    }
    assert by_name["test cdc_column_checks_x.abc"].row()["statements"] == 1
    assert [e.id for e in by_name[sp.UNATTRIBUTED].executions] == [3]


def test_markdown_and_plans(tmp_path: Path) -> None:
    path = _write(tmp_path, EVENTS)
    profiles = sp.profile(tmp_path, RUN_RESULTS)
    text = sp.render_markdown(profiles)
    assert "| model bronze | 4.0 | 1 | 2.2 | 1.0 | 0.5 |" in text
    assert "3 nodes: 5.0 s in nodes, 2.8 s in Spark statements (3 statements)." in text
    plans = sp.write_plans(profiles, tmp_path / "plans", top=2)
    assert [p.name for p in plans] == [
        "01_model_bronze_0.txt",
        "02_test_cdc_column_checks_x_abc_2.txt",
    ]
    assert "CreateDataSourceTableAsSelectCommand" in plans[0].read_text()
    assert sp.main([str(path), "--run-results", str(_json(tmp_path, RUN_RESULTS))]) == 0


def _json(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "run_results.json"
    path.write_text(json.dumps(data))
    return path


def test_a_log_still_being_written_is_read_up_to_its_last_whole_line(tmp_path: Path) -> None:
    path = _write(tmp_path, EVENTS, tail='{"Event": "SparkListenerTaskEnd", "Sta')
    assert len(sp.parse_executions(sp.read_events(path))) == 4


def test_unreadable_logs_get_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(sp.EventLogError, match="no event log"):
        sp.event_log_files(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(sp.EventLogError, match="holds no event log"):
        sp.event_log_files(tmp_path / "empty")
    compressed = tmp_path / "local-2.zstd"
    compressed.write_bytes(b"\x28\xb5\x2f\xfd")
    with pytest.raises(sp.EventLogError, match="compress=false"):
        list(sp.read_events(compressed))
    broken = tmp_path / "local-3"
    broken.write_text("{not json}\n")
    with pytest.raises(sp.EventLogError, match="local-3:1: not JSON"):
        list(sp.read_events(broken))
    assert sp.main([str(tmp_path / "missing")]) == 2
    assert "no event log" in capsys.readouterr().err


def test_the_local_profile_writes_plain_event_logs_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cdc_tools.local_spark import local_spark_conf

    monkeypatch.delenv("CDC_SPARK_EVENT_LOG", raising=False)
    assert local_spark_conf()["spark.eventLog.enabled"] == "false"
    monkeypatch.setenv("CDC_SPARK_EVENT_LOG", "true")
    monkeypatch.setenv("CDC_SPARK_EVENT_LOG_DIR", "/somewhere")
    conf = local_spark_conf()
    assert conf["spark.eventLog.enabled"] == "true"
    assert conf["spark.eventLog.dir"] == "/somewhere"
    assert conf["spark.eventLog.compress"] == "false"
    assert conf["spark.eventLog.rolling.enabled"] == "false"

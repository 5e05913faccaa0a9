"""workbench.bench.node_profile: statements and their seconds per node from a dbt log of JSON
lines, written here by dbt's own event classes and serializer (the fields the bench reads
are dbt's), and the time of a step by node kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbt.adapters.events.types import SQLQuery, SQLQueryStatus
from dbt_common.events.base_types import msg_from_base_event
from dbt_common.events.functions import msg_to_json

from cdc_tools.local_spark import REPO_ROOT
from workbench.bench import node_profile


def _node_info(unique_id: str) -> dict[str, str]:
    name = unique_id.split(".")[-1]
    return {
        "node_path": f"{name}.sql", "node_name": name, "unique_id": unique_id,
        "resource_type": unique_id.split(".")[0], "materialized": "table",
        "node_status": "started", "node_started_at": "", "node_finished_at": "",
    }  # fmt: skip


def _log(path: Path, statements: list[tuple[str, float]]) -> None:
    lines = ["not json: a text line dbt may also write"]
    for unique_id, elapsed in statements:
        info = _node_info(unique_id) if unique_id else None
        sent = SQLQuery(conn_name="c", sql="select 1", node_info=info)
        done = SQLQueryStatus(status="OK", elapsed=elapsed, node_info=info)
        lines += [msg_to_json(msg_from_base_event(sent)), msg_to_json(msg_from_base_event(done))]
    path.write_text("\n".join(lines) + "\n")


def _result(unique_id: str, seconds: float) -> dict[str, Any]:
    return {
        "unique_id": unique_id,
        "status": "success",
        "execution_time": seconds,
        "timing": [
            {"name": "compile", "started_at": "2026-12-02T10:00:02Z",
             "completed_at": "2026-12-02T10:00:02.5Z"},
        ],
    }  # fmt: skip


def test_statements_and_their_seconds_per_node(tmp_path: Path) -> None:
    log = tmp_path / "dbt.log"
    gold = "model.cdc_lakehouse.captured_rows"
    _log(log, [("", 0.5), (gold, 0.25), (gold, 1.0), ("model.cdc_lakehouse.cdc_quarantine", 2.0)])
    times = node_profile.statement_times(log)
    assert times == {
        "": [1, 0.5],
        gold: [2, 1.25],
        "model.cdc_lakehouse.cdc_quarantine": [1, 2.0],
    }
    named = node_profile.by_short_name(times)
    assert named["model captured_rows"] == [2, 1.25]
    assert node_profile.statement_times(tmp_path / "missing.log") == {}


def test_a_step_by_node_kind_with_its_start_and_the_clients_share(tmp_path: Path) -> None:
    gold = "model.cdc_lakehouse.captured_rows"
    test = "test.cdc_lakehouse.cdc_column_checks_bronze_cdc_messages.1a2b"
    run_results = {
        "metadata": {"invocation_started_at": "2026-12-02T10:00:00Z"},
        "results": [_result(gold, 3.0), _result(test, 0.5)],
    }
    statements = {
        "": [2, 0.4],
        "model captured_rows": [9, 2.0],
        f"test {test.split('.')[2]}": [1, 0.1],
    }
    rows = node_profile.profile_rows("connect", "incremental", run_results, statements, REPO_ROOT)
    by_kind = {row[2]: row for row in rows}
    # the start: 2 s before the first node, 0.4 s of them in two statements (the listing)
    assert by_kind[node_profile.START_KIND][3:] == ["", 2.0, 2, 0.4, 1.6]
    # captured_rows is gold on parquet on the connect target (a table format of its own: no)
    assert by_kind["gold parquet"][3:] == [1, 3.0, 9, 2.0, 1.0]
    assert by_kind["data test"][3:] == [1, 0.5, 1, 0.1, 0.4]
    # the slowest kind first, after the start
    assert [row[2] for row in rows] == [node_profile.START_KIND, "gold parquet", "data test"]

"""Run dbt in this process (sharing its Spark session) and fail loudly when it fails."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from cdc_tools.local_spark import PROFILES_DIR
from cdc_tools.local_spark import project_dir as default_project_dir


class DbtFailure(RuntimeError):
    """A dbt invocation that did not succeed, with the failing nodes in the message."""


def run_dbt(
    args: Iterable[str],
    *,
    vars: Mapping[str, object] | None = None,
    target_path: Path | None = None,
    expect_success: bool = True,
    project_dir: Path | None = None,
):  # type: ignore[no-untyped-def]
    """Invoke `dbt <args>` on `project_dir` (default: `local_spark.project_dir()`) with the
    repository's profiles; returns the dbtRunnerResult.

    dbt's partial parsing is on: invocations that share a target path reuse its
    `partial_parse.msgpack` (about 0.5 s instead of 5 s of parsing), and dbt parses again
    whatever changed: files, `--vars`, the profile (`CDC_SCHEMA`) or the project's env vars.
    """
    import json

    from dbt.cli.main import dbtRunner

    argv = [
        *args,
        "--project-dir",
        str(project_dir or default_project_dir()),
        "--profiles-dir",
        str(PROFILES_DIR),
    ]
    if target_path is not None:
        argv += ["--target-path", str(target_path), "--log-path", str(target_path / "logs")]
    if vars:
        argv += ["--vars", json.dumps(dict(vars))]
    statements = StatementLog()
    started = time.monotonic()
    result = dbtRunner(callbacks=[statements]).invoke(argv)
    result.statements = statements  # what each node sent to Spark (StatementLog)
    _record_invocation(argv, result, time.monotonic() - started, statements)
    if expect_success and not result.success:
        raise DbtFailure(_describe_failure(argv, result))
    return result


class StatementLog:
    """The statements one dbt invocation sent to Spark, per node: dbt's structured
    `SQLQuery` events (metadata ones, `show tblproperties` or `describe`, included), keyed
    by the node's unique id ("" for those of no node, such as the listing of the schemas at
    the start). A dbtRunner callback; `run_dbt` keeps it as its result's `statements`."""

    def __init__(self) -> None:
        self.by_node: dict[str, list[str]] = {}

    def __call__(self, event) -> None:  # type: ignore[no-untyped-def]
        if event.info.name != "SQLQuery":
            return
        node = event.data.node_info.unique_id
        self.by_node.setdefault(node, []).append(event.data.sql)

    def counts(self) -> dict[str, int]:
        """Statements per node."""
        return {node: len(sqls) for node, sqls in self.by_node.items()}


TIMES_ENV = "CDC_DBT_TIMES"
"""A file to which every invocation appends one JSON line: the test that ran it
(PYTEST_CURRENT_TEST), dbt's command and selection, its nodes, its wall time and the
statements each node sent (the suite's cost per build, tests/README.md)."""


def _record_invocation(argv: list[str], result, seconds: float, statements: StatementLog) -> None:  # type: ignore[no-untyped-def]
    path = os.environ.get(TIMES_ENV)
    if not path:
        return
    import json

    nodes = len(getattr(result.result, "results", None) or [])
    kept = [arg for arg in argv if not arg.startswith("/")]
    line = {
        "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
        "argv": kept,
        "nodes": nodes,
        "seconds": round(seconds, 2),
        "statements": statements.counts(),
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def _describe_failure(argv: list[str], result) -> str:  # type: ignore[no-untyped-def]
    lines = [f"dbt {' '.join(argv)} failed"]
    if result.exception is not None:
        lines.append(f"exception: {result.exception}")
    for node_result in getattr(result.result, "results", None) or []:
        status = str(getattr(node_result, "status", ""))
        if status.lower() in {"error", "fail", "runtime error", "skipped"}:
            # a run-operation's result names its node by unique_id only
            node = getattr(node_result, "node", None)
            unique_id = getattr(node, "unique_id", None) or getattr(node_result, "unique_id", "")
            lines.append(f"{unique_id}: {status}: {node_result.message}")
    return "\n".join(lines)

"""A Python process of its own holding a Spark session, running dbt and queries on request.

For a module whose session needs what the workers' sessions lack, such as the Kafka jars
(`CDC_SPARK_KAFKA=true`): adding them to the workers' sessions would change their class path
and so miss the JVM class archive `make setup` wrote for it (workbench.speedups). One process
for the module's builds and reads: one JVM start and dbt's partial parsing kept between
builds. Requests and answers are JSON lines; everything else the process prints goes to
its log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import process_env

ANSWER = "ANSWER "

SERVE = f"""
import json, sys
answers, sys.stdout = sys.stdout, sys.stderr  # dbt's output to the log
from pathlib import Path
from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import get_local_spark
spark = get_local_spark()
for line in sys.stdin:
    request = json.loads(line)
    try:
        if "sql" in request:
            answer = {{"rows": [row.asDict() for row in spark.sql(request["sql"]).collect()]}}
        else:
            run_dbt(request["args"], vars=request["vars"], target_path=Path(request["target"]))
            answer = {{}}
    except Exception as exc:
        answer = {{"error": repr(exc)}}
    print({ANSWER!r} + json.dumps(answer, default=str), file=answers, flush=True)
"""


class SessionProcess:
    """The process's requests: `run` (dbt) and `sql` (rows as dicts, values JSON's)."""

    def __init__(self, process: subprocess.Popen[str], target: Path, log: Path) -> None:
        self.process = process
        self.target = target
        self.log = log

    def _ask(self, request: Mapping[str, object]) -> dict[str, object]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(ANSWER):
                answer = dict(json.loads(line[len(ANSWER) :]))
                if "error" in answer:
                    raise AssertionError(f"{answer['error']}\n{self.tail()}")
                return answer
        raise AssertionError(f"the session's process ended:\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def run(self, *args: str, vars: Mapping[str, object]) -> None:
        self._ask({"args": list(args), "vars": dict(vars), "target": str(self.target)})

    def sql(self, query: str) -> list[dict]:
        return list(self._ask({"sql": query})["rows"])  # type: ignore[call-overload]


@contextmanager
def session_process(
    folder: Path, schema: str, landing: Path, **env: str
) -> Iterator[SessionProcess]:
    """A process whose Spark home, dbt target and log are in `folder`, building `schema`
    from `landing`; `env` adds to its environment. Ended (its process group) after."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "session.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=output,
            text=True,
            env=process_env(folder / "spark", schema, landing, **env),
            start_new_session=True,
        )
        try:
            yield SessionProcess(process, folder / "target", log)
        finally:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

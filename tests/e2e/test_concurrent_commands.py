"""Two `dbt` commands started at once on one local warehouse run one after the other.

The embedded Derby metastore admits one process; before the warehouse lock
(`cdc_tools/warehouse_lock.py`) the second command printed thousands of lines of Derby and
Hive stack traces. Now it says, in one line, which command holds the warehouse, waits for
it and then runs; both succeed and gold is what one run gives. Two processes on a Spark home
of their own (this pytest process holds the shared session's): the `dbt` command, and a
Python process that runs `dbt run` through dbtRunner, as the `dbt` script does, then checks
gold on its session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from cdc_tools.warehouse_lock import holder
from tests.conftest import process_env, wait_until_it_holds_the_warehouse
from workbench.oracle_check import COMPARED_MODELS
from workbench.simulator import SimConfig, simulate, write_batch

pytestmark = pytest.mark.spark

GOLD = list(COMPARED_MODELS)
CONFIG = SimConfig(
    seed=91, flavour="sqlserver", database="LOCK_MSS", server="lock", batches=1, transactions=20
)

# The second command: `dbt run` through dbtRunner (what the `dbt` script calls), in a Python
# process that then checks gold and bronze on the session it made, so that the check needs
# no third JVM.
RUN_AND_VERIFY = """
import json, sys
from pathlib import Path
from cdc_tools.local_spark import get_local_spark
from workbench.oracle_check import compare_database
from workbench.simulator import SimConfig, simulate
from dbt.cli.main import dbtRunner
result = dbtRunner().invoke(["run", *sys.argv[5:], "--target-path", sys.argv[3],
                             "--log-path", sys.argv[4]])
if not result.success:
    sys.exit(f"dbt run failed: {result.exception}")
config = SimConfig(**json.loads(sys.argv[1]))
spark = get_local_spark()
result = simulate(config)
outcome = compare_database(spark, sys.argv[2] + "_gold", config.database,
                           result.expected[0], result=result, batch=0)
bronze = spark.sql(f"select count(*) as n, count(distinct _source_file, _source_line) as d "
                   f"from {sys.argv[2]}_bronze.bronze_cdc_messages").first()
print("VERIFY " + json.dumps({"differences": outcome.differences,
                              "bronze": bronze["n"], "distinct": bronze["d"]}))
"""


def test_a_second_command_waits_for_the_first(tmp_path: Path) -> None:
    result = simulate(CONFIG)
    landing = tmp_path / "landing"
    written = write_batch(result.batches[0], landing / CONFIG.database, 0, "value_lines")
    messages = sum(1 for path in written for line in path.read_text().splitlines() if line)
    spark_home = tmp_path / "spark"
    env = process_env(spark_home, "t_lock", landing)
    env.pop("CDC_WAREHOUSE_LOCK_TIMEOUT", None)
    dbt = str(Path(sys.executable).with_name("dbt"))
    # the command a user types; the second process runs the same `dbt run` (RUN_AND_VERIFY)
    # on the models gold's check reads (COMPARED_MODELS), the rest being no part of it
    command = [dbt, "run", *GOLD, "--target-path", str(tmp_path / "target")]
    command += ["--log-path", str(tmp_path / "logs")]

    config = {
        k: getattr(CONFIG, k)
        for k in ("seed", "flavour", "database", "server", "batches", "transactions")
    }
    checking = [sys.executable, "-c", RUN_AND_VERIFY, json.dumps(config), "t_lock"]
    checking += [str(tmp_path / "target-second"), str(tmp_path / "logs-second"), *GOLD]

    def start(name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            env=env,
            cwd=REPO_ROOT,
            stdout=(tmp_path / f"{name}.out").open("wb"),
            stderr=(tmp_path / f"{name}.err").open("wb"),
        )

    first = start("first", command)
    # start the second once the first holds the warehouse (at most 60 s: without a lock
    # there is nothing to see, and the second then meets the first's Derby instead)
    wait_until_it_holds_the_warehouse(spark_home, first, tmp_path / "first.out", 60)
    second = start("second", checking)
    try:
        codes = [first.wait(timeout=600), second.wait(timeout=600)]
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.kill()

    # what the second command said, less Spark's console progress bar (redrawn with \r)
    stderr = [
        line
        for line in (tmp_path / "second.err").read_text(errors="replace").splitlines()
        if line.strip() and not line.lstrip().startswith("[Stage ")
    ]
    assert len(stderr) < 50, f"{len(stderr)} lines on stderr: {stderr[:40]}"
    assert codes == [0, 0], (tmp_path / "second.out").read_text()[-3000:]
    waiting = [line for line in stderr if "is in use by" in line]
    assert len(waiting) == 1, stderr[:40]
    assert f"pid {first.pid} (dbt run {' '.join(GOLD)} --target-path" in waiting[0]
    assert "waiting" in waiting[0]
    assert not [line for line in stderr if "Exception" in line or "\tat " in line], stderr[:40]
    assert holder(spark_home / "warehouse.lock").get("pid") == second.pid, (
        "the second command held it after the first"
    )

    out = (tmp_path / "second.out").read_text(errors="replace").splitlines()
    [report] = [line for line in out if line.startswith("VERIFY ")]
    outcome = json.loads(report.removeprefix("VERIFY "))
    assert outcome == {"differences": [], "bronze": messages, "distinct": messages}

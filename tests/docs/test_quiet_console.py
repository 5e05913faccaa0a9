"""What a real `dbt` process prints: dbt's own lines, and what a build could not read.

`dbt docs generate` on a project that was never built prints no errors dbt handles. dbt
probes every model's relation for the catalog; before the first build each probe is an
`AnalysisException` (TABLE_OR_VIEW_NOT_FOUND) that dbt handles, and PySpark 4 used to log
each one as a JSON line with its Java stack trace. A real `dbt` process (its own Spark
session, warehouse and metastore in a temporary folder, an empty landing folder) must print
dbt's own lines only. `python -m cdc_tools.docs` (`make docs`) must also say plainly that
the catalog needs a build first.

A `dbt build` that meets truncated gzip landing files names each with its reason, and prints
no Java stack trace (Spark's codec failure goes to Spark's log file, `spark.log` in the
Spark home): the process is the real `dbt` command, whose console a user reads, on the
package's own project (bronze, silver and the quarantine's test: the cheapest build that
reads landing files and runs the test).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env
from workbench.simulator import SimConfig, simulate, write_batch
from workbench.simulator.landing import sink_file_name

NOISE = ("\tat ", "TABLE_OR_VIEW_NOT_FOUND", '"level": "ERROR"', "Traceback", "Exception")


def _env(tmp_path: Path) -> dict[str, str]:
    landing = tmp_path / "landing"
    landing.mkdir(exist_ok=True)
    return process_env(
        tmp_path / "spark",
        "t_unbuilt",
        landing,
        DBT_TARGET="local",
        CDC_SPARK_DRIVER_MEMORY="1g",
        CDC_SPARK_MASTER="local[1]",
        CDC_LOG4J_CONFIG=str(REPO_ROOT / "profiles" / "log4j2.properties"),
    )


def _run(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=REPO_ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _noise(output: str) -> list[str]:
    return [line for line in output.splitlines() if any(word in line for word in NOISE)]


@pytest.fixture(scope="module")
def dbt_executable() -> str:
    path = Path(sys.executable).with_name("dbt")
    if not path.exists():
        pytest.fail(f"dbt not found beside {sys.executable}")
    return str(path)


def test_docs_generate_on_an_unbuilt_project_prints_no_stack_trace(
    tmp_path: Path, dbt_executable: str
) -> None:
    target = tmp_path / "target"
    result = _run(
        [dbt_executable, "docs", "generate", "--target-path", str(target), "--no-partial-parse"],
        tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert _noise(output) == [], "\n".join(_noise(output)[:20])
    assert "Catalog written" in output
    catalog = json.loads((target / "catalog.json").read_text())
    assert catalog["nodes"] == {}  # nothing built: nothing to type


def test_make_docs_says_the_catalog_needs_a_build_first(tmp_path: Path) -> None:
    target = tmp_path / "target"
    result = _run([sys.executable, "-m", "cdc_tools.docs", "--target-path", str(target)], tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "Nothing is built under schema prefix 't_unbuilt' yet" in result.stdout
    assert "Run `make demo` (simulated sources) or `dbt build`" in result.stdout
    assert _noise(output) == [], "\n".join(_noise(output)[:20])
    assert (target / "index.html").is_file() or (target / "manifest.json").is_file()


# a source's sink files, and gzip files of one of its topics cut short (an interrupted
# upload): more of them than the console lists (_cdc_quarantine_report's console_lines: 10)
CONSOLE_SOURCE = SimConfig(
    seed=7, flavour="db2", database="QC_DB2", server="qc", batches=1, transactions=5
)
TRUNCATED_FILES = 12
CONSOLE_LINES = 10


def test_a_build_names_each_file_it_could_not_read_and_prints_no_java_trace(
    tmp_path: Path, dbt_executable: str
) -> None:
    written = write_batch(
        simulate(CONSOLE_SOURCE).batches[0], tmp_path / "landing" / "qc", 0, "value_lines"
    )
    topic = written[0].name.split("+", 1)[0]
    truncated = []
    for index in range(TRUNCATED_FILES):
        data = gzip.compress(written[0].read_bytes() * 50)
        path = written[0].with_name(sink_file_name(topic, 0, 1000 * (index + 1), ".json.gz"))
        path.write_bytes(data[: len(data) // 2])
        truncated.append(path)
    result = _run(
        [dbt_executable, "build", "--project-dir", str(REPO_ROOT), "--select",
         "+cdc_quarantine", "assert_no_new_quarantined_messages", "--indirect-selection", "empty",
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")],
        tmp_path,
    )  # fmt: skip
    output = result.stdout + result.stderr
    # the topic's other files reached gold: a warning, not a source the run read nothing of
    assert result.returncode == 0, output[-4000:]
    assert "WARN 12 assert_no_new_quarantined_messages" in result.stdout, result.stdout[-4000:]
    listed = [
        line.split(" unreadable_file: the file ", 1)[1]
        for line in result.stdout.splitlines()
        if " unreadable_file: the file " in line
    ]
    assert len(listed) == CONSOLE_LINES, result.stdout[-4000:]
    for line in listed:
        assert line.split(" ", 1)[0] in {f"file:{path}" for path in truncated}, line
        assert line.endswith(" could not be read whole, none of its lines loaded "
                             "(cdc_quarantine.raw_line says why; a readable copy with a new "
                             "modification time loads)"), line  # fmt: skip
    assert f"... and {TRUNCATED_FILES - CONSOLE_LINES} more" in result.stdout
    java = [line for line in output.splitlines() if line.lstrip().startswith(("java.", "at "))]
    assert java == [] and _noise(output) == [], "\n".join((java + _noise(output))[:20])
    # Spark's log kept the codec's failure, with its stack trace
    spark_log = (tmp_path / "spark" / "spark.log").read_text(errors="replace")
    assert "java.io.EOFException" in spark_log and "\tat org.apache." in spark_log

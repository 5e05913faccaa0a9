"""`dbt docs generate` on a project that was never built prints no errors dbt handles.

dbt probes every model's relation for the catalog; before the first build each probe is an
`AnalysisException` (TABLE_OR_VIEW_NOT_FOUND) that dbt handles, and PySpark 4 used to log
each one as a JSON line with its Java stack trace. A real `dbt` process (its own Spark
session, warehouse and metastore in a temporary folder, an empty landing folder) must print
dbt's own lines only. `python -m cdc_tools.docs` (`make docs`) must also say plainly that
the catalog needs a build first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env

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

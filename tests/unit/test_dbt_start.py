"""dbt's own start (issue 64, decision 0021): what each invocation pays before its nodes.

- A dbt start reads the venv's bytecode: it compiles no module from source, even under
  PYTHONDONTWRITEBYTECODE (`make venv` runs `workbench.speedups.bytecode`).
- The bench's floor project sends no usage events, as the consumer project.
- Partial parsing survives invocations that differ only in the profile's Spark settings
  (each test worker's Spark home, the driver's memory); a schema change parses again (dbt's
  rule: the profile's connection keys).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from workbench import dbt_start
from workbench.bench.settings import FLOOR_PROJECT
from workbench.speedups import bytecode

REPO_ROOT = Path(__file__).resolve().parents[2]

COUNT_COMPILED = textwrap.dedent(
    """
    import importlib._bootstrap_external as external, sys, sysconfig
    compiled = []
    original = external.SourceFileLoader.source_to_code
    def source_to_code(self, data, path, *args, **kwargs):
        compiled.append(path)
        return original(self, data, path, *args, **kwargs)
    external.SourceFileLoader.source_to_code = source_to_code
    import dbt.cli.main, dbt.adapters.spark.impl, dbt.task.build
    purelib = sysconfig.get_paths()["purelib"]
    print(len([p for p in compiled if p.startswith(purelib)]), len(sys.modules))
    """
)


def test_a_dbt_start_compiles_no_module_from_source() -> None:
    """Under PYTHONDONTWRITEBYTECODE, a venv without `.pyc` compiled about 1,500 modules of
    dbt's start on every invocation (1.4 to 2.9 s of CPU, decision 0021)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    out = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILED],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    compiled, loaded = int(out[0]), int(out[1])
    assert loaded > 1000
    assert compiled == 0, f"{compiled} of dbt's modules compiled from source: make venv"


def test_bytecode_is_written_under_dont_write_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cdc_bytecode_probe"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "imported.py").write_text("VALUE = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "later.py").write_text("VALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    files = [package / "imported.py", package / "sub" / "later.py"]
    assert bytecode.stale(files) == files
    bytecode.write(modules=("cdc_bytecode_probe.imported",), packages=("cdc_bytecode_probe",))
    assert bytecode.stale(files) == []
    assert sys.dont_write_bytecode is True
    for name in [name for name in sys.modules if name.startswith("cdc_bytecode_probe")]:
        monkeypatch.delitem(sys.modules, name)


def test_the_floor_project_sends_no_usage_events() -> None:
    project = yaml.safe_load(FLOOR_PROJECT["dbt_project.yml"])
    assert project["flags"]["send_anonymous_usage_stats"] is False
    consumer = yaml.safe_load((REPO_ROOT / "integration_tests" / "dbt_project.yml").read_text())
    assert consumer["flags"]["send_anonymous_usage_stats"] is False


def test_the_phase_table() -> None:
    record: dict[str, object] = {
        "start": 0.1,
        "import": 1.0,
        "parse": 0.5,
        "session": 0.2,
        "udfs": 0.1,
        "self": 3.0,
        "tree": 10.0,
        "wall": 5.0,
        "parse_kind": "skipped",
    }
    phases = dbt_start.phases_of(record)
    assert phases["rest"] == pytest.approx(3.0 - 0.1 - 1.0 - 0.5 - 0.2)
    assert phases["jvm"] == pytest.approx(7.0)
    table = dbt_start.render([record, record])
    assert "| run 1 (skipped) | run 2 (skipped) | median |" in table
    assert "| client | 3.00 | 3.00 | 3.00 |" in table


def test_partial_parsing_survives_the_profiles_spark_settings(tmp_path: Path) -> None:
    """Two invocations that differ in the Spark home, master, memory and threads share one
    parse (dbt's check hashes the connection keys: host, schema ...); a new schema does not."""
    project = tmp_path / "floor"
    for name, text in FLOOR_PROJECT.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    env = {
        **os.environ,
        "DBT_PROFILES_DIR": str(REPO_ROOT / "profiles"),
        "DBT_TARGET": "local",
        "CDC_SCHEMA": "start_test",
        "CDC_SPARK_HOME": str(tmp_path / "one"),
    }
    args = ["parse", "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path)]
    first = dbt_start.run_once(args, env=env, cwd=project)
    assert (first["success"], first["parse_kind"]) == (True, "full")
    env.update(
        {
            "CDC_SPARK_HOME": str(tmp_path / "two"),
            "CDC_SPARK_MASTER": "local[1]",
            "CDC_SPARK_DRIVER_MEMORY": "1g",
            "CDC_THREADS": "2",
        }
    )
    second = dbt_start.run_once(args, env=env, cwd=project)
    assert second["parse_kind"] == "skipped"
    # the session's own start imports nothing of pandas: dbt parse opens no session
    assert second["pandas_loaded"] is False
    third = dbt_start.run_once(args, env={**env, "CDC_SCHEMA": "start_test_2"}, cwd=project)
    assert third["parse_kind"] == "full"

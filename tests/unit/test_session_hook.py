"""The session hook of this repository's tooling (cdc_tools/session_hook.py): installed by the
venv's `.pth` line, it wraps `getOrCreate` without importing pyspark early."""

from __future__ import annotations

import os
import subprocess
import sys

from cdc_tools.local_spark import REPO_ROOT
from cdc_tools.session_hook import pth_line


def test_pth_line() -> None:
    lines = pth_line(REPO_ROOT).splitlines()
    assert lines[0] == str(REPO_ROOT.resolve())
    assert lines[1].startswith("import ")


def test_session_hook_wraps_get_or_create_lazily() -> None:
    script = (
        "import sys\n"
        "from cdc_tools import session_hook\n"
        "session_hook.install()\n"
        "assert 'pyspark' not in sys.modules, 'install imported pyspark'\n"
        "import os; assert os.environ['PYSPARK_PYTHON']\n"
        "from pyspark.sql.session import SparkSession\n"
        "wrapped = SparkSession.Builder.getOrCreate\n"
        "assert getattr(wrapped, session_hook.WRAPPED_MARKER, False), 'not wrapped'\n"
        "session_hook.install()\n"
        "assert SparkSession.Builder.getOrCreate is wrapped, 'wrapped twice'\n"
        "print('ok')\n"
    )
    env = {key: val for key, val in os.environ.items() if key != "PYSPARK_PYTHON"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_session_hook_patches_an_already_imported_module() -> None:
    script = (
        "import pyspark.sql.session as s\n"
        "from cdc_tools import session_hook\n"
        "session_hook.install()\n"
        "assert getattr(s.SparkSession.Builder.getOrCreate, session_hook.WRAPPED_MARKER)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

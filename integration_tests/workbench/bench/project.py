"""Project copy: the dbt project measured (a working tree or a git revision)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from cdc_tools.local_spark import REPO_ROOT
from workbench.consumer import CONSUMER_DIR, link_package

# the consumer project, inside a snapshot: what a measured `dbt build` builds
CONSUMER = CONSUMER_DIR.name

PROJECT_PATHS: tuple[str, ...] = (
    "integration_tests",
    "dbt_project.yml",
    "packages.yml",
    "dependencies.yml",
    "models",
    "macros",
    "seeds",
    "snapshots",
    "analyses",
    "tests/dbt",
    "docs/dbt",
    "dbt_packages",
)


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def project_info(rev: str | None) -> dict[str, Any]:
    """Which version of the dbt project was measured."""
    dirty = [
        line[3:]
        for line in _git("status", "--porcelain").splitlines()
        if line[3:].split("/")[0] in {p.split("/")[0] for p in PROJECT_PATHS}
    ]
    return {
        "source": f"git {rev}" if rev else "working tree",
        "commit": _git("rev-parse", rev or "HEAD") or None,
        "uncommitted_project_files": [] if rev else dirty,
    }


def snapshot_project(dest: Path, rev: str | None = None) -> None:
    """Copy the dbt project (working tree, or git revision ``rev``) to ``dest``, so that
    edits made to the repo while the benchmark runs do not change what it measures."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if rev:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", rev], cwd=REPO_ROOT, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        _link_consumer(dest)
        return
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "target", "logs", "dbt_packages")
    for relative in PROJECT_PATHS:
        source = REPO_ROOT / relative
        if source.is_dir():
            shutil.copytree(source, dest / relative, ignore=ignore)
        elif source.is_file():
            (dest / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / relative)
    _link_consumer(dest)


def _link_consumer(dest: Path) -> None:
    if (dest / CONSUMER).is_dir():  # a revision before the package boundary has none
        link_package(dest / CONSUMER, dest)


def built_project(snapshot: Path) -> Path:
    """The project a measured build runs in a snapshot: its consumer project, if any."""
    return snapshot / CONSUMER if (snapshot / CONSUMER).is_dir() else snapshot

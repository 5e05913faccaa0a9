"""The pre-commit configuration uses local hooks only, and the YAML check catches bad YAML."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pre_commit_hooks.check_yaml import main

from cdc_tools.local_spark import REPO_ROOT

CONFIG = REPO_ROOT / ".pre-commit-config.yaml"


def test_the_config_has_local_hooks_only() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert set(hooks) == {
        "ruff-check",
        "ruff-format",
        "sqlfluff-lint",
        "sqlfluff-lint-consumer",
        "check-yaml",
    }
    for hook in hooks.values():
        assert hook["language"] == "system"
        assert ".venv/bin/python -m " in hook["entry"], hook
        assert "http" not in hook["entry"]
    assert "sqlfluff lint" in hooks["sqlfluff-lint"]["entry"]
    assert "macros" in hooks["sqlfluff-lint"]["files"]
    assert "cd integration_tests" in hooks["sqlfluff-lint-consumer"]["entry"]


def test_pre_commit_validates_the_config() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(CONFIG)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_yaml_reports_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.yml"
    good.write_text("models:\n  - name: a\n    description: '{{ doc(\"x\") }}'\n")
    bad = tmp_path / "bad.yml"
    bad.write_text("models:\n  - name: a\n   description: misaligned\n")
    twice = tmp_path / "twice.yml"
    twice.write_text("models: []\nmodels: []\n")
    assert main(["--allow-multiple-documents", str(good)]) == 0
    capsys.readouterr()
    assert main(["--allow-multiple-documents", str(good), str(bad)]) == 1
    found = capsys.readouterr().out
    assert str(bad) in found and "line 3" in found and str(good) not in found
    assert main(["--allow-multiple-documents", str(twice)]) == 1, "a key given twice"


def _yaml_files() -> list[str]:
    """The files `make lint` checks: every YAML file git knows of or would add."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.yml", "*.yaml"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [str(REPO_ROOT / name) for name in listed.stdout.splitlines()]


def test_every_yaml_file_of_the_repo_parses(capsys: pytest.CaptureFixture[str]) -> None:
    files = _yaml_files()
    assert str(CONFIG) in files and str(REPO_ROOT / "dbt_project.yml") in files
    assert not any("/.venv/" in f or "/dbt_packages/" in f for f in files)
    assert main(["--allow-multiple-documents", *files]) == 0, capsys.readouterr().out

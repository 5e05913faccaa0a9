"""The consumer project's dbt unit tests (docs/unit-tests.md): a typed change log's and a
gold model's. They pass on the shared stream's warehouse (a unit test with `dict` rows reads
its inputs' column types there), and they fail when the package's logic is broken: a copy of
the package whose current-state rule ranks a key's changes oldest first, and whose typed
change log reads a delete from its after image.

Every other build of the suite leaves the unit tests out (tests/conftest.py:
DBT_EXCLUDE_RESOURCE_TYPES); these tests put them back.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cdc_tools.dbt_invoke import run_dbt
from tests.conftest import DbtProject
from workbench.consumer import REPO_ROOT, copy_project

pytestmark = pytest.mark.spark

UNIT_TESTS = {
    "customers_update_after_delete",
    "customers_late_event",
    "customers_truncate",
    "customers_key_change",
    "stg_inventory__customers_types_its_contract",
}
# what the package's dbt project reads (its dbt_project.yml's paths)
PACKAGE_FILES = ("dbt_project.yml", "macros", "models", "seeds", "tests/dbt", "docs/dbt")
# (file, text, broken text): each breaks one rule the unit tests pin
MUTATIONS = (
    (
        "macros/materializations/cdc_current_state/_cdc_latest_change_rank.sql",
        "order by _cdc_sort_key desc",
        "order by _cdc_sort_key asc",
    ),
    (
        "macros/typed/cdc_typed_change_log.sql",
        "coalesce({{ cdc_lakehouse._cdc_json_map('_cdc_before') }}",
        "coalesce({{ cdc_lakehouse._cdc_json_map('_cdc_after') }}",
    ),
)
# the unit tests the mutations make fail: a rank oldest first keeps a key's first change
# (the truncate's keys have one change each), a delete read from its after image has no key
FAILING = {
    "customers_update_after_delete",
    "customers_late_event",
    "customers_key_change",
    "stg_inventory__customers_types_its_contract",
}


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream after its no-op step (tests/e2e/stream.py): every input built."""
    return streamed


@pytest.fixture
def with_unit_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBT_EXCLUDE_RESOURCE_TYPES", raising=False)


def _outcomes(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        r.node.name: str(r.status)
        for r in result.result.results
        if r.node.resource_type == "unit_test"
    }


@pytest.mark.stream("noop")
@pytest.mark.usefixtures("with_unit_tests")
def test_the_unit_tests_pass(dbt_project: DbtProject) -> None:
    result = dbt_project.run("test", "--select", "test_type:unit")
    assert _outcomes(result) == dict.fromkeys(UNIT_TESTS, "pass")


@pytest.mark.stream("noop")
@pytest.mark.usefixtures("with_unit_tests")
def test_they_fail_when_the_rules_are_broken(
    dbt_project: DbtProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CDC_SCHEMA", dbt_project.schema)
    monkeypatch.setenv("CDC_LANDING_DIR", str(dbt_project.landing))
    package = tmp_path / "package"
    for name in PACKAGE_FILES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, package / name)
        else:
            package.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, package / name)
    for path, text, broken in MUTATIONS:
        file = package / path
        original = file.read_text()
        assert text in original, f"{path} no longer holds {text!r}: update the mutation"
        file.write_text(original.replace(text, broken))
    project = copy_project(tmp_path / "project", package=package)
    # its own target path: the stream's partial parse stays the stream's
    result = run_dbt(
        ["test", "--select", "test_type:unit"],
        project_dir=project,
        target_path=tmp_path / "target",
        expect_success=False,
    )
    outcomes = _outcomes(result)
    assert set(outcomes) == UNIT_TESTS
    failed = {name for name, status in outcomes.items() if status == "fail"}
    assert failed == FAILING, outcomes

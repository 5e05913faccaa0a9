"""The package boundary: what a user installs names none of the test rig's examples, and
imports none of its Python.

The package is the repository's root (dbt_project.yml, models/, macros/, python_udfs/ and
the user's commands in cdc_tools/); the consumer project (integration_tests/) and the test
rig (integration_tests/workbench/ with its server launchers, tests/) are not installed by anyone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

from cdc_tools.local_spark import REPO_ROOT
from workbench.consumer import CONSUMER_DIR

PRODUCT_PYTHON = ("cdc_tools", "python_udfs")
RIG_PACKAGES = ("workbench", "tests")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_product_module_imports_the_test_rig() -> None:
    found = {
        f"{path.relative_to(REPO_ROOT)}: {name}"
        for folder in PRODUCT_PYTHON
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        for name in _imports(path)
        if name.split(".")[0] in RIG_PACKAGES
    }
    assert not found, sorted(found)


def _example_models() -> set[str]:
    return {path.stem for path in (CONSUMER_DIR / "models").rglob("*.sql")}


def test_the_package_names_no_example_model() -> None:
    examples = _example_models()
    assert {"customers", "stg_inventory__customers", "shop_customers"} <= examples
    found = []
    for folder in ("macros", "models", "tests/dbt"):
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix in (".sql", ".yml", ".md") and path.is_file():
                text = path.read_text()
                found += [
                    f"{path.relative_to(REPO_ROOT)}: {name}"
                    for name in examples
                    if "_" in name and name in text  # `orders` is a word; `order_lines` a name
                ]
    assert not found, found


def test_the_consumer_installs_the_package_by_local_path() -> None:
    packages = yaml.safe_load((CONSUMER_DIR / "packages.yml").read_text())
    assert packages == {"packages": [{"local": "../"}]}
    package = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    consumer = yaml.safe_load((CONSUMER_DIR / "dbt_project.yml").read_text())
    assert consumer["name"] != package["name"] and consumer["profile"] == package["profile"]
    # every typed change log of the consumer is registered where cdc_quarantine reads it
    typed = {
        path.stem
        for path in (CONSUMER_DIR / "models").rglob("stg_*.sql")
        if "cdc_typed_change_log()" in path.read_text()
    }
    assert typed and set(consumer["vars"]["cdc_typed_change_logs"]) == typed

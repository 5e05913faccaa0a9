"""The package's vars: one defaults table (macros/utils/cdc_var.sql), every var read through
it, and docs/configuration.md's tables naming exactly its vars."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]


def _defaults() -> dict[str, object]:
    text = (REPO_ROOT / "macros/utils/cdc_var.sql").read_text()
    table = text.split("{%- set defaults -%}")[1].split("{%- endset -%}")[0]
    return yaml.safe_load(table)


def test_the_configuration_page_documents_exactly_the_vars_of_the_table() -> None:
    doc = (REPO_ROOT / "docs/configuration.md").read_text()
    section = doc.split("\n## Vars\n", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(cdc_[a-z0-9_]+)` \|", section, re.M))
    assert documented == set(_defaults())


def test_every_macro_and_model_reads_the_package_vars_through_the_table() -> None:
    """A `var(...)` call in SQL would carry a default of its own (a second table)."""
    direct = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for folder in ("macros", "models")
        for path in sorted((REPO_ROOT / folder).rglob("*.sql"))
        if path.name != "cdc_var.sql"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"(?<![A-Za-z_.])var\(", line)
    ]
    assert direct == []


def test_each_var_read_through_the_table_is_in_it() -> None:
    read = {
        name
        for folder in ("macros", "models")
        for path in (REPO_ROOT / folder).rglob("*.sql")
        for name in re.findall(r"cdc_var\('([a-z0-9_]+)'\)", path.read_text())
    }
    assert read and read <= set(_defaults()), read - set(_defaults())

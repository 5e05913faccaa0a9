"""Every macro under macros/ is documented in its folder's `_<folder>__macros.yml`.

The fast check (cdc_tools.macro_docs) reads the Jinja signatures with a regular expression
and compares them with the YAML: a macro without an entry, or whose documented argument
names differ from its signature (order included), fails `test_every_macro_is_documented`.
`dbt parse` (no Spark: parsing opens no connection) confirms that dbt sees the same macros,
applies every entry and, with `validate_macro_args` and its warnings made errors, agrees on
argument names, count and types.

Materializations are the one special case: dbt names the macro of
`{% materialization cdc_current_state, adapter='spark' %}` `materialization_cdc_current_state_spark`
and a YAML entry of that name patches it, but dbt gives it an internal `supported_languages`
argument; the YAML documents `arguments: []` (dbt calls it with the model in context).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from cdc_tools import macro_docs
from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT
from cdc_tools.macro_docs import MacroDoc, MacroSignature, find_problems, signatures_in_text

MACROS = REPO_ROOT / "macros"
WARNINGS_AS_ERRORS = json.dumps({"error": ["InvalidMacroAnnotation", "MacroNotFoundForPatch"]})
DBT_INTERNAL_ARGUMENTS = {"supported_languages"}


def _problems_text(problems: list[str]) -> str:
    return (
        "\n".join(problems)
        + "\n\nDocument them in the folder's _<folder>__macros.yml"
        + " (`python -m cdc_tools.macro_docs` prints stubs)."
    )


def test_every_macro_is_documented_with_its_signature() -> None:
    problems = macro_docs.check(MACROS)
    assert problems == [], _problems_text(problems)


# ------------------------------------------------------------- the check can fail
def test_signatures_are_named_as_dbt_names_them() -> None:
    text = """
    {% macro plain(a, b=none, c={'x': [1, 2]}, d='p, q') %}{% endmacro %}
    {%- macro no_args() -%}{%- endmacro -%}
    {% test cdc_thing(model, column_name) %}{% endtest %}
    {% materialization cdc_state, adapter='spark' %}{% endmaterialization %}
    {% materialization other, default %}{% endmaterialization %}
    """
    got = [(s.name, s.arguments) for s in signatures_in_text(text, Path("x.sql"))]
    assert got == [
        ("plain", ("a", "b", "c", "d")),
        ("no_args", ()),
        ("test_cdc_thing", ("model", "column_name")),
        ("materialization_cdc_state_spark", ()),
        ("materialization_other_default", ()),
    ]


_SIG = MacroSignature("m", ("a", "b"), Path("macros/utils/m.sql"))
_YML = Path("macros/utils/_utils__macros.yml")


def _doc(
    name: str = "m",
    arguments: tuple[str, ...] = ("a", "b"),
    path: Path = _YML,
    has_description: bool = True,
    undescribed: tuple[str, ...] = (),
) -> MacroDoc:
    return MacroDoc(name, arguments, path, has_description, undescribed)


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        ([], "m (macros/utils/m.sql): no entry in macros/utils/_utils__macros.yml"),
        ([_doc(arguments=("b", "a"))], "m: YAML arguments (b, a) differ from the signature"),
        ([_doc(arguments=("a",))], "m: YAML arguments (a) differ"),
        ([_doc(arguments=("a", "b", "c"))], "m: YAML arguments (a, b, c) differ"),
        ([_doc(arguments=("a", "bb"))], "m: YAML arguments (a, bb) differ"),
        ([_doc(path=Path("macros/x/_x__macros.yml"))], "m: documented in macros/x/_x__macros"),
        ([_doc(has_description=False)], "m: no description"),
        ([_doc(undescribed=("b",))], "m: arguments without type or description: b"),
        ([_doc(), _doc(name="gone")], "gone: documented in"),
        ([_doc(), _doc()], "m: documented twice"),
    ],
)
def test_find_problems_reports(docs: list[MacroDoc], expected: str) -> None:
    problems = find_problems([_SIG], docs)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_find_problems_accepts_an_exact_entry() -> None:
    assert find_problems([_SIG], [_doc()]) == []


def _edit_yaml(path: Path, name: str, edit: str) -> None:
    content = yaml.safe_load(path.read_text())
    entries = content["macros"]
    entry = next(e for e in entries if e["name"] == name)
    if edit == "drop":
        entries.remove(entry)
    else:
        entry["arguments"] = list(reversed(entry["arguments"]))
    path.write_text(yaml.safe_dump(content, sort_keys=False))


@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        ("_debezium_position", "drop", "_debezium_position ("),
        ("_debezium_position", "swap", "_debezium_position: YAML arguments (source, connector)"),
        ("test_cdc_unique_key", "drop", "test_cdc_unique_key ("),
        ("materialization_cdc_current_state_spark", "drop", "materialization_cdc_current_state"),
    ],
)
def test_check_fails_on_a_copy_with_a_broken_entry(
    tmp_path: Path, name: str, edit: str, expected: str
) -> None:
    copy = tmp_path / "macros"
    shutil.copytree(MACROS, copy)
    for yml in copy.rglob("_*__macros.yml"):
        if any(e["name"] == name for e in yaml.safe_load(yml.read_text())["macros"]):
            _edit_yaml(yml, name, edit)
    problems = macro_docs.check(copy)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_check_fails_on_a_new_undocumented_macro(tmp_path: Path) -> None:
    copy = tmp_path / "macros"
    shutil.copytree(MACROS, copy)
    (copy / "utils" / "cdc_new_helper.sql").write_text(
        "{% macro cdc_new_helper(expression, mode='x') %}{{ expression }}{% endmacro %}\n"
    )
    problems = macro_docs.check(copy)
    assert problems == [
        f"cdc_new_helper ({copy / 'utils' / 'cdc_new_helper.sql'}): no entry in "
        f"{copy / 'utils' / '_utils__macros.yml'} (arguments: expression, mode)"
    ]


# ------------------------------------------------------------------ dbt agrees
def _dbt_parse(project_dir: Path, target: Path):  # type: ignore[no-untyped-def]
    from dbt.cli.main import dbtRunner

    return dbtRunner().invoke(
        [
            "parse",
            "--project-dir",
            str(project_dir),
            "--profiles-dir",
            str(PROFILES_DIR),
            "--target-path",
            str(target),
            "--log-path",
            str(target / "logs"),
            "--no-partial-parse",
            "--warn-error-options",
            WARNINGS_AS_ERRORS,
        ]
    )


def _project_copy(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("dbt_project.yml",):
        shutil.copy(REPO_ROOT / name, project / name)
    for folder in ("models", "macros", "seeds", "tests/dbt", "docs/dbt"):
        if (REPO_ROOT / folder).is_dir():
            shutil.copytree(REPO_ROOT / folder, project / folder)
    return project


def test_dbt_parse_applies_every_entry(tmp_path: Path) -> None:
    result = _dbt_parse(REPO_ROOT, tmp_path / "target")
    assert result.success, result.exception
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    macros = {
        macro["name"]: macro
        for macro in manifest["macros"].values()
        if macro["package_name"] == "cdc_lakehouse"
    }
    signatures = {s.name: s for s in macro_docs.macro_signatures(MACROS)}
    assert sorted(macros) == sorted(signatures), "the regex and dbt disagree on the macros"
    for name, macro in macros.items():
        folder = signatures[name].path.parent
        assert macro["patch_path"] == (
            "cdc_lakehouse://" + str(macro_docs.yaml_path_for(folder).relative_to(REPO_ROOT))
        )
        assert macro["description"].strip(), name
        assert "{{" not in macro["description"], name
        jinja_arguments = [
            a["name"] for a in macro["arguments"] if a["name"] not in DBT_INTERNAL_ARGUMENTS
        ]
        assert tuple(jinja_arguments) == signatures[name].arguments, name
        for argument in macro["arguments"]:
            assert "{{" not in argument["description"], (name, argument["name"])


def test_dbt_parse_fails_on_a_misnamed_argument(tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    yml = project / "macros" / "utils" / "_utils__macros.yml"
    content = yaml.safe_load(yml.read_text())
    entry = next(e for e in content["macros"] if e["name"] == "_cdc_in_list")
    entry["arguments"][1]["name"] = "accepted_values"
    yml.write_text(yaml.safe_dump(content, sort_keys=False))
    result = _dbt_parse(project, tmp_path / "target")
    assert not result.success
    assert "accepted_values" in str(result.exception)

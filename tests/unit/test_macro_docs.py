"""Every public macro under macros/ is documented in its folder's `_<folder>__macros.yml`;
every other one opens with a comment.

The public set is decided by name (cdc_tools.macro_docs, its docstring): `_...` is private,
`<family>__<hook>` and `<adapter>__<macro>` implement an interface (the connector-family
interface of docs/dbt/connector_families.md, a dispatched public macro), every other macro
is public. The fast check reads the Jinja signatures with a regular expression and compares
them with the YAML: a public macro without an entry, or whose documented argument names
differ from its signature (order included), a private macro or implementation without a
leading comment (it may also have an entry, checked as a public one's), a family hook
whose arguments differ from the interface's, fail
`test_every_public_macro_is_documented_and_every_other_commented`.
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
import re
import shutil
from pathlib import Path

import pytest
import yaml

from cdc_tools import macro_docs
from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT
from cdc_tools.macro_docs import (
    MacroDoc,
    MacroSignature,
    family_interface,
    find_problems,
    signatures_in_text,
)

MACROS = REPO_ROOT / "macros"
WARNINGS_AS_ERRORS = json.dumps({"error": ["InvalidMacroAnnotation", "MacroNotFoundForPatch"]})
DBT_INTERNAL_ARGUMENTS = {"supported_languages"}


def _problems_text(problems: list[str]) -> str:
    return (
        "\n".join(problems)
        + "\n\nDocument a public macro in the folder's _<folder>__macros.yml"
        + " (`python -m cdc_tools.macro_docs` prints stubs), a private one (`_...`) or a"
        + " family hook by a leading `{#- What it does. -#}` comment."
    )


def test_every_public_macro_is_documented_and_every_other_commented() -> None:
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


def test_signatures_know_whether_the_body_opens_with_a_comment() -> None:
    text = """
    {% macro _a() %}
        {#- Does a. -#}
        a
    {% endmacro %}
    {% macro _b() -%}
      {#-
          Does b.
          At length.
      -#}
    {%- endmacro %}
    {% macro _c() %}c {#- Too late. -#}{% endmacro %}
    {% macro _d() %}{#-  -#}{% endmacro %}
    {% macro _e() %}
        {#- a first line that runs on
            into the next -#}
    {% endmacro %}
    """
    got = {s.name: s.has_leading_comment for s in signatures_in_text(text, Path("x.sql"))}
    assert got == {"_a": True, "_b": True, "_c": False, "_d": False, "_e": False}


def test_the_public_set_is_decided_by_name() -> None:
    assert macro_docs.is_public("cdc_typed_change_log")
    assert macro_docs.is_public("test_cdc_unique_key")
    assert not macro_docs.is_public("_cdc_let")
    assert not macro_docs.is_public("canal__detect")
    assert not macro_docs.is_public("default__cdc_decode_value")
    assert macro_docs.implemented_interface("spark__get_where_subquery") == (
        "spark",
        "get_where_subquery",
    )
    assert macro_docs.implemented_interface("_cdc_x__y") is None


_HOOKS = Path("macros/connectors/fam/fam__hooks.sql")
_INTERFACE = {"detect": ("message",), "key": ("message", "announced_key"), "extra": ("message",)}


def _sig(name: str, arguments: tuple[str, ...], path: Path = _HOOKS, commented: bool = True):  # type: ignore[no-untyped-def]
    return MacroSignature(name, arguments, path, commented)


_FAMILY = [
    _sig("fam__detect", ("message",)),
    _sig("fam__key", ("message", "announced_key")),
    _sig("cdc_family_default__extra", ("message",), Path("macros/connectors/hook.sql")),
]


@pytest.mark.parametrize(
    ("signatures", "docs", "expected"),
    [
        (
            [_sig("_m", ("a",), _SIG.path)],
            [_doc("_m", ("b",))],
            "_m: YAML arguments (b) differ from the signature (a)",
        ),
        (
            [_sig("_m", ("a",), _SIG.path, commented=False)],
            [_doc("_m", ("a",))],
            "_m (macros/utils/m.sql): private, its body does not open with a `{#-",
        ),
        (
            [_sig("_m", ("a",), _SIG.path, commented=False)],
            [],
            "_m (macros/utils/m.sql): private, its body does not open with a `{#-",
        ),
        (
            [*_FAMILY, _sig("fam__op", ("message",), commented=False)],
            [],
            "fam__op (macros/connectors/fam/fam__hooks.sql): an implementation, its body",
        ),
        ([*_FAMILY, _sig("fam__op", ("message",))], [], "fam__op (macros/connectors/fam/fam"),
        (
            [*_FAMILY[1:], _sig("fam__detect", ("msg",))],
            [],
            "fam__detect (macros/connectors/fam/fam__hooks.sql): arguments (msg) differ from"
            " the hook detect(message)",
        ),
        (_FAMILY[1:], [], "connector family fam: no hook detect"),
        (
            [*_FAMILY, _SIG],
            [_doc(), _doc("fam__key", ("message", "announced_key"), Path("macros/x/_x.yml"))],
            "fam__key: documented in macros/x/_x.yml, not in macros/connectors/fam/",
        ),
        (
            [_SIG, _sig("default__m", ("a",), _SIG.path)],
            [_doc()],
            "default__m (macros/utils/m.sql): arguments (a) differ from the macro it"
            " implements, m(a, b)",
        ),
    ],
)
def test_find_problems_reports_private_macros_and_implementations(
    signatures: list[MacroSignature], docs: list[MacroDoc], expected: str
) -> None:
    problems = find_problems(signatures, docs, _INTERFACE)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_find_problems_accepts_a_family_and_a_dispatch_implementation() -> None:
    signatures = [*_FAMILY, _SIG, _sig("default__m", ("a", "b"), _SIG.path)]
    assert find_problems(signatures, [_doc()], _INTERFACE) == []


def test_find_problems_accepts_an_entry_of_a_private_macro() -> None:
    signatures = [_SIG, _sig("_m", ("a",), _SIG.path)]
    assert find_problems(signatures, [_doc(), _doc("_m", ("a",))]) == []


def test_check_fails_when_comments_outgrow_their_share(tmp_path: Path) -> None:
    copy = tmp_path / "macros"
    copy.mkdir()
    (copy / "m.sql").write_text(
        "{% macro _m() %}\n    {#- What it does. -#}\n    select 1\n{% endmacro %}\n"
        + "-- a line\n" * 36
    )
    assert macro_docs.comment_problems(copy) == []
    (copy / "m.sql").write_text(
        "{% macro _m() %}\n    {#- What it does.\n    Why,\n    and how,\n    at length. -#}\n"
        "    select 1\n{% endmacro %}\n" + "-- a line\n" * 36
    )
    assert macro_docs.comment_problems(copy) == [
        f"{copy}: 4 of 43 lines (9%) are `{{# #}}` comments, more than 7%: say it in the"
        " folder's YAML entries or in docs/"
    ]


def test_the_interface_page_names_the_hooks_cdc_family_hook_knows() -> None:
    interface = family_interface((REPO_ROOT / macro_docs.INTERFACE_DOC).read_text())
    assert interface["key"] == ("message", "announced_key")
    assert interface["body_fields"] == ()
    hooks_sql = (MACROS / "connectors" / "cdc_family_hook.sql").read_text()
    listed = hooks_sql.split("macro _cdc_family_hooks()", 1)[1].split("]", 1)[0]
    assert sorted(interface) == sorted(re.findall(r"'(\w+)'", listed))


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
        ("cdc_source_matches", "drop", "cdc_source_matches ("),
        (
            "cdc_source_matches",
            "swap",
            "cdc_source_matches: YAML arguments (table_column, schema_column, db_column, contract)",
        ),
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


def test_check_fails_on_a_new_private_macro_without_a_comment(tmp_path: Path) -> None:
    copy = tmp_path / "macros"
    shutil.copytree(MACROS, copy)
    (copy / "utils" / "_cdc_new_helper.sql").write_text(
        "{% macro _cdc_new_helper(expression) %}{{ expression }}{% endmacro %}\n"
    )
    (copy / "utils" / "_cdc_other_helper.sql").write_text(
        "{% macro _cdc_other_helper(expression) %}\n"
        "    {#- The expression as it is. -#}\n"
        "    {{ expression }}\n"
        "{% endmacro %}\n"
    )
    problems = macro_docs.check(copy)
    assert problems == [
        f"_cdc_new_helper ({copy / 'utils' / '_cdc_new_helper.sql'}): private, its body does"
        " not open with a `{#- What it does. -#}` comment (a first line that ends with '.')"
    ]


def test_check_fails_on_a_copy_whose_family_breaks_the_interface(tmp_path: Path) -> None:
    copy = tmp_path / "macros"
    shutil.copytree(MACROS, copy)
    hooks = copy / "connectors" / "canal" / "canal__hooks.sql"
    hooks.write_text(
        hooks.read_text()
        .replace("{% macro canal__op(message) %}", "{% macro canal__op(msg) %}")
        .replace("{% macro canal__detect(", "{% macro _canal_detect(")
    )
    problems = macro_docs.check(copy)
    assert any(
        p.startswith("canal__op (") and "differ from the hook op(message)" in p for p in problems
    )
    assert "connector family canal: no hook detect" in problems


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
    public = [name for name in macros if macro_docs.is_public(name)]
    assert len(public) < len(macros) / 4, "the public set is meant to be small"
    documented = {doc.name for doc in macro_docs.macro_docs(MACROS)}
    for name, macro in macros.items():
        if not macro_docs.is_public(name) and name not in documented:
            # a private macro or an implementation without an entry (its comment says it)
            assert macro["patch_path"] is None, name
            continue
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
    # the family interface, documented once, is shown with cdc_family_hook
    assert "| `key(message, announced_key)` |" in macros["cdc_family_hook"]["description"]


def test_dbt_parse_fails_on_a_misnamed_argument(tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    yml = project / "macros" / "utils" / "_utils__macros.yml"
    content = yaml.safe_load(yml.read_text())
    entry = next(e for e in content["macros"] if e["name"] == "cdc_key_from_image")
    entry["arguments"][1]["name"] = "accepted_values"
    yml.write_text(yaml.safe_dump(content, sort_keys=False))
    result = _dbt_parse(project, tmp_path / "target")
    assert not result.success
    assert "accepted_values" in str(result.exception)

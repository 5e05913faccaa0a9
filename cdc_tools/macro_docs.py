"""Check the macro docs: YAML for the public macros, a leading comment for the others.

The public set, by name (the rule this check applies):

- **private**: a name starting with `_` (`_cdc_let`, `_debezium_position`): a helper of the
  package, free to change;
- **implementation**: a name `<prefix>__<name>` (not starting with `_`) that implements an
  interface documented elsewhere, either
    - a connector-family hook `<family>__<hook>`, defined under `macros/connectors/`, where
      `<hook>` is a hook of the family interface, documented once in
      docs/dbt/connector_families.md (the `cdc_family_interface` docs block, whose table
      names every hook with its arguments): the macro has exactly those arguments, and
      every family implements every hook that has no `cdc_family_default__<hook>`;
    - a dispatch implementation `<adapter>__<macro>` (`default__cdc_decode_value`,
      `spark__get_where_subquery`) of a public macro `<macro>`, with its arguments;
- **public**: every other macro: the materializations, the generic tests, and the macros a
  user's model, YAML or `dbt run-operation` calls (or a project overrides by dispatch).

A public macro of `macros/<...>/<folder>/` is documented in
`macros/<...>/<folder>/_<folder>__macros.yml`, one entry per macro (generic tests as
`test_<name>`, materializations as dbt names their macro:
`materialization_<name>_<adapter>`), with a description and the arguments of the Jinja
signature, same names, same order, each with a type and a description. A private macro or
an implementation opens its body with a Jinja comment (`{#- What it does. -#}`) whose first
line says what it does, a sentence of its own (it ends with a full stop); what more it needs
to say goes into an entry of the same YAML file (checked as a public macro's entry is).
Prose lives in YAML and in docs/, not in comments: `{# #}` lines are at most
MAX_COMMENT_SHARE of the lines under macros/ (the anchors: 4-7 %).

Signatures are read from the SQL files with a regular expression (fast, no dbt needed);
tests/unit/test_macro_docs.py also runs `dbt parse` to check that dbt finds the same macros.

    python -m cdc_tools.macro_docs          # list the problems, print YAML stubs, exit 1 if any
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
MACROS_DIR = REPO_ROOT / "macros"
INTERFACE_DOC = "docs/dbt/connector_families.md"
INTERFACE_BLOCK = "cdc_family_interface"
DEFAULT_FAMILY = "cdc_family_default"

_BLOCK = re.compile(
    r"\{%-?\s*(?P<kind>macro|test|data_test|materialization)\s+(?P<name>\w+)(?P<rest>.*?)-?%\}",
    re.DOTALL,
)
_ADAPTER = re.compile(r"adapter\s*=\s*['\"](\w+)['\"]")
_LEADING_COMMENT = re.compile(r"\s*\{#-?(?P<text>.*?)-?#\}", re.DOTALL)
_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
MAX_COMMENT_SHARE = 0.07
_HOOK_ROW = re.compile(r"^\|\s*`(?P<hook>\w+)\((?P<arguments>[^)]*)\)`\s*\|", re.MULTILINE)


@dataclass(frozen=True)
class MacroSignature:
    """One `{% macro %}` / `{% test %}` / `{% materialization %}` block as dbt names it."""

    name: str
    arguments: tuple[str, ...]
    path: Path
    has_leading_comment: bool = True


@dataclass(frozen=True)
class MacroDoc:
    """One entry of a `macros:` YAML list."""

    name: str
    arguments: tuple[str, ...]
    path: Path
    has_description: bool
    undescribed_arguments: tuple[str, ...]


def yaml_path_for(folder: Path) -> Path:
    """`<folder>/_<folder name>__macros.yml`: where the macros of `folder` are documented."""
    return folder / f"_{folder.name}__macros.yml"


def is_private(name: str) -> bool:
    return name.startswith("_")


def implemented_interface(name: str) -> tuple[str, str] | None:
    """(`<prefix>`, `<name>`) of an implementation `<prefix>__<name>`, else None."""
    if is_private(name) or "__" not in name:
        return None
    prefix, _, rest = name.partition("__")
    return (prefix, rest) if prefix and rest else None


def is_public(name: str) -> bool:
    return not is_private(name) and implemented_interface(name) is None


def split_arguments(text: str) -> list[str]:
    """Top-level comma-separated parts of an argument list (defaults may hold , ( [ ' ")."""
    parts: list[str] = []
    depth = 0
    quote = ""
    current: list[str] = []
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _argument_names(rest: str) -> tuple[str, ...]:
    rest = rest.strip()
    if not rest.startswith("("):
        return ()
    depth = 0
    for index, char in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            inner = rest[1:index]
            break
    else:
        raise ValueError(f"unbalanced argument list: {rest[:80]!r}")
    return tuple(part.split("=", 1)[0].strip() for part in split_arguments(inner))


def _has_leading_comment(body: str) -> bool:
    """Whether `body` (the text after a macro's opening tag) opens with a comment whose first
    line is a sentence of its own (a summary: it ends with a full stop)."""
    match = _LEADING_COMMENT.match(body)
    text = match.group("text").strip() if match else ""
    return bool(text) and text.splitlines()[0].rstrip().endswith(".")


def signatures_in_text(text: str, path: Path) -> list[MacroSignature]:
    """The macros a SQL file defines, named as in dbt's manifest, with their argument names."""
    signatures = []
    for match in _BLOCK.finditer(text):
        kind, name, rest = match.group("kind"), match.group("name"), match.group("rest")
        commented = _has_leading_comment(text[match.end() :])
        if kind == "materialization":
            # `{% materialization name, adapter='x' %}` or `{% materialization name, default %}`:
            # called by dbt with the model in context, no arguments.
            adapter = _ADAPTER.search(rest)
            signatures.append(
                MacroSignature(
                    f"materialization_{name}_{adapter.group(1) if adapter else 'default'}",
                    (),
                    path,
                    commented,
                )
            )
        elif kind in ("test", "data_test"):
            signatures.append(
                MacroSignature(f"test_{name}", _argument_names(rest), path, commented)
            )
        else:
            signatures.append(MacroSignature(name, _argument_names(rest), path, commented))
    return signatures


def macro_signatures(macros_dir: Path) -> list[MacroSignature]:
    return [
        signature
        for path in sorted(macros_dir.rglob("*.sql"))
        for signature in signatures_in_text(path.read_text(encoding="utf-8"), path)
    ]


def docs_in_yaml(path: Path) -> list[MacroDoc]:
    content = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    docs = []
    for entry in content.get("macros") or []:
        arguments = entry.get("arguments") or []
        docs.append(
            MacroDoc(
                name=str(entry.get("name")),
                arguments=tuple(str(argument.get("name")) for argument in arguments),
                path=path,
                has_description=bool(str(entry.get("description") or "").strip()),
                undescribed_arguments=tuple(
                    str(argument.get("name"))
                    for argument in arguments
                    if not str(argument.get("type") or "").strip()
                    or not str(argument.get("description") or "").strip()
                ),
            )
        )
    return docs


def macro_docs(macros_dir: Path) -> list[MacroDoc]:
    return [doc for path in sorted(macros_dir.rglob("*.yml")) for doc in docs_in_yaml(path)]


def family_interface(text: str) -> dict[str, tuple[str, ...]]:
    """{hook: argument names} of the `cdc_family_interface` docs block in `text`."""
    match = re.search(
        r"\{%\s*docs\s+" + INTERFACE_BLOCK + r"\s*%\}(?P<body>.*?)\{%\s*enddocs\s*%\}",
        text,
        re.DOTALL,
    )
    if match is None:
        return {}
    return {
        row.group("hook"): tuple(split_arguments(row.group("arguments")))
        for row in _HOOK_ROW.finditer(match.group("body"))
    }


def interface_path_for(macros_dir: Path) -> Path:
    """The interface page beside `macros_dir`, else the repository's (a copy of macros/)."""
    beside = macros_dir.parent / INTERFACE_DOC
    return beside if beside.is_file() else REPO_ROOT / INTERFACE_DOC


def _is_connector_macro(signature: MacroSignature) -> bool:
    return "connectors" in signature.path.parts


def _implementation_problems(
    signatures: list[MacroSignature], interface: Mapping[str, tuple[str, ...]]
) -> list[str]:
    problems: list[str] = []
    public = {s.name: s for s in signatures if is_public(s.name)}
    implemented: dict[str, set[str]] = {}
    for signature in signatures:
        parts = implemented_interface(signature.name)
        if parts is None:
            continue
        prefix, name = parts
        if _is_connector_macro(signature) and name in interface:
            implemented.setdefault(prefix, set()).add(name)
            if signature.arguments != interface[name]:
                problems.append(
                    f"{signature.name} ({signature.path}): arguments"
                    f" ({', '.join(signature.arguments) or 'none'}) differ from the hook"
                    f" {name}({', '.join(interface[name])}) of {INTERFACE_DOC}"
                )
        elif name in public:
            if signature.arguments != public[name].arguments:
                problems.append(
                    f"{signature.name} ({signature.path}): arguments"
                    f" ({', '.join(signature.arguments) or 'none'}) differ from the macro it"
                    f" implements, {name}({', '.join(public[name].arguments)})"
                )
        else:
            problems.append(
                f"{signature.name} ({signature.path}): `<prefix>__<name>` but neither a hook"
                f" of {INTERFACE_DOC} (under macros/connectors/) nor a dispatch implementation"
                " of a public macro: name it `_...` (private) or without `__` (public)"
            )
    optional = implemented.get(DEFAULT_FAMILY, set())
    for family, hooks in sorted(implemented.items()):
        if family == DEFAULT_FAMILY:
            continue
        missing = [hook for hook in interface if hook not in hooks and hook not in optional]
        if missing:
            problems.append(f"connector family {family}: no hook {', '.join(missing)}")
    return problems


def find_problems(
    signatures: Iterable[MacroSignature],
    docs: Iterable[MacroDoc],
    interface: Mapping[str, tuple[str, ...]] | None = None,
) -> list[str]:
    """Every way the macros and `docs` break the rule of the module docstring; empty when
    all is well. `interface`: {hook: arguments} of the family interface (None: not checked)."""
    signatures = list(signatures)
    problems: list[str] = []
    by_name: dict[str, MacroDoc] = {}
    for doc in docs:
        if doc.name in by_name:
            problems.append(f"{doc.name}: documented twice ({by_name[doc.name].path}, {doc.path})")
        by_name[doc.name] = doc
    defined = set()
    for signature in signatures:
        defined.add(signature.name)
        doc = by_name.get(signature.name)
        expected_yaml = yaml_path_for(signature.path.parent)
        if not is_public(signature.name):
            kind = "private" if is_private(signature.name) else "an implementation"
            if not signature.has_leading_comment:
                problems.append(
                    f"{signature.name} ({signature.path}): {kind}, its body does not open"
                    " with a `{#- What it does. -#}` comment (a first line that ends with '.')"
                )
            if doc is None:
                continue
        elif doc is None:
            problems.append(
                f"{signature.name} ({signature.path}): no entry in {expected_yaml}"
                f" (arguments: {', '.join(signature.arguments) or 'none'})"
            )
            continue
        if doc.path != expected_yaml:
            problems.append(f"{signature.name}: documented in {doc.path}, not in {expected_yaml}")
        if doc.arguments != signature.arguments:
            problems.append(
                f"{signature.name}: YAML arguments ({', '.join(doc.arguments) or 'none'}) differ"
                f" from the signature ({', '.join(signature.arguments) or 'none'})"
            )
        if not doc.has_description:
            problems.append(f"{signature.name}: no description")
        if doc.undescribed_arguments:
            problems.append(
                f"{signature.name}: arguments without type or description: "
                + ", ".join(doc.undescribed_arguments)
            )
    for name, doc in by_name.items():
        if name not in defined:
            problems.append(f"{name}: documented in {doc.path} but no such macro exists")
    if interface is not None:
        if not interface:
            problems.append(f"{INTERFACE_DOC}: no hook table in the docs block {INTERFACE_BLOCK}")
        problems += _implementation_problems(signatures, interface)
    return problems


def comment_lines(text: str) -> int:
    """How many lines of `text` hold a `{# #}` comment."""
    return sum(match.group(0).count("\n") + 1 for match in _COMMENT.finditer(text))


def comment_share(macros_dir: Path) -> tuple[int, int]:
    """(comment lines, lines) of the SQL files under `macros_dir`."""
    texts = [path.read_text(encoding="utf-8") for path in sorted(macros_dir.rglob("*.sql"))]
    return sum(map(comment_lines, texts)), sum(len(text.splitlines()) for text in texts)


def comment_problems(macros_dir: Path) -> list[str]:
    comments, lines = comment_share(macros_dir)
    if lines and comments > MAX_COMMENT_SHARE * lines:
        return [
            f"{macros_dir}: {comments} of {lines} lines ({comments / lines:.0%}) are `{{# #}}`"
            f" comments, more than {MAX_COMMENT_SHARE:.0%}: say it in the folder's YAML"
            " entries or in docs/"
        ]
    return []


def check(macros_dir: Path = MACROS_DIR) -> list[str]:
    interface_path = interface_path_for(macros_dir)
    interface = family_interface(
        interface_path.read_text(encoding="utf-8") if interface_path.is_file() else ""
    )
    return find_problems(
        macro_signatures(macros_dir), macro_docs(macros_dir), interface
    ) + comment_problems(macros_dir)


def yaml_stub(signature: MacroSignature) -> str:
    """A `macros:` entry to paste and complete."""
    lines = [f"  - name: {signature.name}", "    description: TODO"]
    if not signature.arguments:
        lines.append("    arguments: []")
    else:
        lines.append("    arguments:")
        for argument in signature.arguments:
            lines += [
                f"      - name: {argument}",
                "        type: string",
                "        description: TODO",
            ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    macros_dir = Path(argv[0]) if argv else MACROS_DIR
    signatures = macro_signatures(macros_dir)
    problems = check(macros_dir)
    for problem in problems:
        print(problem)
    documented = {doc.name for doc in macro_docs(macros_dir)}
    for signature in signatures:
        if is_public(signature.name) and signature.name not in documented:
            print(f"\n# {yaml_path_for(signature.path.parent)}\n{yaml_stub(signature)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Check that every macro under macros/ is documented in its folder's `macros:` YAML.

Style rule: the macros of `macros/<...>/<folder>/` are documented in
`macros/<...>/<folder>/_<folder>__macros.yml`, one entry per macro (public and `_` private
ones, generic tests as `test_<name>`, materializations as dbt names their macro:
`materialization_<name>_<adapter>`), with a description and the arguments of the Jinja
signature, same names, same order, each with a type and a description.

Signatures are read from the SQL files with a regular expression (fast, no dbt needed);
tests/unit/test_macro_docs.py also runs `dbt parse` to check that dbt finds the same macros.

    python -m cdc_tools.macro_docs          # list the problems, print YAML stubs, exit 1 if any
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
MACROS_DIR = REPO_ROOT / "macros"

_BLOCK = re.compile(
    r"\{%-?\s*(?P<kind>macro|test|data_test|materialization)\s+(?P<name>\w+)(?P<rest>.*?)-?%\}",
    re.DOTALL,
)
_ADAPTER = re.compile(r"adapter\s*=\s*['\"](\w+)['\"]")


@dataclass(frozen=True)
class MacroSignature:
    """One `{% macro %}` / `{% test %}` / `{% materialization %}` block as dbt names it."""

    name: str
    arguments: tuple[str, ...]
    path: Path


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


def signatures_in_text(text: str, path: Path) -> list[MacroSignature]:
    """The macros a SQL file defines, named as in dbt's manifest, with their argument names."""
    signatures = []
    for match in _BLOCK.finditer(text):
        kind, name, rest = match.group("kind"), match.group("name"), match.group("rest")
        if kind == "materialization":
            # `{% materialization name, adapter='x' %}` or `{% materialization name, default %}`:
            # called by dbt with the model in context, no arguments.
            adapter = _ADAPTER.search(rest)
            signatures.append(
                MacroSignature(
                    f"materialization_{name}_{adapter.group(1) if adapter else 'default'}",
                    (),
                    path,
                )
            )
        elif kind in ("test", "data_test"):
            signatures.append(MacroSignature(f"test_{name}", _argument_names(rest), path))
        else:
            signatures.append(MacroSignature(name, _argument_names(rest), path))
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


def find_problems(signatures: Iterable[MacroSignature], docs: Iterable[MacroDoc]) -> list[str]:
    """Every way `docs` fails to document `signatures` exactly; empty when all is well."""
    problems: list[str] = []
    by_name: dict[str, MacroDoc] = {}
    for doc in docs:
        if doc.name in by_name:
            problems.append(f"{doc.name}: documented twice ({by_name[doc.name].path}, {doc.path})")
        by_name[doc.name] = doc
    defined = set()
    for signature in signatures:
        defined.add(signature.name)
        expected_yaml = yaml_path_for(signature.path.parent)
        doc = by_name.get(signature.name)
        if doc is None:
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
    return problems


def check(macros_dir: Path = MACROS_DIR) -> list[str]:
    return find_problems(macro_signatures(macros_dir), macro_docs(macros_dir))


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
    problems = find_problems(signatures, macro_docs(macros_dir))
    for problem in problems:
        print(problem)
    documented = {doc.name for doc in macro_docs(macros_dir)}
    for signature in signatures:
        if signature.name not in documented:
            print(f"\n# {yaml_path_for(signature.path.parent)}\n{yaml_stub(signature)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

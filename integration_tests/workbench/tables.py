"""Tables for reports (the benchmark, the Spark profile): markdown and aligned plain text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "PASS" if value else "FAIL"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table; floats with one decimal, numbers with thousands separators, None
    as ``-``, booleans as PASS/FAIL."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_fmt(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """The same cells as a plain-text table with aligned columns."""
    cells = [list(headers)] + [[_fmt(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    out = []
    for index, row in enumerate(cells):
        out.append(
            "  ".join(
                cell.rjust(w) if index and column else cell.ljust(w)
                for column, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if index == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)

"""Every reason code a message can be quarantined with is explained in cdc_reason_codes
(the quarantine summary joins it for the meaning and the remedy)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_REASON = r"'([a-z][a-z0-9]*(?:_[a-z0-9]+)+): (?!(?:string|array|struct|map|int|bigint|boolean)\b)"


def _explained() -> set[str]:
    sql = (ROOT / "models" / "silver" / "cdc_reason_codes.sql").read_text()
    return set(re.findall(r"\(\s*'([a-z0-9_]+)',\s*'[a-z_]+',", sql))


def test_every_document_fold_reason_is_explained() -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "python_udfs").glob("*.py"))
    raised = set(re.findall(r'MongoDocumentError\(\s*"([a-z_]+)"', source))
    raised |= set(re.findall(r'"(malformed_changes|internal_error)', source))
    assert raised, "the fold raises no reason code: this test lost its teeth"
    assert raised - _explained() == set()


def test_every_reason_the_models_write_is_explained() -> None:
    written: set[str] = set()
    for folder in ("models", "macros"):
        for path in (ROOT / folder).rglob("*.sql"):
            # `'<code>: <explanation>'` literals; `'name: type'` DDL fields are not reasons
            written |= set(re.findall(_REASON, path.read_text()))
    assert {"missing_after", "partial_document", "unknown_op"} <= written
    assert written - _explained() == set()

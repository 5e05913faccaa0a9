"""Every corpus fixture has its own test, whose id is the fixture's name.

The corpus README's summary lists the fixtures (15 entries, 17 files or folders); the
corpus folder holds them. Each must be the parameter id of a test in the corpus modules
(collected, not run, by pytest), so a failure names its fixture; a fixture the pipeline
cannot read (all or part) is declared in its module's EXPECTED_QUARANTINE with a reason
code the pipeline knows and the reason, never left out silently.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.corpus import (
    test_alibaba_corpus,
    test_debezium_relational_corpus,
    test_mongodb_corpus,
)

REPO = Path(__file__).resolve().parents[2]
MODULES = (test_alibaba_corpus, test_debezium_relational_corpus, test_mongodb_corpus)
SUMMARY_ENTRIES = 15


def _readme_fixtures(corpus: Path) -> list[list[str]]:
    """The fixture names of each row of the README's summary table (`| 8 | `a` + `b` |`)."""
    entries = []
    summary = (corpus / "README.md").read_text().split("## Summary", 1)[1].split("\n## ", 1)[0]
    for line in summary.splitlines():
        row = re.match(r"\| (\d+) \| (.*?) \|", line)
        if not row:
            continue
        names: list[str] = []
        for name in re.findall(r"`([^`]+)`", row.group(2)):
            if name.startswith("_") and names:  # `a.1` (+ `_b.1`): a suffix of the previous
                name = names[-1].rsplit(".", 1)[0] + name
            names.append(name.rstrip("/"))
        entries.append(names)
    return entries


def _corpus_entries(corpus: Path) -> set[str]:
    return {
        path.name
        for path in corpus.iterdir()
        if path.name != "README.md"
        and not path.name.endswith((".expected.json", ".checkpoints.json"))
    }


def _collected_ids() -> set[str]:
    """The parameter ids of the corpus modules' tests, as pytest collects them."""
    files = [str(Path(module.__file__).relative_to(REPO)) for module in MODULES]  # type: ignore[arg-type]
    # PYTEST_ADDOPTS of the run that calls this (`-v`, say) would change the listing's form
    env = {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(re.findall(r"^tests/corpus/\S+::\w+\[(.+)\]$", collected, re.MULTILINE))


def test_every_corpus_fixture_has_a_test_named_after_it(corpus_dir: Path) -> None:
    entries = _readme_fixtures(corpus_dir)
    assert len(entries) == SUMMARY_ENTRIES, entries
    listed = {name for names in entries for name in names}
    on_disk = _corpus_entries(corpus_dir)
    assert listed == on_disk, f"README only: {listed - on_disk}; folder only: {on_disk - listed}"
    tested = _collected_ids()
    quarantined = {f for module in MODULES for f in module.EXPECTED_QUARANTINE}
    missing = on_disk - tested - quarantined
    assert not missing, f"corpus fixtures with no test of their own: {sorted(missing)}"
    for fixture in on_disk:
        assert (
            corpus_dir / f"{fixture.removesuffix('.txt').removesuffix('.jsonl')}.expected.json"
        ).is_file(), fixture


def test_expected_quarantines_are_declared_with_a_known_reason(corpus_dir: Path) -> None:
    codes = (REPO / "models" / "silver" / "cdc_reason_codes.sql").read_text()
    on_disk = _corpus_entries(corpus_dir)
    for module in MODULES:
        for fixture, (code, why) in module.EXPECTED_QUARANTINE.items():
            assert fixture in on_disk, fixture
            assert f"'{code}'" in codes, f"{fixture}: unknown reason code {code}"
            assert why.strip(), f"{fixture}: no reason given"

"""Check that YAML files parse (`make lint`, the pre-commit hook `check-yaml`).

    python -m cdc_tools.check_yaml [FILE ...]

With no files, every `*.yml` / `*.yaml` of the repository outside ignored folders
(`.venv`, `target`, `logs`, `dbt_packages`, `.spark`, `.cluster`, `landing`, `results`).
Prints one line per file that does not parse, with the position, and exits 1 if any.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from cdc_tools.local_spark import REPO_ROOT

SKIPPED_DIRS = frozenset(
    {".venv", ".git", "target", "logs", "dbt_packages", ".spark", ".cluster", "landing", "results"}
)


def yaml_files(root: Path = REPO_ROOT) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if any(part in SKIPPED_DIRS or part.startswith(".pytest") for part in parts[:-1]):
            continue
        if path.suffix in (".yml", ".yaml") and path.is_file():
            found.append(path)
    return found


def problems(paths: Iterable[Path]) -> list[str]:
    found = []
    for path in paths:
        try:
            list(yaml.safe_load_all(Path(path).read_text()))
        except (OSError, yaml.YAMLError) as error:
            found.append(f"{path}: {' '.join(str(error).split())}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    paths = [Path(a) for a in args] if args else yaml_files()
    found = problems(paths)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

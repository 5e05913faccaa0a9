"""Write the bytecode (`.pyc`) of what a `dbt` invocation imports, once per venv.

`make venv` installs without byte-compiling (`pip install --no-compile`: 21 s saved) and
counts on Python to write each module's `.pyc` the first time it imports it. Where
`PYTHONDONTWRITEBYTECODE` is set (this machine's environment, many container images) Python
never writes them, so every `dbt` invocation compiled about 1,300 modules again from source:
1.4 to 2.9 s of CPU in each (decision 0021). Python still reads a `.pyc` that exists under that
variable, so `python -m workbench.speedups.bytecode` (the Makefile's venv step, once per
install) writes them: it imports `START_MODULES` with bytecode writing on, then compiles
the packages of dbt that a run imports later, as it needs them (`PACKAGES`).
"""

from __future__ import annotations

import compileall
import importlib
import importlib.util
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

# what `dbt build` on the `local` target imports: dbt's start, its tasks, dbt-spark, the
# session (PySpark's py4j converters import pyspark.testing.utils, hence pandas and pyarrow),
# and the package's UDFs; the `connect` target's client (gRPC)
START_MODULES: tuple[str, ...] = (
    "dbt.cli.main",
    "dbt.task.build",
    "dbt.task.docs.generate",
    "dbt.adapters.spark.impl",
    "dbt.adapters.spark.session",
    "pyspark.sql.session",
    "pyspark.testing.utils",
    "pyspark.sql.connect.session",
    "cdc_tools.landing_udfs",
    "cdc_tools.dbt_invoke",
)
# compiled whole: the modules of these a run imports on the way (tasks, parsers, events)
PACKAGES: tuple[str, ...] = ("dbt", "dbt_common", "dbt_adapters", "dbt_semantic_interfaces")


def stale(files: Iterable[Path]) -> list[Path]:
    """Those of `files` without an up-to-date `.pyc` beside them (in `__pycache__`)."""
    out = []
    for path in files:
        cached = Path(importlib.util.cache_from_source(str(path)))
        if not cached.exists() or cached.stat().st_mtime < path.stat().st_mtime:
            out.append(path)
    return out


def write(modules: Sequence[str] = START_MODULES, packages: Sequence[str] = PACKAGES) -> int:
    """Import `modules` and compile `packages` with bytecode writing on; the number of
    modules loaded. A module that fails to import is skipped (an optional dependency)."""
    was = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - bytecode only saves time
                print(f"bytecode: {name} not imported: {exc!r}", file=sys.stderr)
        for name in packages:
            spec = importlib.util.find_spec(name)
            for folder in (spec.submodule_search_locations or []) if spec is not None else []:
                compileall.compile_dir(folder, quiet=1, workers=0)
    finally:
        sys.dont_write_bytecode = was
    return len(sys.modules)


def main() -> int:
    started = time.monotonic()
    loaded = write()
    print(f"bytecode: {loaded} modules loaded and compiled in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

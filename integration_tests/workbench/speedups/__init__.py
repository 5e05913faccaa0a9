"""Local speed-ups of the driver JVM, added to every local Spark session of this repository.

`install()` installs the tooling's session hook (`cdc_tools.session_hook`) and adds
`prepare` to it: the local file system that sets file modes without a `chmod` process
(`local_filesystem`, when its jar is built), then the class-data-sharing archive that
`make setup` writes (`jvm_class_archive`, when there is one), in this order: the archive
is named by the class path, which the jar is on. `make venv` writes the `.pth` line
(`cdc_tools.session_hook.pth_line`) that calls `install()` in every Python process of the venv.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def prepare(options: dict[str, Any]) -> None:
    """Edit a session builder's options before the process's JVM starts."""
    import pyspark

    from workbench.speedups import jvm_class_archive, local_filesystem

    local_filesystem.use(options)
    jvm_class_archive.use_archive(options, pyspark.__version__)


def install() -> None:
    """The package's session hook, with `prepare` as a JVM preparer."""
    from cdc_tools import session_hook

    session_hook.install()
    session_hook.add_jvm_preparer(prepare)


def main() -> int:
    """`python -m workbench.speedups`: write the venv's `.pth` file for this repository: the
    session hook of its tooling (`cdc_tools.session_hook`) and the speed-ups."""
    from cdc_tools import session_hook

    root = Path(__file__).resolve().parents[3]
    path = session_hook.install_pth(
        root, hook="workbench.speedups", extra_paths=[root / "integration_tests"]
    )
    print(f"wrote {path}: sessions of this Python register the UDFs and speed-ups of {root}")
    return 0

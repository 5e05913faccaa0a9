"""Python UDFs of the project, registered on a Spark session by `register`.

This package is imported at interpreter start when the venv's `.pth` installs the session
hook (`python_udfs.session_hook`), so it imports neither Spark nor pandas at module level.
"""

from __future__ import annotations

from typing import Any

__all__ = ["register"]


def register(spark: Any) -> None:
    """Register the SQL functions `cdc_mongodb_key`, `cdc_mongodb_normalise` and
    `cdc_mongodb_fold` as temporary functions of `spark`; calling it again is harmless."""
    from python_udfs.spark_udfs import register_udfs

    register_udfs(spark)

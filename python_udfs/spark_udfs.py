"""Spark UDFs of the project: vectorised (pandas) ones over `python_udfs.mongodb_sql`, and the
Java ones of bronze's landing listing (`cdc_tools/jvm/CdcLandingFiles.java`); imported by
`register`."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf

from python_udfs.mongodb_sql import (
    KeyOrError,
    fold_json,
    key_or_error,
    normalise_or_error,
)

KEY_TYPE = "struct<key: string, error: string>"
NORMALISE_TYPE = "struct<doc: string, error: string>"
LANDING_FILES_TYPE = "array<struct<path: string, modificationtime: timestamp, length: bigint>>"
FILE_CONTENT_TYPE = "struct<content: binary, error: string>"


def _pairs_frame(pairs: list[KeyOrError], names: tuple[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            names[0]: pd.Series([pair[0] for pair in pairs], dtype=object),
            names[1]: pd.Series([pair[1] for pair in pairs], dtype=object),
        }
    )


def mongodb_key(ids: pd.Series) -> pd.DataFrame:
    return _pairs_frame([key_or_error(value) for value in ids.tolist()], ("key", "error"))


def mongodb_normalise(docs: pd.Series) -> pd.DataFrame:
    return _pairs_frame([normalise_or_error(value) for value in docs.tolist()], ("doc", "error"))


def mongodb_fold(base_docs: pd.Series, base_partials: pd.Series, changes: pd.Series) -> pd.Series:
    rows = zip(base_docs.tolist(), base_partials.tolist(), changes.tolist(), strict=True)
    return pd.Series([fold_json(*row) for row in rows], dtype=object)


PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


def _add_package_to_worker_path(spark: SparkSession) -> None:
    """Let this session's Python workers import `python_udfs` from this checkout.

    Workers import the UDFs' module by name; in local mode they run on this machine, so
    the checkout's root on their PYTHONPATH is enough (cluster executors need the package
    shipped or installed: see python_udfs/README.md). Best effort: Spark Connect sessions
    have no SparkContext.
    """
    try:
        environment = spark.sparkContext.environment
    except Exception:  # noqa: BLE001
        return
    paths = [path for path in environment.get("PYTHONPATH", "").split(os.pathsep) if path]
    if PACKAGE_ROOT not in paths:
        environment["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *paths])


# The Java UDFs of the landing files Spark's listing skips, listed and read through Hadoop's
# FileSystem API (every scheme Spark reads): SQL name -> (class, return type). The class is in
# `<jars>/cdc-landing-files-*.jar`, compiled by `make setup` and passed by the profiles.
LANDING_CLASS = "cdc.landing.CdcLandingFiles"
LANDING_UDFS: dict[str, tuple[str, str]] = {
    "cdc_landing_unlisted_files": (f"{LANDING_CLASS}$UnlistedFiles", LANDING_FILES_TYPE),
    "cdc_landing_file_content": (f"{LANDING_CLASS}$FileContent", FILE_CONTENT_TYPE),
}


def register_landing_udfs(spark: SparkSession) -> bool:
    """Register the landing listing's Java UDFs; False (nothing registered) when the session
    lacks their jar (no JDK at set-up, a Spark started without it): bronze then reads what
    Spark's listing gives (docs/landing.md, "Files Spark hides")."""
    try:
        for name, (class_name, return_type) in LANDING_UDFS.items():
            spark.udf.registerJavaFunction(name, class_name, return_type)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - the class is not on this session's class path
        return False
    return True


def register_udfs(spark: SparkSession) -> None:
    """Register (or re-register: the last one wins) the SQL functions on `spark`: the three
    MongoDB ones and the two of the landing files Spark's listing skips
    (`cdc_landing_unlisted_files`, `cdc_landing_file_content`: register_landing_udfs)."""
    _add_package_to_worker_path(spark)
    spark.udf.register("cdc_mongodb_key", pandas_udf(mongodb_key, KEY_TYPE))  # type: ignore[call-overload]
    spark.udf.register("cdc_mongodb_normalise", pandas_udf(mongodb_normalise, NORMALISE_TYPE))  # type: ignore[call-overload]
    spark.udf.register("cdc_mongodb_fold", pandas_udf(mongodb_fold, "string"))  # type: ignore[call-overload]
    register_landing_udfs(spark)

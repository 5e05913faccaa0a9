"""Vectorised (pandas) Spark UDFs over `python_udfs.mongodb_sql`; imported by `register`."""

from __future__ import annotations

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


def register_udfs(spark: SparkSession) -> None:
    """Register (or re-register: the last one wins) the three SQL functions on `spark`."""
    spark.udf.register("cdc_mongodb_key", pandas_udf(mongodb_key, KEY_TYPE))  # type: ignore[call-overload]
    spark.udf.register("cdc_mongodb_normalise", pandas_udf(mongodb_normalise, NORMALISE_TYPE))  # type: ignore[call-overload]
    spark.udf.register("cdc_mongodb_fold", pandas_udf(mongodb_fold, "string"))  # type: ignore[call-overload]

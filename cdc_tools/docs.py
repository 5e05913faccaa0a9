"""`make docs`: `dbt docs generate`, saying plainly when there is nothing built to type.

dbt's catalog (column types) is read from the warehouse: before the first build there are
no tables, so the catalog would be empty. On the `local` target this checks the bronze table
first; when it is missing it prints what to run and writes the docs with an empty catalog
(`--empty-catalog`: descriptions, lineage and tests, no types). dbt runs in this process,
on the same Spark session.

    python -m cdc_tools.docs [--target-path DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cdc_tools.dbt_invoke import run_dbt

BRONZE_TABLE = "bronze_cdc_messages"
NOT_BUILT = (
    "Nothing is built under schema prefix '{prefix}' yet ({relation} does not exist), so "
    "the catalog has no column types to show.\n"
    "Run `make demo` (simulated sources) or `dbt build` (your landing files) first, then "
    "`make docs` again. Writing the docs without types now."
)


def bronze_relation(schema_prefix: str) -> str:
    return f"{schema_prefix}_bronze.{BRONZE_TABLE}"


def is_built(spark, schema_prefix: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(spark.catalog.tableExists(bronze_relation(schema_prefix)))


def generate_args(built: bool) -> list[str]:
    return ["docs", "generate"] if built else ["docs", "generate", "--empty-catalog"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.docs", description=__doc__)
    parser.add_argument("--target-path", type=Path, default=None, help="dbt's target folder")
    args = parser.parse_args(argv)
    prefix = os.environ.get("CDC_SCHEMA", "cdc")
    built = True
    if os.environ.get("DBT_TARGET", "local") == "local":
        from cdc_tools.local_spark import get_local_spark

        built = is_built(get_local_spark(), prefix)
        if not built:
            print(NOT_BUILT.format(prefix=prefix, relation=bronze_relation(prefix)), flush=True)
    result = run_dbt(generate_args(built), target_path=args.target_path, expect_success=False)
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())

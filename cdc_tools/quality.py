"""Great Expectations data-quality reports for every bronze, silver and gold model.

The suites are derived from the dbt manifest (`cdc_tools.quality_suites`: contract types,
contract meta, CDC metadata invariants; checks a dbt data test already runs are left out),
so a table added with the scaffolder gets its suite with no edit here. `run_quality`
validates each table's Spark DataFrame with an ephemeral GX context, builds Data Docs into
a filesystem folder and returns a `QualityReport`; a table that does not exist is reported as
a failure. Conditional checks use GX row conditions (`Column(...)` objects, the GX 1.9+
replacement for string row conditions), which the Spark execution engine turns into a filter.
A check can depend on a column being present: gold tables with a soft-delete flag keep their
deleted rows, so only their live rows are held to ops c, u, r.

    python -m cdc_tools.quality [--schema PREFIX] [--docs-dir DIR] [--manifest PATH]

prints a summary, every failure with a sample of offending rows and the Data Docs index, and
exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import great_expectations as gx
from great_expectations.data_context.types.base import (
    DataContextConfig,
    InMemoryStoreBackendDefaults,
    ProgressBarsConfig,
)
from great_expectations.expectations.row_conditions import (
    Condition,
)

from cdc_tools.local_spark import project_dir
from cdc_tools.quality_suites import (
    Check,
    TableSuite,
    load_manifest,
    suites_from_manifest,
)

if TYPE_CHECKING:
    from great_expectations.core import ExpectationSuiteValidationResult
    from great_expectations.core.expectation_validation_result import (
        ExpectationValidationResult,
    )
    from great_expectations.data_context import AbstractDataContext
    from great_expectations.datasource.fluent import SparkDatasource
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_TARGET = project_dir() / "target"
DEFAULT_DOCS_DIR = DEFAULT_TARGET / "gx_data_docs"
DOCS_SITE = "cdc_quality"
SAMPLE_SIZE = 5
TABLE_MISSING = "table does not exist"
# How many unexpected rows GX returns per expectation; the sample is the first distinct ones.
PARTIAL_UNEXPECTED_COUNT = 20


def manifest_path(target_path: Path | None = None) -> Path:
    return Path(target_path or DEFAULT_TARGET) / "manifest.json"


def load_suites(
    manifest: Path | None = None, *, parse: bool = True, refresh: bool = False
) -> tuple[TableSuite, ...]:
    """The suites of every model of the dbt manifest (`target/manifest.json`). `dbt parse`
    (in this process) writes it first when `refresh` is true, or when it is missing and
    `parse` is true."""
    path = Path(manifest) if manifest is not None else manifest_path()
    if refresh or not path.is_file():
        if not (parse or refresh):
            raise FileNotFoundError(f"{path}: run `dbt parse` (or any dbt command) first")
        from cdc_tools.dbt_invoke import run_dbt

        run_dbt(["parse"], target_path=path.parent)
    return suites_from_manifest(load_manifest(path))


# --- the report ------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectationOutcome:
    """The result of one expectation on one table."""

    relation: str
    expectation: str
    columns: tuple[str, ...]
    condition: str | None
    success: bool
    element_count: int | None = None
    unexpected_count: int | None = None
    sample: tuple[Mapping[str, Any], ...] = ()
    error: str | None = None

    def describe(self) -> str:
        text = f"{self.expectation}({', '.join(self.columns)})"
        return f"{text} where {self.condition}" if self.condition else text

    def message(self) -> str:
        head = f"{self.relation}: {self.describe()}"
        if self.error:
            return f"{head} could not run: {self.error}"
        counts = ""
        if self.unexpected_count is not None:
            counts = f": {self.unexpected_count} of {self.element_count} rows unexpected"
        sample = "; ".join(_format_row(row) for row in self.sample) or "none returned"
        return f"{head} failed{counts}; sample (up to {SAMPLE_SIZE}): {sample}"


@dataclass(frozen=True)
class TableReport:
    """Every expectation outcome of one table, or why the table could not be validated."""

    relation: str
    expected: int
    outcomes: tuple[ExpectationOutcome, ...] = ()
    error: str | None = None

    @property
    def passed(self) -> int:
        return sum(outcome.success for outcome in self.outcomes)

    @property
    def failed(self) -> int:
        return self.expected - self.passed

    @property
    def success(self) -> bool:
        return self.error is None and self.failed == 0

    def failures(self) -> list[str]:
        if self.error:
            return [f"{self.relation}: {self.error} ({self.expected} expectations not run)"]
        return [outcome.message() for outcome in self.outcomes if not outcome.success]


@dataclass(frozen=True)
class QualityReport:
    """The outcome of `run_quality`: one `TableReport` per suite and the Data Docs index."""

    schema_prefix: str
    tables: tuple[TableReport, ...]
    docs_index: Path | None = None
    docs_errors: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return all(table.success for table in self.tables)

    def table(self, relation: str) -> TableReport:
        return next(t for t in self.tables if relation in (t.relation, t.relation.split(".")[1]))

    def failures(self) -> list[str]:
        """A message per failed expectation (or missing table), with offending rows."""
        return [message for table in self.tables for message in table.failures()]

    def summary(self) -> str:
        rows = [("table", "expectations", "passed", "failed", "status")]
        for t in self.tables:
            status = "ok" if t.success else "FAILED"
            if t.error:
                status = "missing" if t.error == TABLE_MISSING else "unreadable"
            rows.append((t.relation, str(t.expected), str(t.passed), str(t.failed), status))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
        ]
        return "\n".join(line.rstrip() for line in lines)


def _format_row(row: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{key}={value!r}" for key, value in row.items()) + "}"


# --- validation --------------------------------------------------------------------------


def _context(docs_dir: Path) -> AbstractDataContext:
    """An in-memory GX context whose only Data Docs site is the folder `docs_dir`."""
    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
        data_docs_sites={
            DOCS_SITE: {
                "class_name": "SiteBuilder",
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(docs_dir),
                },
            }
        },
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _read_table(spark: SparkSession, relation: str) -> tuple[DataFrame | None, str | None]:
    """The table's DataFrame, or why it cannot be read."""
    from pyspark.errors import AnalysisException

    if not spark.catalog.tableExists(relation):
        return None, TABLE_MISSING
    try:
        return spark.table(relation), None
    except AnalysisException as error:
        return None, f"table cannot be read: {error}"


def _condition_text(condition: Condition | None) -> str | None:
    if condition is None:
        return None
    text = repr(condition)
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _columns(kwargs: Mapping[str, Any]) -> tuple[str, ...]:
    if "column" in kwargs:
        return (str(kwargs["column"]),)
    return tuple(str(column) for column in kwargs.get("column_list", ()))


def _error_message(result: ExpectationValidationResult) -> str | None:
    """The exception message GX caught, in either of the shapes it reports them."""
    info = result.exception_info or {}
    if info.get("raised_exception"):
        return str(info.get("exception_message"))
    nested = [v for v in info.values() if isinstance(v, dict) and v.get("raised_exception")]
    return str(nested[0].get("exception_message")) if nested else None


def _sample(result: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """Up to SAMPLE_SIZE distinct offending rows (or values) from a GX result."""
    rows = result.get("partial_unexpected_index_list")
    if rows is None:
        rows = [{"value": value} for value in result.get("partial_unexpected_list") or []]
    sample: list[Mapping[str, Any]] = []
    for row in rows:
        if row not in sample:
            sample.append(row)
        if len(sample) == SAMPLE_SIZE:
            break
    return tuple(sample)


def _outcome(
    relation: str, check: Check, success: bool, result: ExpectationValidationResult
) -> ExpectationOutcome:
    details: Mapping[str, Any] = result.result or {}
    error = _error_message(result)
    return ExpectationOutcome(
        relation=relation,
        expectation=result.expectation_config.type,
        columns=_columns(check.kwargs),
        condition=_condition_text(check.when),
        success=success and error is None,
        element_count=details.get("element_count"),
        unexpected_count=details.get("unexpected_count"),
        sample=() if success else _sample(details),
        error=error,
    )


def _run_checks(
    context: AbstractDataContext,
    datasource: SparkDatasource,
    name: str,
    checks: Sequence[Check],
    dataframe: DataFrame,
    result_format: Mapping[str, Any],
) -> list[ExpectationValidationResult]:
    """Validate `dataframe` with `checks` as GX suite `name`; results in the checks' order."""
    gx_suite = context.suites.add(gx.ExpectationSuite(name=name))
    ids = [str(gx_suite.add_expectation(check.build()).id) for check in checks]
    batch = datasource.add_dataframe_asset(name=name).add_batch_definition_whole_dataframe(
        "whole_table"
    )
    validation = context.validation_definitions.add(
        gx.ValidationDefinition(name=name, data=batch, suite=gx_suite)
    )
    results: ExpectationSuiteValidationResult = validation.run(
        batch_parameters={"dataframe": dataframe}, result_format=dict(result_format)
    )
    by_id = {str(result.expectation_config.id): result for result in results.results}
    return [by_id[expectation_id] for expectation_id in ids]


def _stand_in_names(
    dataframe: DataFrame, checks: Sequence[Check], row_id: Sequence[str]
) -> tuple[DataFrame, list[Check], list[str]]:
    """The table, checks and row-id columns with every column name GX cannot take as it is
    replaced by a stand-in (`__cdc_column_<n>`). GX reads a column through Spark's column
    parser, to which `a.b` is field `b` of a struct and a backtick a quote; a source may
    name its columns so (a document field `a.b`). Outcomes keep the real names."""
    renamed = {
        name: f"__cdc_column_{i}"
        for i, name in enumerate(dataframe.columns)
        if "." in name or "`" in name
    }
    if not renamed:
        return dataframe, list(checks), list(row_id)
    frame = dataframe.toDF(*[renamed.get(name, name) for name in dataframe.columns])
    stand_in_checks = []
    for check in checks:
        kwargs = dict(check.kwargs)
        if "column" in kwargs:
            kwargs["column"] = renamed.get(str(kwargs["column"]), kwargs["column"])
        if "column_list" in kwargs:
            kwargs["column_list"] = [renamed.get(str(c), c) for c in kwargs["column_list"]]
        stand_in_checks.append(replace(check, kwargs=kwargs))
    return frame, stand_in_checks, [renamed.get(name, name) for name in row_id]


def _validate_table(
    context: AbstractDataContext,
    datasource: SparkDatasource,
    suite: TableSuite,
    relation: str,
    dataframe: DataFrame,
) -> TableReport:
    """Validate one table in two passes.

    Pass one asks GX for pass/fail only (BOOLEAN_ONLY: a few Spark jobs per table). Pass two
    re-runs just the failed expectations, as suite `<relation>__failed`, with SUMMARY results
    and the suite's row-id columns, for the counts and the offending rows. SUMMARY for every
    expectation costs about five Spark jobs each, most of them for passing expectations.
    """
    checks = suite.checks_for(dataframe.columns)
    row_id = [column for column in suite.row_id if column in dataframe.columns]
    dataframe, run_checks, row_id = _stand_in_names(dataframe, checks, row_id)
    first = _run_checks(
        context, datasource, relation, run_checks, dataframe, {"result_format": "BOOLEAN_ONLY"}
    )
    failed = [i for i, r in enumerate(first) if not r.success and _error_message(r) is None]
    details: dict[int, ExpectationValidationResult] = {}
    if failed:
        result_format: dict[str, Any] = {
            "result_format": "SUMMARY",
            "partial_unexpected_count": PARTIAL_UNEXPECTED_COUNT,
        }
        if row_id:
            result_format["unexpected_index_column_names"] = row_id
        second = _run_checks(
            context,
            datasource,
            f"{relation}__failed",
            [run_checks[i] for i in failed],
            dataframe,
            result_format,
        )
        details = dict(zip(failed, second, strict=True))
    outcomes = tuple(
        _outcome(relation, check, bool(result.success), details.get(i, result))
        for i, (check, result) in enumerate(zip(checks, first, strict=True))
    )
    return TableReport(relation=relation, expected=len(checks), outcomes=outcomes)


def _build_docs(
    context: AbstractDataContext, docs_dir: Path
) -> tuple[Path | None, tuple[str, ...]]:
    try:
        context.build_data_docs(site_names=[DOCS_SITE])
    except Exception as error:  # docs are a by-product: report, don't fail
        return None, (f"Data Docs could not be built: {error}",)
    index = docs_dir / "index.html"
    return (index if index.is_file() else None), ()


def run_quality(
    spark: SparkSession,
    schema_prefix: str | None = None,
    docs_dir: Path | None = None,
    suites: Sequence[TableSuite] | None = None,
) -> QualityReport:
    """Validate every suite's table under `schema_prefix` and build Data Docs in `docs_dir`.

    `schema_prefix` defaults to env CDC_SCHEMA or `cdc` (databases `<prefix>_bronze`, ...);
    `docs_dir` to `<project>/target/gx_data_docs`; `suites` to those of every model in
    `<project>/target/manifest.json` (`load_suites`).
    """
    if suites is None:
        suites = load_suites()
    prefix = schema_prefix or os.environ.get("CDC_SCHEMA") or "cdc"
    docs = Path(docs_dir or DEFAULT_DOCS_DIR).resolve()
    context = _context(docs)
    datasource = context.data_sources.add_spark(name="spark", persist=False)
    reports = []
    for suite in suites:
        relation = suite.relation(prefix)
        dataframe, problem = _read_table(spark, relation)
        if dataframe is None:
            reports.append(
                TableReport(relation=relation, expected=len(suite.checks_for(())), error=problem)
            )
        else:
            reports.append(_validate_table(context, datasource, suite, relation, dataframe))
    index, docs_errors = _build_docs(context, docs)
    return QualityReport(
        schema_prefix=prefix, tables=tuple(reports), docs_index=index, docs_errors=docs_errors
    )


# --- command line ------------------------------------------------------------------------


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m cdc_tools.quality",
        description="Validate bronze, silver and gold with Great Expectations.",
    )
    parser.add_argument(
        "--schema",
        default=os.environ.get("CDC_SCHEMA", "cdc"),
        help="schema prefix of the <prefix>_bronze/_silver/_gold databases (env CDC_SCHEMA)",
    )
    parser.add_argument(
        "--docs-dir", type=Path, default=DEFAULT_DOCS_DIR, help="Data Docs output folder"
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        default=None,
        help="dbt manifest the suites are derived from (default: target/manifest.json, "
        "written first by `dbt parse`, so that it holds every model of the project)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    from cdc_tools.local_spark import get_local_spark

    suites = load_suites(args.manifest, refresh=args.manifest is None)
    report = run_quality(get_local_spark(), args.schema, args.docs_dir, suites)
    print(report.summary())
    failures = report.failures()
    if failures:
        print(f"\n{len(failures)} failure(s):")
        for message in failures:
            print(f"- {message}")
    for problem in report.docs_errors:
        print(problem)
    print(f"\nData Docs: {report.docs_index or 'not built'}")
    return 0 if report.success else 1


if __name__ == "__main__":
    sys.exit(main())

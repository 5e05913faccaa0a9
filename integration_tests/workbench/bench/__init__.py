"""`make bench`: how fast the pipeline turns N change events into gold, and at what memory.

One scenario (``--events N``):

1. simulate N Debezium change events (Oracle, SQL Server, Db2; with and without the schema
   wrapper; value-line and ``kcat -J`` files) into a landing folder under the results
   folder, holding back the last ``--increment-fraction`` of every source for step (b);
2. measure, each as a subprocess with its own Spark home, wall time and the peak resident
   memory of its process tree (Python + the Spark JVM, sampled from /proc):
   (a) ``dbt build`` from an empty warehouse, (b) ``dbt build`` after the held-back files
   land, (c) ``dbt build`` with no new files (the fixed cost of one invocation), (d) the
   floor under (c): ``dbt build`` of a one-model project on the same profile
   (FLOOR_PROJECT), and (e) the anchors (:mod:`workbench.bench.anchors`): a hand-written
   PySpark job that keeps the latest row per key of the same files (:func:`baseline_job`)
   and DuckDB running the same rules, full; then the same increment applied by hand to
   the state each wrote (PySpark on parquet and on Delta, DuckDB), and a check that every
   anchor holds the same rows;
3. print the table, every format beside the anchors with the ratios of issue 74's targets
   (:mod:`workbench.bench.anchor_table`, :mod:`workbench.bench.targets`) and dbt's
   per-model times, and write them as ``bench.json`` and ``bench.md`` in the results
   folder.

``--scaling 100000,300000`` adds scenarios of other sizes (full, incremental and no-op;
a larger size's increment has the size of the main scenario's, so that the incremental row
shows how an increment's cost follows the size of what is already loaded; a smaller size
gets its own ``--increment-fraction``).

``--formats parquet,delta`` (the default; ``iceberg`` too) runs each size's full,
incremental and no-op steps once per gold file format, each on its profile target
(``DBT_TARGET``, ``CDC_GOLD_FILE_FORMAT``) in a workspace of its own; the floor, the anchors
and the large file run on the first format only. The formats are printed side by side at
the end, with issue 60's decision rule (:mod:`workbench.bench.formats`).

Nothing here holds a Spark session while dbt runs: the embedded Derby metastore admits one
process at a time, and each measured run is a separate process, as a user's run would be.
"""

from __future__ import annotations

from cdc_tools.local_spark import REPO_ROOT
from workbench.bench.anchor_table import anchor_section, render_anchor_section
from workbench.bench.baseline import (
    BASELINE_ENVELOPE_SCHEMA,
    BASELINE_KCAT_SCHEMA,
    BASELINE_POSITION_SQL,
    baseline_changes,
    baseline_job,
    baseline_key_sql,
    baseline_main,
    baseline_spark,
    current_rows,
    incremental_delta_job,
    incremental_parquet_job,
    prepare_states,
)
from workbench.bench.cli import (
    main,
    missing_format_jars,
    parse_args,
)
from workbench.bench.formats import (
    DEFAULT_FORMATS,
    GOLD_FORMAT_TARGETS,
    comparison_rows,
    decide,
    parse_formats,
    render_formats,
)
from workbench.bench.generation import (
    GenerationStats,
    add_increment,
    generate,
    generate_source,
)
from workbench.bench.planning import (
    SourcePlan,
    landing_format,
    parse_counts,
    plan_sources,
    scaling_increment,
    split_events,
    split_weighted,
)
from workbench.bench.project import (
    PROJECT_PATHS,
    project_info,
    snapshot_project,
)
from workbench.bench.rendering import (
    NODE_HEADERS,
    RESULT_HEADERS,
    SCALING_HEADERS,
    TARGET_HEADERS,
    format_ratio,
    render_markdown,
    render_text,
    write_report,
)
from workbench.bench.sampling import (
    ProcessRun,
    log_tail,
    run_measured,
)
from workbench.bench.scenario import (
    Scenario,
    run_scenario,
    run_scenarios,
)
from workbench.bench.settings import (
    ANCHOR_STEPS,
    BASELINE_RESULT_TAG,
    DEFAULT_BATCH_EVENTS,
    DEFAULT_EVENTS,
    DEFAULT_FLAVOURS,
    DEFAULT_INCREMENT_FRACTION,
    DEFAULT_RESULTS_DIR,
    FLOOR_PROJECT,
    FULL_OVER_BASELINE_TARGET,
    INCREMENTAL_SHARE_TARGET,
    INITIAL_ROW_WEIGHTS,
    MESSAGES_PER_TRANSACTION,
    SAMPLE_INTERVAL_S,
    SNAPSHOT_SHARE,
    STEPS,
    BenchError,
)
from workbench.bench.steps import (
    StepResult,
    Workspace,
    dbt_executable,
    run_anchor_step,
    run_baseline_step,
    run_dbt_step,
    spark_env,
    write_floor_project,
    write_spark_profile,
)
from workbench.bench.summary import (
    build_report,
    check_targets,
    compute_ratios,
    format_section,
    incremental_growth,
    machine_info,
    scaling_row,
)
from workbench.bench.timings import (
    NodeTiming,
    node_timings,
    setup_seconds,
    timing_summary,
)

__all__ = [
    "ANCHOR_STEPS",
    "anchor_section",
    "render_anchor_section",
    "baseline_changes",
    "current_rows",
    "incremental_delta_job",
    "incremental_parquet_job",
    "prepare_states",
    "run_anchor_step",
    "format_section",
    "run_scenarios",
    "scaling_increment",
    "missing_format_jars",
    "render_formats",
    "parse_formats",
    "decide",
    "comparison_rows",
    "GOLD_FORMAT_TARGETS",
    "DEFAULT_FORMATS",
    "BASELINE_ENVELOPE_SCHEMA",
    "BASELINE_KCAT_SCHEMA",
    "BASELINE_POSITION_SQL",
    "BASELINE_RESULT_TAG",
    "BenchError",
    "DEFAULT_BATCH_EVENTS",
    "DEFAULT_EVENTS",
    "DEFAULT_FLAVOURS",
    "DEFAULT_INCREMENT_FRACTION",
    "DEFAULT_RESULTS_DIR",
    "FLOOR_PROJECT",
    "FULL_OVER_BASELINE_TARGET",
    "GenerationStats",
    "INCREMENTAL_SHARE_TARGET",
    "INITIAL_ROW_WEIGHTS",
    "MESSAGES_PER_TRANSACTION",
    "NODE_HEADERS",
    "NodeTiming",
    "PROJECT_PATHS",
    "ProcessRun",
    "REPO_ROOT",
    "RESULT_HEADERS",
    "SAMPLE_INTERVAL_S",
    "SCALING_HEADERS",
    "SNAPSHOT_SHARE",
    "STEPS",
    "Scenario",
    "SourcePlan",
    "StepResult",
    "TARGET_HEADERS",
    "Workspace",
    "add_increment",
    "baseline_job",
    "baseline_key_sql",
    "baseline_main",
    "baseline_spark",
    "build_report",
    "check_targets",
    "compute_ratios",
    "dbt_executable",
    "format_ratio",
    "generate",
    "generate_source",
    "incremental_growth",
    "landing_format",
    "log_tail",
    "machine_info",
    "main",
    "node_timings",
    "parse_args",
    "parse_counts",
    "plan_sources",
    "project_info",
    "render_markdown",
    "render_text",
    "run_baseline_step",
    "run_dbt_step",
    "run_measured",
    "run_scenario",
    "scaling_row",
    "setup_seconds",
    "snapshot_project",
    "spark_env",
    "split_events",
    "split_weighted",
    "timing_summary",
    "write_floor_project",
    "write_report",
    "write_spark_profile",
]

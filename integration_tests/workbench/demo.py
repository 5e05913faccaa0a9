"""`make demo`: simulate three source databases, run the pipeline twice, show and check gold.

With CDC_LANDING_DIR set, the demo runs the pipeline on those files instead and only shows
what landed (there is no oracle for a user's own files).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import REPO_ROOT, get_local_spark, query_rows, remote_url
from workbench.consumer import CONSUMER_DIR, link_package
from workbench.oracle_check import GoldReader, compare_database
from workbench.progress import Progress
from workbench.run_history_check import run_history_differences
from workbench.simulator import SimConfig, simulate, write_batch

DEMO_SOURCES: tuple[tuple[str, bool, str], ...] = (
    # (flavour, schema wrapper, landing format)
    ("oracle", False, "value_lines"),
    ("sqlserver", True, "kcat"),
    ("db2", True, "value_lines"),
)


def _schema(layer: str) -> str:
    return f"{os.environ.get('CDC_SCHEMA', 'cdc')}_{layer}"


def show_gold(spark) -> None:  # type: ignore[no-untyped-def]
    gold = _schema("gold")
    print("\n== gold row counts by source table ==")
    spark.sql(
        f"select _cdc_source_id, count(*) as rows from {gold}.captured_rows "
        "group by _cdc_source_id order by _cdc_source_id"
    ).show(50, truncate=False)
    for table in ("customers", "orders"):
        print(f"== a few rows of {gold}.{table} ==")
        spark.sql(f"select * from {gold}.{table} order by _cdc_source_db limit 5").drop(
            "_cdc_sort_key", "_cdc_key"
        ).show(truncate=24)


def show_quarantine(spark) -> None:  # type: ignore[no-untyped-def]
    silver = _schema("silver")
    print("== messages by kind ==")
    spark.sql(
        f"select _cdc_message_kind, _cdc_connector, count(*) as messages "
        f"from {silver}.stg_cdc__messages group by 1, 2 order by 1, 2"
    ).show(truncate=False)
    print("== quarantine summary, by load (cdc_quarantine_summary) ==")
    summary = spark.sql(
        f"select _loaded_at, reason_code, source_name, messages, remedy "
        f"from {silver}.cdc_quarantine_summary order by _loaded_at, messages desc"
    )
    if summary.count() == 0:
        print("nothing quarantined")
    else:
        summary.show(50, truncate=60)


def demo_configs() -> list[SimConfig]:
    """The simulated source databases of the demo (deterministic, seeded)."""
    return [
        SimConfig(
            seed=index + 1,
            flavour=flavour,
            database=f"DEMO_{flavour.upper()}",
            server=f"demo_{flavour}",
            schemas_enable=wrapped,
            batches=2,
        )
        for index, (flavour, wrapped, _) in enumerate(DEMO_SOURCES)
    ]


def replayed_sources(configs: Sequence[SimConfig]) -> list[str]:
    """The var `cdc_replayed_sources` of the demo's builds: every topic of its simulated
    sources, whose event times are in the past by design (docs/operations.md,
    "Quiet sources and replays")."""
    return [pattern for config in configs for pattern in config.sync_sources]


def warnings_of(result) -> list[str]:  # type: ignore[no-untyped-def]
    """The nodes of a dbt invocation that ended in a warning, with dbt's message."""
    return [
        f"{r.node.name}: {r.message}"
        for r in getattr(result.result, "results", None) or []
        if str(getattr(r.status, "value", r.status)) == "warn"
    ]


class DemoSchemaInUse(RuntimeError):
    """The demo's bronze table holds messages of landing files that are not the demo's."""


def forget_earlier_demo(spark, landing: Path) -> bool:  # type: ignore[no-untyped-def]
    """Drop what bronze holds of an earlier demo: the demo writes its landing folder anew,
    so the messages bronze kept of the files it replaces (bronze survives a full refresh,
    and a rewritten file is loaded again) would be replayed beside the new ones, and a
    simulator changed since (an upgrade) would leave gold holding the old rows. Refuses,
    touching nothing, when bronze also holds files of another landing folder: those are a
    user's, and the demo then needs a schema of its own (`CDC_SCHEMA`). Returns whether a
    table was dropped."""
    relation = f"{_schema('bronze')}.bronze_cdc_messages"
    if not spark.catalog.tableExists(relation):
        return False
    folder = f"{landing.resolve()}/".replace("'", "\\'")
    [row] = spark.sql(
        f"select count(*) as others from {relation} where instr(_source_file, '{folder}') = 0"
    ).collect()
    if row["others"]:
        raise DemoSchemaInUse(
            f"{relation} holds {row['others']} messages of files outside {landing}: the demo "
            "rewrites its landing and starts bronze again, so it needs a schema of its own, "
            "e.g. CDC_SCHEMA=demo make demo"
        )
    spark.sql(f"drop table {relation}")
    return True


def _engine() -> str:
    url = remote_url()
    return f"a client of the Spark Connect server {url}" if url else "local session"


def run_simulated(landing: Path) -> int:
    progress = Progress("demo")
    with progress.step(f"simulating {len(DEMO_SOURCES)} source databases"):
        results = [simulate(config) for config in demo_configs()]
    with progress.step(f"starting Spark ({_engine()}, shared with dbt)"):
        spark = get_local_spark()
    try:
        if forget_earlier_demo(spark, landing):
            progress.say("dropped bronze's messages of the previous demo run (its landing is new)")
    except DemoSchemaInUse as error:
        progress.say(str(error))
        return 1
    if landing.exists():
        shutil.rmtree(landing)
    failures = 0
    for batch in range(2):
        with progress.step(f"batch {batch}: writing landing files"):
            for result, (_, _, fmt) in zip(results, DEMO_SOURCES, strict=True):
                write_batch(result.batches[batch], landing / result.config.database, batch, fmt)
        kind = "full refresh" if batch == 0 else "incremental"
        with progress.step(f"batch {batch}: dbt build ({kind}; dbt prints each model and test)"):
            # the unit tests check the models' logic, not the data: the first build runs them
            again = ["--exclude-resource-type", "unit_test"] if batch else []
            built = run_dbt(
                ["build", *(["--full-refresh"] if batch == 0 else []), *again],
                vars={"cdc_replayed_sources": replayed_sources([r.config for r in results])},
                project_dir=CONSUMER_DIR,
            )
        # the demo's own data warns of nothing: a warning here is a regression
        for warning in warnings_of(built):
            print(f"batch {batch}: dbt build warned: {warning}")
            failures += 1
        with progress.step(f"batch {batch}: checking gold against the simulated sources"):
            reader = GoldReader(spark)
            for result in results:
                outcome = compare_database(
                    spark,
                    _schema("gold"),
                    result.config.database,
                    result.expected[batch],
                    result=result,
                    batch=batch,
                    databases=[r.config.database for r in results],
                    reader=reader,
                )
                verdict = "matches" if outcome.ok else "DIFFERS FROM"
                print(
                    f"gold for {result.config.database} {verdict} the source database "
                    f"{outcome.rows}"
                )
                for difference in outcome.differences:
                    print(f"  {difference}")
                failures += not outcome.ok
        with progress.step(f"batch {batch}: checking cdc_run_history against bronze"):
            differences = run_history_differences(
                query_rows(spark), _schema("bronze"), _schema("silver")
            )
            print(
                "cdc_run_history "
                + ("DIFFERS FROM" if differences else "matches")
                + " what bronze and the quarantine hold"
            )
            for difference in differences:
                print(f"  {difference}")
            failures += bool(differences)
    show_gold(spark)
    show_quarantine(spark)
    progress.say("finished" + (f": {failures} check(s) failed" if failures else ""))
    return 1 if failures else 0


def run_user_files(landing: Path) -> int:
    progress = Progress("demo")
    progress.say(f"running the pipeline on the files under {landing}")
    with progress.step(f"starting Spark ({_engine()}, shared with dbt)"):
        spark = get_local_spark()
    with progress.step("dbt build (dbt prints each model and test)"):
        run_dbt(["build"], project_dir=CONSUMER_DIR)
    show_gold(spark)
    show_quarantine(spark)
    return 0


def main() -> int:
    from cdc_tools.session_hook import ConnectServerUnreachable

    link_package(CONSUMER_DIR)  # what `dbt deps` installs for the consumer project
    user_dir = os.environ.get("CDC_LANDING_DIR")
    try:
        if user_dir:
            return run_user_files(Path(user_dir).resolve())
        landing = REPO_ROOT / "landing" / "demo"
        os.environ["CDC_LANDING_DIR"] = str(landing)
        return run_simulated(landing)
    except ConnectServerUnreachable as error:  # DBT_TARGET=connect, no server: say so
        print(f"demo: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

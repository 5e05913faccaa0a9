"""Command line: `python -m workbench.bench`."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from workbench.bench.baseline import baseline_main
from workbench.bench.formats import (
    DEFAULT_FORMATS,
    GOLD_FORMAT_TARGETS,
    missing_format_jars,
    parse_formats,
)
from workbench.bench.planning import parse_counts, scaling_increment
from workbench.bench.project import project_info
from workbench.bench.rendering import render_text, write_report
from workbench.bench.scenario import Scenario, run_large_file_scenario, run_scenarios
from workbench.bench.settings import (
    DEFAULT_BATCH_EVENTS,
    DEFAULT_EVENTS,
    DEFAULT_FLAVOURS,
    DEFAULT_INCREMENT_FRACTION,
    DEFAULT_LARGE_FILE_MB,
    DEFAULT_RESULTS_DIR,
)
from workbench.bench.steps import StepResult
from workbench.bench.summary import build_report
from workbench.bench.warm_engine import WARM_FORMAT


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    from workbench import bench

    parser = argparse.ArgumentParser(prog="python -m workbench.bench", description=bench.__doc__)
    parser.add_argument("--events", type=lambda s: parse_counts(s)[0], default=DEFAULT_EVENTS)
    parser.add_argument("--increment-fraction", type=float, default=DEFAULT_INCREMENT_FRACTION)
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS_DIR)
    parser.add_argument("--flavours", default=",".join(DEFAULT_FLAVOURS))
    parser.add_argument(
        "--scaling",
        type=parse_counts,
        default=[],
        help="other event counts to run (full, incremental, no-op), e.g. 100000,300000",
    )
    parser.add_argument("--batch-events", type=int, default=DEFAULT_BATCH_EVENTS)
    parser.add_argument(
        "--large-file-mb",
        type=int,
        default=DEFAULT_LARGE_FILE_MB,
        help="after the other scenarios, a full build of one landing file of about this "
        "many MB on the default driver memory (its wall time and peak RSS); 0: none",
    )
    parser.add_argument(
        "--project-rev",
        help="measure this git revision of the dbt project (default: the working tree)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep landing files and warehouses after the run"
    )
    parser.add_argument(
        "--event-logs",
        action="store_true",
        help="Spark event logs of the dbt runs, profiled per node (workbench.spark_profile)",
    )
    parser.add_argument(
        "--thrift-port",
        type=int,
        help="run the dbt steps on the `thrift` target, against a long-lived Spark Thrift "
        "Server on 127.0.0.1 at this port (`make spark-server-up`), each scenario in schemas "
        "of its own; the floor too. Without it: the `local` profile, a Spark home per step",
    )
    parser.add_argument(
        "--formats",
        help="gold file formats to run side by side, each on its profile target "
        f"({', '.join(f'{f}: {t}' for f, t in GOLD_FORMAT_TARGETS.items())}); the first one "
        "also runs the floor, the anchors and the large file "
        f"(default: {','.join(DEFAULT_FORMATS)}; with --thrift-port: parquet)",
    )
    # one anchor in this process (workbench.bench.anchors), as the bench runs each
    parser.add_argument("--anchor", help=argparse.SUPPRESS)
    parser.add_argument("--workspace", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--without-delta", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--landing", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--baseline-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0 < args.increment_fraction < 1:
        parser.error("--increment-fraction must be within (0, 1)")
    if args.baseline_only and (args.landing is None or args.baseline_out is None):
        parser.error("--baseline-only needs --landing and --baseline-out")
    if args.anchor and args.workspace is None:
        parser.error("--anchor needs --workspace")
    default = "parquet" if args.thrift_port is not None else ",".join(DEFAULT_FORMATS)
    try:
        args.formats = parse_formats(args.formats or default)
    except ValueError as error:
        parser.error(f"--formats: {error}")
    return args


@contextlib.contextmanager
def warm_server(formats: Sequence[str], results_dir: Path) -> Iterator[None]:
    """With the `connect` column: one Spark Connect server (`workbench.servers.connect_server`, the
    `local` target's settings) for the whole run, in a Spark home under the results folder,
    started before the timed steps and stopped after them; its URL and a schema prefix of
    this run go to every measured subprocess (steps.spark_env)."""
    if WARM_FORMAT not in formats:
        yield
        return
    from workbench.servers import connect_server

    home = results_dir / "connect-home"
    shutil.rmtree(home, ignore_errors=True)
    saved = {key: os.environ.get(key) for key in ("CDC_SPARK_HOME", "CDC_SPARK_REMOTE")}
    os.environ["CDC_SPARK_HOME"] = str(home)
    print("  starting the Spark Connect server (not timed) ...", flush=True)
    try:
        state = connect_server.up(port=0, home=home)
    finally:
        _restore(saved, "CDC_SPARK_HOME")
    print(f"  Spark Connect server on {state.url}", flush=True)
    os.environ["CDC_SPARK_REMOTE"] = state.url
    os.environ.setdefault("CDC_BENCH_SCHEMA", f"bench{int(time.time())}")
    try:
        yield
    finally:
        connect_server.down(home)
        _restore(saved, "CDC_SPARK_REMOTE")


def _restore(saved: dict[str, str | None], key: str) -> None:
    if saved[key] is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = str(saved[key])


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline_only:
        return baseline_main(args.landing, args.baseline_out)
    if args.anchor:
        from workbench.bench.anchors import anchor_main

        return anchor_main(args.anchor, args.workspace, delta=not args.without_delta)
    from workbench.simulator import FLAVOURS

    flavours = [f.strip() for f in args.flavours.split(",") if f.strip()]
    unknown = sorted(set(flavours) - set(FLAVOURS))
    if unknown:
        raise SystemExit(f"unknown flavours {unknown}; known: {', '.join(FLAVOURS)}")
    if args.thrift_port is not None:
        if args.event_logs:
            raise SystemExit("--event-logs reads a local session's logs: not with --thrift-port")
        # every measured subprocess inherits these (steps.spark_env); new schemas per run,
        # so that the full step starts from an empty warehouse on a server that persists
        os.environ.update(
            {
                "DBT_TARGET": "thrift",
                "CDC_THRIFT_HOST": "127.0.0.1",
                "CDC_THRIFT_PORT": str(args.thrift_port),
                "CDC_BENCH_SCHEMA": f"bench{int(time.time())}",
            }
        )
    formats: list[str] = args.formats
    if args.thrift_port is None:
        from cdc_tools.spark_jars import jars_dir

        missing = missing_format_jars(formats, jars_dir())
        if missing:
            raise SystemExit(
                f"no jars for {', '.join(missing)} in {jars_dir()}: run `make setup` "
                "(or --formats parquet)"
            )
    results_dir: Path = args.results_dir.resolve()
    increment_events = round(args.events * args.increment_fraction)
    config = {
        "events": args.events,
        "increment_fraction": args.increment_fraction,
        "increment_events": increment_events,
        "flavours": flavours,
        "batch_events": args.batch_events,
        "scaling": args.scaling,
        "large_file_mb": args.large_file_mb,
        "command": " ".join(["python -m workbench.bench", *(argv or sys.argv[1:])]),
        "target": "thrift" if args.thrift_port is not None else GOLD_FORMAT_TARGETS[formats[0]],
        "formats": formats,
        "project": project_info(args.project_rev),
    }
    common = {
        "flavours": flavours,
        "results_dir": results_dir,
        "keep": args.keep,
        "event_logs": args.event_logs,
        "batch_events": args.batch_events,
        "project_rev": args.project_rev,
    }
    by_format: dict[str, list[Scenario]] = {fmt: [] for fmt in formats}

    def add(scenarios: list[Scenario]) -> None:
        for scenario in scenarios:
            by_format[scenario.gold_format].append(scenario)

    def report_now(large_file: StepResult | None = None) -> dict[str, Any]:
        first = by_format[formats[0]]
        scaling = first if args.scaling else []
        return build_report(first[0], scaling, config, large_file, by_format)

    with warm_server(formats, results_dir):
        runs = {"formats": formats, **common}
        add(run_scenarios(args.events, increment_events, with_floor=True, **runs))
        report = report_now()
        write_report(report, results_dir)
        for events in sorted(set(args.scaling) - {args.events}):
            increment = scaling_increment(
                events, args.events, increment_events, args.increment_fraction
            )
            add(run_scenarios(events, increment, with_floor=False, **runs))
            report = report_now()
            write_report(report, results_dir)
    if args.large_file_mb > 0:
        generation = by_format[formats[0]][0].generation
        large_file = run_large_file_scenario(
            args.large_file_mb,
            generation.bytes / max(1, generation.events),
            flavours=flavours,
            results_dir=results_dir,
            keep=args.keep,
            project_rev=args.project_rev,
            gold_format=formats[0],
        )
        report = report_now(large_file)
    print()
    print(render_text(report))
    json_path, md_path = write_report(report, results_dir)
    print(f"\nwritten: {json_path} and {md_path}")
    different = [
        s.events for s in by_format[formats[0]] if s.anchor_check and not s.anchor_check["equal"]
    ]
    if different:
        sizes = ", ".join(f"{events:,}" for events in different)
        print(f"\nThe anchors' rows differ at {sizes} events (see above): the run fails.")
        return 1
    return 0

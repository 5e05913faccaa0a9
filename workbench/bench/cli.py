"""Command line: `python -m workbench.bench`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from workbench.bench.baseline import baseline_main
from workbench.bench.planning import parse_counts
from workbench.bench.project import project_info
from workbench.bench.rendering import render_text, write_report
from workbench.bench.scenario import run_large_file_scenario, run_scenario
from workbench.bench.settings import (
    DEFAULT_BATCH_EVENTS,
    DEFAULT_EVENTS,
    DEFAULT_FLAVOURS,
    DEFAULT_INCREMENT_FRACTION,
    DEFAULT_LARGE_FILE_MB,
    DEFAULT_RESULTS_DIR,
)
from workbench.bench.summary import build_report


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
    parser.add_argument("--baseline-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--landing", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--baseline-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0 < args.increment_fraction < 1:
        parser.error("--increment-fraction must be within (0, 1)")
    if args.baseline_only and (args.landing is None or args.baseline_out is None):
        parser.error("--baseline-only needs --landing and --baseline-out")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline_only:
        return baseline_main(args.landing, args.baseline_out)
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
        "target": "thrift" if args.thrift_port is not None else "local",
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
    main_scenario = run_scenario(args.events, increment_events, with_baseline=True, **common)
    scenarios = [main_scenario]
    report = build_report(main_scenario, scenarios if args.scaling else [], config)
    write_report(report, results_dir)
    for events in sorted(set(args.scaling) - {args.events}):
        scenarios.append(
            run_scenario(events, min(increment_events, events), with_baseline=False, **common)
        )
        report = build_report(main_scenario, scenarios, config)
        write_report(report, results_dir)
    if args.large_file_mb > 0:
        generation = main_scenario.generation
        large_file = run_large_file_scenario(
            args.large_file_mb,
            generation.bytes / max(1, generation.events),
            flavours=flavours,
            results_dir=results_dir,
            keep=args.keep,
            project_rev=args.project_rev,
        )
        report = build_report(main_scenario, scenarios if args.scaling else [], config, large_file)
    print()
    print(render_text(report))
    json_path, md_path = write_report(report, results_dir)
    print(f"\nwritten: {json_path} and {md_path}")
    return 0

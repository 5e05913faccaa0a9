"""CLI: ``python -m workbench.simulator --out DIR [options]``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .config import DECIMAL_HANDLING_MODES, FLAVOURS, TIME_PRECISION_MODES, SimConfig
from .landing import FORMATS, write_batch
from .simulation import iter_simulation, make_emitter
from .source_db import state_to_jsonable

_SUFFIX = {"oracle": "ORA", "sqlserver": "MSS", "db2": "DB2"}


def build_configs(args: argparse.Namespace) -> list[SimConfig]:
    base = SimConfig(
        seed=args.seed,
        flavour="oracle",
        database=args.database,
        server=args.server,
        transactions=args.transactions,
        batches=args.batches,
        schemas_enable=args.schemas_enable,
        tombstones=not args.no_tombstones,
        snapshot_style=args.snapshot_style,
        transaction_metadata=True if args.transaction_metadata else None,
        schema_change_topic=args.schema_change_topic,
        incremental_snapshot_batches=tuple(args.incremental_snapshot),
        evolve_batch=args.evolve_batch,
        decimal_handling_mode=args.decimal_handling_mode,
        time_precision_mode=args.time_precision_mode,
    )
    if args.flavour != "all":
        return [replace(base, flavour=args.flavour)]
    return [
        replace(
            base,
            flavour=f,
            database=f"{args.database}_{_SUFFIX[f]}",
            server=f"{args.server}_{_SUFFIX[f].lower()}",
        )
        for f in FLAVOURS
    ]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m workbench.simulator", description=__doc__)
    p.add_argument("--out", required=True, type=Path, help="landing directory")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--flavour", choices=[*FLAVOURS, "all"], default="oracle")
    p.add_argument("--database", default="SIMDB1")
    p.add_argument("--server", default="sim1", help="Debezium topic prefix / logical name")
    p.add_argument("--batches", type=int, default=2)
    p.add_argument("--transactions", type=int, default=60, help="transactions per batch")
    p.add_argument("--format", choices=FORMATS, default="value_lines", dest="fmt")
    p.add_argument("--schemas-enable", action="store_true", help="schema+payload wrapper")
    p.add_argument("--no-tombstones", action="store_true")
    p.add_argument("--snapshot-style", choices=["string", "boolean"], default=None)
    p.add_argument("--transaction-metadata", action="store_true", help="write <server>.transaction")
    p.add_argument("--schema-change-topic", action="store_true", help="write the <server> topic")
    p.add_argument(
        "--incremental-snapshot",
        type=int,
        action="append",
        default=[],
        metavar="BATCH",
        help="start an incremental snapshot in batch BATCH (repeatable)",
    )
    p.add_argument("--evolve-batch", type=int, default=None, help="add/drop a column in this batch")
    p.add_argument("--decimal-handling-mode", choices=DECIMAL_HANDLING_MODES, default="precise")
    p.add_argument(
        "--time-precision-mode",
        choices=TIME_PRECISION_MODES,
        default="adaptive",
        help="connect needs --schemas-enable",
    )
    p.add_argument("--batch", type=int, default=None, help="write only batch K")
    p.add_argument("--shuffle", action="store_true", help="perturb delivery order")
    p.add_argument("--duplicate-fraction", type=float, default=0.0)
    p.add_argument("--expected-json", type=Path, default=None)
    args = p.parse_args(argv)
    if args.time_precision_mode == "connect" and not args.schemas_enable:
        p.error("--time-precision-mode connect needs --schemas-enable")
    if args.batch is not None and not 0 <= args.batch < args.batches:
        p.error(f"--batch must be within [0, {args.batches - 1}]")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    configs = build_configs(args)
    runs = [iter_simulation(c, with_expected=args.expected_json is not None) for c in configs]
    expected: dict[str, dict[str, object]] = {
        c.flavour: {
            "database": c.database,
            "server": c.server,
            "topics": make_emitter(c).topics,
            "batches": [],
        }
        for c in configs
    }
    counts: list[int] = []
    files = 0
    for index in range(args.batches):
        batches = [next(run) for run in runs]
        messages = [m for b in batches for m in b.messages]
        counts.append(len(messages))
        for c, b in zip(configs, batches, strict=True):
            if b.expected is not None:
                entry = {"batch": index, "tables": state_to_jsonable(b.expected)}
                expected[c.flavour]["batches"].append(entry)  # type: ignore[attr-defined]
        if args.batch is None or args.batch == index:
            paths = write_batch(
                messages,
                args.out,
                index,
                args.fmt,
                shuffle=args.shuffle,
                duplicate_fraction=args.duplicate_fraction,
                seed=args.seed,
            )
            files += len(paths)
    if args.expected_json is not None:
        args.expected_json.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"flavours": expected}, ensure_ascii=False, indent=2)
        args.expected_json.write_text(text + "\n", encoding="utf-8", newline="\n")
    flavours = ",".join(c.flavour for c in configs)
    written = "all" if args.batch is None else str(args.batch)
    print(
        f"simulated {flavours}: messages per batch {counts}; "
        f"wrote batch {written} as {args.fmt}: {files} files under {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

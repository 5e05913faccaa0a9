"""Text + `from_json` against Spark 4's VARIANT: the CPU each costs to read the bench's messages.

Issue 74, lever 3 (decision 0032). One JVM, the bench's own generated landing
(`workbench.bench.generation`), measured by CPU time, never by wall time (the machine is
shared):

- `prepare` (any slot): simulate the landing, build bronze (and the schema-change keys
  `stg_cdc__messages` joins) with dbt, compile `stg_cdc__messages` as a full build compiles
  it (every family: a run this large is not probed), and copy bronze twice: as it is
  (`bronze_text`) and with `try_parse_json(message_value)` beside the text
  (`bronze_variant`), what bronze would write to hand silver a parsed message.
- `measure` (alone on the machine): the same statements on
  both sides, alternating A and B round after round (the first round warms the JVM and is
  left out):

  | pair | A (today) | B (VARIANT) |
  | --- | --- | --- |
  | bronze write | copy of bronze, text only | the same, `try_parse_json` beside it |
  | parse alone | `from_json(message_value, <schema>)` | `try_variant_get(variant, '$', <schema>)` |
  | silver | `stg_cdc__messages`' full-build SQL | the same, `try_variant_get` for `from_json` |

  and, for reference, `try_parse_json(message_value)` alone (what bronze adds) and the text
  parsed to a variant in silver itself (`try_variant_get(try_parse_json(message_value))`).
  Every statement's rows go to Spark's `noop` sink (computed, not written) except the bronze
  copies, which write parquet as bronze does.

CPU per statement: the executor CPU time of its tasks (Spark's event log, `Executor CPU
Time`, jobs labelled by `spark.job.description`) and the JVM's whole process CPU (user +
system from /proc: the driver's planning, GC and JIT included). Each figure is the median of
the measured rounds; B / A is printed per pair.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_EVENTS = 200_000
DEFAULT_ROUNDS = 5
DEFAULT_WORKDIR = Path("results/parse-compare")
SCHEMA = "parse"
LABEL = "cdc-parse-compare"
"""`spark.job.description` prefix of the measured statements."""

_FROM_JSON = re.compile(
    r"from_json\(\s*message_value,\s*'(?P<schema>[^']*)',\s*"
    r"map\('columnNameOfCorruptRecord',\s*'_corrupt_record'\)\s*\)"
)
BRONZE = f"{SCHEMA}_bronze.bronze_cdc_messages"
"""Bronze as the compiled model names it (the profile's schema `parse`, bronze's `_bronze`)."""


def variant_sql(compiled: str, bronze: str) -> str:
    """`stg_cdc__messages`' compiled SQL reading `bronze` (with `message_variant`) and taking
    the envelope from the variant instead of parsing the text."""
    found = _FROM_JSON.findall(compiled)
    if len(found) != 1:
        raise ValueError(f"expected one from_json of message_value, found {len(found)}")
    sql = _FROM_JSON.sub(
        lambda m: f"try_variant_get(message_variant, '$', '{m.group('schema')}')", compiled
    )
    sql = sql.replace(
        "bronze_messages.message_value,",
        "bronze_messages.message_value,\n        bronze_messages.message_variant,",
        1,
    )
    return sql.replace(BRONZE, bronze)


def text_sql(compiled: str, bronze: str) -> str:
    """`stg_cdc__messages`' compiled SQL reading `bronze` (text only)."""
    return compiled.replace(BRONZE, bronze)


def envelope_schema(compiled: str) -> str:
    """The union schema `stg_cdc__messages` parses every message with."""
    match = _FROM_JSON.search(compiled)
    if match is None:
        raise ValueError("no from_json of message_value in the compiled SQL")
    return match.group("schema")


def statements(compiled: str) -> dict[str, tuple[str, str]]:
    """Each measured pair: name -> (A's SQL, B's SQL); a name starting with `ref:` is one
    statement (A only)."""
    schema = envelope_schema(compiled)
    text = f"{SCHEMA}.bronze_text"
    variant = f"{SCHEMA}.bronze_variant"
    corrupt = "map('columnNameOfCorruptRecord', '_corrupt_record')"
    return {
        "bronze write": (
            f"insert overwrite table {SCHEMA}.write_text select * from {text}",
            f"insert overwrite table {SCHEMA}.write_variant "
            f"select *, try_parse_json(message_value) as message_variant from {text}",
        ),
        "parse alone": (
            f"select from_json(message_value, '{schema}', {corrupt}) as parsed from {text}",
            f"select try_variant_get(message_variant, '$', '{schema}') as parsed from {variant}",
        ),
        "silver (stg_cdc__messages)": (text_sql(compiled, text), variant_sql(compiled, variant)),
        "ref: try_parse_json alone": (
            f"select try_parse_json(message_value) as parsed from {text}",
            "",
        ),
        "ref: text to variant in silver": (
            f"select try_variant_get(try_parse_json(message_value), '$', '{schema}') as parsed "
            f"from {text}",
            "",
        ),
    }


def _process_cpu_s(pid: int) -> float:
    """CPU time (user + system, seconds) the process has used so far."""
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def executor_cpu(events: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Executor CPU seconds per job description (`spark.job.description`) starting with
    LABEL, from a Spark event log's events."""
    stage_label: dict[int, str] = {}
    cpu: dict[str, float] = {}
    for event in events:
        kind = event.get("Event")
        if kind == "SparkListenerJobStart":
            label = (event.get("Properties") or {}).get("spark.job.description") or ""
            if label.startswith(LABEL):
                for stage in event.get("Stage IDs", []):
                    stage_label[int(stage)] = label
        elif kind == "SparkListenerTaskEnd":
            label = stage_label.get(int(event.get("Stage ID", -1)))
            if label is not None:
                metrics = event.get("Task Metrics") or {}
                nanos = int(metrics.get("Executor CPU Time", 0))
                nanos += int(metrics.get("Executor Deserialize CPU Time", 0))
                cpu[label] = cpu.get(label, 0.0) + nanos / 1e9
    return cpu


def _env(workdir: Path) -> None:
    os.environ["CDC_SPARK_HOME"] = str((workdir / "spark").resolve())
    os.environ["CDC_LANDING_DIR"] = str((workdir / "landing").resolve())
    os.environ["CDC_SCHEMA"] = SCHEMA
    os.environ["CDC_SPARK_EVENT_LOG"] = "true"
    events = (workdir / "events").resolve()
    events.mkdir(parents=True, exist_ok=True)
    os.environ["CDC_SPARK_EVENT_LOG_DIR"] = str(events)


def prepare(workdir: Path, events: int) -> None:
    """Landing, bronze, the compiled model and the two copies of bronze (once per workdir)."""
    from cdc_tools.dbt_invoke import run_dbt
    from cdc_tools.local_spark import get_local_spark
    from workbench.bench.generation import generate
    from workbench.bench.planning import plan_sources
    from workbench.bench.settings import DEFAULT_BATCH_EVENTS, DEFAULT_FLAVOURS
    from workbench.consumer import CONSUMER_DIR, link_package

    done = workdir / "prepared.json"
    if done.exists() and json.loads(done.read_text()).get("events") == events:
        return
    landing = workdir / "landing"
    if not landing.exists():
        generate(
            plan_sources(events, DEFAULT_FLAVOURS, 0),
            landing,
            workdir / "increment",
            DEFAULT_BATCH_EVENTS,
        )
    _env(workdir)
    link_package(CONSUMER_DIR)
    spark = get_local_spark()
    target = (workdir / "target").resolve()
    common = ["--target-path", str(target)]
    run_dbt(
        ["run", "--select", "bronze_cdc_messages", "int_cdc__schema_change_keys", *common],
        project_dir=CONSUMER_DIR,
    )
    run_dbt(["compile", "--select", "stg_cdc__messages", *common], project_dir=CONSUMER_DIR)
    compiled = next(target.rglob("compiled/**/stg_cdc__messages.sql")).read_text()
    (workdir / "stg_cdc__messages.sql").write_text(compiled)
    bronze = BRONZE
    spark.sql(f"create database if not exists {SCHEMA}")
    for name, select in (
        ("bronze_text", f"select * from {bronze}"),
        (
            "bronze_variant",
            f"select *, try_parse_json(message_value) as message_variant from {bronze}",
        ),
        ("write_text", f"select * from {bronze} where false"),
        (
            "write_variant",
            f"select *, try_parse_json(message_value) as message_variant from {bronze} where false",
        ),
    ):
        spark.sql(f"drop table if exists {SCHEMA}.{name}")
        spark.sql(f"create table {SCHEMA}.{name} using parquet as {select}")
    [row] = spark.sql(f"select count(*) as messages from {SCHEMA}.bronze_text").collect()
    done.write_text(json.dumps({"events": events, "messages": row["messages"]}))


def _checks(spark, compiled: str) -> list[str]:  # type: ignore[no-untyped-def]
    """What both sides make of the messages: rows per message kind and error reason code,
    A against B (they may differ: the decision record says where)."""
    lines = []
    for side, sql in (
        ("A", text_sql(compiled, f"{SCHEMA}.bronze_text")),
        ("B", variant_sql(compiled, f"{SCHEMA}.bronze_variant")),
    ):
        rows = spark.sql(
            "select _cdc_message_kind, split(_cdc_error_reason, ':')[0] as reason, count(*) as n "
            f"from ({sql}) group by 1, 2 order by 1, 2"
        ).collect()
        lines.append(f"{side}: " + ", ".join(f"{r[0]}/{r[1]}={r[2]}" for r in rows))
    return lines


def measure(workdir: Path, rounds: int) -> dict[str, Any]:
    """Run every pair `rounds` + 1 times, alternating the sides' order; the medians of the
    rounds after the first."""
    from cdc_tools.local_spark import get_local_spark
    from workbench.spark_profile import read_events

    _env(workdir)
    compiled = (workdir / "stg_cdc__messages.sql").read_text()
    spark = get_local_spark()
    sc = spark.sparkContext
    pid = sc._gateway.proc.pid  # the JVM py4j launched
    pairs = statements(compiled)
    process: dict[str, list[float]] = {}
    labels: dict[str, tuple[str, str]] = {}  # description -> (pair, side)
    for round_number in range(rounds + 1):
        for name, (a_sql, b_sql) in pairs.items():
            sides = [("A", a_sql), ("B", b_sql)]
            if round_number % 2:
                sides.reverse()
            for side, sql in sides:
                if not sql:
                    continue
                label = f"{LABEL} {round_number} {name} {side}"
                labels[label] = (name, side)
                sc.setJobDescription(label)
                before = _process_cpu_s(pid)
                frame = spark.sql(sql)
                if not sql.startswith("insert"):
                    frame.write.format("noop").mode("overwrite").save()
                used = _process_cpu_s(pid) - before
                sc.setJobDescription(None)
                if round_number > 0:
                    process.setdefault(f"{name} {side}", []).append(used)
    checks = _checks(spark, compiled)
    spark.stop()  # flushes the event log
    logs = sorted((workdir / "events").iterdir(), key=lambda p: p.stat().st_mtime)
    cpu = executor_cpu(read_events(logs[-1]))
    executor: dict[str, list[float]] = {}
    for label, seconds in cpu.items():
        if int(label.split()[1]) > 0:
            name, side = labels[label]
            executor.setdefault(f"{name} {side}", []).append(seconds)
    prepared = json.loads((workdir / "prepared.json").read_text())
    return {
        "messages": prepared["messages"],
        "rounds": rounds,
        "executor_cpu_s": {k: statistics.median(v) for k, v in executor.items()},
        "process_cpu_s": {k: statistics.median(v) for k, v in process.items()},
        "executor_cpu_all": executor,
        "process_cpu_all": process,
        "checks": checks,
    }


def render(result: Mapping[str, Any]) -> str:
    """A markdown table: per pair, the medians of A and B and B / A, executor and process CPU."""
    lines = [
        f"{result['messages']} messages, median of {result['rounds']} rounds (CPU seconds)",
        "",
        "| statement | A executor | B executor | B / A | A process | B process | B / A |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    names = sorted({key.rsplit(" ", 1)[0] for key in result["process_cpu_s"]})
    for name in names:
        cells = [name]
        for metric in ("executor_cpu_s", "process_cpu_s"):
            a = result[metric].get(f"{name} A")
            b = result[metric].get(f"{name} B")
            ratio = f"{b / a:.2f}" if a and b else ""
            cells += [f"{a:.2f}" if a else "", f"{b:.2f}" if b else "", ratio]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *result["checks"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["prepare", "measure"])
    parser.add_argument("--events", type=int, default=DEFAULT_EVENTS)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.step == "prepare":
        prepare(args.workdir, args.events)
        return 0
    if not (args.workdir / "prepared.json").exists():
        print(f"parse_compare: run `prepare` first ({args.workdir})", file=sys.stderr)
        return 1
    result = measure(args.workdir, args.rounds)
    (args.workdir / "result.json").write_text(json.dumps(result, indent=1))
    print(render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a `dbt` invocation's client CPU goes, phase by phase (issue 64, decision 0021).

`python -m workbench.dbt_start [--runs N] [--cprofile FILE] -- build --project-dir ...` runs
dbt N times, each in a subprocess of its own (the venv's interpreter, its `.pth` hook, the
caller's environment), and prints a table of CPU seconds (user + system, not wall time: the
machine is shared) per phase:

- start: the interpreter, `site` and the venv's `.pth` hook, before the first line of dbt;
- import: `import dbt.cli.main`;
- profile, project: dbt's `load_profile` and `load_project` (rendering the profile's Jinja);
- adapter: `register_adapter` (dbt-spark's modules);
- parse: `ManifestLoader.get_full_manifest`: full, partial or skipped (nothing changed);
- manifest: writing `manifest.json` and `semantic_manifest.json`;
- session: dbt-spark's `open` (the Python side of the session start; the JVM is apart);
- udfs: `landing_udfs.register` (inside the session's start);
- run_results: writing `run_results.json`;
- rest: everything else of the process (the nodes, the relation cache, exit);
- jvm: the CPU of the process's children (the `local` target's Spark JVM), from /proc.

Phases are measured by wrapping those functions in the subprocess (`DRIVER`); a phase that
runs inside another (udfs in session) is counted in both, `rest` is what none holds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

PHASES: tuple[str, ...] = (
    "start",
    "import",
    "profile",
    "project",
    "adapter",
    "parse",
    "manifest",
    "session",
    "udfs",
    "run_results",
    "rest",
)
RESULT_TAG = "DBT_START_PROFILE "

DRIVER = r"""
import json, resource, sys, time
started = time.process_time()
out = {"start": started}
spans = {}

def wrap(owner, name, phase):
    import inspect
    raw = inspect.getattr_static(owner, name)
    is_class = isinstance(raw, classmethod)
    func = raw.__func__ if is_class else getattr(owner, name)
    def wrapper(*args, **kwargs):
        before = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            spans[phase] = spans.get(phase, 0.0) + time.process_time() - before
    setattr(owner, name, classmethod(wrapper) if is_class else wrapper)

profile_path = sys.argv[1]
profiler = None
if profile_path:
    import cProfile
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
before = time.process_time()
from dbt.cli.main import dbtRunner
out["import"] = time.process_time() - before

import dbt.cli.requires as requires
import dbt.parser.manifest as manifest_module
from dbt.artifacts.schemas.run import RunExecutionResult
wrap(requires, "load_profile", "profile")
wrap(requires, "load_project", "project")
wrap(manifest_module, "register_adapter", "adapter")
wrap(manifest_module.ManifestLoader, "get_full_manifest", "parse")
wrap(manifest_module, "write_manifest", "manifest")
wrap(RunExecutionResult, "write", "run_results")
parse_kind = []
original_load = manifest_module.ManifestLoader.load
def load(self):
    result = original_load(self)
    if self.saved_manifest is None:
        parse_kind.append("full")
    elif self.skip_parsing:
        parse_kind.append("skipped")
    else:
        parse_kind.append("partial")
    return result
manifest_module.ManifestLoader.load = load

original_register = manifest_module.register_adapter
def register_adapter(*args, **kwargs):
    result = original_register(*args, **kwargs)
    try:
        from dbt.adapters.spark.connections import SparkConnectionManager
        wrap(SparkConnectionManager, "open", "session")
    except ImportError:
        pass
    return result
manifest_module.register_adapter = register_adapter
try:
    from cdc_tools import landing_udfs

    wrap(landing_udfs, "register", "udfs")
except ImportError:
    pass

result = dbtRunner().invoke(sys.argv[2:])
if profiler is not None:
    profiler.disable()
    profiler.dump_stats(profile_path)
usage = resource.getrusage(resource.RUSAGE_SELF)
out.update(spans)
out["self"] = usage.ru_utime + usage.ru_stime
out["parse_kind"] = parse_kind[0] if parse_kind else "none"
out["success"] = bool(result.success)
out["modules"] = len(sys.modules)
out["pandas_loaded"] = "pandas" in sys.modules
out["pyarrow_loaded"] = "pyarrow" in sys.modules
print(__TAG__ + json.dumps(out), file=sys.stderr, flush=True)
"""


def phases_of(record: dict[str, object]) -> dict[str, float]:
    """CPU seconds per phase of one run's record (`DRIVER`'s output), with `rest` and `jvm`."""
    figures = {name: float(record.get(name, 0.0)) for name in PHASES if name != "rest"}  # type: ignore[arg-type]
    own = float(record["self"])  # type: ignore[arg-type]
    counted = sum(value for name, value in figures.items() if name != "udfs")
    figures["rest"] = max(own - counted, 0.0)
    figures["client"] = own
    figures["jvm"] = max(float(record.get("tree", own)) - own, 0.0)  # type: ignore[arg-type]
    return figures


def run_once(
    dbt_args: Sequence[str],
    cprofile: str = "",
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> dict[str, object]:
    """One dbt invocation in a subprocess of this interpreter (`env`: default this one's,
    `cwd`: default the current folder); its record, with `tree` (the CPU of the whole process
    tree, sampled from /proc) and `wall`."""
    from workbench.bench.sampling import run_measured

    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "dbt.log"
        argv = [sys.executable, "-c", DRIVER.replace("__TAG__", repr(RESULT_TAG)), cprofile]
        run = run_measured(
            [*argv, *dbt_args],
            env=dict(os.environ if env is None else env),
            log_path=log,
            cwd=cwd or Path.cwd(),
        )
        text = log.read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.startswith(RESULT_TAG)]
    if not lines:
        raise SystemExit(f"dbt did not finish (exit {run.returncode}):\n{text[-3000:]}")
    record: dict[str, object] = json.loads(lines[-1][len(RESULT_TAG) :])
    record["tree"] = run.cpu_s
    record["wall"] = run.wall_s
    return record


def render(records: Sequence[dict[str, object]]) -> str:
    """A markdown table: one column per run, phases as rows, the median last."""
    rows = [phases_of(record) for record in records]
    names = [*PHASES, "client", "jvm"]
    header = [f"run {i + 1} ({records[i]['parse_kind']})" for i in range(len(records))]
    lines = [
        "| phase | " + " | ".join([*header, "median"]) + " |",
        "| --- | " + " | ".join("---" for _ in [*header, "median"]) + " |",
    ]
    for name in names:
        values = [row[name] for row in rows]
        cells = [f"{value:.2f}" for value in [*values, statistics.median(values)]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    walls = [float(record["wall"]) for record in records]  # type: ignore[arg-type]
    cells = [f"{value:.1f}" for value in [*walls, statistics.median(walls)]]
    lines.append("| wall | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cprofile", default="", help="cProfile output of the last run")
    parser.add_argument("--json", default="", help="write the runs' records here")
    parser.add_argument("dbt_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    dbt_args = [arg for arg in args.dbt_args if arg != "--"] or ["build"]
    records = []
    for index in range(args.runs):
        last = index == args.runs - 1
        records.append(run_once(dbt_args, args.cprofile if last else ""))
        print(json.dumps(records[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1) + "\n")
    print(render(records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

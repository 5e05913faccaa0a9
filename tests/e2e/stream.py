"""The shared stream: one warehouse, one `dbt build` per step, for every module that only
needs "its sources landed, built, then one more batch".

Each such module registers a `Part` at import: a folder name, what it lands at each step,
and what it reads just before a step's build (to compare with after). The session fixture
`stream` (tests/conftest.py) owns one schema prefix and one landing folder; its `at(step)`
lands every registered part's files for the steps not yet built and runs one build per
step, so N modules pay for one build per step instead of N. A test says which step it reads
with `@pytest.mark.stream("<step>")`; tests/conftest.py orders the marked tests by step
(whatever their module) and keeps them on one pytest-xdist worker (group `stream`).

A part's files land under `<landing>/<part name>/`, and its tests scope every count to
that folder (`DbtProject.landed_under`) and every row to its own source databases, so the parts
cannot see each other's messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DbtProject
from workbench.simulator import write_batch

# The steps, in order, and the dbt command each one runs with its vars (None: nothing is
# built; the tests of that step run their own invocation on the built warehouse, after
# every other step). `batch1` keeps every gold change in the delta partitions (a large
# compaction ratio) and `replay` folds them into the buckets, so both gold write paths run.
# The data tests of `batch0`, `batch1` and `full_refresh` check whole tables (the suite's
# CDC_TEST_SCOPE=all); `noop` and `replay` check what they loaded, as a user's build does
# (var cdc_test_scope's default): nothing for `noop`, the replayed copies for `replay`
# (where the scoped cdc_position_not_behind_change_log once failed on the untouched rows of
# a table whose replayed truncate the step loaded).
STEPS: tuple[str, ...] = ("batch0", "batch1", "noop", "replay", "full_refresh", "after")
LOADED: dict[str, object] = {"cdc_test_scope": "loaded"}
COMMANDS: dict[str, tuple[tuple[str, ...], dict[str, object]] | None] = {
    "batch0": (("build",), {}),
    "batch1": (("build",), {"cdc_compaction_ratio": 100.0}),
    "noop": (("build",), LOADED),
    "replay": (("build",), {"cdc_compaction_ratio": 0.1, **LOADED}),
    "full_refresh": (("build", "--full-refresh"), {}),
    "after": None,
}


@dataclass(frozen=True)
class Part:
    """One module's share of the stream."""

    name: str
    # lands the part's files for a step (called for every step) into its own folder
    land: Callable[[str, Path], None]
    # the source databases whose rows it lands (the owners of its rows in gold)
    databases: tuple[str, ...] = ()
    # what the part reads just before a step's build: {step: reader(project) -> value}
    before: dict[str, Callable[[DbtProject], object]] = field(default_factory=dict)
    # dbt vars every build of the stream runs with for this part (they may only concern
    # the part's own sources: the other parts' builds run with them too)
    vars: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class DataTestResult:
    """A data test of a step's build: its status (`pass`, `warn`, `fail`), failing rows and
    compiled SQL."""

    status: str
    failures: int
    sql: str

    def rows(self, project: DbtProject) -> list[dict[str, object]]:
        """The rows it fails on, as the warehouse holds them now."""
        return project.sql(self.sql)


PARTS: dict[str, Part] = {}
# The modules that register a part: pytest-xdist runs them on one worker, as one scope
# (tests/conftest.py); a test marked `stream` elsewhere is a usage error.
STREAM_MODULES: tuple[str, ...] = (
    *(
        f"tests/e2e/{name}.py"
        for name in (
            "test_simulated_sources",
            "test_mongodb_sources",
            "test_alibaba_sources",
            "test_keyless_tables",
            "test_delivery_faults",
            "test_transaction_consistency",
            "test_format_producers",
            "test_position_free_sources",
            "test_compressed_landing",
            "test_flattened_records",
        )
    ),
    # they register no part: they read the whole built stream
    "tests/quality/test_quality.py",
    "tests/docs/test_docs_site.py",
    "tests/e2e/test_statement_budget.py",
    "tests/e2e/test_run_history.py",
    "tests/e2e/test_run_report.py",
    "tests/e2e/test_unit_tests.py",
)


def register(part: Part) -> Part:
    """Add a module's part to the stream (at import, before any test runs)."""
    PARTS[part.name] = part
    return part


def step_vars(step: str) -> dict[str, object]:
    """The vars of `step`'s build: the step's own, and every part's (`Part.vars`); a var
    set twice must have one value, but for a mapping, whose entries are merged."""
    command = COMMANDS[step]
    merged: dict[str, object] = dict(command[1]) if command is not None else {}
    for part in PARTS.values():
        for name, value in part.vars.items():
            wanted = merged.get(name, value)
            if isinstance(wanted, dict) and isinstance(value, dict):
                # a mapping var (cdc_table_keys, cdc_topic_tables): each part names its own
                # entries, and an entry two parts name must have one value
                clash = [k for k in value if k in wanted and wanted[k] != value[k]]
                if clash:
                    raise ValueError(f"var {name}: part {part.name} sets {clash} otherwise")
                merged[name] = {**wanted, **value}
                continue
            if wanted != value:
                raise ValueError(f"var {name}: part {part.name} sets {value!r}, not {wanted!r}")
            merged[name] = value
    return merged


def stream_databases() -> list[str]:
    """Every source database of the stream: gold rows of any other database belong to no
    part (`compare_database(databases=...)`)."""
    return [database for part in PARTS.values() for database in part.databases]


class Stream:
    """The shared warehouse, built step by step as the tests ask for it."""

    def __init__(self, project: DbtProject) -> None:
        self.project = project
        self.built = -1  # index in STEPS of the last step built
        self.failure: str | None = None
        self.observed: dict[tuple[str, str], object] = {}
        self.results: dict[str, Any] = {}  # each step's dbtRunnerResult

    def at(self, step: str) -> DbtProject:
        """The project with every step up to `step` built (a step is built once)."""
        if step not in STEPS:
            raise ValueError(f"unknown stream step {step!r}: accepted values are {STEPS}")
        target = STEPS.index(step)
        while self.failure is None and self.built < target:
            self._build(STEPS[self.built + 1])
        if self.failure is not None:
            pytest.fail(f"the shared stream failed earlier: {self.failure}")
        return self.project

    def before(self, part: str, step: str) -> object:
        """What `part` read just before `step`'s build (its `Part.before[step]`)."""
        self.at(step)
        return self.observed[(part, step)]

    def data_test(self, step: str, name: str) -> DataTestResult:
        """The result of the data test `name` (a prefix of its node name) in `step`'s build;
        its compiled SQL, run again, lists what it found (the suite checks whole tables)."""
        self.at(step)
        found = [
            r for r in self.results[step].result.results
            if r.node.resource_type == "test" and r.node.name.startswith(name)
        ]  # fmt: skip
        if len(found) != 1:
            raise ValueError(f"{len(found)} data tests named {name}* in the {step} build")
        (result,) = found
        status = str(getattr(result.status, "value", result.status))
        return DataTestResult(status, int(result.failures or 0), result.node.compiled_code)

    def _build(self, step: str) -> None:
        try:
            for part in PARTS.values():
                part.land(step, self.project.landing / part.name)
            for part in PARTS.values():
                if step in part.before:
                    self.observed[(part.name, step)] = part.before[step](self.project)
            command = COMMANDS[step]
            if command is not None:
                self.results[step] = self.project.run(*command[0], vars=step_vars(step))
        except BaseException as error:
            self.failure = f"step {step}: {error}"
            raise
        finally:
            self.built = STEPS.index(step)


# The steps that land a simulated batch (its index in `SimResult.batches`).
BATCHES = {"batch0": 0, "batch1": 1}


def batch_lander(
    simulations: Callable[[], Sequence[tuple[Any, str]]],
) -> Callable[[str, Path], None]:
    """A `Part.land` for simulations of two batches: at `batch0` and `batch1`, each
    simulation's batch goes to `<folder>/<its database>` in its landing format."""

    def land(step: str, folder: Path) -> None:
        if step in BATCHES:
            batch = BATCHES[step]
            for result, fmt in simulations():
                write_batch(result.batches[batch], folder / result.config.database, batch, fmt)

    return land


def owned_by(part: str, column: str = "_cdc_source_db") -> str:
    """A predicate: the row comes from one of `part`'s source databases."""
    databases = ", ".join(f"'{database.lower()}'" for database in PARTS[part].databases)
    return f"lower({column}) in ({databases})"


def gold_rows_of(project: DbtProject, part: str, tables: Sequence[str]) -> dict[str, list[dict]]:
    """`part`'s rows of each gold table in `tables`, but for their load time, in a stable
    order: what a rebuild must leave as the incremental runs made it."""
    gold = project.layer("gold")
    return {
        table: project.sql(
            f"select * except (_loaded_at) from {gold}.{table} where {owned_by(part)} order by all"
        )
        for table in tables
    }


def step_of(node: pytest.Item) -> str:
    """The stream step a test is marked with."""
    marker = node.get_closest_marker("stream")
    if marker is None or not marker.args:
        raise ValueError(f"{node.nodeid}: mark it @pytest.mark.stream('<step>'), one of {STEPS}")
    return str(marker.args[0])

"""The object-storage scenario of tests/e2e/test_object_store.py, run in a process of its own.

`python -m tests.e2e.object_store_scenario <work folder>`, on the `s3` target (DBT_TARGET=s3,
gold on Delta): the warehouse (CDC_WAREHOUSE_DIR) and the landing (CDC_LANDING_DIR) are
`s3a://` URIs of the test's S3-compatible server, reached through Hadoop's S3A connector with
the endpoint and credentials of the environment (tests/s3_server.py).

Two simulated sources land as Kafka Connect's S3 sink writes them, uploaded by pyarrow's S3
client (another S3 implementation than Spark's): a SQL Server source as plain files, with a
file of its heartbeat topic (a name Spark hides), and an Oracle source gzip-compressed. Batch
0 brings the bad files of tests/e2e/test_bad_input.py too: gzip, bzip2 and zstd files cut
short or damaged, a zero-byte file, and markers (`_SUCCESS`, a `.crc`, `_temporary/`, a
Flink in-progress part). A `dbt run` builds batch 0; batch 1 lands (and a readable copy of
the truncated gzip file) and a `dbt build` builds it. After each, gold is compared with the
simulator's oracle. It prints one line, `OBJECT_STORE_REPORT <json>`, which the tests assert
on.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path
from urllib.parse import urlparse

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import get_local_spark
from tests.e2e.test_bad_input import (
    EMPTY,
    HEARTBEAT_FILE,
    LEAKED,
    MARKERS,
    UNREADABLE,
    _land_unreadable_files,
)
from tests.s3_server import S3Server, upload
from workbench.oracle_check import COMPARED_MODELS, GoldReader, compare_database
from workbench.simulator import SimConfig, SimResult, simulate, write_batch

# (config, compressed): the SQL Server source's files land plain, the Oracle one's gzipped
SOURCES: tuple[tuple[SimConfig, bool], ...] = (
    (
        SimConfig(
            seed=760,
            flavour="sqlserver",
            database="S3_MSS",
            server="s3mss",
            schemas_enable=True,
            batches=2,
            transactions=30,
        ),
        False,
    ),
    (
        SimConfig(
            seed=761,
            flavour="oracle",
            database="S3_ORA",
            server="s3ora",
            schemas_enable=False,
            batches=2,
            transactions=30,
            truncate_probability=0.02,
        ),
        True,
    ),
)
DATABASES = [config.database for config, _ in SOURCES]
# the heartbeat topic's file of the SQL Server source: `__debezium-heartbeat.<server>`
HEARTBEAT = HEARTBEAT_FILE.replace(".bad+", f".{SOURCES[0][0].server}+")
# what both builds select: every model gold's comparison reads, and the quarantine
SELECT = (*COMPARED_MODELS, "+cdc_quarantine")
QUARANTINE_TEST = "assert_no_new_quarantined_messages"


class Scenario:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.spark = get_local_spark()
        self.schema = os.environ["CDC_SCHEMA"]
        self.landing = os.environ["CDC_LANDING_DIR"].rstrip("/")
        parsed = urlparse(self.landing)
        self.bucket_prefix = f"{parsed.netloc}{parsed.path}"  # bucket/prefix
        self.server = S3Server(
            endpoint=os.environ["CDC_S3_ENDPOINT"],
            access_key=os.environ["AWS_ACCESS_KEY_ID"],
            secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
            folder=work,
        )
        self.results: list[SimResult] = [simulate(config) for config, _ in SOURCES]
        self.report: dict[str, object] = {"landing": self.landing}

    def sql(self, query: str) -> list[dict[str, object]]:
        return [row.asDict() for row in self.spark.sql(query).collect()]

    def layer(self, name: str) -> str:
        return f"{self.schema}_{name}"

    def land(self, batch: int) -> dict[str, int]:
        """The batch's files staged in a local folder of their own, then uploaded; returns
        {key under the landing: size} of what it uploaded."""
        staged = self.work / f"staged-{batch}"
        for (config, compressed), result in zip(SOURCES, self.results, strict=True):
            folder = staged / config.database
            for written in write_batch(result.batches[batch], folder, batch, "value_lines"):
                if compressed:
                    written.with_name(written.name + ".gz").write_bytes(
                        gzip.compress(written.read_bytes())
                    )
                    written.unlink()
        if batch == 0:
            lines = "".join(json.dumps({"ts_ms": 1700000000000 + i}) + "\n" for i in (0, 1))
            (staged / DATABASES[0] / HEARTBEAT).write_text(lines)
            bad = staged / "bad"
            _land_unreadable_files(bad / "files")
            for marker in MARKERS:
                (bad / marker).parent.mkdir(parents=True, exist_ok=True)
                content = b'{"not": "data"}\n' if marker.endswith("inprogress.1") else b""
                (bad / marker).write_bytes(content)
        else:  # a readable copy of the truncated file replaces it (a new modification time)
            (staged / "bad" / "files").mkdir(parents=True)
            (staged / "bad" / "files" / "truncated.json.gz").write_bytes(gzip.compress(LEAKED))
        sizes = {
            str(path.relative_to(staged)): path.stat().st_size
            for path in staged.rglob("*")
            if path.is_file()
        }
        upload(self.server, staged, self.bucket_prefix)
        shutil.rmtree(staged)
        return sizes

    def compare(self, batch: int) -> dict[str, list[str]]:
        reader = GoldReader(self.spark)
        differences = {}
        for result in self.results:
            outcome = compare_database(
                self.spark,
                self.layer("gold"),
                result.config.database,
                result.expected[batch],
                result=result,
                batch=batch,
                databases=DATABASES,
                reader=reader,
            )
            differences[result.config.database] = (
                outcome.differences if sum(outcome.rows.values()) else ["no gold rows"]
            )
        return differences

    def quarantined_files(self) -> dict[str, dict[str, object]]:
        """The quarantine's rows of whole files (`quarantine_stage` 'file'), by file name."""
        rows = self.sql(
            f"select _source_file, _source_line, reason_code, quarantine_stage, raw_line "
            f"from {self.layer('silver')}.cdc_quarantine where quarantine_stage = 'file'"
        )
        return {str(row["_source_file"]).rsplit("/", 1)[1]: row for row in rows}

    def bronze_files(self) -> dict[str, dict[str, int]]:
        """{file under the landing: lines, file versions and loads} of bronze."""
        rows = self.sql(
            f"select _source_file, count(*) as lines, "
            f"count(distinct _source_file_modified_at) as versions, "
            f"count(distinct _source_file_modified_at, _loaded_at) as loads "
            f"from {self.layer('bronze')}.bronze_cdc_messages group by _source_file"
        )
        return {
            str(row["_source_file"]).removeprefix(self.landing + "/"): {
                "lines": int(row["lines"]),  # type: ignore[call-overload]
                "versions": int(row["versions"]),  # type: ignore[call-overload]
                "loads": int(row["loads"]),  # type: ignore[call-overload]
            }
            for row in rows
        }

    def tables(self) -> dict[str, dict[str, object]]:
        """Where each table of the build lives and its provider (one `show table extended`
        a layer), and for gold's Delta states the operations of their history."""
        tables: dict[str, dict[str, object]] = {}
        for layer in ("bronze", "silver", "gold"):
            for row in self.sql(f"show table extended in {self.layer(layer)} like '*'"):
                if row["isTemporary"]:
                    continue
                information = dict(
                    line.split(": ", 1)
                    for line in str(row["information"]).splitlines()
                    if ": " in line
                )
                relation = f"{self.layer(layer)}.{row['tableName']}"
                entry: dict[str, object] = {
                    "location": information.get("Location"),
                    "provider": information.get("Provider"),
                    "type": information.get("Type"),
                }
                if entry["provider"] == "delta" and relation.endswith("__cdc_state"):
                    history = self.sql(f"describe history {relation}")
                    entry["operations"] = [str(h["operation"]) for h in history]
                tables[relation] = entry
        return tables

    def success_marker(self, location: str) -> dict[str, object]:
        """The `_SUCCESS` file of a parquet table's folder, as the S3A committers write it
        (a JSON summary naming the committer; the classic committer's is empty)."""
        parsed = urlparse(location)
        path = f"{parsed.netloc}{parsed.path}/_SUCCESS"
        with self.server.client().open_input_stream(path, compression=None) as marker:
            data = marker.read()
        return json.loads(data) if data.strip() else {}

    def warning(self, build) -> dict[str, object]:  # type: ignore[no-untyped-def]
        (test,) = [r for r in build.result.results if r.node.name == QUARANTINE_TEST]
        return {
            "status": str(getattr(test.status, "value", test.status)),
            "messages": [str(r["message"]) for r in self.sql(test.node.compiled_code)],
        }

    def run(self) -> dict[str, object]:
        target = self.work / "target"
        sizes = self.land(0)
        run_dbt(("run", *SELECT), target_path=target)
        self.report["batch0"] = {
            "differences": self.compare(0),
            "quarantined": self.quarantined_files(),
            "bronze": self.bronze_files(),
            "sizes": sizes,
        }
        self.report["heartbeat"] = self.sql(
            f"select _kafka_topic, _kafka_partition, _kafka_offset, _source_line, "
            f"_source_file from {self.layer('bronze')}.bronze_cdc_messages "
            f"where _source_file like '%/{HEARTBEAT}' order by _source_line"
        )
        self.report["heartbeat_kinds"] = sorted(
            str(row["_cdc_message_kind"])
            for row in self.sql(
                f"select distinct _cdc_message_kind from {self.layer('silver')}.stg_cdc__messages "
                f"where _source_file like '%/{HEARTBEAT}'"
            )
        )
        sizes = self.land(1)
        # the build's one data test: the quarantine's warning (the others: every other module);
        # the bad files are sources the run reads nothing of, an error by default: the var
        # lowers it so that the build goes on to gold (test_bad_input.py checks the error)
        build = run_dbt(
            ("build", *SELECT, QUARANTINE_TEST, "--indirect-selection", "empty"),
            vars={"cdc_unread_source_severity": "warn"},
            target_path=target,
        )
        self.report["batch1"] = {
            "differences": self.compare(1),
            "quarantined": self.quarantined_files(),
            "bronze": self.bronze_files(),
            "sizes": sizes,
            "warning": self.warning(build),
        }
        tables = self.tables()
        self.report["tables"] = tables
        bronze = tables[f"{self.layer('bronze')}.bronze_cdc_messages"]
        self.report["bronze_success"] = self.success_marker(str(bronze["location"]))
        self.report["sources"] = {
            result.config.database: {"events": len(result.batches[0]) + len(result.batches[1])}
            for result in self.results
        }
        self.report["unreadable"] = sorted(UNREADABLE)
        self.report["empty"] = EMPTY
        return self.report


def main() -> int:
    report = Scenario(Path(sys.argv[1])).run()
    print("OBJECT_STORE_REPORT " + json.dumps(report, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

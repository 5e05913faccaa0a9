"""The local Spark session of the `local` dbt profile, for Python code that shares it with dbt.

dbt-spark's `method: session` calls `SparkSession.builder.getOrCreate()`, so a process that
creates the session first (tests, the demo, the benchmark) and then runs dbt in-process
through `dbtRunner` gives both the same session and the same embedded Derby metastore, which
admits one process at a time. The settings are read from profiles/profiles.yml, so there is
one place to change them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import yaml

from cdc_tools.session_hook import expand_jar_globs

REPO_ROOT = Path(__file__).resolve().parents[1]
PROFILES_DIR = REPO_ROOT / "profiles"
PROJECT_DIR_ENV = "DBT_PROJECT_DIR"


def project_dir() -> Path:
    """The dbt project the tools run on: DBT_PROJECT_DIR (dbt's own variable), else the
    current folder."""
    return Path(os.environ.get(PROJECT_DIR_ENV) or Path.cwd()).resolve()


def _env_var(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise KeyError(f"environment variable {name} is required by the profile")
    return value


def _render(text: str) -> str:
    """Render a profile value as dbt does: Jinja with `env_var('NAME', 'default')`."""
    if "{{" not in text and "{%" not in text:
        return text
    import jinja2

    return (
        jinja2.Environment(undefined=jinja2.StrictUndefined)
        .from_string(text)
        .render(env_var=_env_var)
    )


LOCAL_TARGETS = ("local", "delta", "iceberg", "s3")
"""The profile's targets of an in-process session: `local`, the ones that add a format, and
`s3` (`delta` with its warehouse on object storage)."""
TABLE_FORMATS = ("parquet", "delta", "iceberg")
"""Gold's table formats; each but parquet has a profile target of its name."""


def _profile() -> dict[str, Any]:
    """The project's profile (`cdc_spark` of profiles/profiles.yml), not rendered."""
    return yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())["cdc_spark"]


def _local_target_of(profile: dict[str, Any]) -> str:
    target = _render(str(profile["target"]))
    return target if target in LOCAL_TARGETS else "local"


def local_target() -> str:
    """The profile's target a local session is made for: the profile's own `target` (DBT_TARGET,
    else the target of CDC_GOLD_FILE_FORMAT) if it names an in-process one (`local`, `delta`,
    `iceberg`, `s3`), else `local`."""
    return _local_target_of(_profile())


def local_spark_conf(target: str | None = None) -> dict[str, str]:
    """The `server_side_parameters` of an in-process target (default `local_target()`),
    rendered with the environment."""
    profile = _profile()
    params = profile["outputs"][target or _local_target_of(profile)]["server_side_parameters"]
    conf = {str(key): _render(str(value)) for key, value in params.items()}
    # dbt-spark forces this for every statement; set it up front so both agree.
    conf["spark.sql.ansi.enabled"] = "false"
    expand_jar_globs(conf)
    return conf


def table_format_conf(table_format: str) -> dict[str, str]:
    """What the profile's target of a gold table format (`delta`, `iceberg`) sets beyond
    `local`: its jars (globs expanded), session extension, catalog and options. A Spark a
    project starts elsewhere (the cluster's Thrift Server) takes these, so that the profile
    stays their one source. `parquet`: nothing."""
    if table_format == "parquet":
        return {}
    if table_format not in TABLE_FORMATS:
        raise ValueError(f"no profile target for the table format {table_format!r}")
    base = local_spark_conf("local")
    conf = {k: v for k, v in local_spark_conf(table_format).items() if base.get(k) != v}
    if conf.get("spark.jars"):  # a process started elsewhere finds them from anywhere
        conf["spark.jars"] = ",".join(
            jar if "://" in jar else str(Path(jar).resolve())
            for jar in conf["spark.jars"].split(",")
        )
    return conf


def local_jars() -> list[str]:
    """The jars the `local` target passes (`spark.jars`, globs expanded) as absolute paths:
    the Avro and Parquet landing files' reader (and, with CDC_SPARK_KAFKA=true, the Kafka
    landing's jars). A Spark started elsewhere (the cluster's servers) takes them too, so that
    bronze reads there what it reads locally. Empty before `make setup`."""
    jars = local_spark_conf("local").get("spark.jars", "")
    return [jar if "://" in jar else str(Path(jar).resolve()) for jar in jars.split(",") if jar]


CONNECT_TARGET = "connect"
"""The profile's target of a Spark Connect server (`workbench.servers.connect_server`)."""


def remote_url() -> str | None:
    """The Spark Connect endpoint of the profile's `connect` target when DBT_TARGET names it,
    rendered with the environment; else None."""
    if os.environ.get("DBT_TARGET") != CONNECT_TARGET:
        return None
    profiles = yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())
    params = profiles["cdc_spark"]["outputs"][CONNECT_TARGET]["server_side_parameters"]
    return _render(str(params["spark.remote"]))


def get_local_spark():  # type: ignore[no-untyped-def]
    """Create (or return) the process's Spark session with the local profile's settings.

    The landing listing's Java UDFs (`landing_udfs.register`) are registered on it, and Spark's
    Python workers run this interpreter unless PYSPARK_PYTHON says otherwise. The
    warehouse's lock is taken first (`cdc_tools.warehouse_lock`): another process using
    the same Spark home is waited for.

    With DBT_TARGET=connect it is a client session of the target's Spark Connect server
    instead (`remote_url`), which dbt run in the same process shares, as it shares a local one.
    """
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    url = remote_url()
    if url is not None:
        from pyspark.sql import SparkSession

        return SparkSession.builder.config("spark.remote", url).getOrCreate()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from cdc_tools import warehouse_lock

    conf = local_spark_conf()
    warehouse_lock.acquire(conf)  # also done by the session hook; the lock is re-entrant
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    from cdc_tools import landing_udfs
    from cdc_tools.session_hook import quiet_query_context_logs

    landing_udfs.register(spark)
    quiet_query_context_logs()
    return spark


def query_rows(spark):  # type: ignore[no-untyped-def]
    """A function running a query on `spark` and returning its rows as dicts (nested rows
    too): what workbench.run_history_check and cdc_tools.run_report read through."""
    return lambda query: [row.asDict(recursive=True) for row in spark.sql(query).collect()]

"""The analyst's side in a real browser: dbt docs, source freshness and the quality reports.

The shared stream's build (tests/e2e/stream.py) feeds everything here: `dbt source freshness`,
`dbt docs generate` (the catalog must type every column of every silver and gold model),
the Great Expectations suites derived from the manifest (their Data Docs), and headless
Chromium, which loads both sites from a server on 127.0.0.1: model pages must render their
columns, the lineage graph must hold bronze, silver and gold models, and a screenshot of it
is kept in `target/docs_screenshots/lineage.png` for people to look at.

Chromium is Debian's `chromium`, installed by the test setup when absent (root and apt);
where that is impossible the browser tests skip with the reason, and under `CI=true` they
fail instead.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import REPO_ROOT
from cdc_tools.quality import QualityReport, run_quality
from cdc_tools.quality_suites import load_manifest, suites_from_manifest
from tests.docs.browser import chromium_for, dump_dom, screenshot, serve

# the shared stream's warehouse (tests/e2e/stream.py), read after its full refresh and
# before its `after` step changes a contract
pytestmark = [pytest.mark.spark, pytest.mark.stream("full_refresh")]

PACKAGE = "cdc_lakehouse"
# the consumer project the stream builds: the example tables are its models
CONSUMER = "cdc_lakehouse_integration_tests"
EXAMPLE_MODELS = frozenset({"stg_inventory__customers", "customers"})
SCREENSHOT = REPO_ROOT / "target" / "docs_screenshots" / "lineage.png"
LINEAGE_MODEL = "customers"
SOURCE_ID = "source.cdc_lakehouse.cdc_landing.bronze_cdc_messages"

# A same-origin page that loads the docs site in a frame and writes the ids of the lineage
# graph's visible nodes (cytoscape, `window.graph` of the docs app) into its own DOM, so
# that `--dump-dom` can read what the canvas drew.
PROBE = """<!doctype html><html><body>
<pre id="nodes">pending</pre>
<iframe id="site" src="{src}" width="1600" height="1000"></iframe>
<script>
function probe(left) {{
  var out = document.getElementById("nodes");
  try {{
    var graph = document.getElementById("site").contentWindow.graph;
    if (graph && graph.nodes().filter(function (n) {{ return n.visible(); }}).length) {{
      var ids = graph.nodes().filter(function (n) {{ return n.visible(); }})
        .map(function (n) {{ return n.id(); }});
      out.textContent = JSON.stringify(ids);
      return;
    }}
  }} catch (error) {{ out.textContent = "error: " + error; return; }}
  if (left > 0) {{ setTimeout(function () {{ probe(left - 1); }}, 250); }}
  else {{ out.textContent = "timeout"; }}
}}
probe(80);
</script></body></html>"""


def _model_id(name: str) -> str:
    return f"model.{CONSUMER if name in EXAMPLE_MODELS else PACKAGE}.{name}"


def _model_url(name: str, graph: bool = False) -> str:
    return f"/dbt/index.html#!/model/{_model_id(name)}" + ("?g_v=1" if graph else "")


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium_for("the docs browser tests")


@pytest.fixture(scope="module")
def built(stream):  # type: ignore[no-untyped-def]
    """The shared stream after its full refresh (every family, every model built), its
    source freshness, then the docs."""
    from tests.e2e.stream import step_vars

    project = stream.at("full_refresh")
    project.run(
        "source", "freshness", "--select", "source:cdc_landing", vars=step_vars("full_refresh")
    )
    project.run("docs", "generate", vars=step_vars("full_refresh"))
    return project


@pytest.fixture(scope="module")
def manifest(built) -> dict:  # type: ignore[no-untyped-def]
    return load_manifest(built.target_path / "manifest.json")


@pytest.fixture(scope="module")
def quality(built, manifest, tmp_path_factory: pytest.TempPathFactory) -> QualityReport:  # type: ignore[no-untyped-def]
    docs = tmp_path_factory.mktemp("gx-docs")
    return run_quality(built.spark, built.schema, docs, suites_from_manifest(manifest))


@pytest.fixture(scope="module")
def site(built, quality: QualityReport, browser: str) -> Iterator[str]:  # type: ignore[no-untyped-def]
    assert quality.docs_index is not None, quality.docs_errors
    probe = PROBE.format(src=_model_url(LINEAGE_MODEL, graph=True)).encode()
    roots = {"/dbt/": built.target_path, "/gx/": quality.docs_index.parent}
    with serve(roots, {"/probe.html": probe}) as url:
        yield url


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    return tmp_path / "chromium-profile"


def _layer_models(manifest: dict, layers: tuple[str, ...]) -> dict[str, dict]:
    return {
        unique_id: node
        for unique_id, node in manifest["nodes"].items()
        if node["resource_type"] == "model"
        and node["package_name"] in (PACKAGE, CONSUMER)
        and node["fqn"][1] in layers
    }


# --- catalog and freshness (no browser) ------------------------------------------------


def test_the_catalog_types_every_silver_and_gold_column(built, manifest) -> None:  # type: ignore[no-untyped-def]
    catalog = json.loads((built.target_path / "catalog.json").read_text())
    assert not catalog.get("errors"), catalog.get("errors")
    models = _layer_models(manifest, ("silver", "gold"))
    assert len(models) >= 10
    untyped: list[str] = []
    for unique_id, node in models.items():
        entry = catalog["nodes"].get(unique_id)
        assert entry is not None, f"{unique_id} is not in the catalog"
        columns = {name.lower(): column for name, column in entry["columns"].items()}
        assert columns, f"{unique_id} has no columns in the catalog"
        untyped += [f"{unique_id}.{n}" for n, c in columns.items() if not c.get("type")]
        missing = {c.lower() for c in node["columns"]} - set(columns)
        assert not missing, f"{unique_id}: documented columns not in the table: {missing}"
    assert untyped == []


def test_every_built_column_and_the_source_is_documented(built, manifest) -> None:  # type: ignore[no-untyped-def]
    """What the docs site shows for a table (the catalog's columns) has a description."""
    catalog = json.loads((built.target_path / "catalog.json").read_text())
    undocumented: list[str] = []
    for unique_id, node in _layer_models(manifest, ("bronze", "silver", "gold")).items():
        assert node["description"].strip(), f"{unique_id} has no description"
        described = {n.lower() for n, c in node["columns"].items() if c["description"].strip()}
        shown = catalog["nodes"][unique_id]["columns"]
        undocumented += [f"{unique_id}.{n}" for n in shown if n.lower() not in described]
    assert undocumented == []
    source = manifest["sources"][SOURCE_ID]
    assert source["description"].strip() and source["loaded_at_field"] == "_loaded_at"


# The catalog spells Spark's schema tree (`|-- id: integer`); contracts use SQL type names.
CATALOG_TYPE_NAMES = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint"}


def test_the_catalog_types_the_contract_columns_as_declared(built, manifest) -> None:  # type: ignore[no-untyped-def]
    catalog = json.loads((built.target_path / "catalog.json").read_text())
    node = manifest["nodes"][_model_id(LINEAGE_MODEL)]
    columns = catalog["nodes"][node["unique_id"]]["columns"]
    declared = {name: c["data_type"] for name, c in node["columns"].items() if c.get("data_type")}
    assert len(declared) >= 5
    for name, data_type in declared.items():
        shown = columns[name]["type"].replace(" ", "")
        assert CATALOG_TYPE_NAMES.get(shown, shown) == data_type, name


def test_source_freshness_passes_after_a_build(built) -> None:  # type: ignore[no-untyped-def]
    sources = json.loads((built.target_path / "sources.json").read_text())
    [result] = [r for r in sources["results"] if r["unique_id"] == SOURCE_ID]
    assert result["status"] == "pass", result
    assert result["max_loaded_at"] is not None


@pytest.mark.parametrize(("age_hours", "status"), [(30, "warn"), (100, "error")])
def test_an_old_load_warns_then_errors(  # type: ignore[no-untyped-def]
    built, tmp_path: Path, age_hours: int, status: str
) -> None:
    """A bronze whose newest load is older than the thresholds (24 h warn, 72 h error)."""
    prefix = "t_docs_stale"
    built.spark.sql(f"create database if not exists {prefix}_bronze")
    loaded = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(hours=age_hours)
    built.spark.createDataFrame([(loaded,)], "_loaded_at timestamp").write.mode(
        "overwrite"
    ).saveAsTable(f"{prefix}_bronze.bronze_cdc_messages")
    os.environ["CDC_SCHEMA"] = prefix
    try:
        run_dbt(
            ["source", "freshness", "--select", "source:cdc_landing"],
            target_path=tmp_path / "target",
            expect_success=False,
        )
    finally:
        os.environ["CDC_SCHEMA"] = built.schema
        built.spark.sql(f"drop database if exists {prefix}_bronze cascade")
    sources = json.loads((tmp_path / "target" / "sources.json").read_text())
    [result] = [r for r in sources["results"] if r["unique_id"] == SOURCE_ID]
    assert result["status"] == status, result


def test_source_freshness_reads_each_tables_commit_time(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`dbt source freshness` of the inventory tables by their source commit time (the
    consumer's source inventory_commit_times): each table's newest `_cdc_source_ts`, and a
    status from its age, between the thresholds here (warn, not error)."""
    silver = built.layer("silver")
    newest = {
        table: built.sql(
            f"select max(_cdc_source_ts) as ts, (unix_timestamp(current_timestamp()) - "
            f"unix_timestamp(max(_cdc_source_ts))) / 3600.0 as hours "
            f"from {silver}.stg_inventory__{table}"
        )[0]
        for table in ("customers", "orders", "order_lines")
    }
    hours = [float(row["hours"]) for row in newest.values()]
    run_dbt(
        ["source", "freshness", "--select", "source:inventory_commit_times"],
        target_path=tmp_path / "target",
        vars={
            "cdc_freshness_max_age_hours": int(min(hours)) - 1,
            "cdc_freshness_error_age_hours": int(max(hours)) + 10,
        },
        expect_success=False,
    )
    sources = json.loads((tmp_path / "target" / "sources.json").read_text())
    results = {
        r["unique_id"].rsplit(".", 1)[1]: r
        for r in sources["results"]
        if ".inventory_commit_times." in r["unique_id"]
    }
    assert set(results) == set(newest)
    for table, result in results.items():
        assert result["status"] == "warn", result
        wanted = newest[table]["ts"].replace(tzinfo=dt.timezone.utc)
        assert dt.datetime.fromisoformat(result["max_loaded_at"]) == wanted, table


# --- the docs site in Chromium ---------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "columns"),
    [
        ("bronze_cdc_messages", ("raw_line", "_source_file", "_loaded_at")),
        ("stg_inventory__customers", ("first_name", "last_seen_at", "_cdc_position")),
        ("customers", ("first_name", "balance", "_cdc_source_id")),
    ],
)
def test_model_pages_render_their_columns(  # type: ignore[no-untyped-def]
    browser: str, site: str, profile: Path, model: str, columns: tuple[str, ...]
) -> None:
    dom = dump_dom(browser, site + _model_url(model), profile)
    text = re.sub(r"<[^>]+>", " ", dom)
    assert re.search(rf"\b{model}\b", text), f"{model} page shows no model name"
    for column in columns:
        assert column in text, f"{model} page shows no column {column}"
    assert "decimal(12,2)" in text or model != "customers", "catalog types not shown"


def test_the_lineage_graph_renders_bronze_silver_gold(  # type: ignore[no-untyped-def]
    browser: str, site: str, profile: Path
) -> None:
    dom = dump_dom(browser, site + "/probe.html", profile, budget_ms=20_000)
    match = re.search(r'<pre id="nodes">(.*?)</pre>', dom, re.S)
    assert match, dom[:2000]
    raw = match.group(1).replace("&quot;", '"')
    assert raw.startswith("["), f"the lineage graph did not render: {raw[:300]}"
    nodes = set(json.loads(raw))
    for layer_model in (
        "bronze_cdc_messages",
        "stg_cdc__messages",
        "stg_inventory__customers",
        LINEAGE_MODEL,
    ):
        assert _model_id(layer_model) in nodes, sorted(nodes)

    path = screenshot(browser, site + _model_url(LINEAGE_MODEL, graph=True), SCREENSHOT, profile)
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1600, 1000)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50, f"{path} looks blank: {len(colours)} colours"
    background = max(count for count, _ in colours)
    assert background < 0.97 * 1600 * 1000, f"{path} is nearly one colour"


def test_the_quality_data_docs_render(  # type: ignore[no-untyped-def]
    browser: str, site: str, profile: Path, quality: QualityReport
) -> None:
    assert quality.failures() == [], "\n".join(quality.failures())
    index = dump_dom(browser, site + "/gx/index.html", profile)
    links = sorted(set(re.findall(r'href="((?:validations|expectations)/[^"#]+\.html)"', index)))
    assert links, "the Data Docs index links no suite or validation page"
    customers = [link for link in links if "customers" in link] or links
    page = dump_dom(browser, f"{site}/gx/{customers[0]}", profile)
    text = re.sub(r"<[^>]+>", " ", page)
    assert "customers" in text
    assert re.search(r"values must (?:not )?be|must be of type|must belong", text), text[:2000]

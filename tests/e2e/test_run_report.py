"""`make report` on the shared stream's run history, opened in headless Chromium: the page
loads, and each of its four plots (lag per source, messages per load, quarantine by reason,
seconds per layer) is laid out with every point of its data.

It registers no part: it reads the whole built stream (tests/e2e/stream.py), whose loads
include quarantined messages and whose builds recorded their layers' durations.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cdc_tools.run_report import collect, write_report
from tests.conftest import DbtProject
from tests.docs.browser import chromium_for, dump_dom

pytestmark = pytest.mark.spark


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


@pytest.fixture
def browser() -> str:
    return chromium_for("the report's browser test")


@pytest.mark.stream("noop")
def test_the_report_shows_every_plot_with_its_data(
    dbt_project: DbtProject, browser: str, tmp_path: Path
) -> None:
    silver = dbt_project.layer("silver")
    plots = collect(dbt_project.sql, silver)
    assert [plot.points > 0 for plot in plots] == [True] * 4, [p.title for p in plots]
    page = write_report(dbt_project.sql, silver, tmp_path / "report" / "index.html")
    dom = dump_dom(browser, page.as_uri(), tmp_path / "chromium")
    assert "<title>CDC run history</title>" in dom
    drawn = re.findall(r'<svg class="plot"[^>]*>', dom)
    assert len(drawn) == 4, dom[:2000]
    for tag, plot in zip(drawn, plots, strict=True):
        assert 'data-rendered="true"' in tag, (plot.title, tag)
        assert f'data-drawn="{plot.points}"' in tag, (plot.title, tag)

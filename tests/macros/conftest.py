"""The package's macros are compiled inline on the package itself (the root project), where
they are called by their own names, as its models call them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cdc_tools.local_spark import REPO_ROOT


@pytest.fixture(autouse=True)
def _on_the_package(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DBT_PROJECT_DIR", str(REPO_ROOT))
    yield

"""The docs tests' browser setup: found, installed with apt when absent, or a plain reason."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.docs import browser


def _completed(code: int, out: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["apt-get"], code, out, "")


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """No browser on PATH until `installed` is set; apt-get present; running as root."""
    state: dict[str, object] = {"installed": False, "apt": []}

    def which(name: str) -> str | None:
        if name == "apt-get":
            return "/usr/bin/apt-get"
        return "/usr/bin/chromium" if state["installed"] and name == "chromium" else None

    monkeypatch.setattr(browser.shutil, "which", which)
    monkeypatch.setattr(browser.os, "geteuid", lambda: 0)
    return state


def test_a_browser_on_path_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        browser.shutil, "which", lambda n: "/opt/chromium" if n == "chromium" else None
    )
    monkeypatch.setattr(browser, "_apt", lambda *a: pytest.fail("no install expected"))
    assert browser.ensure_chromium() == "/opt/chromium"


def test_an_absent_browser_is_installed_with_apt(
    monkeypatch: pytest.MonkeyPatch, no_browser: dict[str, object]
) -> None:
    calls: list[tuple[str, ...]] = []

    def apt(*args: str) -> subprocess.CompletedProcess[str]:
        calls.append(args)
        if args[0] == "install" and ("update",) in calls:
            no_browser["installed"] = True
            return _completed(0)
        return _completed(0 if args[0] == "update" else 100, "E: Unable to locate package")

    monkeypatch.setattr(browser, "_apt", apt)
    assert browser.ensure_chromium() == "/usr/bin/chromium"
    assert calls == [
        ("install", "-y", "--no-install-recommends", "chromium"),
        ("update",),
        ("install", "-y", "--no-install-recommends", "chromium"),
    ]


def test_a_failed_install_says_why(
    monkeypatch: pytest.MonkeyPatch, no_browser: dict[str, object]
) -> None:
    monkeypatch.setattr(browser, "_apt", lambda *a: _completed(100, "E: no network"))
    with pytest.raises(
        browser.BrowserUnavailable, match="apt-get install -y chromium.*\n.*no network"
    ):
        browser.ensure_chromium()


def test_without_root_the_reason_names_the_command(
    monkeypatch: pytest.MonkeyPatch, no_browser: dict[str, object]
) -> None:
    monkeypatch.setattr(browser.os, "geteuid", lambda: 1000)
    with pytest.raises(browser.BrowserUnavailable, match="sudo apt-get install -y chromium"):
        browser.ensure_chromium()


def test_the_server_serves_roots_and_pages_on_loopback(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p>site</p>")
    (tmp_path / "secret.txt").write_text("no")
    with browser.serve({"/dbt/": tmp_path / "site"}, {"/probe.html": b"<p>probe</p>"}) as url:
        assert url.startswith("http://127.0.0.1:")
        assert urllib.request.urlopen(f"{url}/dbt/").read() == b"<p>site</p>"
        assert urllib.request.urlopen(f"{url}/probe.html").read() == b"<p>probe</p>"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{url}/dbt/../secret.txt")
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{url}/dbt/", timeout=2)

"""Headless Chromium for the docs tests: find or install it, serve a folder, load a page.

`ensure_chromium` finds Debian's `chromium` (or Chrome) on PATH and, when absent, installs
it with `apt-get install -y chromium` (root only; `apt-get update` first when the package is
unknown). It raises `BrowserUnavailable` with the reason when that is impossible. Pages are
loaded with the command-line headless mode: `--dump-dom` prints the DOM after the page's
scripts ran for `--virtual-time-budget` milliseconds, `--screenshot` writes a PNG.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_TIMEOUT_S = 900
PAGE_TIMEOUT_S = 180
BUDGET_MS = 10_000
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--hide-scrollbars",
    "--disable-extensions",
    "--disable-background-networking",
)


class BrowserUnavailable(RuntimeError):
    """No headless browser could be found or installed (the message says why)."""


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _apt(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(
        ["apt-get", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )


def ensure_chromium() -> str:
    """The path of a headless-capable Chromium, installed from Debian's package if needed."""
    found = find_browser()
    if found:
        return found
    if shutil.which("apt-get") is None:
        raise BrowserUnavailable("no chromium on PATH and no apt-get to install it with")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise BrowserUnavailable(
            "no chromium on PATH and not root: install it with `sudo apt-get install -y chromium`"
        )
    result = _apt("install", "-y", "--no-install-recommends", "chromium")
    if result.returncode != 0:
        _apt("update")
        result = _apt("install", "-y", "--no-install-recommends", "chromium")
    found = find_browser()
    if result.returncode != 0 or not found:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-8:])
        raise BrowserUnavailable(f"`apt-get install -y chromium` failed:\n{tail}")
    return found


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves `roots` (URL prefix -> folder) and `pages` (path -> bytes); logs nothing."""

    roots: Mapping[str, Path] = {}
    pages: Mapping[str, bytes] = {}

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, folder in self.roots.items():
            if clean.startswith(prefix):
                relative = clean[len(prefix) :].lstrip("/") or "index.html"
                target = (folder / relative).resolve()
                if folder.resolve() in (target, *target.parents):
                    return str(target)
        return str(Path("/nonexistent") / clean.lstrip("/"))

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        page = self.pages.get(self.path.split("?", 1)[0])
        if page is None:
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return


@contextlib.contextmanager
def serve(roots: Mapping[str, Path], pages: Mapping[str, bytes] | None = None) -> Iterator[str]:
    """Serve folders under URL prefixes on 127.0.0.1 (a free port); yields the base URL and
    stops the server on exit."""
    handler = type("Handler", (_Handler,), {"roots": dict(roots), "pages": dict(pages or {})})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _run(browser: str, *args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    argv = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=PAGE_TIMEOUT_S, check=False)


def dump_dom(browser: str, url: str, profile: Path, budget_ms: int = BUDGET_MS) -> str:
    """The page's DOM after its scripts ran for `budget_ms` of virtual time."""
    result = _run(
        browser,
        f"--virtual-time-budget={budget_ms}",
        "--window-size=1600,1000",
        "--dump-dom",
        url,
        profile=profile,
    )
    if result.returncode != 0 or not result.stdout.strip():
        raise AssertionError(f"chromium --dump-dom {url} failed: {result.stderr[-2000:]}")
    return result.stdout


def screenshot(
    browser: str,
    url: str,
    path: Path,
    profile: Path,
    size: tuple[int, int] = (1600, 1000),
    budget_ms: int = BUDGET_MS,
) -> Path:
    """A PNG of the page after its scripts ran for `budget_ms` of virtual time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    result = _run(
        browser,
        f"--virtual-time-budget={budget_ms}",
        f"--window-size={size[0]},{size[1]}",
        f"--screenshot={path}",
        url,
        profile=profile,
    )
    if result.returncode != 0 or not path.is_file():
        raise AssertionError(f"chromium --screenshot {url} failed: {result.stderr[-2000:]}")
    return path


@functools.cache
def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def chromium_for(tests: str) -> str:
    """Chromium for `tests` (ensure_chromium); without one they skip with the reason, and
    under `CI=true` they fail instead."""
    import pytest

    try:
        return ensure_chromium()
    except BrowserUnavailable as error:
        if in_ci():
            pytest.fail(f"CI=true: {tests} may not skip: {error}")
        pytest.skip(f"no headless browser: {error}")

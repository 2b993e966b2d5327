"""The built book, served on localhost, and Debian's Chromium driven by Playwright.

The browser tests read the book the way a reader does: over HTTP, in a real
browser, after the build. They need two things the unit tests do not, the
built HTML (``_build/html``, made by ``book/build.py``) and Chromium at
``/usr/bin/chromium`` (installed by the project's set-up from Debian; the
tests never download a browser). When either is missing on a developer's
machine the tests skip and say what to do; under CI (``CI`` set) a missing
build or browser is a failure, so a green CI run always means the book was
really opened.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from book_site import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, HTML, ROOT, missing


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "browser: opens the built book (_build/html) in Chromium through Playwright; "
        "needs the book built and /usr/bin/chromium",
    )


@pytest.fixture(scope="session")
def built_html() -> Path:
    if not (HTML / "index.html").is_file():
        missing(f"no built book at {HTML.relative_to(ROOT)}: run `python book/build.py` first")
    return HTML


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def site(built_html: Path) -> Iterator[str]:
    """Base URL of the built book, served from a thread on a free local port."""
    handler = partial(_QuietHandler, directory=str(built_html))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="book-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.is_file():
        missing(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (Debian), or set CVBOOK_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

"""The rendered book, opened page by page in Chromium the way a reader opens it.

Every page in ``_toc.yml`` is loaded once from a local HTTP server; the tests
then ask of each page what a reader would notice: an error in the console, a
stylesheet, script, image or font that did not arrive, a figure that is a
broken image or has no alt text or no caption, a glued number that never got pasted into the
prose, and a link inside the book that leads nowhere. The book must also work
offline, so any request to another host is blocked and reported. Finally the
search page has to find a chapter by a word of its title, and a screenshot of
the introduction is kept under ``test-artifacts/`` for a human to look at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from book_site import missing, source_of, toc_files

pytestmark = pytest.mark.browser

PAGES = toc_files()
LOAD_TIMEOUT_MS = 30_000

# Text myst-nb or docutils leave behind when a glue reference is not rendered:
# the raw role (the MyST extension did not run), docutils' system message, or
# myst-nb's "key not found" messages.
UNRENDERED_GLUE = re.compile(
    r"\{glue(?::[a-z]+)?\}`|System Message:|not found in glue data|Glue reference .* not found|glue_ref"
)

# Directives whose body is not MyST prose, so roles inside them are not rendered.
LITERAL_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "eval-rst", "raw", "math"}


@dataclass
class Visit:
    """What one page load showed."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    offsite_requests: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    text: str = ""
    pasted_text: list[str] = field(default_factory=list)


def _html_path(page: str) -> str:
    return f"{page}.html"


def _load(browser, site: str, path: str, artifacts_dir: Path | None = None) -> Visit:
    """Open one page, wait for it and its images, and record everything of interest."""
    visit = Visit(url=f"{site}/{path}")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()

    def route(route) -> None:
        url = route.request.url
        if url.startswith(site) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            visit.offsite_requests.append(url)
            route.abort()

    page.route("**/*", route)
    _watch(page, site, visit)
    try:
        page.goto(visit.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
        visit.images = page.evaluate(_IMAGES_JS)
        visit.hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]'), a => a.href)")
        visit.text = page.evaluate(_PROSE_TEXT_JS)
        visit.pasted_text = page.evaluate(
            "() => Array.from(document.querySelectorAll('span.pasted-text'), s => s.textContent)"
        )
        if artifacts_dir is not None:
            page.evaluate("() => window.scrollTo(0, 0)")
            page.wait_for_timeout(300)  # let the sticky header settle after the scroll
            page.screenshot(path=str(artifacts_dir / "introduction.png"), full_page=True)
    finally:
        context.close()
    return visit


def _watch(page, site: str, visit: Visit) -> None:
    """Record console errors, uncaught exceptions and failed requests of one page."""

    def console(msg) -> None:
        where = msg.location or {}
        url = where.get("url", "")
        # A blocked off-site request also logs "Failed to load resource": it is
        # reported once, by test_no_request_leaves_the_site.
        if msg.type == "error" and not _browser_favicon(site, url) and url not in visit.offsite_requests:
            visit.console_errors.append(f"{msg.text} [{where.get('url', '?')}:{where.get('lineNumber', '?')}]")

    def failed(req) -> None:
        if req.url.startswith(site) and not _browser_favicon(site, req.url):
            visit.failed_requests.append(f"{req.resource_type} {req.url} ({req.failure})")

    def response(resp) -> None:
        if resp.status >= 400 and not _browser_favicon(site, resp.url):
            visit.failed_requests.append(f"{resp.request.resource_type} {resp.url} (HTTP {resp.status})")

    page.on("console", console)
    page.on("pageerror", lambda exc: visit.console_errors.append(f"uncaught: {exc}"))
    page.on("requestfailed", failed)
    page.on("response", response)


def _browser_favicon(site: str, url: str) -> bool:
    """Chromium asks for ``/favicon.ico`` on its own when a page declares no icon.

    That request comes from the browser, not from the book (a page that declares
    an icon gets it checked like any other image), so its 404 is not counted.
    """
    return url.split("?")[0] == f"{site}/favicon.ico"


# The page's text outside code: a chapter may show glue syntax as an example in code.
_PROSE_TEXT_JS = """
() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll("pre, code, .highlight, script, style, template").forEach(e => e.remove());
  return copy.textContent;
}
"""

# Make lazy images load, then wait (bounded) for every image to finish, and report each.
_IMAGES_JS = """
async () => {
  const images = Array.from(document.images);
  for (const img of images) { img.loading = "eager"; }
  window.scrollTo(0, document.body.scrollHeight);
  await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener("load", done, {once: true});
    img.addEventListener("error", done, {once: true});
    setTimeout(done, 10000);
  })));
  return images.map(img => ({
    src: img.getAttribute("src") || "",
    naturalWidth: img.naturalWidth,
    alt: img.getAttribute("alt"),
    inArticle: img.closest("article") !== null,
    caption: ((img.closest("figure") || {querySelector: () => null}).querySelector("figcaption") || {textContent: ""})
      .textContent.trim(),
  }));
}
"""


@pytest.fixture(scope="session")
def visits(browser, site: str, built_html: Path, artifacts: Path):
    """Each TOC page loaded once, on first use, shared by all the checks."""
    cache: dict[str, Visit] = {}

    def get(page: str) -> Visit:
        if page not in cache:
            html = _html_path(page)
            if not (built_html / html).is_file():
                pytest.fail(f"{page} is in _toc.yml but {html} was not built")
            root = page == (PAGES[0] if PAGES else None)
            cache[page] = _load(browser, site, html, artifacts if root else None)
        return cache[page]

    return get


@pytest.fixture(scope="session")
def ids_of(built_html: Path):
    """Element ids (and old-style ``<a name>``) of a built file, parsed once."""
    cache: dict[Path, set[str]] = {}

    def get(path: Path) -> set[str]:
        if path not in cache:
            parser = _Anchors()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            cache[path] = parser.ids
        return cache[path]

    return get


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (key == "id" or (key == "name" and tag == "a")):
                self.ids.add(value)


def test_toc_has_pages() -> None:
    if not PAGES:
        missing("no _toc.yml with pages at the repository root")
    assert PAGES[0], "_toc.yml has no root page"


@pytest.mark.parametrize("page", PAGES)
def test_no_console_errors(page: str, visits) -> None:
    errors = visits(page).console_errors
    assert not errors, f"{page}: console errors:\n" + "\n".join(errors)


@pytest.mark.parametrize("page", PAGES)
def test_every_request_succeeds(page: str, visits) -> None:
    failed = visits(page).failed_requests
    assert not failed, f"{page}: requests that failed (CSS, JS, image, font, ...):\n" + "\n".join(failed)


@pytest.mark.parametrize("page", PAGES)
def test_no_request_leaves_the_site(page: str, visits) -> None:
    """A reader without internet must get the whole page: nothing may come from a CDN."""
    offsite = visits(page).offsite_requests
    assert not offsite, f"{page}: requests to other hosts (blocked; the book must work offline):\n" + "\n".join(
        offsite
    )


@pytest.mark.parametrize("page", PAGES)
def test_images_load_and_have_alt_text(page: str, visits) -> None:
    problems = []
    for img in visits(page).images:
        if img["naturalWidth"] == 0:
            problems.append(f"image did not load: {img['src']}")
        if not (img["alt"] or "").strip():
            problems.append(f"image without alt text: {img['src']}")
    assert not problems, f"{page}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_figures_have_captions(page: str, visits) -> None:
    """Every image in a page's content is a figure with a caption that says what to see."""
    bare = [img["src"] for img in visits(page).images if img["inArticle"] and not img["caption"]]
    assert not bare, f"{page}: images without a figure caption:\n" + "\n".join(bare)


@pytest.mark.parametrize("page", PAGES)
def test_glue_is_rendered(page: str, visits) -> None:
    visit = visits(page)
    leftovers = sorted({m.group(0) for m in UNRENDERED_GLUE.finditer(visit.text)})
    assert not leftovers, f"{page}: unrendered glue or system messages in the page text: {leftovers}"
    source = source_of(page)
    leaked = [key for key in _glued_keys(source) if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", visit.text)]
    assert not leaked, (
        f"{page}: glue keys shown as raw text in the prose instead of their values: {leaked} "
        "(a {glue:text} role inside backticks is code, not a role)"
    )
    expected = _glue_text_keys(source) if source else []
    pasted = [t for t in visit.pasted_text if t.strip()]
    assert len(pasted) >= len(expected), (
        f"{page}: the source uses {{glue:text}} {len(expected)} times ({', '.join(expected)}) "
        f"but only {len(pasted)} pasted values are on the page: a glue key was not found "
        "(myst-nb drops a missing key silently unless the build treats warnings as errors)"
    )


@pytest.mark.parametrize("page", PAGES)
def test_internal_links_resolve(page: str, visits, site: str, built_html: Path, ids_of) -> None:
    broken = []
    for href in sorted(set(visits(page).hrefs)):
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != site:
            continue
        path = unquote(parts.path).lstrip("/")
        target = built_html / path
        if path == "" or path.endswith("/"):
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href}: no file {target.relative_to(built_html)}")
            continue
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html" and fragment not in ids_of(target):
            broken.append(f"{href}: no element with id {fragment!r} in {target.relative_to(built_html)}")
    assert not broken, f"{page}: internal links that lead nowhere:\n" + "\n".join(broken)


def test_introduction_screenshot(visits, artifacts: Path) -> None:
    if not PAGES:
        missing("no _toc.yml with pages at the repository root")
    visits(PAGES[0])
    shot = artifacts / "introduction.png"
    assert shot.is_file() and shot.stat().st_size > 10_000, f"no usable screenshot at {shot}"


def test_search_finds_a_chapter(browser, site: str, built_html: Path) -> None:
    """Sphinx's search page (client-side, from searchindex.js) finds a chapter by a word of its title."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    chapters = [p for p in PAGES[1:] if "chapters/" in p] or PAGES[1:]
    if not chapters:
        missing("no chapter in _toc.yml to search for")
    chapter = chapters[0]
    title = _title_of(built_html / _html_path(chapter))
    words = [w for w in re.findall(r"[A-Za-z]{5,}", title) if w.lower() not in _COMMON]
    assert words, f"no searchable word in the title of {chapter}: {title!r}"
    term = max(words, key=len)
    context = browser.new_context()
    page = context.new_page()
    visit = Visit(url=f"{site}/search.html?q={term}")
    _watch(page, site, visit)
    wanted = f"{site}/{_html_path(chapter)}"
    hits_js = "() => Array.from(document.querySelectorAll('#search-results ul.search li a'), a => a.href)"
    found = False
    try:
        page.goto(visit.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        # Sphinx lists results one by one: wait until the chapter is among them (or time out).
        try:
            page.wait_for_function(
                "wanted => Array.from(document.querySelectorAll('#search-results ul.search li a'))"
                ".some(a => a.href.split('#')[0].split('?')[0] === wanted)",
                arg=wanted,
                timeout=LOAD_TIMEOUT_MS,
            )
            found = True
        except PlaywrightTimeout:
            pass
        hits = page.evaluate(hits_js)
    finally:
        context.close()
    problems = visit.console_errors + visit.failed_requests
    assert not problems, "search page: console errors or failed requests:\n" + "\n".join(problems)
    assert found, f"searching for {term!r} (from the title of {chapter}) did not list {wanted}; got {hits[:10]}"


_COMMON = {"about", "after", "their", "there", "these", "which", "where", "while", "other", "would", "chapter"}


def _title_of(path: Path) -> str:
    match = re.search(r"<h1[^>]*>(.*?)</h1>", path.read_text(encoding="utf-8"), re.S)
    assert match, f"no <h1> in {path}"
    return re.sub(r"<[^>]+>|&[a-z#0-9]+;|#", " ", match.group(1))


# -- glue references in a page's source ----------------------------------------------------


def _glue_text_keys(source: Path) -> list[str]:
    """Every ``{glue:text}`` reference a reader should see pasted into the page, in order."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    parser = create_md_parser(MdParserConfig(enable_extensions={"colon_fence", "dollarmath"}), RendererHTML)
    if source.suffix == ".ipynb":
        cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
        texts = [
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c["cell_type"] == "markdown"
        ]
    else:
        texts = [_strip_front_matter(source.read_text(encoding="utf-8"))]
    keys: list[str] = []
    for text in texts:
        keys += _roles(parser, text)
    return keys


def _glued_keys(source: Path | None) -> list[str]:
    """Keys a notebook glues (myst-nb marks each glued output with its key)."""
    if source is None or source.suffix != ".ipynb":
        return []
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    keys = {
        output.get("metadata", {}).get("scrapbook", {}).get("name")
        for cell in cells
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
    }
    return sorted(k for k in keys if k)


def _roles(parser, text: str) -> list[str]:
    keys = []
    for token in parser.parse(text):
        for child in token.children or []:
            if child.type == "myst_role" and child.meta.get("name") == "glue:text":
                keys.append(child.content)
        if token.type in {"fence", "colon_fence"} and token.info.startswith("{"):
            name = token.info[1:].split("}", 1)[0].strip()
            if name not in LITERAL_DIRECTIVES:
                keys += _roles(parser, _directive_body(token.content))
    return keys


def _directive_body(content: str) -> str:
    """A directive's content without its ``:option:`` lines or ``---`` option block."""
    lines = content.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        return "\n".join(lines[end + 1 :])
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            return text[end + 4 :]
    return text

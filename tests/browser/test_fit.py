"""Every output fits where it is shown: figures whole on a phone, nothing wider than the column on a desktop.

Issue 49 found, at 390 px, every SVG figure drawn 624 px wide in a 358 px frame
that scrolled sideways with no cue (the front page's Fig. 1 lost its replan
block, its budget line and half its legend), and at 1280 px 39 outputs wider
than the text column: rerun commands a line too long, a departures table
287 px over, a speed table clipped. Each page is opened once at each width,
every folded table unfolded, and these tests ask:

At 390 x 844 (a phone held upright):

* every figure is whole: its box inside the screen, its frame not scrolling
  sideways, its image no wider than the frame;
* a chapter figure shows its narrow drawing (``img.cvfig-narrow``,
  :mod:`cvlib.presentation.narrow_figures`), whose smallest text is at least
  9 CSS px as drawn; no chapter figure lacks one;
* a table that scrolls sideways says so (``cvbook.js`` marks its frame, the
  stylesheet writes a cue above it) and keeps its first column in view: after
  scrolling its frame, the first cell of each row is still where it was.

At 1280 x 900 (a desktop):

* no output (printed text and commands included), table or figure is wider
  than the text column, nor scrolls inside it; code a reader reads as code (a
  cell's input, a listing in a page's prose) may still scroll in its block;
* no table of more than :data:`LONG_TABLE_ROWS` rows is shown unfolded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from book_site import toc_files

pytestmark = pytest.mark.browser

PAGES = toc_files()
PHONE = (390, 844)
DESKTOP = (1280, 900)
MIN_TEXT_PX = 9.0
#: A table longer than this is folded behind its summary (cvlib.presentation.tables folds after 12).
LONG_TABLE_ROWS = 15
LOAD_TIMEOUT_MS = 30_000

_PHONE_JS = """
async () => {
  const article = document.querySelector("article") || document.body;
  const images = Array.from(article.querySelectorAll("img"));
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener("load", done, {once: true});
    img.addEventListener("error", done, {once: true});
    setTimeout(done, 10000);
  })));
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  window.dispatchEvent(new Event("resize"));  // cvbook.js measures the unfolded tables again
  const visible = el => el.getClientRects().length > 0;
  const name = img => (img.getAttribute("src") || "").split("/").pop();
  const figures = [];
  // a figure is a <figure>, or a cell's output that shows an image without one
  const boxes = [...article.querySelectorAll("figure"),
    ...Array.from(article.querySelectorAll(".cell_output")).filter(o => o.querySelector("img") && !o.querySelector("figure")
      && !o.closest("figure"))];
  for (const fig of boxes) {
    const shown = Array.from(fig.querySelectorAll("img")).filter(visible);
    const box = fig.getBoundingClientRect();
    figures.push({
      id: fig.id || (shown[0] ? name(shown[0]) : "(no image)"),
      left: box.left, right: box.right,
      scrolls: fig.scrollWidth > fig.clientWidth + 1,
      wideWithoutNarrow: fig.querySelectorAll("img.cvfig-wide").length !== fig.querySelectorAll("img.cvfig-narrow").length
        || (fig.querySelector("img[src$='.svg']:not(.cvfig-wide):not(.cvfig-narrow)") !== null),
      images: shown.map(img => ({
        src: name(img), narrow: img.classList.contains("cvfig-narrow"),
        natural: img.naturalWidth, drawn: img.getBoundingClientRect().width,
        left: img.getBoundingClientRect().left, right: img.getBoundingClientRect().right,
      })),
    });
  }
  const tables = [];
  for (const frame of article.querySelectorAll(".cvtable-wrap, .pst-scrollable-table-container")) {
    const table = frame.querySelector("table");
    if (!table || !visible(frame) || table.scrollWidth <= frame.clientWidth + 1) continue;
    const cue = getComputedStyle(frame, "::before").content;
    const firsts = Array.from(table.querySelectorAll("tr")).map(tr => tr.firstElementChild).filter(Boolean);
    const before = firsts.map(cell => cell.getBoundingClientRect().left);
    frame.scrollLeft = 120;
    const offsets = firsts.map((cell, k) => Math.round(cell.getBoundingClientRect().left - before[k]));
    frame.scrollLeft = 0;
    tables.push({
      head: (table.querySelector("th, td") || {textContent: ""}).textContent.trim().slice(0, 40),
      width: table.scrollWidth, frame: frame.clientWidth,
      cue: cue && cue !== "none" && cue !== "normal" ? cue : "",
      stuck: offsets.every(x => Math.abs(x) <= 2),
    });
  }
  return {figures, tables, viewport: window.innerWidth};
}
"""

_DESKTOP_JS = """
() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const article = document.querySelector("article.bd-article") || document.querySelector("article");
  const style = getComputedStyle(article);
  const left = article.getBoundingClientRect().left + parseFloat(style.paddingLeft);
  const right = article.getBoundingClientRect().right - parseFloat(style.paddingRight);
  const visible = el => el.getClientRects().length > 0;
  const wide = [];
  const describe = el => (el.tagName.toLowerCase() + "." + Array.from(el.classList).join(".")).slice(0, 60)
    + ": " + el.textContent.trim().replace(/\\s+/g, " ").slice(0, 70);
  // what a page shows as a result: every cell output (printed text and commands included), every table and
  // figure; code a reader reads as code (a cell's input, a listing in prose) may scroll inside its block
  const outputs = article.querySelectorAll(
    ".cell_output > *, .cell_output .output, .cell_output pre, table, .cvtable-wrap, .pst-scrollable-table-container, "
    + "figure, img");
  for (const el of outputs) {
    if (!visible(el) || el.closest("nav, .bd-sidebar, .sig, .cell_input")) continue;
    const box = el.getBoundingClientRect();
    const over = Math.max(box.right - right, left - box.left, el.scrollWidth - el.clientWidth);
    if (over > 1) wide.push(`${Math.round(over)} px over: ${describe(el)}`);
  }
  const long = [];
  for (const table of article.querySelectorAll("table")) {
    const rows = table.querySelectorAll("tbody tr").length;
    if (rows > LONG_TABLE_ROWS && !table.closest("details")) long.push(`${rows} rows: ${describe(table)}`);
  }
  return {wide, long, column: right - left};
}
""".replace("LONG_TABLE_ROWS", str(LONG_TABLE_ROWS))


def _opener(browser, site: str, built_html: Path, size: tuple[int, int], script: str, phone: bool):
    cache: dict[str, dict] = {}

    def get(page: str) -> dict:
        if page not in cache:
            if not (built_html / f"{page}.html").is_file():
                pytest.fail(f"{page} is in _toc.yml but {page}.html was not built")
            context = browser.new_context(viewport={"width": size[0], "height": size[1]}, is_mobile=phone,
                                          has_touch=phone)
            tab = context.new_page()
            tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(site) else route.abort())
            try:
                tab.goto(f"{site}/{page}.html", wait_until="load", timeout=LOAD_TIMEOUT_MS)
                tab.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
                cache[page] = tab.evaluate(script)
            finally:
                context.close()
        return cache[page]

    return get


@pytest.fixture(scope="session")
def on_phone_fit(browser, site: str, built_html: Path):
    return _opener(browser, site, built_html, PHONE, _PHONE_JS, phone=True)


@pytest.fixture(scope="session")
def on_desktop(browser, site: str, built_html: Path):
    return _opener(browser, site, built_html, DESKTOP, _DESKTOP_JS, phone=False)


def smallest_text_px(natural: float, drawn: float) -> float:
    """The smallest text of an SVG figure drawn ``drawn`` px wide: 9 pt (12 CSS px) at its natural width, scaled."""
    from cvlib.presentation.style import MIN_FONT_PT

    return MIN_FONT_PT * 96 / 72 * drawn / natural


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_is_whole_at_390_px(page: str, on_phone_fit) -> None:
    found = on_phone_fit(page)
    width = found["viewport"]
    problems = []
    for fig in found["figures"]:
        if fig["left"] < -1 or fig["right"] > width + 1:
            problems.append(f"{fig['id']}: the figure spans {fig['left']:.0f} to {fig['right']:.0f} px")
        if fig["scrolls"]:
            problems.append(f"{fig['id']}: the figure scrolls sideways inside its frame")
        if fig["wideWithoutNarrow"]:
            problems.append(f"{fig['id']}: an SVG figure without its narrow drawing")
        for img in fig["images"]:
            if img["right"] > fig["right"] + 1 or img["left"] < fig["left"] - 1:
                problems.append(f"{fig['id']}: {img['src']} reaches outside its figure")
            if img["src"].endswith(".svg") and img["natural"] and img["drawn"]:
                px = smallest_text_px(img["natural"], img["drawn"])
                if px < MIN_TEXT_PX - 0.05:
                    problems.append(f"{fig['id']}: {img['src']} drawn {img['drawn']:.0f} of {img['natural']} px, "
                                    f"smallest text {px:.1f} px")
            if img["src"].endswith(".svg") and not img["narrow"]:
                problems.append(f"{fig['id']}: shows the wide drawing {img['src']} on a phone")
    assert not problems, f"{page} at {width} px:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_a_wide_table_at_390_px_keeps_its_first_column_and_says_it_scrolls(page: str, on_phone_fit) -> None:
    problems = []
    for table in on_phone_fit(page)["tables"]:
        what = f"table {table['head']!r} ({table['width']} px in a {table['frame']} px frame)"
        if not table["cue"]:
            problems.append(f"{what}: no cue that it scrolls sideways")
        if not table["stuck"]:
            problems.append(f"{what}: its first column scrolls out of view")
    assert not problems, f"{page} at {PHONE[0]} px:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_output_is_wider_than_the_column_at_1280_px(page: str, on_desktop) -> None:
    found = on_desktop(page)
    assert not found["wide"], (
        f"{page} at {DESKTOP[0]} px: outputs wider than the {found['column']:.0f} px column:\n" + "\n".join(found["wide"])
    )


@pytest.mark.parametrize("page", PAGES)
def test_a_long_table_is_folded(page: str, on_desktop) -> None:
    long = on_desktop(page)["long"]
    assert not long, f"{page}: tables of more than {LONG_TABLE_ROWS} rows shown unfolded:\n" + "\n".join(long)

"""The built book read the way a reader reads a published research book, at 1280 px.

Each page in ``_toc.yml`` is opened once in Chromium at the width of a laptop
screen, and these tests ask what issue 12 asked of every page:

* no table, notebook output or visible code cell is wider than the column it
  sits in, and none spills out of its box or is cut off; since issue 37 a
  table too wide for the column, or a code line longer than it, scrolls
  sideways inside its own frame (words stay whole, indentation stays), so a
  frame that scrolls and fits the column passes;
* every figure is drawn at most at its natural size: an SVG at its own size
  (so its 9-point text stays 9 points), a PNG at no more than half its pixel
  width (at least 2x density);
* no glued value reads ``True`` or ``False``;
* no visible code cell is longer than 15 lines (plumbing is hidden);
* every chapter opens with its Key-finding admonition before its first
  section, shows a captioned figure with alt text, and has What we found,
  Limits and Run it yourself sections; the chapters that reproduce the
  article end with exercises whose solutions are in dropdowns;
* the references page lists every work the book cites.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from book_site import ROOT, missing, source_of, toc_files, toc_parts

pytestmark = pytest.mark.browser

PAGES = toc_files()
PARTS = toc_parts()
WIDTH = 1280
MAX_CODE_LINES = 15
LOAD_TIMEOUT_MS = 30_000

#: Parts whose notebook pages are the book's chapters, held to the chapter shape.
CHAPTER_PARTS = ("Reproducing the article", "Beyond the article", "Scale", "Code-anchored notes", "Progressive fidelity")
#: Chapters that reproduce the article end with exercises.
EXERCISE_PARTS = ("Reproducing the article",)
#: The template pages a reader copies: a captioned figure and a Run-it-yourself section, no findings of their own.
FORK_PARTS = ("Your own experiments",)


def _pages_in(parts: tuple[str, ...], notebooks_only: bool = True) -> list[str]:
    pages = [p for caption in parts for p in PARTS.get(caption, [])]
    return [p for p in pages if not notebooks_only or "/chapters/" in p]


CHAPTERS = _pages_in(CHAPTER_PARTS)
EXERCISE_CHAPTERS = _pages_in(EXERCISE_PARTS)
FORK_CHAPTERS = _pages_in(FORK_PARTS)

# Everything measured in one pass over a page (Chromium, 1280 px wide).
_MEASURE_JS = """
async () => {
  const article = document.querySelector("article") || document.body;
  const visible = el => el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  const images = Array.from(article.querySelectorAll("img"));
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener("load", done, {once: true});
    img.addEventListener("error", done, {once: true});
    setTimeout(done, 10000);
  })));
  const wide = [];
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const check = (el, what) => {
    if (!visible(el)) return;
    // the box that must fit the column: the element, or the frame it scrolls in
    let box = el;
    while (box !== article && box.parentElement && !scrolls(box)) box = box.parentElement;
    if (box === article || !scrolls(box)) box = el;
    const parent = box.parentElement;
    const room = parent ? parent.clientWidth : box.clientWidth;
    const width = box.getBoundingClientRect().width;
    if (!scrolls(el) && el.scrollWidth > el.clientWidth + 1) {
      wide.push(`${what} spills out of its box: content ${el.scrollWidth} px in ${el.clientWidth} px`);
    } else if (width > room + 1) {
      wide.push(`${what} is ${Math.round(width)} px wide in a ${room} px column`);
    }
  };
  article.querySelectorAll("table").forEach((el, i) => check(el, `table ${i + 1}`));
  article.querySelectorAll(".cell_output .output, .cell_output > div, .cvtable-wrap").forEach(
    (el, i) => check(el, `output ${i + 1}`));
  article.querySelectorAll(".cell_input pre").forEach((el, i) => check(el, `code cell ${i + 1}`));
  const figures = images.filter(visible).map(img => ({
    src: img.getAttribute("src") || "",
    natural: img.naturalWidth,
    drawn: img.getBoundingClientRect().width,
    alt: (img.getAttribute("alt") || "").trim(),
    caption: ((img.closest("figure") || {querySelector: () => null}).querySelector("figcaption") || {textContent: ""})
      .textContent.trim(),
  }));
  const code = Array.from(article.querySelectorAll(".cell_input pre")).filter(visible).map(
    pre => pre.textContent.replace(/\\n+$/, "").split("\\n").length);
  const pasted = Array.from(article.querySelectorAll("span.pasted-text"), s => s.textContent.trim());
  const headings = Array.from(article.querySelectorAll("section > h2"), h => h.textContent.replace(/#$/, "").trim());
  const firstSection = article.querySelector("section section");
  const keyFinding = Array.from(article.querySelectorAll("div.admonition")).find(
    d => /^Key findings?$/.test((d.querySelector(".admonition-title") || {textContent: ""}).textContent.trim()));
  const keyBeforeSections = !!keyFinding && (!firstSection ||
    !!(keyFinding.compareDocumentPosition(firstSection) & Node.DOCUMENT_POSITION_FOLLOWING));
  const exercises = article.querySelectorAll("div.admonition.exercise").length;
  const solutions = Array.from(article.querySelectorAll("details")).filter(
    d => /solution/i.test((d.querySelector("summary") || {textContent: ""}).textContent)).length;
  return {wide, figures, code, pasted, headings, keyFinding: !!keyFinding, keyBeforeSections, exercises, solutions,
          text: article.innerText};
}
"""


@pytest.fixture(scope="session")
def measured(browser, site: str, built_html: Path):
    """Each TOC page opened once at 1280 px and measured, on first use."""
    cache: dict[str, dict] = {}

    def get(page: str) -> dict:
        if page not in cache:
            if not (built_html / f"{page}.html").is_file():
                pytest.fail(f"{page} is in _toc.yml but {page}.html was not built")
            context = browser.new_context(viewport={"width": WIDTH, "height": 900})
            tab = context.new_page()
            tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(site) else route.abort())
            try:
                tab.goto(f"{site}/{page}.html", wait_until="load", timeout=LOAD_TIMEOUT_MS)
                tab.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
                cache[page] = tab.evaluate(_MEASURE_JS)
            finally:
                context.close()
        return cache[page]

    return get


def test_the_toc_has_chapters() -> None:
    if not PAGES:
        missing("no _toc.yml with pages at the repository root")
    assert CHAPTERS, f"no chapter in the parts {CHAPTER_PARTS}"


@pytest.mark.parametrize("page", PAGES)
def test_nothing_is_wider_than_its_column(page: str, measured) -> None:
    wide = measured(page)["wide"]
    assert not wide, f"{page} at {WIDTH} px:\n" + "\n".join(wide)


@pytest.mark.parametrize("page", PAGES)
def test_figures_are_drawn_at_most_at_their_natural_size(page: str, measured) -> None:
    problems = []
    for fig in measured(page)["figures"]:
        name = fig["src"].rsplit("/", 1)[-1]
        if fig["natural"] == 0 or fig["drawn"] == 0:
            continue  # a broken image is reported by test_book.py
        if name.lower().endswith(".svg"):
            # an SVG is shown at its own size: not enlarged, and not shrunk below 95 % (its text would shrink too)
            if not 0.95 * fig["natural"] <= fig["drawn"] <= fig["natural"] + 1:
                problems.append(f"{name}: SVG drawn {fig['drawn']:.0f} px wide, its natural width is {fig['natural']} px")
        elif fig["natural"] < 2 * fig["drawn"] - 2:
            problems.append(f"{name}: {fig['natural']} px wide, drawn at {fig['drawn']:.0f} px (needs at least 2x)")
    assert not problems, f"{page}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_glued_value_reads_true_or_false(page: str, measured) -> None:
    raw = [t for t in measured(page)["pasted"] if t in {"True", "False"} or re.fullmatch(r"\(?(True|False)\)?", t)]
    assert not raw, f"{page}: glued values shown as Python truth values: {raw} (glue words instead)"


@pytest.mark.parametrize("page", PAGES)
def test_no_visible_code_cell_is_longer_than_15_lines(page: str, measured) -> None:
    long = [n for n in measured(page)["code"] if n > MAX_CODE_LINES]
    assert not long, (
        f"{page}: visible code cells of {long} lines; at most {MAX_CODE_LINES} "
        "(tag plumbing remove-input, or move the logic into cvlib)"
    )


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_opens_with_its_key_finding(page: str, measured) -> None:
    found = measured(page)
    assert found["keyFinding"], f"{page}: no admonition titled 'Key finding' (or 'Key findings')"
    assert found["keyBeforeSections"], f"{page}: the Key finding comes after the first section; it opens the chapter"


@pytest.mark.parametrize("page", CHAPTERS + FORK_CHAPTERS)
def test_chapter_shows_a_captioned_figure_with_alt_text(page: str, measured) -> None:
    figures = measured(page)["figures"]
    good = [f for f in figures if f["alt"] and f["caption"]]
    assert good, f"{page}: no figure with both a caption and alt text ({len(figures)} images)"


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_has_findings_limits_and_run_it_yourself(page: str, measured) -> None:
    headings = measured(page)["headings"]
    for wanted in ("What we found", "Limits", "Run it yourself"):
        assert wanted in headings, f"{page}: no section '{wanted}' (sections: {headings})"


@pytest.mark.parametrize("page", FORK_CHAPTERS)
def test_forkable_chapter_has_run_it_yourself(page: str, measured) -> None:
    assert "Run it yourself" in measured(page)["headings"]


@pytest.mark.parametrize("page", EXERCISE_CHAPTERS)
def test_reproduction_chapter_ends_with_exercises_and_hidden_solutions(page: str, measured) -> None:
    found = measured(page)
    assert "Exercises" in found["headings"], f"{page}: no Exercises section"
    assert found["exercises"] >= 1, f"{page}: no exercise admonition"
    assert found["solutions"] >= found["exercises"], (
        f"{page}: {found['exercises']} exercises but {found['solutions']} solutions in dropdowns"
    )


# -- the references page lists every cited work ------------------------------------------------

_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def _cited_keys() -> dict[str, list[str]]:
    """Every key cited anywhere in the book's sources, with the pages citing it."""
    cited: dict[str, list[str]] = {}
    for page in PAGES:
        source = source_of(page)
        if source is None:
            continue
        if source.suffix == ".ipynb":
            cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        else:
            text = source.read_text(encoding="utf-8")
        for group in _CITE.findall(text):
            for key in group.split(","):
                cited.setdefault(key.strip(), []).append(page)
    return cited


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_references_page_lists_every_cited_work(measured) -> None:
    from pybtex.database import parse_file

    bib = parse_file(str(ROOT / "book" / "references.bib"))
    cited = _cited_keys()
    assert cited, "the book cites nothing"
    unknown = sorted(k for k in cited if k not in bib.entries)
    assert not unknown, f"cited keys missing from book/references.bib: {unknown} (cited on {[cited[k] for k in unknown]})"
    references = next((p for p in PAGES if p.endswith("/references")), None)
    assert references, "no references page in _toc.yml"
    listed = " ".join(_words(measured(references)["text"]))
    absent = []
    for key in sorted(cited):
        title = re.sub(r"[{}\\\\]", "", bib.entries[key].fields["title"])
        if " ".join(_words(title)) not in listed:
            absent.append(f"{key} ({title})")
    assert not absent, "cited works not listed on the references page:\n" + "\n".join(absent)

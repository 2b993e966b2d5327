"""Sentences a person would write: the built book's prose, sentence by sentence (issue 49, item 4).

Every page of ``_toc.yml`` but the API reference (docstrings, not prose) is
read from ``_build/html`` as :mod:`book_prose` reads it: paragraphs only, with
code, tables, lists, headings, admonition titles and figure numbers taken out.
No sentence may run over 60 words; on the front page and the two model
chapters, the pages a reader on a phone reads to the end, half the sentences
must be under 28 words. A failure names the page and quotes the sentence.

No browser is needed: the built HTML is parsed as it is on disk.
"""

from __future__ import annotations

import re

import pytest
from book_prose import page_prose, prose_of, prose_words, split_sentences, word_count
from book_site import toc_files

MAX_WORDS = 60
#: The second editions' main pages hold at most this many words of prose (issues 46 and 47): the rest is the appendix's.
MAX_PAGE_WORDS = 1500
STUDY_PAGES = ("book/chapters/agent_study_2", "book/chapters/notes_study_2")
MAX_MEDIAN = 28
#: The pages read to the end on a phone: their median sentence is held shorter too.
READ_TO_THE_END = ("book/intro", "book/chapters/model_agent_loop", "book/chapters/model_notes_trials")
#: Pages being rewritten, by page, with why: their sentences over 60 words are reported, not yet required
#: (their medians are). Empty: every page is held to the limit.
BEING_REWRITTEN: dict[str, str] = {}
PAGES = [p for p in toc_files() if not p.startswith("book/api/")]


def _marked(pages: list[str] | tuple[str, ...]) -> list[object]:
    return [pytest.param(p, marks=pytest.mark.xfail(reason=BEING_REWRITTEN[p], strict=False)) if p in BEING_REWRITTEN
            else p for p in pages]


@pytest.mark.parametrize("page", _marked(PAGES))
def test_no_prose_sentence_runs_over_60_words(built_html, page: str) -> None:
    prose = page_prose(built_html, page)
    long = prose.longer_than(MAX_WORDS)
    assert not long, f"{page}: {len(long)} sentences over {MAX_WORDS} words:\n" + "\n".join(
        f"[{n} words] {s}" for n, s in long)


@pytest.mark.parametrize("page", READ_TO_THE_END)
def test_the_pages_read_to_the_end_keep_their_median_sentence_short(built_html, page: str) -> None:
    prose = page_prose(built_html, page)
    assert prose.sentences, f"{page}: no prose found"
    assert prose.median < MAX_MEDIAN, f"{page}: median sentence {prose.median} words (at most {MAX_MEDIAN - 1})"


@pytest.mark.parametrize("page", STUDY_PAGES)
def test_a_study_main_page_holds_at_most_1500_words_of_prose(built_html, page: str) -> None:
    words = prose_words((built_html / f"{page}.html").read_text(encoding="utf-8"))
    assert words <= MAX_PAGE_WORDS, f"{page}: {words} words of prose (at most {MAX_PAGE_WORDS}; move detail to the appendix)"


#: A MyST role shown as text: Markdown that a notebook prints is rendered as CommonMark, which knows no roles.
_RAW_ROLE = re.compile(r"\{(?:doc|ref|numref|term|eq|download|cite(?::[a-z]+)?|glue(?::[a-z]+)?)\}")


@pytest.mark.parametrize("page", PAGES)
def test_no_myst_role_is_shown_as_text(built_html, page: str) -> None:
    raw = [s for s in page_prose(built_html, page).sentences if _RAW_ROLE.search(s)]
    assert not raw, f"{page}: MyST roles shown as text (write them in a Markdown cell):\n" + "\n".join(raw)


#: A run of five or more digits in prose: a number of 10,000 or more written without separators. A commit
#: named by its hash, an arXiv number and a DOI (digits joined to other characters) are names, not numbers; so is
#: a seed, which a reader copies into code as written (``20,261,205`` would not run).
_BARE_NUMBER = re.compile(r"(?<![\w.,:/()-])(?<!commit )(?<!seed )\d{5,}(?![\w,-]|\.\d)")


@pytest.mark.parametrize("page", PAGES)
def test_every_number_of_ten_thousand_or_more_has_thousands_separators(built_html, page: str) -> None:
    bare = [(m.group(0), s) for s in page_prose(built_html, page).sentences for m in _BARE_NUMBER.finditer(s)]
    assert not bare, f"{page}: numbers without separators:\n" + "\n".join(f"{n} in: {s}" for n, s in bare)


# -- the reader of the page itself, on small pieces of HTML -----------------------------


def test_abbreviations_decimals_and_figure_numbers_do_not_end_a_sentence() -> None:
    text = "The gate costs 0.50 steps, e.g. on chains (Fig. 2). Smith et al. agree. It holds! Does it? Yes."
    assert split_sentences(text) == ["The gate costs 0.50 steps, e.g. on chains (Fig. 2).", "Smith et al. agree.",
                                     "It holds!", "Does it?", "Yes."]


def test_code_tables_lists_headings_and_titles_are_not_prose() -> None:
    html = """<article>
      <h1>A heading that is long enough to count as many words if it were read</h1>
      <div class="admonition"><p class="admonition-title">Key findings</p><p>One finding here.</p></div>
      <p>Run <code>python -m benchmarks --quick --out _runs/benchmarks.json</code> first.</p>
      <ul><li><p>A list item is not a sentence of the prose.</p></li></ul>
      <table><tr><td><p>Nor is a table cell.</p></td></tr></table>
      <div class="cell_input"><pre>print("code")</pre></div>
      <figure><figcaption><p><span class="caption-number">Fig. 3 </span>The caption is prose.</p></figcaption></figure>
    </article>"""
    prose = prose_of(html)
    assert prose.sentences == ("One finding here.", "Run `code` first.", "The caption is prose.")
    assert [word_count(s) for s in prose.sentences] == [3, 3, 4]


def test_a_bare_large_number_is_found_and_a_commit_hash_or_a_seed_is_not() -> None:
    found = [m.group(0) for m in _BARE_NUMBER.finditer(
        "The seed 20261203 and 1,000,000 steps; commit 1788723; arXiv:2403.08319; 0.12345 s; 9999 plans; "
        "doi:10.1016/0004-3702(86)90080-9; 20261203 tasks.")]
    assert found == ["20261203"]  # the count of tasks, not the seed


def test_a_long_sentence_is_found_and_the_median_is_of_sentences() -> None:
    long = " ".join(["word"] * 61) + "."
    prose = prose_of(f"<article><p>{long} Short one here. Another short one.</p></article>")
    assert [n for n, _ in prose.longer_than(MAX_WORDS)] == [61]
    assert prose.median == 3

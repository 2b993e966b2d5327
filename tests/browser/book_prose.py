"""The sentences of a built page as a reader reads them: its prose, without code, tables, lists or headings.

Used by ``test_prose.py``. A page's prose is every paragraph of its article
(``<p>``: body text, admonitions, figure captions, glossary definitions,
notebook Markdown output) once these are taken out:

* code: code cells, their outputs' ``<pre>`` blocks, and inline code, which
  stays as one word (a command is one thing a reader reads);
* tables, and lists (bulleted, numbered and definition lists other than the
  glossary's): their items are not sentences;
* headings, admonition titles, dropdown titles, and figure numbers (the
  ``Fig. 3`` before a caption, whose full stop would split it);
* the API reference's docstrings (``dl.py``), which are reference, not prose.

A sentence ends at ``.``, ``!`` or ``?`` followed by a space and a capital,
digit, quote, bracket or sign; the book's few abbreviations (``e.g.``,
``i.e.``, ``cf.``, ``vs.``, ``Fig.``, ``et al.``) do not end one. A word is a
run of characters holding a letter or a digit.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup, Tag

#: Elements whose text is not prose, by CSS selector.
NOT_PROSE = (
    "div.cell_input", "pre", "table", "ul", "ol", "dl:not(.glossary)", "h1", "h2", "h3", "h4", "h5", "h6",
    "p.admonition-title", "summary", "span.caption-number", "a.headerlink", "script", "style", "nav", "math",
    "div.math", "span.sd-summary-text", "div.sd-summary-title", "details > summary",
)
_ABBREVIATIONS = ("e.g.", "i.e.", "cf.", "vs.", "Fig.", "Figs.", "Eq.", "et al.", "approx.", "No.")
_MARK = "\u2063"  # an invisible separator standing for an abbreviation's full stop while splitting
_END = re.compile(r"(?<=[.!?])[\"”’)\]]*\s+(?=[A-Z0-9“\"‘(\[`*_−–+-])")
_WORD = re.compile(r"\S*[^\W_]\S*")


@dataclass(frozen=True)
class PageProse:
    """One page's sentences and what a reader meets in them."""

    page: str
    sentences: tuple[str, ...]

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(word_count(s) for s in self.sentences)

    @property
    def median(self) -> float:
        return statistics.median(self.lengths) if self.sentences else 0.0

    def longer_than(self, words: int) -> list[tuple[int, str]]:
        """The sentences over ``words`` words, with their lengths, longest first."""
        return sorted(((word_count(s), s) for s in self.sentences if word_count(s) > words), reverse=True)


def word_count(sentence: str) -> int:
    return len(_WORD.findall(sentence))


def split_sentences(text: str) -> list[str]:
    """A paragraph's text in sentences (see the module docstring)."""
    text = " ".join(text.split())
    for abbreviation in _ABBREVIATIONS:
        text = text.replace(abbreviation, abbreviation.replace(".", _MARK))
    return [s.replace(_MARK, ".").strip() for s in _END.split(text) if s.strip()]


def _article(html: str, left_out: tuple[str, ...]) -> Tag:
    """A built page's article with the ``left_out`` elements taken out and each piece of inline code one word."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup.body or soup
    for selector in left_out:
        for element in article.select(selector):
            element.decompose()
    for code in article.find_all("code"):
        code.replace_with(" `code` ")
    return article


def prose_of(html: str, page: str = "") -> PageProse:
    """The sentences of one built page's article."""
    sentences: list[str] = []
    for paragraph in _article(html, NOT_PROSE).find_all("p"):
        sentences += split_sentences(paragraph.get_text(" "))
    return PageProse(page, tuple(s for s in sentences if word_count(s)))


#: Elements left out when a page's prose is counted in words: as :data:`NOT_PROSE`, but lists stay (a list item is
#: prose a reader reads, even if it is not a sentence to be held short).
NOT_COUNTED = tuple(s for s in NOT_PROSE if s not in ("ul", "ol"))


def prose_words(html: str) -> int:
    """How many words of prose one built page's article holds: paragraphs and list items, folded ones included.

    Code (inline code counts as one word), tables, headings and captions' numbers are left out, as a reader
    skims them rather than reads them.
    """
    blocks = [b for b in _article(html, NOT_COUNTED).find_all(["p", "li"]) if not (b.name == "li" and b.find("p"))]
    return sum(word_count(block.get_text(" ")) for block in blocks)


def page_prose(html_root: Path, page: str) -> PageProse:
    """The sentences of ``page`` (a TOC entry such as ``book/intro``) in the built book at ``html_root``."""
    return prose_of((html_root / f"{page}.html").read_text(encoding="utf-8"), page)

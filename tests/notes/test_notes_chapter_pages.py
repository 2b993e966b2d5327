"""The release-history chapter reads in one sitting: its main page's prose is short, the audit and rule history on an appendix page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
#: The most words of prose the main page may hold (a glued value or a cross-reference counts as one word).
MAIN_PAGE_WORDS = 2500


def prose_words(notebook: Path) -> int:
    """Words of the markdown cells, each ``{role}`target``` (a glued value, a reference, a term) counted as one."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    total = 0
    for cell in cells:
        if cell["cell_type"] == "markdown":
            text = re.sub(r"\{[a-z:]+\}`[^`]*`", "X", "".join(cell["source"]))
            total += len(re.sub(r"^\(.*\)=$", "", text, flags=re.M).split())
    return total


def test_prose_words_counts_a_glued_value_as_one_word(tmp_path):
    page = tmp_path / "p.ipynb"
    page.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["(label)=\n", "# A title\n", "It took {glue:text}`N_a b` steps ({ref}`x`)."]},
        {"cell_type": "code", "source": ["words in code do not count"]},
    ]}))
    assert prose_words(page) == 3 + 5  # "# A title" and "It took X steps (X)."


def test_the_main_page_holds_at_most_2500_words_of_prose():
    words = prose_words(ROOT / "notebooks" / "notes_release_history.ipynb")
    assert words <= MAIN_PAGE_WORDS, f"the release-history chapter holds {words} words of prose"


def test_the_appendix_follows_the_chapter_and_holds_the_audit():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part.get("chapters", [])]
    at = files.index("book/chapters/notes_release_history")
    assert files[at + 1] == "book/chapters/notes_release_history_appendix"
    appendix = json.loads((ROOT / "notebooks" / "notes_release_history_appendix.ipynb").read_text(encoding="utf-8"))
    headings = [line for c in appendix["cells"] if c["cell_type"] == "markdown"
                for line in "".join(c["source"]).splitlines() if line.startswith("## ")]
    assert "## The audit: is 1.5× reachable?" in headings and "## How the rules got here" in headings
    main = (ROOT / "notebooks" / "notes_release_history.ipynb").read_text(encoding="utf-8")
    assert "How the rules got here" not in main and "appendix.audit_table" not in main

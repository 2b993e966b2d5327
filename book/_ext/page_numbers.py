"""Figure and table numbers that start again at 1 on every page.

With ``numfig`` on and no numbered table of contents, Sphinx counts figures
across the whole book in reading order, so a chapter with one figure can call
it "Fig. 31". This book's chapters are read one at a time (and downloaded one
at a time as notebooks), so each page numbers its own figures, tables and code
blocks 1, 2, 3, ... in the order Sphinx met them on the page; a reference from
another page ({numref}) then reads "Fig. 2" beside the chapter's name, as the
pages already write it ("{numref}`fig-budget-sweep` in {ref}`budget-sweep`").

Sphinx assigns the numbers when the environment is updated (the
``env-get-updated`` event); this extension renumbers right after it, page by
page, and only pages outside a numbered toctree (a page with section numbers
keeps Sphinx's chapter-prefixed numbers). Equations are numbered per page by
Sphinx already.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def renumber_per_page(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Number each page's figures, tables and code blocks from 1, keeping their order on the page."""
    for docname, kinds in env.toc_fignumbers.items():
        if env.toc_secnumbers.get(docname):
            continue  # a numbered chapter: Sphinx's "3.1, 3.2" already restart per chapter
        for figtype, numbers in kinds.items():
            order = sorted(numbers, key=lambda label: numbers[label])
            kinds[figtype] = {label: (i,) for i, label in enumerate(order, 1)}
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    # after sphinx.environment.collectors.toctree, which assigns the book-wide numbers at the default priority
    app.connect("env-get-updated", renumber_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

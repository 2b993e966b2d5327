"""The book's printed command blocks, read back from the pages and run as a reader runs them.

Book plumbing beside the layers, like :mod:`cvlib.repository`: it starts
processes, which the presentation layer never does. Two places use it: the tests, which check that each block works verbatim
and does what its sentence says, and ``python -m benchmarks.commands``, which
times each block against the time its page states (and records the times the
pages state). Both read the blocks from what the reader sees (the executed
chapter, the page's Markdown), so neither keeps a copy that could drift.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cvlib.repository import project_root

__all__ = ["Printed", "chapter_names", "logical_lines", "printed", "reader_env", "run_chapter_block", "run_page_block"]


@dataclass(frozen=True)
class Printed:
    """One chapter's printed block: the commands as shown, and what the sentence promises.

    Attributes
    ----------
    chapter : str
        The chapter's name.
    commands : tuple of str
        Each command as a shell reads it (continuation lines joined).
    output : str
        The notebook the last command writes (under ``_runs/``).
    key, moves, now
        The glued value the sentence names, the way it moves and its value on the page.
    markdown : str
        The rendered block, sentence and all.
    block : str
        The bash block as printed, continuation lines and all.
    stated_seconds : int or None
        The time the page states, if any.
    """

    chapter: str
    commands: tuple[str, ...]
    output: str
    key: str
    moves: str
    now: Any
    markdown: str
    block: str
    stated_seconds: int | None


def chapter_names(root: Path | None = None) -> list[str]:
    """The executed chapters the table of contents lists, in reading order (as ``book/build.py`` reads them).

    Parameters
    ----------
    root : pathlib.Path, optional
        The repository (default: this checkout).

    Returns
    -------
    list of str
    """
    import importlib.util

    base = project_root() if root is None else root
    module = sys.modules.get("cvbook_build")
    if module is None:
        spec = importlib.util.spec_from_file_location("cvbook_build", base / "book" / "build.py")
        if spec is None or spec.loader is None:
            raise FileNotFoundError(f"{base / 'book' / 'build.py'} is not a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules["cvbook_build"] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    names: list[str] = module.toc_chapters()
    return names


def logical_lines(block: str) -> list[str]:
    """The commands of a printed block, each with its continuation lines (those after a line ending in `` \\``).

    Parameters
    ----------
    block : str
        The block's text as printed.

    Returns
    -------
    list of str
    """
    commands: list[str] = []
    continued = False
    for line in block.splitlines():
        if not line.strip():
            continue
        if continued:
            commands[-1] += "\n" + line
        else:
            commands.append(line)
        continued = line.endswith(" \\")
    return commands


def printed(chapter: str, chapters_dir: Path | None = None) -> Printed:
    """The rerun block of an executed chapter: the commands parsed from the rendered text, the claim from metadata.

    Parameters
    ----------
    chapter : str
        The chapter's name.
    chapters_dir : pathlib.Path, optional
        The executed chapters (default: ``book/chapters``).

    Returns
    -------
    Printed

    Raises
    ------
    ValueError
        When the chapter shows no block, or more than one, or its metadata names other commands than it prints.
    """
    folder = project_root() / "book" / "chapters" if chapters_dir is None else chapters_dir
    nb = json.loads((folder / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("cvbook", {}).get("rerun")
            if meta is not None:
                found.append((meta, "".join(output["data"]["text/markdown"])))
    if len(found) != 1:
        raise ValueError(f"{chapter}: expected one rendered 'Run it yourself' block, found {len(found)}")
    meta, markdown = found[0]
    blocks = re.findall(r"```bash\n(.*?)```", markdown, flags=re.S)
    if len(blocks) != 1:
        raise ValueError(f"{chapter}: the block shows {len(blocks)} bash blocks; expected one")
    commands = tuple(" ".join(line.strip() for line in command.split(" \\\n")) for command in logical_lines(blocks[0]))
    if commands != tuple(meta["commands"]):
        raise ValueError(f"{chapter}: the metadata's commands are not the printed ones")
    return Printed(chapter, commands, meta["output"], meta["key"], meta["moves"], meta["now"], markdown, blocks[0],
                   meta.get("stated_seconds"))


def reader_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a reader has after ``source .venv/bin/activate``: this interpreter's tools first on ``PATH``.

    Parameters
    ----------
    base : mapping, optional
        The environment to start from (default: this process's).

    Returns
    -------
    dict of str to str
    """
    env = dict(os.environ if base is None else base)
    tools = Path(sys.executable).parent
    env["PATH"] = f"{tools}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(tools.parent)
    env.pop("CVBOOK_ROOT", None)
    return env


def run_chapter_block(block: Printed, root: Path | None = None,
                      env: Mapping[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a chapter's block as printed, by bash, from the repository root; the result and the seconds it took.

    Parameters
    ----------
    block : Printed
        The chapter's block (:func:`printed`).
    root : pathlib.Path, optional
        The repository (default: this checkout).
    env : mapping, optional
        The environment (default: :func:`reader_env`).

    Returns
    -------
    tuple of (subprocess.CompletedProcess, float)
    """
    base = project_root() if root is None else root
    (base / block.output).unlink(missing_ok=True)
    started = time.perf_counter()
    script = "set -euo pipefail\n" + block.block  # the block as printed, continuation lines and all
    result = subprocess.run(["bash", "-c", script], cwd=base, env=dict(reader_env() if env is None else env),
                            capture_output=True, text=True)
    return result, time.perf_counter() - started


def _wait_for(url: str, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {seconds:g} s")


def run_page_block(lines: Sequence[str], cwd: Path, env: dict[str, str],
                   background: list[subprocess.Popen[bytes]]) -> float:
    """Run a page block's lines in order as a shell would; the seconds it took.

    ``export`` lines set ``env``; a line ending in ``&`` starts a server
    (appended to ``background``, which the caller stops) and waits until its
    ``--port`` answers.

    Parameters
    ----------
    lines : sequence of str
        The block's commands, continuation lines joined.
    cwd : pathlib.Path
        The folder they run in.
    env : dict of str to str
        The environment; ``export`` lines change it.
    background : list of subprocess.Popen
        Where servers started by the block are added.

    Returns
    -------
    float
        Seconds.

    Raises
    ------
    RuntimeError
        When a command fails, with its output's end.
    """
    started = time.perf_counter()
    for line in lines:
        if line.startswith("export "):
            env.update(dict(item.split("=", 1) for item in shlex.split(line)[1:]))
        elif line.endswith("&"):
            words = shlex.split(line[:-1])
            background.append(subprocess.Popen(words, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            port = words[words.index("--port") + 1]
            _wait_for(f"http://127.0.0.1:{port}/v1/models")
        else:
            done = subprocess.run(line, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{line}\n(exit {done.returncode})\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started

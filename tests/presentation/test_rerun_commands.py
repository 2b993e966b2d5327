"""Every chapter's "Run it yourself" command works verbatim, and does what its sentence says.

The command is read from the *executed* chapter (``book/chapters/NAME.ipynb``,
the page the reader sees), not from a copy kept here: the chapter rendered it
with :func:`cvlib.presentation.rerun.run_it_yourself` while it executed, and
stored the glue key and direction its sentence names in the output's metadata.
Each block is run as printed, by bash, from the repository root, with the
virtual environment's tools first on ``PATH`` (what ``source
.venv/bin/activate`` does). The test then reads the glued value from the
notebook the command wrote into ``_runs/`` and checks that it moved the way the
sentence says, against the value the chapter shows.

The commands run two at a time (the machine the book is built on has two
cores), the slowest first; they change cheap parameters, except the
Performance chapter's, which re-measures the benchmark suite because that is
what rerunning that chapter means.

The page states each block's time ("about 25 s on two cores"), rounded up from
the seconds recorded for exactly its commands in
``data/benchmarks/command_times.json``; a test checks that it does. Nothing
here is timed: ``python -m benchmarks.commands`` times the blocks against the
stated times, and ``--record`` rewrites the record.
"""

from __future__ import annotations

import ast
import concurrent.futures
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cvlib.presentation.rerun import COLUMN_CHARS, Expectation, duration, recorded_seconds, stated_seconds
from cvlib.printed_commands import Printed, chapter_names, printed, reader_env, run_chapter_block

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "book" / "chapters"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


_WRITTEN = re.compile(r"^[−-]?\d{1,3}(?:,\d{3})*(?:\.\d+)?(?:%|×)?$|^[−-]?\d+(?:\.\d+)?(?:%|×)?$")


def _number(text: str) -> int | float | None:
    """A number as the book writes it ("1,234", "0.50", "16.0%", "−3"), read back; None for other text."""
    if not _WRITTEN.match(text):
        return None
    plain = text.replace(",", "").replace("−", "-").rstrip("%×")
    return float(plain) if "." in plain else int(plain)


def _quotes(shown: Any, now: Any) -> bool:
    """Whether a glued value is ``now`` as the page writes it (a number at the decimals the page prints)."""
    if isinstance(now, (int, float)) and not isinstance(now, bool) and isinstance(shown, (int, float)):
        decimals = len(str(shown).split(".")[1]) if isinstance(shown, float) else 0
        return round(float(now), decimals) == pytest.approx(float(shown)) or float(now) == pytest.approx(float(shown))
    return shown == now


def glue_values(nb: dict) -> dict[str, Any]:
    """Every glued value of an executed notebook, by key (a number written as text is read back as a number)."""
    values = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            text = output.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                text = "".join(text) if isinstance(text, list) else text
                try:
                    values[name] = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    values[name] = text
                if isinstance(values[name], str) and _number(values[name]) is not None:
                    values[name] = _number(values[name])
    return values


CHAPTER_NAMES = chapter_names(ROOT)
#: The test that needs the printed blocks run (its selected chapters are run once).
RUNNING_TESTS = ("test_printed_command_runs_and_moves_the_named_value",)
#: Run first: the block re-measures the benchmark suite.
SLOW_FIRST = ("performance",)


@pytest.fixture(scope="session")
def reruns(request: pytest.FixtureRequest) -> dict[str, tuple[Printed, subprocess.CompletedProcess]]:
    """The selected chapters' blocks (all, unless ``-k`` chose some), run verbatim from the repository root, two at a time."""
    (ROOT / "_runs").mkdir(exist_ok=True)  # tracked in git; made here only for an unusual checkout
    env = reader_env()
    selected = {
        item.callspec.params["chapter"]
        for item in request.session.items
        if getattr(item, "originalname", "") in RUNNING_TESTS
    }
    blocks = {name: printed(name) for name in CHAPTER_NAMES if name in selected}

    def run(block: Printed) -> tuple[Printed, subprocess.CompletedProcess]:
        result, _ = run_chapter_block(block, ROOT, env)
        return block, result

    order = sorted(blocks.values(), key=lambda b: b.chapter not in SLOW_FIRST)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return {block.chapter: (block, result) for block, result in pool.map(run, order)}


def test_every_chapter_prints_a_rerun_block():
    assert CHAPTER_NAMES
    for name in CHAPTER_NAMES:
        block = printed(name)
        assert block.commands[-1].startswith("papermill "), f"{name}: the block does not end with its papermill command"
        assert f" {block.output} " in block.commands[-1] and block.output.startswith("_runs/"), (
            f"{name}: the command must write into _runs/, got {block.commands[-1]}"
        )
        assert re.search(r" -[py] ", block.commands[-1]), f"{name}: the command changes no parameter"


@pytest.mark.parametrize("chapter", CHAPTER_NAMES)
def test_printed_command_runs_and_moves_the_named_value(chapter, reruns):
    block, result = reruns[chapter]
    assert result.returncode == 0, (
        f"{chapter}: the printed command failed (exit {result.returncode}):\n"
        + "\n".join(block.commands) + "\n--- stderr (end) ---\n" + result.stderr[-3000:]
    )
    assert "Passed unknown parameter" not in result.stderr, f"{chapter}: papermill did not know a parameter:\n{result.stderr}"
    shown = glue_values(json.loads((CHAPTERS / f"{chapter}.ipynb").read_text(encoding="utf-8")))
    rerun = glue_values(json.loads((ROOT / block.output).read_text(encoding="utf-8")))
    assert block.key in shown, f"{chapter}: the sentence names {block.key!r}, which the chapter does not glue"
    assert _quotes(shown[block.key], block.now), (
        f"{chapter}: the sentence quotes {block.now!r} for {block.key}, the page glues {shown[block.key]!r}"
    )
    assert block.key in rerun, f"{chapter}: the rerun did not glue {block.key!r}"
    expectation = Expectation(block.key, "", shown[block.key], block.moves)
    assert expectation.holds(shown[block.key], rerun[block.key]), (
        f"{chapter}: the sentence says {block.key} {block.moves} from {shown[block.key]!r}; the rerun gave {rerun[block.key]!r}"
    )


@pytest.mark.parametrize("chapter", CHAPTER_NAMES)
def test_the_page_states_the_time_recorded_for_its_command(chapter):
    block = printed(chapter)
    recorded = recorded_seconds(chapter, block.commands)
    assert recorded is not None, (
        f"{chapter}: no time is recorded for the printed commands: record it (python -m benchmarks.commands "
        f"--record --only {chapter}) and execute the chapter again"
    )
    assert block.stated_seconds == stated_seconds(recorded)
    assert f"It takes about {duration(stated_seconds(recorded))} on two cores." in block.markdown


def test_the_stated_time_rounds_the_measured_one_up():
    assert [stated_seconds(s) for s in (0.4, 12.0, 25.0, 61.0, 299.0, 301.0)] == [5, 15, 25, 75, 300, 360]


def test_a_long_printed_command_is_one_option_a_line_and_runs_as_printed(tmp_path):
    from cvlib.presentation.rerun import Expectation as Expect
    from cvlib.presentation.rerun import run_it_yourself

    block = run_it_yourself("depth_chain", {"depths": [1, 2, 4], "seed": 3}, current={"depths": [1], "seed": 0},
                            expect=Expect("D1_depths", "the depths", "1", "changes"), source="depth_chain",
                            keep={"change_tick": 1})
    lines = block.printed.splitlines()
    assert len(lines) > 1 and all(len(line) <= COLUMN_CHARS for line in lines)
    assert all(line.endswith(" \\") for line in lines[:-1]) and not lines[-1].endswith("\\")
    echoed = subprocess.run(["bash", "-c", block.printed.replace("papermill ", "printf '%s\\n' ", 1)],
                            capture_output=True, text=True, check=True).stdout.split("\n")
    assert echoed[:-1] == [*shlex_words(block.command)][1:]


def shlex_words(command: str) -> list[str]:
    import shlex

    return shlex.split(command)


# -- both spellings of a list, and a clear error for a bad one --------------------------------


def _papermill(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(["papermill", *args], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(
    "spelling",
    [["-p", "depths", "[1, 2, 4]"], ["-y", "depths: [1, 2, 4]"]],
    ids=["p-yaml-text", "y-yaml"],
)
def test_a_list_parameter_works_both_ways(spelling, tmp_path):
    out = tmp_path / "depth_chain.ipynb"
    result = _papermill("notebooks/depth_chain.ipynb", str(out), *spelling)
    assert result.returncode == 0, result.stderr[-2000:]
    values = glue_values(json.loads(out.read_text(encoding="utf-8")))
    assert values["D1_depths"] == "1, 2, 4"
    assert values["D1_baseline_pfw"] == "0, 1, 3"


@pytest.mark.parametrize(
    ("notebook", "args", "message"),
    [
        ("depth_chain", ["-p", "depths", "[1, 2, x]"], "ParameterError: parameter depths[2] must be an integer, got str 'x'"),
        ("depth_chain", ["-p", "depths", "[1, 2"], "ParameterError: parameter depths must be a list of integers, got the text '[1, 2'"),
        ("topologies", ["-p", "grid_depths", "[0, 3]"], "ParameterError: parameter grid_depths[0] must be >= 1, got 0"),
        ("value_change", ["-p", "depth", "six"], "ParameterError: parameter depth must be an integer, got str 'six'"),
    ],
    ids=["list-item", "broken-yaml", "bound-by-user-name", "scalar"],
)
def test_a_wrong_value_fails_naming_the_parameter_passed(notebook, args, message, tmp_path):
    result = _papermill(f"notebooks/{notebook}.ipynb", str(tmp_path / "out.ipynb"), *args)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr[-2000:]

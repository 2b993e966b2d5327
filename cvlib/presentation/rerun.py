"""The "Run it yourself" command of a chapter, and what the reader should see change.

Each chapter ends with one papermill command that re-executes it with other
parameters, and one sentence naming a glued value and the way it moves. Both
are rendered here, while the chapter executes, from the chapter's name and the
parameters it changes, so the command on the page is the one the test suite
runs: it reads the command from the executed chapter, runs it verbatim from
the repository root, and checks that the named value moved the way the
sentence says. The command writes into ``_runs/`` (ignored by git),
so a rerun never leaves a notebook where the book would read it.

A command longer than the text column (:data:`COLUMN_CHARS`) is printed one
option per line, each line but the last ending in `` \\``, so it still runs
when pasted and never needs a sideways scroll or a soft wrap. Beside it the
page says how long it takes on two cores: ``python -m benchmarks.commands
--record`` ran it alone on an otherwise idle two-core machine and wrote the
seconds to :data:`TIMES_FILE`; the page states that time rounded up
(:func:`stated_seconds`). ``python -m benchmarks.commands`` times the blocks
again and marks a run of more than :data:`TIME_MARGIN` times the stated time;
the tests only check that the page states the recorded time.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path
from typing import Any, Literal

from cvlib.core.errors import ParameterError
from cvlib.presentation.formatting import fmt

Direction = Literal["rises", "falls", "changes"]
_DIRECTIONS = ("rises", "falls", "changes")

#: Folder the printed commands write into (kept in the repository by its own .gitignore).
RUNS = "_runs"
#: The longest command line printed whole (the text column's code block at 1280 px holds 78 characters).
COLUMN_CHARS = 76
#: The committed record of each chapter's printed commands and the seconds they took, relative to data/.
TIMES_FILE = ("benchmarks", "command_times.json")
#: What the record says it holds (written with it by each test that records times).
TIMES_ABOUT = ("Seconds each printed command block took, run alone on a two-core machine by python -m benchmarks.commands "
               "--record: under chapters, each chapter's 'Run it yourself' block; under pages, a book page's console blocks.")
#: How far over its stated time a printed command may run before ``python -m benchmarks.commands`` marks it.
TIME_MARGIN = 1.5


@dataclass(frozen=True)
class Expectation:
    """A glued value and the way it moves when the printed command is run.

    Parameters
    ----------
    key
        The glue key of the value (the test reads it from both notebooks).
    what
        Words for it in the sentence, e.g. "the baseline's doomed work".
    now
        Its value on this page.
    moves
        ``"rises"`` or ``"falls"`` (numbers), or ``"changes"`` (anything).
    unit
        Written after a number, e.g. "steps".
    """

    key: str
    what: str
    now: Any
    moves: Direction
    unit: str = ""

    def __post_init__(self) -> None:
        if self.moves not in _DIRECTIONS:
            raise ParameterError(f"moves must be one of {', '.join(_DIRECTIONS)}, got {self.moves!r}")
        if self.moves != "changes" and (not isinstance(self.now, Real) or isinstance(self.now, bool)):
            raise ParameterError(f"{self.key}: only a number can rise or fall, got {self.now!r}; use moves='changes'")

    def holds(self, before: Any, after: Any) -> bool:
        """Whether going from ``before`` to ``after`` is the move this expectation states."""
        if self.moves == "rises":
            return after > before
        if self.moves == "falls":
            return after < before
        return after != before


@dataclass(frozen=True)
class Rerun:
    """One chapter's "Run it yourself" command and its what-to-expect sentence.

    Displayed in a notebook it renders as Markdown (the command in a ``bash``
    block, then the sentence); the output's metadata (``cvbook.rerun``) holds
    the same command and expectation for the test that runs it.
    """

    chapter: str
    changes: Mapping[str, Any]
    current: Mapping[str, Any]
    expect: Expectation
    source: str = ""
    keep: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    before: tuple[str, ...] = ()
    yaml: bool = False
    first: str = ""
    seconds: float | None = None

    def __post_init__(self) -> None:
        if not self.changes:
            raise ParameterError(f"{self.chapter}: a rerun command must change at least one parameter")
        missing = sorted(set(self.changes) - set(self.current))
        if missing:
            raise ParameterError(f"{self.chapter}: no current value given for {', '.join(missing)}")

    @property
    def notebook(self) -> str:
        """The source notebook the command runs, relative to the repository root."""
        return f"notebooks/{self.source or self.chapter}.ipynb"

    @property
    def output(self) -> str:
        """Where the command writes the executed notebook."""
        return f"{RUNS}/{self.chapter}.ipynb"

    @property
    def command(self) -> str:
        """The papermill command, to be run from the repository root."""
        return " ".join(word for group in self._groups() for word in group)

    def _groups(self) -> list[list[str]]:
        """The papermill command's words, grouped as it is printed when too long: the program, then one option each."""
        groups = [["papermill", self.notebook, self.output]]
        for name, value in (*self.keep.items(), *self.changes.items()):
            if self.yaml and isinstance(value, (list, tuple, Mapping)):
                groups.append(["-y", shlex.quote(f"{name}: {prose_value(value, quoted=True)}")])
            else:
                groups.append(["-p", name, shell_value(value)])
        return groups

    @property
    def printed(self) -> str:
        """The block as the page prints it, each command on one line if it fits the column, else one option a line."""
        lines: list[str] = []
        for command in self.before:
            lines += wrapped(command)
        lines += _wrapped_groups(self._groups())
        return "\n".join(lines)

    @property
    def stated_seconds(self) -> int | None:
        """The time the page states for the block (the measured time rounded up), or None when none was measured."""
        return None if self.seconds is None else stated_seconds(self.seconds)

    @property
    def commands(self) -> tuple[str, ...]:
        """Every command of the block in order, the ones that prepare the run first and papermill last."""
        return (*self.before, self.command)

    @property
    def already_applied(self) -> bool:
        """True when this run already used the changed values (the sentence would compare a value with itself)."""
        return all(self.current[k] == v for k, v in self.changes.items())

    @property
    def sentence(self) -> str:
        """What the reader should see change, in one sentence."""
        if self.already_applied:
            return (
                "This page was itself run with these values; run the notebook without `-p` options "
                "to get the book's defaults back."
            )
        changed = _and(
            [f"`{k}` {prose_value(v)} instead of {prose_value(self.current[k])}" for k, v in self.changes.items()]
        )
        e = self.expect
        shown = _number(e.now) + (f" {e.unit}" if e.unit else "")
        verb = {"rises": "rises above", "falls": "falls below", "changes": "is no longer"}[e.moves]
        return f"With {changed}, {e.what} {verb} the {shown} shown on this page."

    def markdown(self) -> str:
        """The rendered section body: what to install, where to run it, the command, its time, the sentence."""
        took = "" if self.stated_seconds is None else f" It takes about {duration(self.stated_seconds)} on two cores."
        parts = [
            *([self.first] if self.first else []),
            "From the repository root, with the project's tools on your `PATH` (`source .venv/bin/activate`):",
            "```bash\n" + self.printed + "\n```",
            f"{self.sentence}{took} The executed notebook is written to `{self.output}`.",
        ]
        if self.note:
            parts.append(self.note)
        return "\n\n".join(parts)

    def metadata(self) -> dict[str, Any]:
        """What the rerun test needs, stored with the output (nbval does not compare output metadata)."""
        e = self.expect
        return {
            "cvbook": {
                "rerun": {
                    "commands": list(self.commands),
                    "output": self.output,
                    "key": e.key,
                    "moves": e.moves,
                    "now": plain(e.now),
                    "already_applied": self.already_applied,
                    "stated_seconds": self.stated_seconds,
                }
            }
        }

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, str], dict[str, Any]]:
        return {"text/markdown": self.markdown(), "text/plain": self.printed}, self.metadata()


def run_it_yourself(
    chapter: str,
    changes: Mapping[str, Any],
    *,
    current: Mapping[str, Any],
    expect: Expectation,
    source: str = "",
    keep: Mapping[str, Any] | None = None,
    note: str = "",
    before: Sequence[str] = (),
    yaml: bool = False,
    first: str = "",
) -> Rerun:
    """The "Run it yourself" block of a chapter, to display as the last output of its cell.

    Parameters
    ----------
    chapter
        The chapter's name (``book/chapters/NAME.ipynb``); the command writes ``_runs/NAME.ipynb``.
    changes
        The parameters the command changes, with their new values.
    current
        This run's values of the same parameters (the sentence says "instead of").
    expect
        The glued value the reader should watch, and how it moves.
    source
        The source notebook's name when it is not ``chapter`` (pages made from a spec file).
    keep
        Parameters passed unchanged (a spec page's ``spec``), written before the changes.
    note
        A further sentence of Markdown after the expectation.
    before
        Shell commands the papermill command needs first (they are printed
        above it in the same block, and the test runs them too).
    yaml
        Write list and mapping changes as ``-y 'NAME: [..]'`` instead of
        ``-p NAME '[..]'`` (both work; see :mod:`cvlib.presentation.parameters`).
    first
        A sentence of Markdown printed above the block: what to install before
        running it (a model chapter's "``bash scripts/install_models.sh --all``,
        about 470 MB").

    Returns
    -------
    Rerun
        Renders as Markdown in a notebook; ``.command`` is the shell command,
        ``.printed`` the block as printed. Its time on two cores is the one
        :data:`TIMES_FILE` records for exactly these commands (none when the
        commands changed since it was measured).
    """
    made = Rerun(chapter, dict(changes), dict(current), expect, source, dict(keep or {}), note, tuple(before), yaml,
                 first)
    seconds = recorded_seconds(chapter, made.commands)
    return made if seconds is None else dataclasses.replace(made, seconds=seconds)


def recorded_seconds(chapter: str, commands: Sequence[str], times: Mapping[str, Any] | None = None) -> float | None:
    """The seconds recorded for a chapter's block, if they were measured for exactly these commands.

    Parameters
    ----------
    chapter : str
        The chapter's name.
    commands : sequence of str
        The block's commands, unwrapped (:attr:`Rerun.commands`).
    times : mapping, optional
        The record (default: :data:`TIMES_FILE` as committed).

    Returns
    -------
    float or None
        None when the chapter has no record or its recorded commands differ:
        a time measured for another command is not this one's.
    """
    record = load_times() if times is None else times
    entry = record.get("chapters", {}).get(chapter)
    if entry is None or list(entry.get("commands", [])) != list(commands):
        return None
    return float(entry["seconds"])


def record_chapter_seconds(measured: Mapping[str, tuple[Sequence[str], float]],
                           path: str | os.PathLike[str] | None = None) -> Path:
    """Write chapters' measured seconds into the record, keeping the chapters not measured and the pages.

    Parameters
    ----------
    measured : mapping
        ``{chapter: (commands, seconds)}`` of the blocks just run.
    path : str or os.PathLike, optional
        The record (default: :data:`TIMES_FILE` in the data folder).

    Returns
    -------
    pathlib.Path
        The record written.
    """
    return write_measured_seconds(("chapters",), measured, path)


def write_measured_seconds(section: Sequence[str], measured: Mapping[str, tuple[Sequence[str], float]],
                           path: str | os.PathLike[str] | None = None) -> Path:
    """Merge measured blocks into one section of the times record, so chapters and pages share one writer.

    The record is replaced whole (a temporary file, then :func:`os.replace`), so a
    stopped run never leaves it half written; every mapping in it stays sorted by
    name, so the same measurements give the same bytes.

    Parameters
    ----------
    section : sequence of str
        Where the blocks go: ``("chapters",)`` or ``("pages", page)``.
    measured : mapping
        ``{name: (commands, seconds)}`` of the blocks just run.
    path : str or os.PathLike, optional
        The record (default: :data:`TIMES_FILE` in the data folder).

    Returns
    -------
    pathlib.Path
        The record written.
    """
    from cvlib.repository import data_path

    if not section:
        raise ParameterError("section must name at least one key of the times record, e.g. ('chapters',)")
    target = Path(path) if path is not None else data_path(*TIMES_FILE)
    record: dict[str, Any] = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}

    def merged(node: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
        if not keys:
            blocks = dict(node)
            for name, (commands, seconds) in measured.items():
                blocks[name] = {"commands": list(commands), "seconds": round(seconds, 1)}
            return dict(sorted(blocks.items()))
        inner = dict(node)
        inner[keys[0]] = merged(node.get(keys[0], {}), keys[1:])
        return dict(sorted(inner.items()))

    body = {key: value for key, value in record.items() if key not in ("about", "cores")}
    record = {"about": TIMES_ABOUT, "cores": os.cpu_count(), **merged(body, section)}
    temporary = target.with_name(target.name + ".partial")
    temporary.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, target)
    return target


def load_times() -> dict[str, Any]:
    """The committed record of printed commands' times (:data:`TIMES_FILE`), empty when there is none.

    Returns
    -------
    dict
        ``{"cores": 2, "chapters": {NAME: {"commands": [...], "seconds": S}}}``.
    """
    from cvlib.repository import data_path

    path = data_path(*TIMES_FILE)
    if not path.is_file():
        return {"chapters": {}}
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


def stated_seconds(seconds: float) -> int:
    """A measured time as the page states it, rounded up: to 5 s under a minute, 15 s under five, else a minute.

    Parameters
    ----------
    seconds : float
        The measured time.

    Returns
    -------
    int
        Whole seconds, never under 5.
    """
    step = 5 if seconds < 60 else 15 if seconds < 300 else 60
    return max(5, step * math.ceil(seconds / step))


def duration(seconds: int) -> str:
    """Whole seconds as a reader reads them: "25 s", "1 min 30 s", "4 min".

    Parameters
    ----------
    seconds : int
        A duration.

    Returns
    -------
    str
    """
    minutes, rest = divmod(int(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def wrapped(command: str, width: int = COLUMN_CHARS) -> list[str]:
    """A shell command as printed: one line if it fits ``width``, else one option (with its values) a line.

    Parameters
    ----------
    command : str
        One shell command.
    width : int
        The longest line printed whole.

    Returns
    -------
    list of str
        The lines; all but the last end in `` \\``, so pasted into a shell
        they are the same command. A command with shell operators is left whole.
    """
    if len(command) <= width or any(c in command for c in "&|;<>()$`\n"):
        return [command]  # a pipeline or redirection stays as written: only plain options are split
    words = shlex.split(command)
    groups: list[list[str]] = [[]]
    for word in words:
        if word.startswith("-") and groups[-1]:
            groups.append([])
        groups[-1].append(shlex.quote(word))
    return _wrapped_groups(groups, width)


def _wrapped_groups(groups: Sequence[Sequence[str]], width: int = COLUMN_CHARS) -> list[str]:
    """Groups of shell words as printed lines: all on one if it fits, else a group a line (split further if long)."""
    whole = " ".join(word for group in groups for word in group)
    if len(whole) <= width:
        return [whole]
    lines: list[str] = []
    for k, group in enumerate(groups):
        indent = "" if k == 0 else "  "
        text = indent + " ".join(group)
        if len(text) > width - 2 and len(group) > 1:
            lines += [indent + group[0], *("  " + word for word in group[1:])]
        else:
            lines.append(text)
    return [line + " \\" for line in lines[:-1]] + [lines[-1]]


def shell_value(value: Any) -> str:
    """A parameter value as papermill's ``-p`` reads it: numbers bare, lists and mappings as quoted YAML.

    Parameters
    ----------
    value:
        A parameter value.

    Returns
    -------
    str
        The text to put after ``-p NAME``.
    """
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return shlex.quote(value)
    if isinstance(value, (list, tuple, Mapping)):
        return shlex.quote(json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False))
    raise ParameterError(f"cannot write {value!r} as a papermill parameter")


def prose_value(value: Any, quoted: bool = False) -> str:
    """A value as the sentence writes it: lists in brackets, strings bare (``quoted``: as JSON strings).

    Parameters
    ----------
    value:
        A parameter value.
    quoted:
        Write strings as JSON strings.

    Returns
    -------
    str
        The value as the sentence writes it.
    """
    if isinstance(value, (list, tuple, Mapping)):
        text = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        return text if quoted else text.replace('"', "")
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _number(value: Any) -> str:
    """A value the page shows, as its prose writes it: a whole number with thousands separators (``1,000,000``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return fmt(value)
    if isinstance(value, float) and abs(value) >= 10_000:
        return fmt(value)
    return prose_value(value)


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def plain(value: Any) -> Any:
    """``value`` as a plain Python number or string (numpy scalars unwrapped), for JSON metadata.

    Parameters
    ----------
    value:
        A value from a notebook.

    Returns
    -------
    object
        A plain int, float, bool, str, list or dict.
    """
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value

"""The "Run it yourself" command of a chapter, and what the reader should see change.

Each chapter ends with one papermill command that re-executes it with other
parameters, and one sentence naming a glued value and the way it moves. Both
are rendered here, while the chapter executes, from the chapter's name and the
parameters it changes, so the command on the page is the one the test suite
runs: it reads the command from the executed chapter, runs it verbatim from
the repository root, and checks that the named value moved the way the
sentence says. The command writes into ``_runs/`` (ignored by git),
so a rerun never leaves a notebook where the book would read it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, Literal

from cvlib.core.errors import ParameterError

Direction = Literal["rises", "falls", "changes"]
_DIRECTIONS = ("rises", "falls", "changes")

#: Folder the printed commands write into (kept in the repository by its own .gitignore).
RUNS = "_runs"


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
        args = ["papermill", self.notebook, self.output]
        for name, value in (*self.keep.items(), *self.changes.items()):
            if self.yaml and isinstance(value, (list, tuple, Mapping)):
                args += ["-y", shlex.quote(f"{name}: {prose_value(value, quoted=True)}")]
            else:
                args += ["-p", name, shell_value(value)]
        return " ".join(args)

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
        shown = prose_value(e.now) + (f" {e.unit}" if e.unit else "")
        verb = {"rises": "rises above", "falls": "falls below", "changes": "is no longer"}[e.moves]
        return f"With {changed}, {e.what} {verb} the {shown} shown on this page."

    def markdown(self) -> str:
        """The rendered section body: where to run it, the command, the sentence."""
        parts = [
            "From the repository root, with the project's tools on your `PATH` (`source .venv/bin/activate`):",
            "```bash\n" + "\n".join(self.commands) + "\n```",
            f"{self.sentence} The executed notebook is written to `{self.output}`.",
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
                }
            }
        }

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, str], dict[str, Any]]:
        return {"text/markdown": self.markdown(), "text/plain": "\n".join(self.commands)}, self.metadata()


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

    Returns
    -------
    Rerun
        Renders as Markdown in a notebook; ``.command`` is the shell command.
    """
    return Rerun(chapter, dict(changes), dict(current), expect, source, dict(keep or {}), note, tuple(before), yaml)


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

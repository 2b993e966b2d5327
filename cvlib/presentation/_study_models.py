"""The models of the two language-model studies, as their chapters name them, and the table that names them so.

The agent study ("A model in the loop") and the notes study ("A local model
and stale notes") record the same three models, and their pages write a model
the same way in every table, legend and glued value; held here once, a model
cannot be written one way on one page and another way on the other. The
module is private: the chapter modules re-export ``MODELS`` and
``MODEL_LABELS``, where their notebooks read them and the API page documents
them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.presentation.formatting import plural

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.models.determinism import DeterminismRow
    from cvlib.models.recording import CallRecord
    from cvlib.presentation.formatting import Quantity
    from cvlib.presentation.tables import Table

__all__ = ["CONTINUED", "MODELS", "MODEL_LABELS", "PROMPT_WIDTH", "answers_summary", "changed_lines", "conversation_text",
           "determinism_table", "first_turn", "fold_long", "glue_key", "model_label", "model_table", "prompt_block"]

#: The studies' models, smallest first, by recording stem.
MODELS: tuple[str, ...] = ("smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
#: How the pages name them.
MODEL_LABELS: dict[str, str] = {"smollm2-135m": "SmolLM2-135M", "qwen2.5-coder-0.5b": "Qwen2.5-Coder-0.5B",
                                "qwen2.5-coder-1.5b": "Qwen2.5-Coder-1.5B"}
#: The longest line of a prompt as the pages print it (the text column's code block at 1280 px holds 78 characters).
PROMPT_WIDTH = 76
#: Starts each line a printed prompt's long line was wrapped onto.
CONTINUED = "↪ "
#: A study table with more rows than this (one model's table is shorter) folds behind a line saying what it holds.
FOLD_AFTER = 15
#: Short names in glue keys.
_KEYS: dict[str, str] = {"smollm2-135m": "s135", "qwen2.5-coder-0.5b": "q05", "qwen2.5-coder-1.5b": "q15"}


def model_label(model: str) -> str:
    """How the pages name a model (a recording stem); a reader's own model, outside the plan, keeps its stem."""
    return MODEL_LABELS.get(model, model)


def fold_long(what: str, rows: int) -> dict[str, Any]:
    """The table options that fold a table of more than :data:`FOLD_AFTER` rows behind ``what`` and its row count.

    One model's table stays open; with every model recorded the same table would fill several phone screens
    before the prose that reads it.

    Parameters
    ----------
    what : str
        What the table holds, as the dropdown's line says it.
    rows : int
        Its number of rows.

    Returns
    -------
    dict
        ``collapse_after`` and ``summary`` for :func:`model_table`.
    """
    return {"collapse_after": FOLD_AFTER, "summary": f"{what} ({plural(rows, 'row')})"}


def glue_key(model: str) -> str:
    """A model's short name in glue keys; every model outside the plan is ``new``, so the prose can quote a reader's model."""
    return _KEYS.get(model, "new")


def model_table(frame: pd.DataFrame, columns: Mapping[str, str] | Sequence[str],
                formats: Mapping[str, str | Quantity | Callable[[Any], str]] | None = None, **options: Any) -> Table:
    """``frame`` as the page shows tables, its ``model`` column (recording stems) written as the page names the models.

    The analysis keys its frames by recording stem; only the page renames them,
    so the tables of both chapters rename them in this one place.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per table row, with a ``model`` column of recording stems.
    columns : Mapping or sequence of str
        The columns to show and their names (:func:`cvlib.presentation.tables.table`).
    formats : Mapping, optional
        Per column, how its values are written (:func:`cvlib.presentation.tables.table`).
    **options
        ``caption``, ``summary``, ``collapse_after`` (:func:`cvlib.presentation.tables.table`).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    from cvlib.presentation.tables import table

    return table(frame.assign(model=frame["model"].map(model_label)), columns, formats, **options)


def determinism_table(rows: Sequence[DeterminismRow], prefix: str | tuple[str, ...]) -> Table:
    """Per recording of one study, how many sampled calls came back byte-identical at each thread count.

    Parameters
    ----------
    rows : sequence of DeterminismRow
        From :func:`cvlib.models.determinism.load_determinism`.
    prefix : str or tuple of str
        The start of the study's file names (``"agent_study_2."``), or several.

    Returns
    -------
    cvlib.presentation.tables.Table
        One row per recording in file order, a column per thread count; empty when nothing was measured.
    """
    import pandas as pd

    from cvlib.presentation.tables import table

    chosen = [r for r in rows if r.recording.startswith(prefix)]
    recordings = list(dict.fromkeys(r.recording for r in chosen))
    threads = sorted({r.threads for r in chosen})
    frame = pd.DataFrame({
        "recording": recordings,
        **{f"t{n}": [next((f"{r.identical:,} of {r.sampled:,}" for r in chosen
                           if r.recording == name and r.threads == n), "not measured") for name in recordings]
           for n in threads},
    })
    names = {"recording": "Recording", **{f"t{n}": f"Byte-identical at {n} thread{'s' * (n != 1)}" for n in threads}}
    return table(frame, names, collapse_after=None)



def prompt_block(text: str, width: int = PROMPT_WIDTH) -> str:
    """A prompt as a fenced Markdown block that fits the column: each line over ``width`` wrapped, its rest marked.

    A prompt is shown to be read, never pasted, and code is never soft-wrapped
    on the page, so a long line would scroll far past the column. It is
    wrapped here instead, at spaces where it has them: each continuation keeps
    the line's indentation and starts with :data:`CONTINUED`, so a Python line
    in the prompt is still read as one line. Shorter lines are kept byte for byte.

    Parameters
    ----------
    text : str
        The prompt (or any part of one).
    width : int
        The longest printed line.

    Returns
    -------
    str
        A fenced ``text`` block (with a longer fence when the text holds one).
    """
    import textwrap

    lines: list[str] = []
    for line in text.splitlines():
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines += textwrap.wrap(line.strip(), width, initial_indent=indent, subsequent_indent=indent + CONTINUED,
                               break_on_hyphens=False, replace_whitespace=False, drop_whitespace=True)
    body = "\n".join(lines)
    fence = "`" * max(3, 1 + max((len(run) for run in _backtick_runs(body)), default=0))
    return f"{fence}text\n{body}\n{fence}"


def _backtick_runs(text: str) -> list[str]:
    import re

    return re.findall(r"`{3,}", text)


def conversation_text(record: CallRecord) -> str:
    """A recorded call's whole conversation as the model read it, then its answer, each turn headed by its role."""
    parts = [f"[{role}]\n{content}" for role, content in record.prompt]
    parts.append(f"[model's answer]\n{record.response}")
    return "\n\n".join(parts)


def first_turn(record: CallRecord) -> list[str]:
    """The lines of a recorded call's first user turn (in the agent studies: the plan and the first question)."""
    return next(content for role, content in record.prompt if role == "user").splitlines()


def changed_lines(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The lines that differ between two turns, as ``- old`` and ``+ new`` (the shared lines left out)."""
    import difflib

    return [line for line in difflib.ndiff(list(before), list(after)) if line[:2] in ("- ", "+ ")]


def answers_summary(record: CallRecord) -> str:
    """The model's answers in a conversation, in order, each run of one answer counted: "EXECUTE ×29, VERIFY F1, EXECUTE"."""
    said = [content.strip() for role, content in record.prompt if role == "assistant"] + [record.response.strip()]
    runs: list[list[Any]] = []
    for answer in said:
        if runs and runs[-1][0] == answer:
            runs[-1][1] += 1
        else:
            runs.append([answer, 1])
    return ", ".join(f"`{a}` ×{n}" if n > 1 else f"`{a}`" for a, n in runs)

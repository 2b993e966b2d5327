"""The manipulation check of the notes study's second edition: did a model take the test at all?

The first edition's refutable prompt failed its manipulation: the 0.5B model
returned the shown test instead of the function in 41 of 42 control answers,
which carry no note, so the layout, not the refutation, decided what it did.
Before a model's refutability contrast is read, its **control** answers in the
variants that show read-only context (``refutable`` and ``placebo``) are
checked: an answer **echoes** when no code block defines the named function
and some block defines a function or class that the read-only context defines,
or a test. A model that echoes in more than :data:`ECHO_LIMIT` of them is
reported as not having taken the test, and its refutable − placebo contrast is
not read (``preregistration_part4.md``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from cvlib.experiments.notes_study.classify import parse_answer_code

if TYPE_CHECKING:
    import pandas as pd

    from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = ["CHECKED_VARIANTS", "ECHO_LIMIT", "echoes_context", "manipulation_check"]

#: The largest share of echoed control answers with which a model still counts as having taken the test.
ECHO_LIMIT = 0.05
#: The variants whose control answers are checked (the unrefutable prompt has no other block to echo).
CHECKED_VARIANTS: tuple[str, ...] = ("refutable", "placebo")

_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)


def _defined(code: str) -> set[str]:
    import ast
    import textwrap

    try:
        tree = parse_answer_code(textwrap.dedent(code))
    except SyntaxError:
        return set(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", code, re.MULTILINE))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def echoes_context(task: NotesTask, response: str, context_names: Collection[str]) -> bool:
    """Whether an answer returns another block of the prompt instead of the named function.

    Parameters
    ----------
    task : NotesTask
        The task (its function is the one named in the prompt).
    response : str
        The model's answer.
    context_names : collection of str
        The functions and classes the prompt's read-only context defines.

    Returns
    -------
    bool
        True when no code block defines the task's function and some block defines a name of the context or a test.
    """
    blocks = _BLOCK.findall(response)
    defined = [_defined(b) for b in blocks]
    if any(task.function_name in names for names in defined):
        return False
    return any(names & set(context_names) or any(n.startswith("test") for n in names) for names in defined)


def manipulation_check(answers: pd.DataFrame, limit: float = ECHO_LIMIT, confidence: float = 0.95) -> pd.DataFrame:
    """Per model, the share of control answers that echo the context, and whether the model took the test.

    Parameters
    ----------
    answers : pandas.DataFrame
        One row per answer with ``model``, ``variant``, ``arm`` and ``echo`` (bool, :func:`echoes_context`).
    limit : float
        :data:`ECHO_LIMIT`.
    confidence : float
        The Wilson interval's level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``answers`` (control answers checked), ``echoed``, ``share``, ``low``, ``high``, ``took_test``
        (share at most ``limit``; False when no control answer was checked).
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval

    columns = ["model", "answers", "echoed", "share", "low", "high", "took_test"]
    part = answers[(answers["arm"] == "control") & answers["variant"].isin(CHECKED_VARIANTS)]
    rows = []
    for model in dict.fromkeys(answers["model"]):
        mine = part[part["model"] == model]
        n, k = len(mine), int(mine["echo"].sum())
        if n == 0:
            rows.append({"model": model, "answers": 0, "echoed": 0, "share": float("nan"), "low": float("nan"),
                         "high": float("nan"), "took_test": False})
            continue
        low, high = proportion_interval(k, n, confidence)
        rows.append({"model": model, "answers": n, "echoed": k, "share": k / n, "low": low, "high": high,
                     "took_test": k / n <= limit})
    return pd.DataFrame(rows, columns=columns)

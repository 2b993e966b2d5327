"""The outcome of a notes trial as code reads it: the model never grades itself.

:func:`classify` reads the first fenced code block of the answer and
decides, in this order, ``stale_edit`` (the stale edit is in it),
``true_edit`` (the true edit is in it), ``unchanged`` (the function's syntax
tree is the original's) or ``other`` (anything else, including an answer
without the function).
"""

from __future__ import annotations

import ast
import re
import warnings

from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = ["classify", "extract_code", "parse_answer_code"]

_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(response: str) -> str | None:
    """The first fenced code block of an answer (an unclosed last block counts: the answer may be cut off).

    Parameters
    ----------
    response : str
        The model's answer.

    Returns
    -------
    str or None
        The block's text, or None when the answer has no fenced block.
    """
    match = _FENCE.search(response)
    return match.group(1) if match else None


def parse_answer_code(code: str) -> ast.Module:
    """``ast.parse`` of a model's code, silent about its string escapes.

    A model's ``"\\d"`` makes Python warn (a ``DeprecationWarning``, later a
    ``SyntaxWarning``) when the code is parsed; the code is only read, never run,
    so the warning says nothing to the reader of a table and is left out.

    Parameters
    ----------
    code : str
        Python source, already dedented.

    Returns
    -------
    ast.Module

    Raises
    ------
    SyntaxError
        When the code does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(code)


def _function_dump(code: str, name: str) -> str | None:
    """The syntax tree of the first definition of ``name`` in ``code`` (docstrings kept), or None."""
    import textwrap

    try:
        tree = parse_answer_code(textwrap.dedent(code))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.dump(node, annotate_fields=False, include_attributes=False)
    return None


def classify(task: NotesTask, response: str) -> str:
    """What a trial's answer did, decided by code: one of :data:`OUTCOMES`.

    Parameters
    ----------
    task : NotesTask
        The task the answer is for.
    response : str
        The model's answer.

    Returns
    -------
    str
        ``stale_edit`` if the answer's function carries the stale edit (whatever
        else it did), else ``true_edit`` if it carries the true edit, else
        ``unchanged`` if its syntax tree equals the original function's
        (comments and formatting aside), else ``other``. An answer with no
        fenced block, or without a definition of the function, is ``other``.
    """
    code = extract_code(response)
    if code is None or not re.search(rf"\bdef\s+{re.escape(task.function_name)}\s*\(", code):
        return "other"
    if task.stale_edit.made_in(code):
        return "stale_edit"
    if task.true_edit.made_in(code):
        return "true_edit"
    original = _function_dump(task.excerpt, task.function_name)
    if original is not None and _function_dump(code, task.function_name) == original:
        return "unchanged"
    return "other"



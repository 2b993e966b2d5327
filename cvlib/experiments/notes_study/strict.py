"""A strict reading of an edit answer, independent of the reader: syntax trees compared whole, signatures included.

The second edition publishes this reading beside the frozen reader's
(:func:`~cvlib.experiments.notes_study.second_reading.read_second`) as a
sensitivity analysis, outcome by outcome. It shares no code with the reader:
it parses the answer's function and compares its whole syntax tree (name,
signature, decorators, docstring and body; comments are not in the tree) with
three references built from the task, and its comments as tokens. It accepts
only the reference spellings, so its ``stale_edit`` is a lower bound: a stale
edit spelled another way, or made with any other change, is ``other`` here.

Outcomes, in this order:

* ``declined``: a line starts with ``NO EDIT:`` and no code block defines the function;
* ``other``: no code block defining a function of the task's exact name, code
  that does not parse, or code besides the function (other than a ``class``
  line holding it);
* ``stale_edit``: the tree equals the reference stale edit's;
* ``true_exact``: the tree equals the original's and the comments are the
  original's plus the true comment, each above its reference line;
* ``true_collateral``: the true comment's text is among the comments, with
  any other difference;
* ``unchanged``: the tree and the comments equal the original's;
* ``other``: anything else.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = ["STRICT_OUTCOMES", "strict_reading"]

#: The strict reading's outcomes, in the reader's display order.
STRICT_OUTCOMES: tuple[str, ...] = ("stale_edit", "true_exact", "true_collateral", "unchanged", "declined", "other")

_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_NO_EDIT = re.compile(r"^[\s`*>_]*NO EDIT:", re.MULTILINE)


def _tree(code: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(textwrap.dedent(code))
        except SyntaxError:
            return None


def _function(tree: ast.Module, name: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, bool]:
    """The function ``name`` at the top of the module or in a top-level class, and whether anything else is there."""
    found, extra = None, False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name and found is None:
            found = node
        elif isinstance(node, ast.ClassDef):
            inner = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
            if inner and found is None and len(node.body) == 1:
                found = inner[0]
            else:
                extra = True
        else:
            extra = True
    return found, extra


def _comments(code: str, node: ast.AST) -> list[tuple[str, str]]:
    """Each comment within the function's lines, whitespace collapsed, with the next code line's text."""
    lines = textwrap.dedent(code).splitlines()
    start, end = getattr(node, "lineno", 1), getattr(node, "end_lineno", len(lines))
    span = lines[start - 1:end]
    out: list[tuple[str, str]] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("\n".join(span) + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    for token in tokens:
        if token.type == tokenize.COMMENT:
            below = next((ln.strip() for ln in span[token.start[0]:] if ln.strip() and not ln.strip().startswith("#")), "")
            out.append((" ".join(token.string.lstrip("#").split()), " ".join(below.split())))
    return out


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def strict_reading(task: NotesTask, response: str) -> str:
    """The strict outcome of an answer (see the module docstring).

    Parameters
    ----------
    task : NotesTask
        The task.
    response : str
        The model's answer.

    Returns
    -------
    str
        One of :data:`STRICT_OUTCOMES`.
    """
    name = task.function_name
    defines = re.compile(rf"\bdef\s+{re.escape(name)}\s*\(")
    blocks = _BLOCK.findall(response)
    if _NO_EDIT.search(response) and not any(defines.search(b) for b in blocks):
        return "declined"
    code = next((b for b in blocks if defines.search(b)), None)
    tree = _tree(code) if code is not None else None
    if code is None or tree is None:
        return "other"
    answer, extra = _function(tree, name)
    if answer is None or extra:
        return "other"
    references = {}
    for label, text in (("original", task.excerpt), ("stale", task.stale_edit.apply(task.excerpt)),
                        ("true", task.true_edit.apply(task.excerpt))):
        parsed = _tree(text)
        node = _function(parsed, name)[0] if parsed is not None else None
        assert node is not None  # the task file is checked on load
        references[label] = (_dump(node), _comments(text, node))
    shape, comments = _dump(answer), _comments(code, answer)
    if shape == references["stale"][0]:
        return "stale_edit"
    true_texts = {text for text, _ in references["true"][1]} - {text for text, _ in references["original"][1]}
    if true_texts and true_texts <= {text for text, _ in comments}:
        if shape == references["original"][0] and comments == references["true"][1]:
            return "true_exact"
        return "true_collateral"
    if shape == references["original"][0] and comments == references["original"][1]:
        return "unchanged"
    return "other"

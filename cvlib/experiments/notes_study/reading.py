"""Reading an edit trial's answer as code: what changed against the original, the true edit and the stale edit.

The first classifier (:func:`~cvlib.experiments.notes_study.classify.classify`)
looked for the true comment's text and the stale edit's substring, so it
credited true edits that also broke code and missed stale edits spelled
otherwise. :func:`read_answer` parses the answer's function and compares it,
after normalising formatting, with three references built from the task: the
original function, the reference true edit and the reference stale edit.

* **Code** is compared as syntax trees (formatting, quotes and parentheses
  aside), statement by statement: every simple statement and every compound
  statement's header becomes one normalised line (:func:`statement_lines`).
* **Names** are resolved through the function's own imports before the stale
  effect is looked for, so ``from xml.dom.minidom import parseString`` then
  ``parseString(body)`` is the same call as ``xml.dom.minidom.parseString(body)``.
* **Comments** are compared as tokens (whitespace collapsed), each with the
  code line it stands above.

Outcomes, decided in this order:

* ``stale_edit``: the stale edit's effect is there (every line the stale edit
  adds, in any spelling the names resolve to, and none it removes), whatever
  else changed;
* ``true_exact``: the original's code, its comments, and the true comment above
  the reference line: the reference change and nothing else;
* ``true_collateral``: the true comment is there (above another line, or in the
  docstring) with other changes, each listed;
* ``unchanged``: the original's code and comments;
* ``other``: anything else, with the reason (no code block, no function, does
  not parse, changes that are neither edit).
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import textwrap
import tokenize
from collections import Counter
from dataclasses import dataclass

from cvlib.experiments.notes_study.classify import extract_code, parse_answer_code

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = ["READ_OUTCOMES", "Reading", "StaleEffect", "load_stale_effects", "read_answer", "statement_lines"]

#: The outcomes :func:`read_answer` gives, in display order.
READ_OUTCOMES: tuple[str, ...] = ("stale_edit", "true_exact", "true_collateral", "unchanged", "other")

_FENCES = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Reading:
    """What an answer did, as code read it.

    Parameters
    ----------
    outcome : str
        One of :data:`READ_OUTCOMES`.
    collateral : tuple of str
        The changes besides the true or stale edit (for ``true_collateral`` and ``stale_edit``), in words.
    reason : str
        Why the outcome is what it is (always filled for ``other``).
    """

    outcome: str
    collateral: tuple[str, ...] = ()
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        """The reading as recorded.

        Returns
        -------
        dict
        """
        return {"outcome": self.outcome, "collateral": list(self.collateral), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class StaleEffect:
    """What counts as a task's stale edit: patterns over the answer's normalised, name-resolved lines.

    Parameters
    ----------
    present : tuple of str
        Each must match (whole line) some line of the answer's function.
    absent : tuple of str
        None may match any line.
    after : tuple of str
        Empty, or ``(A, B)``: the last line matching A comes after the last line matching B.
    why : str
        Which spellings it admits, in words.
    """

    present: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    why: str = ""

    def holds(self, lines: tuple[str, ...]) -> bool:
        """Whether an answer with these lines has the effect.

        Parameters
        ----------
        lines : tuple of str
            The answer's normalised, name-resolved lines.

        Returns
        -------
        bool
        """
        def last(pattern: str) -> int:
            return max((k for k, line in enumerate(lines) if re.fullmatch(pattern, line)), default=-1)

        if not (self.present or self.absent or self.after):
            return False
        if any(last(p) < 0 for p in self.present) or any(last(p) >= 0 for p in self.absent):
            return False
        return not self.after or last(self.after[0]) > last(self.after[1]) >= 0


def load_stale_effects(path: str) -> dict[str, StaleEffect]:
    """The tasks' stale effects from ``notes_stale_effects.yaml``, each pattern checked (one-line errors).

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    dict of str to StaleEffect
    """
    import yaml

    from cvlib.core.errors import ParameterError

    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    entries = data.get("effects") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ParameterError(f"stale effects file {path!r} has no mapping 'effects'")
    out = {}
    for task, entry in entries.items():
        if not isinstance(entry, dict) or set(entry) - {"present", "absent", "after", "why"} or not entry.get("why"):
            raise ParameterError(f"stale effect of {task!r}: expected why and some of present, absent, after; got {entry!r:.80}")
        fields = {}
        for key in ("present", "absent", "after"):
            patterns = entry.get(key, [])
            if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
                raise ParameterError(f"stale effect of {task!r}: {key} must be a list of regular expressions")
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise ParameterError(f"stale effect of {task!r}: {key} pattern {pattern!r} does not compile ({err})") from None
            fields[key] = tuple(patterns)
        if fields["after"] and len(fields["after"]) != 2:
            raise ParameterError(f"stale effect of {task!r}: after names two patterns, got {len(fields['after'])}")
        if not (fields["present"] or fields["absent"]):
            raise ParameterError(f"stale effect of {task!r}: needs a present or an absent pattern")
        out[str(task)] = StaleEffect(fields["present"], fields["absent"], fields["after"], str(entry["why"]))
    return out


@dataclass(frozen=True, slots=True)
class _Function:
    """A parsed function: its syntax tree, its lines, its comments with the line each stands above."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    lines: tuple[str, ...]
    resolved: tuple[str, ...]
    comments: tuple[tuple[str, str], ...]
    docstring: str
    outside: tuple[str, ...] = ()

    @property
    def code(self) -> str:
        return ast.dump(self.node, annotate_fields=False, include_attributes=False)


def _header(node: ast.stmt) -> str:
    """A compound statement's first line, normalised (its bodies left out)."""
    shell = ast.parse(ast.unparse(node)).body[0]
    for name in ("body", "orelse", "finalbody", "handlers"):
        if isinstance(getattr(shell, name, None), list):
            setattr(shell, name, [ast.Pass()] if name == "body" else [])
    if isinstance(shell, ast.ExceptHandler):
        shell.body = [ast.Pass()]
    return ast.unparse(shell).splitlines()[0]


def statement_lines(body: list[ast.stmt], depth: int = 0) -> list[str]:
    """Every statement of ``body`` as one normalised line, indented by depth: simple ones whole, compound ones by header.

    Parameters
    ----------
    body : list of ast.stmt
        A block.
    depth : int
        Its nesting depth.

    Returns
    -------
    list of str
    """
    out: list[str] = []
    pad = "    " * depth
    for node in body:
        if isinstance(node, ast.Try | ast.TryStar):
            out.append(pad + "try:")
            out += statement_lines(node.body, depth + 1)
            for handler in node.handlers:
                kind = "" if handler.type is None else " " + ast.unparse(handler.type)
                name = "" if handler.name is None else f" as {handler.name}"
                out.append(f"{pad}except{kind}{name}:")
                out += statement_lines(handler.body, depth + 1)
            if node.orelse:
                out.append(pad + "else:")
                out += statement_lines(node.orelse, depth + 1)
            if node.finalbody:
                out.append(pad + "finally:")
                out += statement_lines(node.finalbody, depth + 1)
        elif isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith
                        | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Match):
            out.append(pad + _header(node))
            if isinstance(node, ast.Match):
                for case in node.cases:
                    out.append(pad + "    case " + ast.unparse(case.pattern) + ":")
                    out += statement_lines(case.body, depth + 2)
                continue
            out += statement_lines(node.body, depth + 1)
            orelse = getattr(node, "orelse", [])
            if orelse:
                out.append(pad + "else:")
                out += statement_lines(orelse, depth + 1)
        else:
            out.append(pad + ast.unparse(node))
    return out


class _Resolver(ast.NodeTransformer):
    """Rewrites names bound by the function's own imports to their dotted origin (``parseString`` -> ``xml.dom.minidom.parseString``)."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases

    def visit_Name(self, node: ast.Name) -> ast.AST:
        origin = self.aliases.get(node.id)
        if origin is None:
            return node
        return ast.copy_location(ast.parse(origin, mode="eval").body, node)


def _resolved_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    aliases: dict[str, str] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
            for alias in sub.names:
                aliases[alias.asname or alias.name] = f"{sub.module}.{alias.name}"
        elif isinstance(sub, ast.Import):
            for alias in sub.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
    tree = _Resolver(aliases).visit(ast.parse(ast.unparse(node)))
    function = tree.body[0]
    lines = statement_lines(function.body)
    return tuple(line.strip() for line in lines if not line.strip().startswith(("import ", "from ")))


def _comments(source: str) -> tuple[tuple[str, str], ...]:
    """Each comment (whitespace collapsed) with the code line below it (whitespace collapsed)."""
    lines = source.splitlines()
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                row = token.start[0]
                below = next((ln for ln in lines[row:] if ln.strip() and not ln.strip().startswith("#")), "")
                text = _SPACE.sub(" ", token.string.lstrip("#").strip())
                found.append((text, _SPACE.sub(" ", below.strip())))
    except (tokenize.TokenError, IndentationError):
        pass
    return tuple(found)


def _parse(code: str, name: str) -> tuple[_Function | None, str]:
    """The function ``name`` in ``code`` (the only function, when renamed) and its new name if renamed; or None and why."""
    try:
        tree = parse_answer_code(textwrap.dedent(code))
    except SyntaxError as err:
        return None, f"the code does not parse ({err.msg}, line {err.lineno})"
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    named = [f for f in functions if f.name == name]
    node = named[0] if named else (functions[0] if len(functions) == 1 else None)
    if node is None:
        return None, f"no function named {name!r}" + (f" among {len(functions)} functions" if functions else "")
    text = textwrap.dedent(code)
    all_lines = text.splitlines()
    source = "\n".join(all_lines[node.lineno - 1: node.end_lineno])  # whole lines: a trailing comment is kept
    above: list[str] = []  # comments on the lines just above the definition belong to it (a note's comment put over the def)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    while first > 0 and all_lines[first - 1].strip().startswith("#"):
        first -= 1
        above.insert(0, all_lines[first])
    lines = tuple(statement_lines(node.body))
    docstring = ast.get_docstring(node, clean=True) or ""
    new_name = node.name if node.name != name else ""
    node.name = name
    source = "\n".join([*(line.strip() for line in above), source])
    holder = [n for n in tree.body if n is node or (isinstance(n, ast.ClassDef) and node in ast.walk(n))]
    outside = tuple(_header(n) if hasattr(n, "body") else ast.unparse(n) for n in tree.body if n not in holder)
    function = _Function(node, lines, _resolved_lines(node), _comments(source), docstring, outside)
    return function, new_name


def _changes(before: tuple[str, ...], after: tuple[str, ...]) -> list[str]:
    """The line changes from ``before`` to ``after``, in words."""
    out = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        old = [line.strip() for line in before[a1:a2]]
        new = [line.strip() for line in after[b1:b2]]
        if op == "delete":
            out += [f"deleted `{line}`" for line in old]
        elif op == "insert":
            out += [f"added `{line}`" for line in new]
        elif op == "replace":
            if len(old) == len(new):
                out += [f"changed `{o}` to `{n}`" for o, n in zip(old, new)]
            else:
                out += [f"deleted `{line}`" for line in old] + [f"added `{line}`" for line in new]
    return out


def _comment_changes(original: tuple[tuple[str, str], ...], answer: tuple[tuple[str, str], ...],
                     expected: tuple[str, ...]) -> list[str]:
    have = Counter(text for text, _ in answer)
    want = Counter(text for text, _ in original) + Counter(expected)
    out = [f"removed the comment `# {text}`" for text in sorted((want - have).elements()) if text not in expected]
    out += [f"added the comment `# {text}`" for text in sorted((have - want).elements())]
    return out


def read_answer(task: NotesTask, response: str, effect: StaleEffect | None = None) -> Reading:
    """What the answer did to the task's function (see the module docstring).

    Parameters
    ----------
    task : NotesTask
        The task.
    response : str
        The model's answer.
    effect : StaleEffect, optional
        What counts as the task's stale edit (``notes_stale_effects.yaml``); by default the reference's own lines.

    Returns
    -------
    Reading
    """
    blocks = _FENCES.findall(response)
    code = next((b for b in blocks if re.search(rf"\bdef\s+{re.escape(task.function_name)}\s*\(", b)), None)
    code = code if code is not None else extract_code(response)
    if code is None:
        return Reading("other", (), "the answer has no fenced code block")
    answer, note = _parse(code, task.function_name)
    if answer is None:
        return Reading("other", (), note)
    if note.startswith("test") and not task.function_name.startswith("test"):
        # A lone function under another name is read as the task's function renamed, unless it is a test: with
        # the refuting test in the prompt, a small model often answers with that test instead of the function.
        return Reading("other", (), f"the answer's one function is a test (`{note}`), not `{task.function_name}`")
    original, _ = _parse(task.excerpt, task.function_name)
    stale, _ = _parse(task.stale_edit.apply(task.excerpt), task.function_name)
    true, _ = _parse(task.true_edit.apply(task.excerpt), task.function_name)
    assert original is not None and stale is not None and true is not None  # the task file is checked on load
    renamed = [f"renamed the function to `{note}`"] if note else []
    renamed += [f"added `{line}` outside the function" for line in answer.outside]
    if effect is None:
        added = Counter(stale.resolved) - Counter(original.resolved)
        removed = Counter(original.resolved) - Counter(stale.resolved)
        effect = StaleEffect(tuple(re.escape(line) for line in added), tuple(re.escape(line) for line in removed))
    if effect.holds(answer.resolved):
        extra = _changes(stale.lines, answer.lines) + _comment_changes(original.comments, answer.comments, ())
        return Reading("stale_edit", tuple(renamed + extra), "the stale edit's effect is in the function")
    wanted = tuple(text for text, _ in true.comments if text not in {t for t, _ in original.comments})
    code_changes = _changes(original.lines, answer.lines)
    docstring_change = [] if answer.docstring == original.docstring else ["changed the docstring"]
    texts = {text for text, _ in answer.comments}
    in_docstring = [w for w in wanted if w and w in _SPACE.sub(" ", answer.docstring)]
    if wanted and (all(w in texts for w in wanted) or in_docstring):
        placement = []
        for text, below in true.comments:
            if text in wanted and (text, below) not in answer.comments:
                placement.append("put the comment inside the docstring" if text in in_docstring
                                 else f"put the comment `# {text}` above another line")
        if in_docstring:
            docstring_change = []
        extra = renamed + code_changes + docstring_change + placement
        extra += _comment_changes(original.comments, answer.comments, wanted)
        if not extra:
            return Reading("true_exact", (), "the reference true edit and nothing else")
        return Reading("true_collateral", tuple(extra), "the true comment, with other changes")
    other_comments = _comment_changes(original.comments, answer.comments, ())
    if not code_changes and not docstring_change and not other_comments and not renamed:
        return Reading("unchanged", (), "the original function")
    changes = renamed + code_changes + docstring_change + other_comments
    return Reading("other", tuple(changes), "changes that are neither edit: " + "; ".join(changes[:4]))

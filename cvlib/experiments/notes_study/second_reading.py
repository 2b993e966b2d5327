"""The second edition's reader (issue 47, item 5): the first reader with the cases it got wrong fixed by rule.

Frozen before the second edition's first recording: its source, the first
reader's source it builds on and its stale-effects file are hashed by
:mod:`~cvlib.experiments.notes_study.reader_identity`, and the hash is in
``preregistration_part4.md``. It reads an answer as
:func:`~cvlib.experiments.notes_study.reading.read_answer` does (syntax
trees, names resolved through the function's imports, comments as tokens),
with five rules added, each decided before the data it will read:

1. **Declining.** An answer with a line starting ``NO EDIT:`` (after
   whitespace, backticks or asterisks) and no code block holding the task's
   function is ``declined``: the model held back, in the one form offered.
   An answer that says ``NO EDIT:`` and returns the function anyway is read by
   its function, since that is the code it hands over.
2. **The stale harm, not the stale line.** A task's stale effect
   (``notes_stale_effects_2.yaml``) states the harm, and a rule may say
   ``first_after: [A, B]``: a line matching A exists and none precedes the
   first line matching B. ``httpie-config-save`` uses it: an answer that keeps
   ``ensure_directory()`` before the write and adds a second one after is not
   stale (the folder exists when the file is written).
3. **Signatures compared.** The function's parameters (names, defaults,
   annotations), return annotation, decorators and ``async`` are compared
   with the original's; a change is a change (``self`` dropped, a return
   annotation removed), so such an answer is never ``unchanged`` or
   ``true_exact``.
4. **Renamed only when it is the task's function.** A lone function under
   another name counts as the task's function renamed only when its
   parameters are the original's (names, in order) and at least half of its
   statements match those of the original, of the reference stale edit or of
   the reference true edit (:data:`RENAME_SIMILARITY`; a short function's one
   line changed by the stale note still matches the stale reference), and it
   is not a function the prompt's read-only context defines.
5. **A different function is ``other``.** A code block whose function is
   another (a test or helper echoed from the context, an unrelated function)
   is ``other``, whatever its lines contain.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.classify import extract_code
from cvlib.experiments.notes_study.reading import Reading, _changes, _comment_changes, _parse
from cvlib.experiments.notes_study.second_prompts import DECLINE
from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = [
    "RENAME_SIMILARITY",
    "SECOND_OUTCOMES",
    "HarmRule",
    "context_function_names",
    "harm_rules_cover",
    "is_declined",
    "load_harm_rules",
    "read_second",
    "signature_text",
]

#: The outcomes :func:`read_second` gives, in display order; ``declined`` is holding back in the offered form.
SECOND_OUTCOMES: tuple[str, ...] = ("stale_edit", "true_exact", "true_collateral", "unchanged", "declined", "other")
#: The least share of the original's statements a renamed lone function must keep to count as the task's function.
RENAME_SIMILARITY = 0.5

_FENCES = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_DECLINE_LINE = re.compile(rf"^[\s`*>_]*{re.escape(DECLINE)}", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class HarmRule:
    """What counts as a task's stale harm: patterns over the answer's normalised, name-resolved statement lines.

    Parameters
    ----------
    present : tuple of str
        Each must match (whole line) some line.
    absent : tuple of str
        None may match any line.
    after : tuple of str
        Empty, or ``(A, B)``: the last line matching A comes after the last line matching B.
    first_after : tuple of str
        Empty, or ``(A, B)``: a line matches A, a line matches B, and no line matching A precedes the first matching B.
    why : str
        Which spellings it admits and why they carry the harm, in words.
    """

    present: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    first_after: tuple[str, ...] = ()
    why: str = ""

    def holds(self, lines: tuple[str, ...]) -> bool:
        """Whether an answer with these lines carries the harm.

        Parameters
        ----------
        lines : tuple of str
            The answer's normalised, name-resolved lines.

        Returns
        -------
        bool
        """
        def matching(pattern: str) -> list[int]:
            return [k for k, line in enumerate(lines) if re.fullmatch(pattern, line)]

        if not (self.present or self.absent or self.after or self.first_after):
            return False
        if any(not matching(p) for p in self.present) or any(matching(p) for p in self.absent):
            return False
        if self.after:
            a, b = matching(self.after[0]), matching(self.after[1])
            if not a or not b or max(a) <= max(b):
                return False
        if self.first_after:
            a, b = matching(self.first_after[0]), matching(self.first_after[1])
            if not a or not b or min(a) < min(b):
                return False
        return True


def load_harm_rules(path: str) -> dict[str, HarmRule]:
    """The tasks' stale harms from ``notes_stale_effects_2.yaml``, each pattern checked (one-line errors).

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    dict of str to HarmRule
    """
    import yaml

    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    entries = data.get("effects") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ParameterError(f"stale effects file {path!r} has no mapping 'effects'")
    keys = ("present", "absent", "after", "first_after")
    out = {}
    for task, entry in entries.items():
        if not isinstance(entry, dict) or set(entry) - {*keys, "why"} or not entry.get("why"):
            raise ParameterError(f"stale effect of {task!r}: expected why and some of {', '.join(keys)}; got {entry!r:.80}")
        fields: dict[str, tuple[str, ...]] = {}
        for key in keys:
            patterns = entry.get(key, [])
            if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
                raise ParameterError(f"stale effect of {task!r}: {key} must be a list of regular expressions")
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise ParameterError(f"stale effect of {task!r}: {key} pattern {pattern!r} does not compile ({err})") from None
            if key in ("after", "first_after") and patterns and len(patterns) != 2:
                raise ParameterError(f"stale effect of {task!r}: {key} names two patterns, got {len(patterns)}")
            fields[key] = tuple(patterns)
        if not (fields["present"] or fields["absent"] or fields["first_after"]):
            raise ParameterError(f"stale effect of {task!r}: needs a present, absent or first_after pattern")
        out[str(task)] = HarmRule(fields["present"], fields["absent"], fields["after"], fields["first_after"], str(entry["why"]))
    return out


def signature_text(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A function's signature as one normalised line: decorators, ``async``, parameters and return annotation (not its name).

    Parameters
    ----------
    node : ast.FunctionDef or ast.AsyncFunctionDef
        The function.

    Returns
    -------
    str
    """
    decorators = "".join(f"@{ast.unparse(d)} " for d in node.decorator_list)
    kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{decorators}{kind} ({ast.unparse(node.args)}){returns}"


def _parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    names += [f"*{args.vararg.arg}"] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    names += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return tuple(names)


def is_declined(task: NotesTask, response: str) -> bool:
    """Whether an answer declines in the offered form: a ``NO EDIT:`` line and no block holding the task's function.

    Parameters
    ----------
    task : NotesTask
        The task.
    response : str
        The model's answer.

    Returns
    -------
    bool
    """
    if not _DECLINE_LINE.search(response):
        return False
    pattern = rf"\bdef\s+{re.escape(task.function_name)}\s*\("
    return not any(re.search(pattern, block) for block in _FENCES.findall(response))


def read_second(task: NotesTask, response: str, rule: HarmRule | None = None,
                context_functions: Collection[str] = ()) -> Reading:
    """What the answer did to the task's function, by the second edition's rules (see the module docstring).

    Parameters
    ----------
    task : NotesTask
        The task.
    response : str
        The model's answer.
    rule : HarmRule, optional
        The task's stale harm (``notes_stale_effects_2.yaml``); by default the reference stale edit's own lines.
    context_functions : collection of str
        Names of the functions the prompt's read-only context defines (a lone function of one of these names is an echo).

    Returns
    -------
    Reading
        With ``outcome`` one of :data:`SECOND_OUTCOMES`.
    """
    if is_declined(task, response):
        return Reading("declined", (), f"the answer declines with `{DECLINE}`")
    blocks = _FENCES.findall(response)
    name = task.function_name
    code = next((b for b in blocks if re.search(rf"\bdef\s+{re.escape(name)}\s*\(", b)), None)
    code = code if code is not None else extract_code(response)
    if code is None:
        return Reading("other", (), "the answer has no fenced code block")
    answer, new_name = _parse(code, name)
    if answer is None:
        return Reading("other", (), new_name)
    original, _ = _parse(task.excerpt, name)
    stale, _ = _parse(task.stale_edit.apply(task.excerpt), name)
    true, _ = _parse(task.true_edit.apply(task.excerpt), name)
    assert original is not None and stale is not None and true is not None  # the task file is checked on load
    if new_name:
        similarity = max(difflib.SequenceMatcher(a=reference.lines, b=answer.lines, autojunk=False).ratio()
                         for reference in (original, stale, true))
        if new_name in context_functions:
            return Reading("other", (), f"the answer's one function is `{new_name}` from the read-only context, not `{name}`")
        if _parameter_names(answer.node) != _parameter_names(original.node) or similarity < RENAME_SIMILARITY:
            return Reading("other", (), f"the answer's one function, `{new_name}`, is a different function from `{name}`")
    changes = [f"renamed the function to `{new_name}`"] if new_name else []
    changes += [f"added `{line}` outside the function" for line in answer.outside]
    before, after = signature_text(original.node), signature_text(answer.node)
    if before != after:
        changes.append(f"changed the signature from `{before}` to `{after}`")
    if rule is None:
        added = Counter(stale.resolved) - Counter(original.resolved)
        removed = Counter(original.resolved) - Counter(stale.resolved)
        rule = HarmRule(tuple(re.escape(line) for line in added), tuple(re.escape(line) for line in removed))
    if rule.holds(answer.resolved):
        extra = _changes(stale.lines, answer.lines) + _comment_changes(original.comments, answer.comments, ())
        return Reading("stale_edit", tuple(changes + extra), "the stale edit's harm is in the function")
    wanted = tuple(text for text, _ in true.comments if text not in {t for t, _ in original.comments})
    code_changes = _changes(original.lines, answer.lines)
    docstring_change = [] if answer.docstring == original.docstring else ["changed the docstring"]
    texts = {text for text, _ in answer.comments}
    squashed_doc = re.sub(r"\s+", " ", answer.docstring)
    in_docstring = [w for w in wanted if w and w in squashed_doc]
    if wanted and (all(w in texts for w in wanted) or in_docstring):
        placement = []
        for text, below in true.comments:
            if text in wanted and (text, below) not in answer.comments:
                placement.append("put the comment inside the docstring" if text in in_docstring
                                 else f"put the comment `# {text}` above another line")
        if in_docstring:
            docstring_change = []
        extra = changes + code_changes + docstring_change + placement
        extra += _comment_changes(original.comments, answer.comments, wanted)
        if not extra:
            return Reading("true_exact", (), "the reference true edit and nothing else")
        return Reading("true_collateral", tuple(extra), "the true comment, with other changes")
    other_comments = _comment_changes(original.comments, answer.comments, ())
    everything = changes + code_changes + docstring_change + other_comments
    if not everything:
        return Reading("unchanged", (), "the original function")
    return Reading("other", tuple(everything), "changes that are neither edit: " + "; ".join(everything[:4]))


def context_function_names(texts: Collection[str]) -> frozenset[str]:
    """The names of the functions and classes defined in some read-only context (code the prompt shows besides the function).

    Parameters
    ----------
    texts : collection of str
        Python sources (a context's code and test).

    Returns
    -------
    frozenset of str
    """
    from cvlib.experiments.notes_study.classify import parse_answer_code

    names: set[str] = set()
    for text in texts:
        try:
            tree = parse_answer_code(text)
        except SyntaxError:
            continue
        names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    return frozenset(names)


def harm_rules_cover(tasks: Collection[NotesTask], rules: Mapping[str, HarmRule]) -> list[str]:
    """The rules naming a task the task files lack (a typo in ``notes_stale_effects_2.yaml`` would silently fall back to the default).

    Parameters
    ----------
    tasks : collection of NotesTask
        Every task.
    rules : Mapping
        The rules by task id.

    Returns
    -------
    list of str
        The unknown task ids, sorted.
    """
    known = {t.id for t in tasks}
    return sorted(set(rules) - known)

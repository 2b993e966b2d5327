"""A llama.cpp grammar (GBNF) read as a regular expression, so a provider without grammars can be held to it.

The studies constrain an answer with a small GBNF grammar (one line of
``EXECUTE``, ``REPLAN`` or ``VERIFY`` and a fact; a probe's list of facts).
A llama.cpp server takes the grammar itself. Every other provider cannot,
yet the answer must match the same language: an API with structured output
is given the language as a JSON schema (an ``enum`` when it is small and
finite, a ``pattern`` otherwise), and any provider's answer is checked
against it by a strict parser before the study reads it.

Only the part of GBNF the studies' grammars use is read: string literals,
rule names, ``|``, parentheses and the repeats ``*``, ``+`` and ``?``, with
rules that do not refer to themselves. A grammar outside that part is
refused with one line (:class:`GrammarError`), never half-read.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cvlib.core.errors import ParameterError

__all__ = ["ENUM_LIMIT", "AnswerLanguage", "GrammarError", "answer_language"]

#: A language of at most this many answers is given to an API as an ``enum``; a larger one as a ``pattern``.
ENUM_LIMIT = 256

_TOKEN = re.compile(r'\s*(?:(?P<lit>"(?:[^"\\]|\\.)*")|(?P<name>[A-Za-z][A-Za-z0-9_-]*)|(?P<op>[|()*+?]))')
_RULE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*::=\s*(.*)$")


class GrammarError(ParameterError):
    """A grammar outside the part of GBNF this module reads (the message names the construct)."""


# A parsed expression: ("lit", text) | ("ref", name) | ("alt", [expr]) | ("seq", [expr]) | ("rep", expr, op)
_Expr = tuple[Any, ...]


def _rules(text: str) -> dict[str, str]:
    rules: dict[str, str] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0] if '"' not in raw else raw
        if not line.strip():
            continue
        match = _RULE.match(line)
        if match:
            current = match.group(1)
            rules[current] = match.group(2)
        elif current is not None:
            rules[current] += " " + line.strip()
        else:
            raise GrammarError(f"grammar line {raw.strip()!r:.60} is not a rule (expected name ::= ...)")
    if "root" not in rules:
        raise GrammarError("the grammar has no root rule")
    return rules


def _tokens(body: str, rule: str) -> list[tuple[str, str]]:
    out, at = [], 0
    while at < len(body.rstrip()):
        match = _TOKEN.match(body, at)
        if match is None:
            raise GrammarError(f"grammar rule {rule!r}: {body[at:].strip()[:30]!r} is outside the GBNF this reader takes "
                               "(string literals, rule names, | ( ) * + ?)")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        at = match.end()
    return out


def _parse(tokens: list[tuple[str, str]], rule: str) -> _Expr:
    at = 0

    def alternatives() -> _Expr:
        nonlocal at
        options = [sequence()]
        while at < len(tokens) and tokens[at] == ("op", "|"):
            at += 1
            options.append(sequence())
        return options[0] if len(options) == 1 else ("alt", options)

    def sequence() -> _Expr:
        nonlocal at
        items = []
        while at < len(tokens) and tokens[at] not in (("op", "|"), ("op", ")")):
            items.append(item())
        return items[0] if len(items) == 1 else ("seq", items)

    def item() -> _Expr:
        nonlocal at
        kind, value = tokens[at]
        at += 1
        if kind == "lit":
            atom: _Expr = ("lit", json.loads(value))
        elif kind == "name":
            atom = ("ref", value)
        elif value == "(":
            atom = alternatives()
            if at >= len(tokens) or tokens[at] != ("op", ")"):
                raise GrammarError(f"grammar rule {rule!r}: a '(' is never closed")
            at += 1
        else:
            raise GrammarError(f"grammar rule {rule!r}: {value!r} where a literal, a name or '(' was expected")
        while at < len(tokens) and tokens[at][0] == "op" and tokens[at][1] in "*+?":
            atom = ("rep", atom, tokens[at][1])
            at += 1
        return atom

    expr = alternatives()
    if at != len(tokens):
        raise GrammarError(f"grammar rule {rule!r}: an unmatched ')'")
    return expr


def _inline(expr: _Expr, rules: dict[str, _Expr], seen: tuple[str, ...]) -> _Expr:
    kind = expr[0]
    if kind == "ref":
        name = expr[1]
        if name not in rules:
            raise GrammarError(f"grammar rule {name!r} is used but never defined")
        if name in seen:
            raise GrammarError(f"grammar rule {name!r} refers to itself; only non-recursive grammars are read")
        return _inline(rules[name], rules, (*seen, name))
    if kind in ("alt", "seq"):
        return (kind, [_inline(e, rules, seen) for e in expr[1]])
    if kind == "rep":
        return ("rep", _inline(expr[1], rules, seen), expr[2])
    return expr


def _regex(expr: _Expr) -> str:
    kind = expr[0]
    if kind == "lit":
        return re.escape(expr[1])
    if kind == "alt":
        return "(?:" + "|".join(_regex(e) for e in expr[1]) + ")"
    if kind == "seq":
        return "".join(_regex(e) for e in expr[1])
    return f"(?:{_regex(expr[1])}){expr[2]}"


def _strings(expr: _Expr, limit: int) -> list[str] | None:
    """Every string of a finite language, in the grammar's order; None when it is infinite or larger than ``limit``."""
    kind = expr[0]
    if kind == "lit":
        return [expr[1]]
    if kind == "rep":
        if expr[2] != "?":
            return None
        inner = _strings(expr[1], limit)
        return None if inner is None else ["", *inner]
    parts = [_strings(e, limit) for e in expr[1]]
    if any(p is None for p in parts):
        return None
    if kind == "alt":
        out = [s for p in parts for s in p or ()]
    else:
        out = ["".join(combo) for combo in itertools.product(*(p or () for p in parts))]
    return out if len(out) <= limit else None


@dataclass(frozen=True)
class AnswerLanguage:
    """The answers a grammar admits, as a regular expression and, when small and finite, as a list.

    Parameters
    ----------
    grammar : str
        The GBNF text it was read from.
    pattern : str
        An anchored regular expression (``^...$``) of the same language.
    choices : tuple of str or None
        Every answer, in the grammar's order, when there are at most :data:`ENUM_LIMIT`; otherwise None.
    """

    grammar: str
    pattern: str
    choices: tuple[str, ...] | None

    @cached_property
    def _compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)

    def admits(self, answer: str) -> bool:
        """Whether ``answer`` is, whole, a sentence of the grammar (the strict parser).

        Parameters
        ----------
        answer : str
            An answer as the provider returned it.

        Returns
        -------
        bool
        """
        return self._compiled.fullmatch(answer) is not None

    def json_schema(self) -> dict[str, Any]:
        """The language as a JSON schema of one object ``{"answer": ...}``, for an API with structured output.

        Returns
        -------
        dict
            An ``enum`` of the answers when the language is small and finite, a ``pattern`` otherwise.
        """
        answer: dict[str, Any] = {"type": "string"}
        if self.choices is not None:
            answer["enum"] = list(self.choices)
        else:
            answer["pattern"] = self.pattern
        return {"type": "object", "properties": {"answer": answer}, "required": ["answer"], "additionalProperties": False}


def answer_language(grammar: str) -> AnswerLanguage:
    """The language of ``grammar`` (a llama.cpp GBNF text, the subset the module docstring names).

    Parameters
    ----------
    grammar : str
        The grammar, as the ``grammar`` of :class:`~cvlib.models.settings.GenerationSettings` holds it.

    Returns
    -------
    AnswerLanguage
    """
    if not isinstance(grammar, str) or not grammar.strip():
        raise GrammarError(f"a grammar must be a non-empty GBNF text, got {grammar!r:.60}")
    parsed = {name: _parse(_tokens(body, name), name) for name, body in _rules(grammar).items()}
    root = _inline(parsed["root"], parsed, ("root",))
    choices = _strings(root, ENUM_LIMIT)
    return AnswerLanguage(grammar, f"^{_regex(root)}$", None if choices is None else tuple(choices))

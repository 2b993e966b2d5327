"""An independent checker: it reads a representation's text, never its claim.

For every element of the canonical record the checker establishes a survival
level by reading the rendered text alone:

* MENTION when the element's subject (its first term) appears anywhere;
* EXACT when every term of the element appears in one segment (a line or a
  sentence) and, for a constraint, the force read from that segment is the
  declared force (a prohibition softened to advice, or advice hardened to a
  prohibition, fails).

Terms match case-insensitively with number-aware boundaries, so ``3.11`` does
not match inside ``3.11.4``. The checker also lists *unsupported additions*
(version numbers and ticket-style identifiers in the text that the record does
not contain) and the status words the text asserts for each subject, from
which cross-representation contradictions are found.

The producer's claimed vector is carried through only to compare with what was
found: ``overclaimed`` is the lie, if any.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .records import STATUS_WORDS, Check, ContentObject, Dimension, Floor, Force
from .render import Representation

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")

_FORCE_PATTERNS: dict[Force, re.Pattern[str]] = {
    Force.PROHIBITION: re.compile(r"\b(?:must not|must never|never|do not|may not|forbidden)\b", re.I),
    Force.REQUIREMENT: re.compile(r"\b(?:must|has to|is required to)\b(?!\s+(?:not|never)\b)", re.I),
    Force.PREFERENCE: re.compile(r"\b(?:should|prefer|preferably|ideally|avoid)\b", re.I),
}

_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+)+[a-z]?(?!\w|\.\w)")
_TICKET = re.compile(r"\b[A-Z]{2,}-\d+\b|[a-z]+-run#\d+")


def segments(text: str) -> list[str]:
    """Lines, each split into sentences at ``.``, ``!`` or ``?`` followed by white space."""
    out: list[str] = []
    for line in text.splitlines():
        out += [s for s in _SENTENCE_SPLIT.split(line.strip()) if s]
    return out


@lru_cache(maxsize=4096)
def _term_re(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(term) + r"(?![A-Za-z0-9]|\.[A-Za-z0-9])", re.I)


def has_term(term: str, text: str) -> bool:
    """Whether ``term`` occurs in ``text`` as a whole token sequence (case-insensitive)."""
    return _term_re(term).search(text) is not None


def forces_in(segment: str) -> frozenset[Force]:
    """Every constraint force a segment expresses."""
    return frozenset(f for f, p in _FORCE_PATTERNS.items() if p.search(segment))


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What the checker found in one representation."""

    object_id: str
    name: str
    tokens: int
    vector: frozenset[Check]
    claimed: frozenset[Check]
    overclaimed: frozenset[Check]
    unsupported: tuple[str, ...]
    statuses: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def honest(self) -> bool:
        """True when everything the producer claimed was found."""
        return not self.overclaimed


def _record_strings(obj: ContentObject) -> str:
    parts = [obj.object_id, obj.title, *obj.identifiers, *obj.narrative]
    parts += [f"{f.name} {f.value}" for f in obj.fields]
    parts += [c.action for c in obj.constraints]
    parts += [r.reason for r in obj.rationale]
    parts += [f"{s.subject} {s.status}" for s in obj.statuses]
    parts += [f"{p.ref} {p.about}" for p in obj.provenance]
    parts += [f"{r.a} {r.verb} {r.b}" for r in obj.relations]
    return "\n".join(parts)


def element_level(obj: ContentObject, key: str, segs: Sequence[str], text: str) -> int:
    """Survival level (0, MENTION=1, EXACT=2) of one element in a text split into ``segs``."""
    e = obj.element(key)
    level = 0
    if has_term(e.terms[0], text):
        level = int(Floor.MENTION)
    for seg in segs:
        if all(has_term(t, seg) for t in e.terms):
            if e.dimension is Dimension.CONSTRAINT_FORCE:
                found = forces_in(seg)
                if not found or max(found) != e.force:
                    continue
            return int(Floor.EXACT)
    return level


def check(rep: Representation, obj: ContentObject) -> CheckResult:
    """Read ``rep.text`` against ``obj``'s record and return the checked preservation vector.

    Pure and cached: a representation and a record are frozen values, so the
    same pair is read once however many experiments ask.
    """
    return _check(rep, obj)


@lru_cache(maxsize=16384)
def _check(rep: Representation, obj: ContentObject) -> CheckResult:
    segs = segments(rep.text)
    vector: set[Check] = set()
    for e in obj.elements():
        lv = element_level(obj, e.key, segs, rep.text)
        vector |= {(e.key, x) for x in range(1, lv + 1)}
    known = _record_strings(obj)
    found = sorted(set(_VERSION.findall(rep.text)) | set(_TICKET.findall(rep.text)))
    unsupported = tuple(t for t in found if not has_term(t, known))
    statuses = []
    for s in obj.statuses:
        said = {w for seg in segs if has_term(s.subject, seg) for w in STATUS_WORDS if has_term(w, seg)}
        statuses.append((s.subject, tuple(sorted(said))))
    vec = frozenset(vector)
    return CheckResult(
        obj.object_id, rep.name, rep.tokens, vec, rep.claimed, frozenset(rep.claimed - vec), unsupported, tuple(statuses)
    )


def contradictions(results: Sequence[CheckResult]) -> list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]]:
    """Pairs of forms of one object that assert disjoint statuses for the same subject.

    Returns ``(form_a, form_b, subject, statuses_a, statuses_b)`` for every
    such pair, in input order. A form that asserts nothing about a subject
    does not contradict one that does: silence is loss, not contradiction.
    """
    out = []
    for i, a in enumerate(results):
        for b in results[i + 1:]:
            if a.object_id != b.object_id:
                continue
            for (subj, sa), (_, sb) in zip(a.statuses, b.statuses):
                if sa and sb and not set(sa) & set(sb):
                    out.append((a.name, b.name, subj, sa, sb))
    return out


def survival_by_dimension(result: CheckResult, obj: ContentObject) -> dict[str, float]:
    """Fraction of each dimension's elements that survive EXACT (NaN where the object has none)."""
    out: dict[str, float] = {}
    for d in Dimension:
        keys = [e.key for e in obj.elements() if e.dimension is d]
        out[d.value] = (
            sum((k, int(Floor.EXACT)) in result.vector for k in keys) / len(keys) if keys else float("nan")
        )
    return out

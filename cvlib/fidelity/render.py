"""Representations rendered deterministically from a canonical record.

Five forms per content object, each from the frozen record, never from one
another unless asked (see :func:`~cvlib.fidelity.cascade.cascade`):

``full``
    Narrative plus every element as a sentence: the raw source.
``dense``
    A rewrite without narrative, one short sentence per element; it drops
    provenance.
``summary``
    A lossy prose summary written to lose, kept as an *illustration* of the
    chapter's failing compactor (it is not the flat-compaction baseline): it
    keeps the story's shape and loses on purpose (values, most identifiers,
    the force of a prohibition, reasons, provenance, relations), swaps two
    status words and may invent a version. Its producer's claim overstates
    what it keeps.
``record``
    A compact structured record, one line per element; it keeps exact fields,
    identifiers, force, statuses and provenance, and captures rationale and
    relations poorly (subject only).
``anchor``
    One line of verified identity: title, identifiers and what is constrained.

A sixth form, ``compact``, is the fair flat-compaction baseline: an extractive
compactor that keeps the full text's most informative sentences up to a target
size (:mod:`cvlib.fidelity.extractive`).

Every form records its *lineage*: the forms it was made from (``parents``) and
how (``mechanism``: the source itself, a model call, or a deterministic view
of another form). The cost ledger (:mod:`cvlib.fidelity.costs`) charges a form
for producing every form in its lineage, once per object.

Every form carries the producer's *claimed* preservation vector. The claim is
recorded and never trusted: :mod:`cvlib.fidelity.checker` reads the text.

Token counts use :func:`count_tokens`, a deterministic regex count of words and
punctuation marks (``\\w+`` runs and single non-space symbols). It is a
stand-in, not a model tokenizer: compare counts with each other, not with a
provider's bill.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cvlib.core.errors import ParameterError

from .records import Check, ContentObject, Dimension, Floor, Force

#: Representation names, richest nominal detail first (used as a stable tie-break order).
REPRESENTATIONS: tuple[str, ...] = ("full", "dense", "summary", "record", "anchor")

#: The four views of the chapter's viewer scene, as a ladder for label-driven schedules.
LADDER: tuple[str, ...] = ("full", "dense", "record", "anchor")

#: How each form is produced and from which forms (the source as is, a simulated model call that
#: reads its parent and writes the form, or a deterministic view of its parent with no model call).
LINEAGE: dict[str, tuple[str, tuple[str, ...]]] = {
    "full": ("source", ()),
    "dense": ("model", ("full",)),
    "summary": ("model", ("full",)),
    "record": ("model", ("full",)),
    "anchor": ("view", ("record",)),
    "compact": ("model", ("full",)),
    "record_cascaded": ("model", ("dense",)),
    "anchor_cascaded": ("view", ("record_cascaded",)),
}

#: How each form is produced (the first half of :data:`LINEAGE`).
MECHANISM: dict[str, str] = {name: mech for name, (mech, _) in LINEAGE.items()}

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")

_FORCE_WORDS = {Force.PROHIBITION: "must not", Force.REQUIREMENT: "must", Force.PREFERENCE: "should"}

#: The prose summary's deliberate status swaps (a contradiction with every other form).
_SUMMARY_STATUS_SWAP = {"rejected": "on hold", "half-applied": "in progress"}

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?[a-z]?$")


def count_tokens(text: str) -> int:
    """Deterministic token count: runs of word characters plus single punctuation marks."""
    return len(_TOKEN_RE.findall(text))


@dataclass(frozen=True, slots=True)
class Representation:
    """One stored form of one content object.

    ``claimed`` is what its producer says it preserves; it is evidence to be
    checked, never a legality input. ``source_tokens`` is what its producer
    read (0 for the source itself and for views, which call no model);
    ``parents`` names the forms it was made from.
    """

    object_id: str
    name: str
    text: str
    tokens: int
    claimed: frozenset[Check]
    mechanism: str
    source_tokens: int
    parents: tuple[str, ...] = ()

    @property
    def production_tokens(self) -> int:
        """Tokens spent making this form from its parents alone (a model call reads its input and writes the form)."""
        return self.source_tokens + self.tokens if self.mechanism == "model" else 0


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _all(obj: ContentObject, level: Floor, dims: set[Dimension] | None = None) -> set[Check]:
    out: set[Check] = set()
    for e in obj.elements():
        if dims is None or e.dimension in dims:
            out |= {(e.key, lv) for lv in range(1, int(level) + 1)}
    return out


def render_full(obj: ContentObject) -> str:
    """The raw source: narrative interleaved with one plain sentence per element."""
    facts: list[str] = []
    facts += [f"It is tracked as {i}." for i in obj.identifiers]
    facts += [f"The {f.name} was {f.value}." for f in obj.fields]
    facts += [f"The agent {_FORCE_WORDS[c.force]} {c.action}." for c in obj.constraints]
    facts += [f"The reasoning about {r.subject}: {r.reason}." for r in obj.rationale]
    facts += [f"{_cap(s.subject)} is {s.status}." for s in obj.statuses]
    facts += [f"{_cap(r.a)} {r.verb} {r.b}." for r in obj.relations]
    facts += [f"Evidence for {p.about} came from {p.ref}." for p in obj.provenance]
    lines = [f"Episode {obj.object_id}: {obj.title}."]
    narrative = list(obj.narrative)
    # interleave: one narrative sentence before each fact while they last, rest at the end
    for i, fact in enumerate(facts):
        if i < len(narrative):
            lines.append(narrative[i])
        lines.append(fact)
    lines += narrative[len(facts):]
    return "\n".join(lines)


def render_dense(obj: ContentObject) -> str:
    """Narrative removed, one short sentence per element, provenance dropped."""
    head = obj.title + (f" ({', '.join(obj.identifiers)})" if obj.identifiers else "") + "."
    lines = [head]
    lines += [f"{_cap(f.name)} {f.value}." for f in obj.fields]
    lines += [f"Rule: {_FORCE_WORDS[c.force]} {c.action}." for c in obj.constraints]
    lines += [f"{_cap(r.subject)}: {r.reason}." for r in obj.rationale]
    lines += [f"{_cap(s.subject)}: {s.status}." for s in obj.statuses]
    lines += [f"{_cap(r.a)} {r.verb} {r.b}." for r in obj.relations]
    return "\n".join(lines)


def render_record(obj: ContentObject) -> str:
    """One line per element: exact by construction where fields fit, poor for reasons and relations."""
    lines = [f"object: {obj.object_id}", f"title: {obj.title}"]
    if obj.identifiers:
        lines.append("ids: " + ", ".join(obj.identifiers))
    lines += [f"field {f.name} = {f.value}" for f in obj.fields]
    lines += [f"constraint {_FORCE_WORDS[c.force].upper()} {c.action}" for c in obj.constraints]
    lines += [f"why {r.subject}: see source" for r in obj.rationale]
    lines += [f"status {s.subject} = {s.status}" for s in obj.statuses]
    lines += [f"source {p.ref}" for p in obj.provenance]
    lines += [f"link {r.a} / {r.b}" for r in obj.relations]
    return "\n".join(lines)


def render_anchor(obj: ContentObject) -> str:
    """Identity and what is constrained, nothing more."""
    parts = [f"[{obj.object_id}] {obj.title}"]
    if obj.identifiers:
        parts.append(" ".join(obj.identifiers))
    if obj.constraints:
        parts.append("constraints on " + ", ".join(c.subject for c in obj.constraints))
    return " | ".join(parts)


def render_summary(obj: ContentObject) -> str:
    """An independently written prose summary with deliberate losses.

    Written as a compactor's prose would be, not from the element list: the
    first identifier only, field names without values, a prohibition softened
    to advice, a reason reduced to "a version conflict", two status words
    swapped, no provenance, no relations, and a planned version bump that is
    in no record.
    """
    s = [f"Worked on {obj.title}" + (f" under {obj.identifiers[0]}" if obj.identifiers else "") + "."]
    if obj.fields:
        s.append("Changed the " + " and ".join(f.name for f in obj.fields) + " settings along the way.")
    for r in obj.rationale:
        s.append(f"{_cap(r.subject)} ran into a version conflict.")
    for st in obj.statuses:
        s.append(f"{_cap(st.subject)} is {_SUMMARY_STATUS_SWAP.get(st.status, st.status)}.")
    for c in obj.constraints:
        if c.force is Force.PROHIBITION:  # softened to advice
            s.append(f"It is probably best to avoid {c.action.split(' ', 1)[-1]} again.")
        else:  # force dropped altogether
            s.append(f"The notes mention the plan to {c.action}.")
    for f in obj.fields:
        m = _VERSION_RE.match(f.value)
        if m:
            s.append(f"A move to {m.group(1)}.{int(m.group(2)) + 1} is planned.")
            break
    return " ".join(s)


def _claims(obj: ContentObject, name: str) -> frozenset[Check]:
    D = Dimension
    if name == "full":
        c = _all(obj, Floor.EXACT)
    elif name == "dense":
        c = _all(obj, Floor.EXACT, set(D) - {D.PROVENANCE})
    elif name == "record":
        c = _all(obj, Floor.EXACT, set(D) - {D.RATIONALE, D.RELATION}) | _all(obj, Floor.MENTION, {D.RATIONALE, D.RELATION})
    elif name == "anchor":
        c = _all(obj, Floor.EXACT, {D.IDENTIFIER}) | _all(obj, Floor.MENTION, {D.CONSTRAINT_FORCE})
    elif name == "summary":
        # the producer's claim: "keeps every identifier, constraint and status" — an overstatement
        c = _all(obj, Floor.EXACT, {D.IDENTIFIER, D.CONSTRAINT_FORCE, D.STATUS}) | _all(
            obj, Floor.MENTION, {D.EXACT_FIELD, D.RATIONALE}
        )
    else:
        raise ParameterError(f"unknown representation {name!r}; expected one of {REPRESENTATIONS}")
    return frozenset(c)


_RENDERERS = {
    "full": render_full,
    "dense": render_dense,
    "summary": render_summary,
    "record": render_record,
    "anchor": render_anchor,
}


def render(obj: ContentObject, name: str) -> Representation:
    """Render one named form of ``obj`` from its frozen record."""
    if name not in _RENDERERS:
        raise ParameterError(f"unknown representation {name!r}; expected one of {REPRESENTATIONS}")
    text = _RENDERERS[name](obj)
    mech, parents = LINEAGE[name]
    src = count_tokens(render_full(obj)) if mech == "model" else 0
    return Representation(obj.object_id, name, text, count_tokens(text), _claims(obj, name), mech, src, parents)


def render_all(obj: ContentObject) -> dict[str, Representation]:
    """Every form of ``obj``, keyed by name, in :data:`REPRESENTATIONS` order."""
    return {n: render(obj, n) for n in REPRESENTATIONS}

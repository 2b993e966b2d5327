"""Content objects, their canonical records, and the obligations that bind them.

A content object (an *episode*) is not one proposition: it carries exact
fields, identifiers, constraints with their force, rationale, statuses,
provenance and relations, each of which can survive or be lost separately when
the object is re-represented. The canonical record below is the structured
truth every representation is rendered from and every check is made against.

A preservation obligation names one element of one object and a floor (the
weakest survival level that satisfies it). Obligations live on a trajectory
and may start and stop: a constraint becomes pinned (its floor rises), a
status becomes irrelevant (its obligation ends).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum

from cvlib.core.errors import ParameterError


class Dimension(str, Enum):
    """The seven preservation dimensions the chapter lists."""

    EXACT_FIELD = "exact_field"
    IDENTIFIER = "identifier"
    CONSTRAINT_FORCE = "constraint_force"
    RATIONALE = "rationale"
    STATUS = "status"
    PROVENANCE = "provenance"
    RELATION = "relation"

    def __str__(self) -> str:
        return self.value


class Force(IntEnum):
    """Strength of a constraint; a rewrite that weakens it has lost it."""

    PREFERENCE = 1
    REQUIREMENT = 2
    PROHIBITION = 3


class Floor(IntEnum):
    """Survival level an obligation demands of one element.

    MENTION: the element's subject is named somewhere in the text (enough for
    an anchor to say what exists). EXACT: every term of the element appears in
    one sentence or line, and a constraint keeps its declared force.
    """

    MENTION = 1
    EXACT = 2


#: One preservation check, an (element key, level) pair. Passing EXACT implies passing MENTION.
Check = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Element:
    """One checkable unit of a record.

    ``terms`` must co-occur in one segment (sentence or line) of a rendered
    text for the EXACT check; ``terms[0]`` is the subject, whose mere presence
    anywhere passes the MENTION check.
    """

    key: str
    dimension: Dimension
    terms: tuple[str, ...]
    force: Force | None = None


@dataclass(frozen=True, slots=True)
class FieldValue:
    """An exact typed field: a name and the value that must survive verbatim."""

    """An exact field of a record (an amount, a date, a setting), which survives only verbatim."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class Constraint:
    """A constraint on ``subject`` with its force; ``action`` is the constrained act and names the subject."""

    """A rule the record binds, with its force (preference, requirement or prohibition).

    A re-representation that keeps the action but weakens the force ("must not"
    to "prefer not") has lost the constraint.
    """

    subject: str
    force: Force
    action: str  # contains ``subject``; e.g. "retry approach B"


@dataclass(frozen=True, slots=True)
class Rationale:
    """Why something was decided about ``subject``; ``terms`` are the parts a faithful form must keep together."""

    """Why something was decided; kept only if every one of its ``terms`` survives together."""

    subject: str
    reason: str  # prose reason containing every one of ``terms``
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SubjectStatus:
    """The current status of ``subject``, one of :data:`STATUS_WORDS`."""

    """Where a subject stands (one of :data:`STATUS_WORDS`), e.g. an approach that was rejected."""

    subject: str
    status: str  # one of STATUS_WORDS


@dataclass(frozen=True, slots=True)
class Source:
    """Provenance: the reference (``ref``) that evidences ``about``."""

    """Provenance: a reference (``ref``) and what it is the source for (``about``)."""

    ref: str
    about: str


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed relation ``a verb b`` between two things the episode names."""

    """A relation between two subjects, read as ``a verb b`` (e.g. one change blocks another)."""

    a: str
    verb: str
    b: str


#: SubjectStatus vocabulary, the words the checker reads to find what a text asserts about a subject.
STATUS_WORDS: tuple[str, ...] = (
    "rejected",
    "abandoned",
    "half-applied",
    "in progress",
    "on hold",
    "complete",
    "open",
    "closed",
    "blocked",
    "superseded",
)


@dataclass(frozen=True, slots=True)
class ContentObject:
    """An episode and its canonical structured record.

    Parameters
    ----------
    object_id:
        Stable identity of the content (not of any representation).
    title:
        Short human name, used by every view.
    importance:
        A generation-time score in [0, 100] of the kind Magic Context's
        historian emits; only the Magic Context schedule reads it.
    narrative:
        Sentences of narrative and search trace: they cost tokens in the full
        text and carry no checked obligation.
    """

    object_id: str
    title: str
    fields: tuple[FieldValue, ...] = ()
    identifiers: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    rationale: tuple[Rationale, ...] = ()
    statuses: tuple[SubjectStatus, ...] = ()
    provenance: tuple[Source, ...] = ()
    relations: tuple[Relation, ...] = ()
    narrative: tuple[str, ...] = ()
    importance: int = 50

    def __post_init__(self) -> None:
        if not self.object_id:
            raise ParameterError("object_id must be a non-empty string, got ''")
        if not 0 <= self.importance <= 100:
            raise ParameterError(f"importance must be in [0, 100], got {self.importance!r}")
        for s in self.statuses:
            if s.status not in STATUS_WORDS:
                raise ParameterError(f"status {s.status!r} of {s.subject!r} is not one of {STATUS_WORDS}")
        for c in self.constraints:
            if c.subject.lower() not in c.action.lower():
                raise ParameterError(f"constraint action {c.action!r} must contain its subject {c.subject!r}")
        for r in self.rationale:
            for t in r.terms:
                if t.lower() not in r.reason.lower():
                    raise ParameterError(f"rationale reason {r.reason!r} must contain its term {t!r}")
        keys = [e.key for e in self.elements()]
        if len(keys) != len(set(keys)):
            raise ParameterError(f"object {self.object_id!r} has duplicate element keys: {sorted(keys)}")

    def elements(self) -> tuple[Element, ...]:
        """Every checkable element, in a fixed order (dimension, then record order)."""
        out: list[Element] = []
        out += [Element(f"field:{f.name}", Dimension.EXACT_FIELD, (f.name, f.value)) for f in self.fields]
        out += [Element(f"id:{i}", Dimension.IDENTIFIER, (i,)) for i in self.identifiers]
        out += [
            Element(f"constraint:{c.subject}", Dimension.CONSTRAINT_FORCE, (c.subject,), c.force)
            for c in self.constraints
        ]
        out += [Element(f"rationale:{r.subject}", Dimension.RATIONALE, (r.subject, *r.terms)) for r in self.rationale]
        out += [Element(f"status:{s.subject}", Dimension.STATUS, (s.subject, s.status)) for s in self.statuses]
        out += [Element(f"provenance:{p.ref}", Dimension.PROVENANCE, (p.ref,)) for p in self.provenance]
        out += [Element(f"relation:{r.a}:{r.verb}:{r.b}", Dimension.RELATION, (r.a, r.verb, r.b)) for r in self.relations]
        return tuple(out)

    def element(self, key: str) -> Element:
        """The element with this key (a clear error if the record has none)."""
        for e in self.elements():
            if e.key == key:
                return e
        raise ParameterError(f"object {self.object_id!r} has no element {key!r}; it has {[e.key for e in self.elements()]}")

    def all_checks(self) -> frozenset[Check]:
        """Every check that can be evaluated on this object (both levels of every element)."""
        return frozenset((e.key, int(lvl)) for e in self.elements() for lvl in Floor)

    def restricted(self, keep: frozenset[str]) -> ContentObject:
        """The record with only the elements whose keys are in ``keep``.

        Used to model a cascade: a successor generated from a predecessor can
        only carry what survived in the predecessor.
        """
        return replace(
            self,
            fields=tuple(f for f in self.fields if f"field:{f.name}" in keep),
            identifiers=tuple(i for i in self.identifiers if f"id:{i}" in keep),
            constraints=tuple(c for c in self.constraints if f"constraint:{c.subject}" in keep),
            rationale=tuple(r for r in self.rationale if f"rationale:{r.subject}" in keep),
            statuses=tuple(s for s in self.statuses if f"status:{s.subject}" in keep),
            provenance=tuple(p for p in self.provenance if f"provenance:{p.ref}" in keep),
            relations=tuple(r for r in self.relations if f"relation:{r.a}:{r.verb}:{r.b}" in keep),
        )


@dataclass(frozen=True, slots=True)
class Obligation:
    """Element ``key`` of ``object_id`` must survive at ``floor`` during turns [start, end).

    ``end=None`` means until the end of the trajectory.
    """

    object_id: str
    key: str
    floor: Floor
    start: int = 0
    end: int | None = None

    def __post_init__(self) -> None:
        if self.start < 0:
            raise ParameterError(f"obligation start must be >= 0, got {self.start}")
        if self.end is not None and self.end <= self.start:
            raise ParameterError(f"obligation end must be > start ({self.start}), got {self.end}")

    def applies(self, turn: int) -> bool:
        """Whether the obligation binds at ``turn``."""
        return self.start <= turn and (self.end is None or turn < self.end)

    @property
    def check(self) -> Check:
        """The preservation check that satisfies this obligation."""
        return (self.key, int(self.floor))


@dataclass(frozen=True, slots=True)
class Probe:
    """A hidden later task: at ``turn`` it needs ``checks`` of ``object_id`` resident.

    Only the oracle and the scorer ever see probes; no generator and no
    non-oracle schedule does.
    """

    turn: int
    object_id: str
    checks: tuple[Check, ...]
    declared: bool = False  # whether an obligation announcing this need exists before it


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A frozen fixture: objects admitted over turns, a budget per turn, obligations, task state, probes."""

    name: str
    n_turns: int
    objects: tuple[ContentObject, ...]
    admitted_at: tuple[int, ...]
    budget: tuple[int, ...]
    obligations: tuple[Obligation, ...]
    task_related: tuple[frozenset[str], ...]
    probes: tuple[Probe, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.n_turns < 1:
            raise ParameterError(f"n_turns must be >= 1, got {self.n_turns}")
        if len(self.admitted_at) != len(self.objects):
            raise ParameterError("admitted_at must give one turn per object")
        if len(self.budget) != self.n_turns or len(self.task_related) != self.n_turns:
            raise ParameterError(f"budget and task_related must have n_turns={self.n_turns} entries")
        for b in self.budget:
            if isinstance(b, bool) or not isinstance(b, int) or b < 0:
                raise ParameterError(f"every budget must be a non-negative integer of tokens, got {b!r}")
        ids = [o.object_id for o in self.objects]
        if len(ids) != len(set(ids)):
            raise ParameterError(f"object ids must be unique, got {ids}")
        known = set(ids)
        for ob in self.obligations:
            if ob.object_id not in known:
                raise ParameterError(f"obligation names unknown object {ob.object_id!r}")
            self.obj(ob.object_id).element(ob.key)
        for p in self.probes:
            if p.object_id not in known:
                raise ParameterError(f"probe names unknown object {p.object_id!r}")
            if not 0 <= p.turn < self.n_turns:
                raise ParameterError(f"probe turn must be in [0, {self.n_turns}), got {p.turn}")
            if p.turn < self.admitted_at[ids.index(p.object_id)]:
                raise ParameterError(f"probe at turn {p.turn} precedes admission of {p.object_id!r}")
            for key, _ in p.checks:
                self.obj(p.object_id).element(key)

    def obj(self, object_id: str) -> ContentObject:
        """The object with this id (a clear error if there is none)."""
        for o in self.objects:
            if o.object_id == object_id:
                return o
        raise ParameterError(f"trajectory {self.name!r} has no object {object_id!r}")

    def admitted(self, turn: int) -> tuple[ContentObject, ...]:
        """Objects admitted at or before ``turn``, in admission order (ties by id)."""
        pairs = sorted(
            ((t, o.object_id, o) for t, o in zip(self.admitted_at, self.objects) if t <= turn),
            key=lambda x: (x[0], x[1]),
        )
        return tuple(o for _, _, o in pairs)

    def admission_turn(self, object_id: str) -> int:
        """The turn at which ``object_id`` was admitted."""
        for t, o in zip(self.admitted_at, self.objects):
            if o.object_id == object_id:
                return t
        raise ParameterError(f"trajectory {self.name!r} has no object {object_id!r}")

    def obligations_at(self, turn: int, object_id: str) -> tuple[Obligation, ...]:
        """Obligations on ``object_id`` that apply at ``turn``."""
        return tuple(o for o in self.obligations if o.object_id == object_id and o.applies(turn))

    def probes_at(self, turn: int) -> tuple[Probe, ...]:
        """Hidden probes due at ``turn`` (for the scorer and the oracle only)."""
        return tuple(p for p in self.probes if p.turn == turn)

"""The gate: a note reaches an agent only while its code provably is what it was written against.

The source study (chapter *What the published trials say*) found that models
shown a stale note with a warning label applied it anyway, and that even a
"verify first" rule left stale edits behind; only withholding worked. So the
decision is taken away from the model: :func:`agent_visible` is true for an
approved HIGH note whose anchor is FRESH, and for nothing else. A withheld
note is not flagged or labelled; it is absent. Renames are found, but only as
a hint for a human reviewer.

Statuses, from :func:`locate`:

FRESH
    same path, same qualified name, same normalized hash.
CHANGED
    same path and qualified name, different normalized hash.
RENAMED
    gone from its place, and exactly one identifiable symbol anywhere
    in the snapshot has its normalized hash (``hint`` names it).
AMBIGUOUS
    gone from its place, and several identifiable symbols have it.
MISSING
    gone from its place, and no identifiable symbol has it (a body
    below :data:`~cvlib.notes.anchors.MIN_IDENTIFIABLE_NODES` nodes
    never counts as found: its twin elsewhere proves nothing).
UNPARSABLE
    its file is in the snapshot but does not parse.

Other files that do not parse are skipped when searching for a moved symbol.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .anchors import Symbol, UnparsableSource, check_snapshot, symbols
from .errors import NotesError, UnknownSymbolError


class Tier(enum.Enum):
    """How much a note is trusted; only HIGH can ever reach an agent."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Status(enum.Enum):
    """Where a note's anchor stands in a snapshot (see the module docstring)."""

    FRESH = "fresh"
    CHANGED = "changed"
    RENAMED = "renamed"
    AMBIGUOUS = "ambiguous"
    MISSING = "missing"
    UNPARSABLE = "unparsable"


@dataclass(frozen=True, slots=True)
class Anchor:
    """What a note was written against: a place and two fingerprints of the code there.

    ``raw_hash`` changes with any edit; ``norm_hash`` only with an edit the
    parser sees (see :mod:`cvlib.notes.anchors`). The gate decides on
    ``norm_hash``; ``raw_hash`` tells a reviewer whether anything at all moved.
    """

    path: str
    qualname: str
    raw_hash: str
    norm_hash: str

    def __post_init__(self) -> None:
        for field in ("path", "qualname", "raw_hash", "norm_hash"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value:
                raise NotesError(f"anchor {field} must be a non-empty string, got {value!r}")


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """A symbol's place: the qualified name and the file that holds it."""

    path: str
    qualname: str

    def __str__(self) -> str:
        return f"{self.path}::{self.qualname}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """A human's note about a piece of code.

    Parameters
    ----------
    id
        Unique name of the note.
    text
        What the agent would be told.
    anchor
        The code it was written against (see :func:`anchor`).
    tier
        A :class:`Tier`; only HIGH notes can be shown.
    approved
        Whether a human approved the note *against this anchor*.
    """

    id: str
    text: str
    anchor: Anchor
    tier: Tier
    approved: bool

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise NotesError(f"note id must be a non-empty string, got {self.id!r}")
        if not isinstance(self.text, str):
            raise NotesError(f"note {self.id!r}: text must be a string, got {type(self.text).__name__}")
        if not isinstance(self.anchor, Anchor):
            raise NotesError(f"note {self.id!r}: anchor must be an Anchor, got {type(self.anchor).__name__}")
        if not isinstance(self.tier, Tier):
            raise NotesError(f"note {self.id!r}: tier must be a Tier (HIGH, MEDIUM, LOW), got {self.tier!r}")
        if not isinstance(self.approved, bool):
            raise NotesError(f"note {self.id!r}: approved must be True or False, got {self.approved!r}")


@dataclass(frozen=True, slots=True)
class Location:
    """Result of :func:`locate`: a status, and for RENAMED the symbol a human might re-anchor to.

    ``candidates`` lists every identifiable symbol with the anchor's normalized
    hash when the note is gone from its place (one for RENAMED, several for
    AMBIGUOUS); it is for reviewers, never for agents.
    """

    status: Status
    hint: SymbolRef | None = None
    candidates: tuple[SymbolRef, ...] = ()


class SymbolIndex:
    """The symbols of one snapshot, parsed once, looked up by place and by normalized hash.

    Build it from a snapshot (:meth:`from_snapshot`, files parsed lazily) or
    from already-computed symbol rows (:meth:`from_symbols`, as the release
    history tables hold them); :func:`locate` treats both the same.
    """

    def __init__(self, by_file: Mapping[str, Mapping[str, Symbol] | None]):
        # path -> {qualname: Symbol}, or None when the file does not parse
        self._by_file = dict(by_file)
        self._sources: dict[str, str] = {}
        self._by_hash: dict[str, list[Symbol]] | None = None

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, str]) -> SymbolIndex:
        """Index a snapshot (mapping path -> source text)."""
        check_snapshot(snapshot)
        index = cls({})
        index._sources = dict(snapshot)  # parsed on first use
        return index

    @classmethod
    def from_symbols(cls, rows: Iterable[Symbol], unparsable: Iterable[str] = ()) -> SymbolIndex:
        """Index precomputed symbols; ``unparsable`` names files present but not parsable."""
        by_file: dict[str, dict[str, Symbol] | None] = defaultdict(dict)
        for row in rows:
            files = by_file[row.path]
            if files is not None:
                files[row.qualname] = row
        for path in unparsable:
            by_file[path] = None
        return cls(by_file)

    def _file(self, path: str) -> Mapping[str, Symbol] | None:
        if path not in self._by_file:
            source = self._sources.get(path)
            if source is None:
                return {}
            try:
                self._by_file[path] = {s.qualname: s for s in symbols(source, path)}
            except UnparsableSource:
                self._by_file[path] = None
        return self._by_file[path]

    def has_file(self, path: str) -> bool:
        """Whether the snapshot holds a file at ``path`` (parsable or not)."""
        return path in self._by_file or path in self._sources

    def parses(self, path: str) -> bool:
        """False only for a file that is present and does not parse."""
        return not self.has_file(path) or self._file(path) is not None

    def get(self, path: str, qualname: str) -> Symbol | None:
        """The symbol at this place, or None."""
        found = self._file(path)
        return None if not found else found.get(qualname)

    def with_hash(self, norm_hash: str) -> list[Symbol]:
        """Every symbol whose normalized hash is ``norm_hash``, ordered by path then qualname."""
        if self._by_hash is None:
            table: dict[str, list[Symbol]] = defaultdict(list)
            for path in sorted(set(self._by_file) | set(self._sources)):
                for symbol in (self._file(path) or {}).values():
                    table[symbol.norm_hash].append(symbol)
            for group in table.values():
                group.sort(key=lambda s: (s.path, s.qualname))
            self._by_hash = dict(table)
        return self._by_hash.get(norm_hash, [])


def _index(snapshot: Mapping[str, str] | SymbolIndex) -> SymbolIndex:
    return snapshot if isinstance(snapshot, SymbolIndex) else SymbolIndex.from_snapshot(snapshot)


def anchor(snapshot: Mapping[str, str] | SymbolIndex, path: str, qualname: str) -> Anchor:
    """Anchor a note on ``qualname`` (``func``, ``Class.method``) in file ``path`` of ``snapshot``.

    Raises
    ------
    UnknownSymbolError
        If the file is not in the snapshot, does not parse, or does not define ``qualname``.
    """
    index = _index(snapshot)
    if not index.has_file(path):
        raise UnknownSymbolError(f"cannot anchor on {path!r}: the snapshot has no such file")
    if not index.parses(path):
        raise UnknownSymbolError(f"cannot anchor on {path!r}: the file does not parse")
    symbol = index.get(path, qualname)
    if symbol is None:
        known = sorted((index._file(path) or {}).keys())
        shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        raise UnknownSymbolError(f"cannot anchor on {qualname!r}: {path!r} does not define it (it defines: {shown or 'nothing'})")
    return Anchor(path=path, qualname=qualname, raw_hash=symbol.raw_hash, norm_hash=symbol.norm_hash)


def classify(anchor: Anchor, index: SymbolIndex) -> Location:
    """The status of ``anchor`` in an indexed snapshot (the whole rule; see the module docstring)."""
    if not index.parses(anchor.path):
        return Location(Status.UNPARSABLE)
    here = index.get(anchor.path, anchor.qualname)
    if here is not None:
        return Location(Status.FRESH if here.norm_hash == anchor.norm_hash else Status.CHANGED)
    twins = [s for s in index.with_hash(anchor.norm_hash) if s.identifiable]
    refs = tuple(SymbolRef(s.path, s.qualname) for s in twins)
    if len(refs) == 1:
        return Location(Status.RENAMED, hint=refs[0], candidates=refs)
    if len(refs) > 1:
        return Location(Status.AMBIGUOUS, candidates=refs)
    return Location(Status.MISSING)


def locate(note: Note | Anchor, snapshot: Mapping[str, str] | SymbolIndex) -> Location:
    """Where ``note``'s code stands in ``snapshot``: a :class:`Location` with ``.status`` and ``.hint``.

    Pass a :class:`SymbolIndex` instead of a plain snapshot when locating many
    notes in the same snapshot, so that it is parsed once.
    """
    target = note.anchor if isinstance(note, Note) else note
    if not isinstance(target, Anchor):
        raise NotesError(f"locate() needs a Note or an Anchor, got {type(note).__name__}")
    return classify(target, _index(snapshot))


def agent_visible(note: Note, snapshot: Mapping[str, str] | SymbolIndex) -> bool:
    """Whether an agent may see ``note``: approved, HIGH tier and FRESH. Nothing else is shown."""
    if not isinstance(note, Note):
        raise NotesError(f"agent_visible() needs a Note, got {type(note).__name__}")
    if not (note.approved and note.tier is Tier.HIGH):
        return False
    return locate(note, snapshot).status is Status.FRESH

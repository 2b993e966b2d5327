"""The gate: a note reaches an agent only while its code, and what that code depends on, is what it was written against.

The source study (chapter *What the published trials say*) found that models
shown a stale note with a warning label applied it anyway, and that even a
"verify first" rule left stale edits behind; only withholding worked. So the
decision is taken away from the model: :func:`agent_visible` is true for an
approved HIGH note whose anchor is FRESH, and for nothing else. A withheld
note is not flagged or labelled; it is absent. Renames are found, but only as
a hint for a human reviewer.

An :class:`Anchor` is written once, by :func:`anchor` (``cvlib notes anchor``
on the command line), and stored with the note; the gate never takes a fresh
anchor at read time, which would make every note FRESH by construction.

Statuses, from :func:`locate`, in the order they are decided:

UNREADABLE
    its file is in the working tree but cannot be read: a symlink loop, a
    dangling symlink, a symlink out of the repository, a FIFO or device,
    permission denied (``reason`` says which).
UNPARSABLE
    its file is in the snapshot but does not parse.
CHANGED
    same path, same qualified name, different normalized hash.
DEPENDENCY_CHANGED
    the symbol's own code is unchanged after normalization, but something it
    depends on inside its file is not (``changed`` names it: a constant it
    reads, a helper it calls, an import binding, a decorator's definition, its
    class's header or an attribute, or the binding of its own name).
FRESH
    same path, same qualified name, same normalized hash, same dependencies.
RENAMED
    gone from its place, and exactly one identifiable symbol has its
    normalized hash that did not already have it, at its place, when the
    note was anchored (``hint`` names it).
AMBIGUOUS
    gone from its place, and several such symbols have it.
MISSING
    gone from its place, and no such symbol has it (a body below
    :data:`~cvlib.notes.symbols.MIN_IDENTIFIABLE_NODES` nodes never counts
    as found: its twin elsewhere proves nothing).

Other files that cannot be read or parsed are skipped when searching for a
moved symbol.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .anchors import SourceFile, Unreadable, analyse, check_snapshot, dependency_fingerprint
from .errors import LanguageUnavailable, NotesError, UnknownSymbolError, UnparsableSource
from .symbols import DEP_LABEL_HEX_DIGITS, Symbol


class Tier(enum.Enum):
    """How much a note is trusted; only HIGH can ever reach an agent."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class AnchorStatus(enum.Enum):
    """Where a note's anchor stands in a snapshot (see the module docstring)."""

    FRESH = "fresh"
    CHANGED = "changed"
    DEPENDENCY_CHANGED = "dependency_changed"
    RENAMED = "renamed"
    AMBIGUOUS = "ambiguous"
    MISSING = "missing"
    UNPARSABLE = "unparsable"
    UNREADABLE = "unreadable"


#: The former name of :class:`AnchorStatus`, kept so existing callers keep working.
Status = AnchorStatus


def _check_hex(name: str, value: object, digits: tuple[int, ...]) -> None:
    if not isinstance(value, str) or len(value) not in digits or any(c not in "0123456789abcdef" for c in value):
        raise NotesError(f"anchor {name} must be a lowercase hex string of {' or '.join(map(str, digits))} digits, got {value!r}")


@dataclass(frozen=True, slots=True)
class Anchor:
    """What a note was written against: a place and three fingerprints of the code there.

    ``raw_hash`` changes with any edit; ``norm_hash`` only with an edit the
    parser sees (see :mod:`cvlib.notes.anchors`); ``dep_hash`` when anything the
    symbol depends on in its file changes. ``deps`` keeps a short hash per
    dependency, so a reviewer learns *which* one changed; ``twins`` lists the
    places that had the same normalized body when the note was anchored (never
    offered as a RENAMED hint: they were there before).
    """

    path: str
    qualname: str
    raw_hash: str
    norm_hash: str
    dep_hash: str
    deps: tuple[tuple[str, str], ...] = ()
    twins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("path", "qualname"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise NotesError(f"anchor {name} must be a non-empty string, got {value!r}")
        for name in ("raw_hash", "norm_hash", "dep_hash"):
            _check_hex(name, getattr(self, name), (16, 64))
        if not isinstance(self.deps, tuple) or not all(
            isinstance(d, tuple) and len(d) == 2 and isinstance(d[0], str) and isinstance(d[1], str) for d in self.deps
        ):
            raise NotesError(f"anchor deps must be a tuple of (label, hash) pairs, got {self.deps!r}")
        if not isinstance(self.twins, tuple) or not all(isinstance(t, str) for t in self.twins):
            raise NotesError(f"anchor twins must be a tuple of 'path::qualname' strings, got {self.twins!r}")


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
    """Result of :func:`locate`: a status, and what a reviewer needs to act on it.

    ``hint`` is the symbol a human might re-anchor to (RENAMED only);
    ``candidates`` every symbol that could be the moved code (RENAMED,
    AMBIGUOUS); ``changed`` the dependencies that differ from the anchor
    (DEPENDENCY_CHANGED, and CHANGED when some also differ); ``reason`` why a
    file is UNREADABLE or UNPARSABLE. All of it is for reviewers, never for agents.
    """

    status: AnchorStatus
    hint: SymbolRef | None = None
    candidates: tuple[SymbolRef, ...] = ()
    changed: tuple[str, ...] = ()
    reason: str = ""


class SymbolIndex:
    """The symbols of one snapshot, parsed once, looked up by place and by normalized hash.

    Build it from a snapshot (:meth:`from_snapshot`, files parsed lazily) or
    from already-computed symbol rows (:meth:`from_symbols`, as the release
    history tables hold them, dependency fingerprints included);
    :func:`locate` treats both the same.
    """

    def __init__(self, by_file: Mapping[str, Mapping[str, Symbol] | None]):
        # path -> {qualname: Symbol}, or None when the file does not parse
        self._by_file: dict[str, Mapping[str, Symbol] | None] = dict(by_file)
        self._sources: dict[str, str | Unreadable] = {}
        self._parsed: dict[str, SourceFile] = {}
        self._errors: dict[str, str] = {}
        self._fingerprints: dict[tuple[str, str], tuple[str, tuple[tuple[str, str], ...]]] = {}
        self._by_hash: dict[str, list[Symbol]] | None = None

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, str | Unreadable]) -> SymbolIndex:
        """Index a snapshot (mapping path -> source text, or :class:`~cvlib.notes.anchors.Unreadable`)."""
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
            if source is None or isinstance(source, Unreadable):
                return {}
            try:
                parsed = analyse(source, path)
                self._parsed[path] = parsed
                self._by_file[path] = {s.qualname: s for s in parsed.rows()}
            except (UnparsableSource, LanguageUnavailable) as err:  # a status for the note, not a failed check
                self._errors[path] = str(err)
                self._by_file[path] = None
        return self._by_file[path]

    def has_file(self, path: str) -> bool:
        """Whether the snapshot holds a file at ``path`` (readable, parsable or not)."""
        return path in self._by_file or path in self._sources

    def unreadable(self, path: str) -> str | None:
        """Why the file at ``path`` could not be read, or None."""
        source = self._sources.get(path)
        return source.reason if isinstance(source, Unreadable) else None

    def parses(self, path: str) -> bool:
        """False only for a file that is present and does not parse."""
        return not self.has_file(path) or self.unreadable(path) is not None or self._file(path) is not None

    def parse_error(self, path: str) -> str:
        """The parser's complaint about ``path`` (empty when it parsed or was never read)."""
        return self._errors.get(path, "")

    def get(self, path: str, qualname: str) -> Symbol | None:
        """The symbol at this place, or None."""
        found = self._file(path)
        return None if not found else found.get(qualname)

    def qualnames(self, path: str) -> list[str]:
        """Every qualified name defined in ``path`` (empty when absent, unreadable or unparsable)."""
        return sorted((self._file(path) or {}).keys())

    def fingerprint(self, path: str, qualname: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """``(dep_hash, ((label, short hash), ...))`` of the symbol at this place.

        Raises
        ------
        UnknownSymbolError
            If there is no such symbol.
        """
        key = (path, qualname)
        if key not in self._fingerprints:
            symbol = self.get(path, qualname)
            if symbol is None:
                raise UnknownSymbolError(f"{path!r} defines no symbol {qualname!r}")
            if symbol.dep_hash:
                self._fingerprints[key] = (symbol.dep_hash, symbol.deps)
            elif path not in self._parsed:
                raise NotesError(f"the symbol row for {path}::{qualname} carries no dependency hash (dep_hash) to compare with")
            else:
                self._fingerprints[key] = dependency_fingerprint(self._parsed[path].dependencies(qualname))
        return self._fingerprints[key]

    def depths(self, path: str, qualname: str) -> dict[str, int]:
        """Label -> distance from the symbol of each of its dependencies (empty for an index built from rows)."""
        if self.get(path, qualname) is None or path not in self._parsed:
            return {}
        return self._parsed[path].dependency_depths(qualname)

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


def _index(snapshot: Mapping[str, str | Unreadable] | SymbolIndex) -> SymbolIndex:
    return snapshot if isinstance(snapshot, SymbolIndex) else SymbolIndex.from_snapshot(snapshot)


def twins_of(index: SymbolIndex, symbol: Symbol) -> tuple[str, ...]:
    """Places other than ``symbol``'s own that hold its normalized body (only for identifiable bodies)."""
    if not symbol.identifiable:
        return ()
    return tuple(str(SymbolRef(s.path, s.qualname)) for s in index.with_hash(symbol.norm_hash)
                 if (s.path, s.qualname) != (symbol.path, symbol.qualname) and s.identifiable)


def anchor(snapshot: Mapping[str, str | Unreadable] | SymbolIndex, path: str, qualname: str) -> Anchor:
    """Anchor a note on ``qualname`` in file ``path`` of ``snapshot``: the fingerprints to store with it.

    ``qualname`` is a function, ``Class.method``, ``outer.inner``, a module
    constant (``ELAPSED_TIME_LABEL``), a class attribute, or for Rust
    ``Type::method``, ``<Type as Trait>::method``, ``CONST``, ``name!``.

    Raises
    ------
    UnknownSymbolError
        If the file is not in the snapshot, cannot be read, does not parse, or
        does not define ``qualname``.
    """
    index = _index(snapshot)
    if not index.has_file(path):
        raise UnknownSymbolError(f"cannot anchor on {path!r}: the snapshot has no such file")
    why = index.unreadable(path)
    if why is not None:
        raise UnknownSymbolError(f"cannot anchor on {path!r}: the file cannot be read ({why})")
    if not index.parses(path):
        raise UnknownSymbolError(f"cannot anchor on {path!r}: the file does not parse")
    symbol = index.get(path, qualname)
    if symbol is None:
        known = index.qualnames(path)
        shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        raise UnknownSymbolError(f"cannot anchor on {qualname!r}: {path!r} does not define it (it defines: {shown or 'nothing'})")
    dep_hash, deps = index.fingerprint(path, qualname)
    return Anchor(path=path, qualname=qualname, raw_hash=symbol.raw_hash, norm_hash=symbol.norm_hash,
                  dep_hash=dep_hash, deps=deps, twins=twins_of(index, symbol))


def changed_dependencies(stored: Iterable[tuple[str, str]], current: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """Labels whose short hash differs, or that were added or removed, sorted (added ones marked ``(new)``, removed ``(gone)``)."""
    before, after = dict(stored), dict(current)
    digits = min([len(h) for h in before.values()] + [len(h) for h in after.values()] + [DEP_LABEL_HEX_DIGITS])
    out = []
    for label in sorted(set(before) | set(after)):
        if label not in before:
            out.append(f"{label} (new)")
        elif label not in after:
            out.append(f"{label} (gone)")
        elif before[label][:digits] != after[label][:digits]:
            out.append(label)
    return tuple(out)


def classify(anchor: Anchor, index: SymbolIndex, dependencies: bool = True) -> Location:
    """The status of ``anchor`` in an indexed snapshot (the whole rule; see the module docstring).

    Parameters
    ----------
    anchor
        What the note was written against.
    index
        The snapshot to check.
    dependencies
        False gives the symbol-only gate (no DEPENDENCY_CHANGED), kept to
        measure what the dependency check adds.

    Returns
    -------
    Location
    """
    why = index.unreadable(anchor.path)
    if why is not None:
        return Location(AnchorStatus.UNREADABLE, reason=why)
    if not index.parses(anchor.path):
        return Location(AnchorStatus.UNPARSABLE, reason=index.parse_error(anchor.path))
    here = index.get(anchor.path, anchor.qualname)
    if here is not None:
        if not dependencies:
            return Location(AnchorStatus.FRESH if here.norm_hash == anchor.norm_hash else AnchorStatus.CHANGED)
        dep_hash, deps = index.fingerprint(anchor.path, anchor.qualname)
        changed = changed_dependencies(anchor.deps, deps) if dep_hash != anchor.dep_hash else ()
        if here.norm_hash != anchor.norm_hash:
            return Location(AnchorStatus.CHANGED, changed=changed)
        if dep_hash != anchor.dep_hash:
            return Location(AnchorStatus.DEPENDENCY_CHANGED, changed=changed or ("(dependencies)",))
        return Location(AnchorStatus.FRESH)
    earlier = set(anchor.twins)
    movers = [s for s in index.with_hash(anchor.norm_hash) if s.identifiable and str(SymbolRef(s.path, s.qualname)) not in earlier]
    refs = tuple(SymbolRef(s.path, s.qualname) for s in movers)
    if len(refs) == 1:
        return Location(AnchorStatus.RENAMED, hint=refs[0], candidates=refs)
    if len(refs) > 1:
        return Location(AnchorStatus.AMBIGUOUS, candidates=refs)
    return Location(AnchorStatus.MISSING)


#: How :func:`dependency_kind` sorts a changed dependency, in display order.
DEPENDENCY_KINDS: tuple[str, ...] = ("module name", "class member", "class header", "own binding", "name appeared or disappeared")


def dependency_kind(label: str, qualname: str) -> str:
    """The shape of a changed dependency of the note on ``qualname`` (one of :data:`DEPENDENCY_KINDS`).

    Parameters
    ----------
    label
        A label of a :class:`Location`'s ``changed`` (``LIMIT``, ``Runner.scale``,
        ``class Runner``, ``helper (new)``).
    qualname
        The note's symbol (its own name is its own binding).

    Returns
    -------
    str
    """
    bare = label.removesuffix(" (new)").removesuffix(" (gone)")
    if label != bare:
        return "name appeared or disappeared"
    if bare == qualname.split("#")[0]:
        return "own binding"
    if bare.startswith(("class ", "impl ")) or bare.endswith(" (attributes, generics)"):  # a Rust type's header
        return "class header"
    if "." in bare or "::" in bare:
        return "class member"
    return "module name"


@dataclass(frozen=True, slots=True)
class ChangedDependency:
    """One dependency that differs from a note's anchor: its label, its kind, and how far it is from the symbol.

    ``depth`` is 0 for the symbol's own binding, 1 for what its code names,
    2 for what those name, and so on; -1 when unknown (a dependency that is
    gone, or an index built from table rows).
    """

    label: str
    kind: str
    depth: int

    def __str__(self) -> str:
        return f"{self.label} ({self.kind})"


def explain(note: Note | Anchor, snapshot: Mapping[str, str | Unreadable] | SymbolIndex) -> tuple[ChangedDependency, ...]:
    """Every dependency of ``note`` that changed, nearest to the symbol first (the first one is where to look).

    Parameters
    ----------
    note
        A note or its anchor.
    snapshot
        The working tree (or a :class:`SymbolIndex` of it).

    Returns
    -------
    tuple of ChangedDependency
        Sorted by depth (unknown depths last), then label; empty when no
        dependency changed or the symbol is not at its place.
    """
    target = note.anchor if isinstance(note, Note) else note
    if not isinstance(target, Anchor):
        raise NotesError(f"explain() needs a Note or an Anchor, got {type(note).__name__}")
    index = _index(snapshot)
    where = classify(target, index)
    if not where.changed or where.changed == ("(dependencies)",):
        return ()
    return ordered_changes(where.changed, target.qualname, index.depths(target.path, target.qualname))


def ordered_changes(changed: Iterable[str], qualname: str, depths: Mapping[str, int] | None = None) -> tuple[ChangedDependency, ...]:
    """The changed dependencies of a :class:`Location`, in the order :func:`explain` gives them (where to look first).

    Parameters
    ----------
    changed
        A location's ``changed`` labels (``"; "``-split from a replay row).
    qualname
        The note's symbol, which decides each label's kind.
    depths
        Label -> distance from the symbol; labels it lacks (or all of them,
        for an index built from table rows) sort after the known ones, by label.

    Returns
    -------
    tuple of ChangedDependency
        Sorted by depth (unknown last), then label.
    """
    depths = depths or {}
    found = []
    for label in changed:
        bare = label.removesuffix(" (new)").removesuffix(" (gone)")
        found.append(ChangedDependency(label, dependency_kind(label, qualname), depths.get(bare, -1)))
    return tuple(sorted(found, key=lambda c: (c.depth < 0, c.depth, c.label)))


def locate(note: Note | Anchor, snapshot: Mapping[str, str | Unreadable] | SymbolIndex) -> Location:
    """Where ``note``'s code stands in ``snapshot``: a :class:`Location` with ``.status`` and what a reviewer needs.

    Pass a :class:`SymbolIndex` instead of a plain snapshot when locating many
    notes in the same snapshot, so that it is parsed once.
    """
    target = note.anchor if isinstance(note, Note) else note
    if not isinstance(target, Anchor):
        raise NotesError(f"locate() needs a Note or an Anchor, got {type(note).__name__}")
    return classify(target, _index(snapshot))


def agent_visible(note: Note, snapshot: Mapping[str, str | Unreadable] | SymbolIndex) -> bool:
    """Whether an agent may see ``note``: approved, HIGH tier and FRESH. Nothing else is shown."""
    if not isinstance(note, Note):
        raise NotesError(f"agent_visible() needs a Note, got {type(note).__name__}")
    if not (note.approved and note.tier is Tier.HIGH):
        return False
    return locate(note, snapshot).status is AnchorStatus.FRESH

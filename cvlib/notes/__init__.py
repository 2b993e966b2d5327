"""Code-anchored notes that reach an agent only while provably fresh.

``cv.notes`` holds the gate (:func:`anchor`, :class:`Note`, :func:`locate`,
:func:`agent_visible`), the notes-file reader and writer, the replay of real
release histories and the published trial counts of the study it comes from.
A note's fingerprint covers its symbol's code and what that code depends on in
its file (Python through :mod:`ast`, Rust through tree-sitter, any other
language through its entry in the registry :mod:`cvlib.notes.languages`).

``__all__`` lists what a user needs: the gate, the notes file, the registry
of languages, the errors.
The former name ``Status`` of :class:`AnchorStatus` still imports.
"""

from __future__ import annotations

from .anchors import Unreadable, read_snapshot, symbols
from .errors import (
    LanguageUnavailable,
    MissingFingerprintError,
    NotesError,
    NotesFileError,
    UnknownSymbolError,
    UnparsableSource,
)
from .gate import (
    Anchor,
    AnchorStatus,
    Location,
    Note,
    Status,  # noqa: F401  (the former name of AnchorStatus, still importable)
    SymbolIndex,
    SymbolRef,
    Tier,
    agent_visible,
    anchor,
    classify,
    explain,
    locate,
)
from .languages import Language, UnknownLanguage, languages, register_language, unregister_language
from .notesfile import anchor_notes_file, parse_notes, read_notes
from .symbols import MIN_IDENTIFIABLE_NODES, Symbol

__all__ = [
    "MIN_IDENTIFIABLE_NODES",
    "Anchor",
    "AnchorStatus",
    "Language",
    "LanguageUnavailable",
    "Location",
    "MissingFingerprintError",
    "Note",
    "NotesError",
    "NotesFileError",
    "Symbol",
    "SymbolIndex",
    "SymbolRef",
    "Tier",
    "UnknownLanguage",
    "UnknownSymbolError",
    "UnparsableSource",
    "Unreadable",
    "agent_visible",
    "anchor",
    "anchor_notes_file",
    "classify",
    "explain",
    "languages",
    "locate",
    "parse_notes",
    "read_notes",
    "read_snapshot",
    "register_language",
    "symbols",
    "unregister_language",
]

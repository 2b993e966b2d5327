"""Code-anchored notes that reach an agent only while provably fresh.

``cv.notes`` holds the gate (:func:`anchor`, :class:`Note`, :func:`locate`,
:func:`agent_visible`), the notes-file reader, the replay of real release
histories and the published trial counts of the study it comes from.
"""

from __future__ import annotations

from .anchors import MIN_IDENTIFIABLE_NODES, Symbol, UnparsableSource, read_snapshot, symbols
from .errors import NotesError, NotesFileError, UnknownSymbolError
from .notesfile import parse_notes, read_notes
from .gate import Anchor, Location, Note, Status, SymbolIndex, SymbolRef, Tier, agent_visible, anchor, classify, locate

__all__ = [
    "MIN_IDENTIFIABLE_NODES",
    "Anchor",
    "Location",
    "Note",
    "NotesError",
    "NotesFileError",
    "Status",
    "Symbol",
    "SymbolIndex",
    "SymbolRef",
    "Tier",
    "UnknownSymbolError",
    "UnparsableSource",
    "agent_visible",
    "anchor",
    "classify",
    "locate",
    "parse_notes",
    "read_notes",
    "read_snapshot",
    "symbols",
]

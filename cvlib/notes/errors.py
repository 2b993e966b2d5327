"""Errors the notes gate raises on bad input (all are :class:`cvlib.CvlibError`)."""

from __future__ import annotations

from cvlib.core.errors import NotesError

__all__ = ["NotesError", "NotesFileError", "UnknownSymbolError"]


class NotesFileError(NotesError):
    """A notes file is missing, does not parse, or holds a malformed note."""


class UnknownSymbolError(NotesError):
    """An anchor was asked for a symbol the snapshot does not define."""

"""Errors the notes gate raises on bad input (all are :class:`cvlib.CvlibError`)."""

from __future__ import annotations

from ..errors import CvlibError


class NotesError(CvlibError):
    """A note, a notes file, a snapshot or a history table is not one the gate can work with."""


class NotesFileError(NotesError):
    """A notes file is missing, does not parse, or holds a malformed note."""


class UnknownSymbolError(NotesError):
    """An anchor was asked for a symbol the snapshot does not define."""

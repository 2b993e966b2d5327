"""Errors the notes gate raises (all are :class:`cvlib.CvlibError`; a missing Rust parser is also an :class:`ImportError`)."""

from __future__ import annotations

from cvlib.core.errors import NotesError

__all__ = ["LanguageUnavailable", "MissingFingerprintError", "NotesFileError",
           "UnknownSymbolError", "UnparsableSource"]


class NotesFileError(NotesError):
    """A notes file is missing, does not parse, or holds a malformed note."""


class MissingFingerprintError(NotesFileError):
    """A note carries no stored fingerprint; the gate never takes one at read time."""


class UnknownSymbolError(NotesError):
    """An anchor was asked for a symbol the snapshot does not define."""


class UnparsableSource(NotesError):
    """A file's text is not code this gate can parse (Python, or Rust through tree-sitter)."""


class LanguageUnavailable(NotesError, ImportError):
    """A Rust file was met but the tree-sitter packages that parse Rust are not installed."""

"""Errors :mod:`cvlib.models` raises (all are :class:`cvlib.CvlibError`), each one line naming what to fix."""

from __future__ import annotations

from cvlib.core.errors import ModelError

__all__ = [
    "ModelChecksumError",
    "ModelError",
    "ModelMissingError",
    "RecordingError",
    "RecordingDamagedError",
    "RuntimeMissingError",
    "ServerUnreachableError",
    "UnrecordedCallError",
]


class ModelMissingError(ModelError, ImportError):
    """A model file, or a package that ships one of its parts, is not installed."""


class ModelChecksumError(ModelError):
    """A model file's SHA-256 is not the one expected: another file, or a damaged one."""


class RuntimeMissingError(ModelError, ImportError):
    """The llama.cpp runtime (``xllamacpp``) is not installed."""


class RecordingError(ModelError):
    """A recording file is missing or holds a line that is not a recorded call."""


class UnrecordedCallError(ModelError):
    """A replayed model was asked a prompt, settings or model the recording does not hold."""


class ServerUnreachableError(ModelMissingError):
    """A model server cannot be reached (not running, wrong address): the model cannot be had."""


class RecordingDamagedError(RecordingError):
    """A recording holds a line cut short (a recorder killed mid-write) or a line that is not a call.

    Parameters
    ----------
    message : str
        The one-line message.
    line : int
        The damaged line's number (1-based).
    """

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line

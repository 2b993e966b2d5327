"""Errors cvlib raises on bad input.

Every error names the offending value and what was expected, so a reader who
passed a wrong papermill parameter or a malformed spec file learns what to fix
from the message alone, without reading a traceback into the library.
"""

from __future__ import annotations


class CvlibError(ValueError):
    """Base class: a value given to cvlib is not one it can work with."""


class CycleError(CvlibError):
    """The plan's dependency graph has a cycle, so no step order exists."""


class UnknownFactError(CvlibError):
    """An event, a requirement or a query names a fact the world does not hold."""


class UnknownStepError(CvlibError):
    """A step names a predecessor that is not in the plan."""


class ParameterError(CvlibError):
    """A scenario, generator or sweep parameter is unknown, of the wrong type or out of range."""


class SizeLimitError(ParameterError):
    """A plan, or a number of runs, would be larger than the limit in force (see :mod:`cvlib.scenarios.sizes`)."""


class SpecError(CvlibError):
    """A scenario spec file is malformed."""


class SweepError(CvlibError):
    """A sweep cannot run as asked (bad backend, a checkpoint of another sweep, a failed chunk)."""


class NotesError(CvlibError):
    """A note, a notes file, a snapshot or a history table is not one the notes gate can work with.

    The root of :mod:`cvlib.notes`' own errors (:mod:`cvlib.notes.errors`), kept
    here so every error cvlib raises hangs from the one :class:`CvlibError` tree.
    """


class ModelError(CvlibError):
    """A language model, a model file, a recording or a recorded call is not one :mod:`cvlib.models` can use.

    The root of :mod:`cvlib.models`' own errors (:mod:`cvlib.models.errors`),
    kept here so every error cvlib raises hangs from the one :class:`CvlibError` tree.
    """

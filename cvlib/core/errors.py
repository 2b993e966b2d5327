"""Errors cvlib raises on bad input.

Every error names the offending value and what was expected, so a reader who
passed a wrong papermill parameter or a malformed spec file learns what to fix
from the message alone, without reading a traceback into the library.

Every error derives from :class:`CvlibError`, so ``except CvlibError`` catches
all of them, and also from the built-in exception it means, so code that knows
nothing of cvlib catches it the usual way: a bad value is a :class:`ValueError`,
a run that failed is a :class:`RuntimeError`, a missing optional package is an
:class:`ImportError`.
"""

from __future__ import annotations


class CvlibError(Exception):
    """Base class of every error cvlib raises on purpose."""


class CycleError(CvlibError, ValueError):
    """The plan's dependency graph has a cycle, so no step order exists."""


class UnknownFactError(CvlibError, ValueError):
    """An event, a requirement or a query names a fact the world does not hold."""


class UnknownStepError(CvlibError, ValueError):
    """A step names a predecessor that is not in the plan."""


class ParameterError(CvlibError, ValueError):
    """A scenario, generator or sweep parameter is unknown, of the wrong type or out of range."""


class SizeLimitError(ParameterError):
    """A plan, or a number of runs, would be larger than the limit in force (see :mod:`cvlib.scenarios.sizes`)."""


class SpecError(CvlibError, ValueError):
    """A scenario spec file is malformed."""


class SweepError(CvlibError, RuntimeError):
    """A sweep failed while running: its checkpoint folder cannot be used or written, or a chunk never came back.

    Bad arguments to a sweep (an unknown backend, a client without a
    scheduler) are raised as :class:`ParameterError`, before anything runs.
    """


class NotesError(CvlibError, ValueError):
    """A note, a notes file, a snapshot or a history table is not one the notes gate can work with.

    The root of :mod:`cvlib.notes`' own errors (:mod:`cvlib.notes.errors`), kept
    here so every error cvlib raises hangs from the one :class:`CvlibError` tree.
    """


class ModelError(CvlibError):
    """A language model, a model file, a recording or a recorded call is not one :mod:`cvlib.models` can use.

    The root of :mod:`cvlib.models`' own errors (:mod:`cvlib.models.errors`),
    kept here so every error cvlib raises hangs from the one :class:`CvlibError` tree.
    """

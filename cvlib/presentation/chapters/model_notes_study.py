"""What the chapter "A local model and stale notes" shows, as one value computed once from the recordings.

:class:`NotesStudy` is made by
:func:`~cvlib.presentation.chapters.model_notes_trials.read_study` and read by
the chapter's tables (:mod:`~cvlib.presentation.chapters.model_notes_trials`)
and figures (:mod:`~cvlib.presentation.chapters.model_notes_figures`); it has
its own module so that both can name it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NotesStudy"]


@dataclass(frozen=True)
class NotesStudy:
    """Everything the page shows, computed once from the recordings (frames from :mod:`~cvlib.experiments.notes_study.analysis`)."""

    models: tuple[str, ...]
    outcomes: pd.DataFrame
    shares: pd.DataFrame
    sampled: pd.DataFrame
    effects: pd.DataFrame
    held: pd.DataFrame
    contrasts: pd.DataFrame
    gate: dict[str, Any]
    gate_effects: pd.DataFrame
    kinds: pd.DataFrame
    other: pd.DataFrame
    audit: pd.DataFrame
    predictions: pd.DataFrame
    coverage: pd.DataFrame
    confidence: float

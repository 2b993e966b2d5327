"""Where the two notes chapters' views used to live; the old names still import from here.

The chapters' tables, glued numbers and defaults are presentation and live
in :mod:`cvlib.presentation.chapters.notes_release_history` and
:mod:`cvlib.presentation.chapters.notes_published_trials`. The science they
start from has its own modules, re-exported here for code written against
this one: the replay of several projects (:mod:`cvlib.notes.replay`) and the
curves of expected stale edits and the arms' names (:mod:`cvlib.notes.trials`).
"""

from __future__ import annotations

from .replay import Replay, replay_projects, step_counts, survival_curves, totals
from .trials import ARM_NAMES, policy_curves

__all__ = ["ARM_NAMES", "Replay", "policy_curves", "replay_projects", "step_counts", "survival_curves", "totals"]

"""Several projects' release histories replayed together, and the pooled totals both notes chapters start from.

:func:`replay_projects` loads each project's committed table, replays it
(:func:`cvlib.notes.history.replay`: one note on every function and method,
checked at every later release) and groups the projects by the language the
registry reads their files in (:mod:`cvlib.notes.languages`). The chapters'
tables and glued numbers are written from a :class:`Replay` by the
presentation layer (:mod:`cvlib.presentation.chapters.notes_release_history`,
:mod:`cvlib.presentation.chapters.notes_published_trials`); this module
returns plain frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import history as nh

__all__ = ["Replay", "by_language", "replay_projects", "step_counts", "survival_curves", "totals"]


@dataclass(frozen=True)
class Replay:
    """The release histories of some projects and their replay (every note, every later release)."""

    tables: dict[str, pd.DataFrame]
    replayed: pd.DataFrame
    versions: dict[str, list[str]]
    languages: dict[str, list[str]]

    @property
    def projects(self) -> list[str]:
        """The projects, in the order asked for."""
        return list(self.tables)


def replay_projects(projects: Sequence[str], folder: str | Path, kinds: Sequence[str] = nh.NOTE_KINDS) -> Replay:
    """Load each project's table and replay it (:func:`cvlib.notes.history.replay`).

    Parameters
    ----------
    projects
        Table names under ``folder``.
    folder
        The folder of the committed tables.
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    Replay
    """
    tables = nh.load_histories(projects, folder)
    replayed = pd.concat([nh.replay(t, kinds=kinds) for t in tables.values()], ignore_index=True)
    languages: dict[str, list[str]] = {}
    for project, table in tables.items():
        languages.setdefault(nh.language(table), []).append(project)
    return Replay(tables, replayed, {p: nh.versions(t) for p, t in tables.items()}, languages)


def totals(r: Replay) -> pd.DataFrame:
    """:func:`cvlib.notes.history.gate_totals` with a pooled row per language, indexed by project."""
    return nh.gate_totals(r.replayed, r.languages).set_index("project")


def step_counts(r: Replay) -> pd.DataFrame:
    """:func:`cvlib.notes.history.status_totals` (precise gate) with a pooled row per language and ``all``."""
    return nh.status_totals(r.replayed, groups=r.languages if len(r.languages) > 1 else None)


def by_language(replayed: pd.DataFrame, languages: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """:func:`cvlib.notes.history.replay` rows with each project replaced by its language (to pool by language)."""
    to_language = {p: lang for lang, members in languages.items() for p in members}
    return replayed.assign(project=replayed["project"].map(to_language))


def survival_curves(r: Replay, column: str = "status") -> pd.DataFrame:
    """:func:`cvlib.notes.history.survival` per project under one gate's column (for the figure)."""
    return nh.survival(r.replayed, column)

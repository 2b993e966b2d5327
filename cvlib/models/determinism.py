"""How often a re-generated call equals its recording: the rows of ``data/model_trials/determinism.csv``.

A recording is only evidence if its calls can be made again. Greedy decoding
at temperature 0 is still not guaranteed to repeat: batched inference rounds
differently with the thread count and with what the prompt cache holds, and a
near-tie between two tokens can flip. ``data/model_trials/measure_determinism.py``
re-generates seeded samples of whole groups (:func:`~cvlib.models.verify.verify_recording`
with ``whole_groups=True``) at one and two threads and writes one row per
recording and thread count; this module reads those rows for the chapters and
says what they found in one sentence, so no chapter types the rate.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cvlib.core.errors import ParameterError

__all__ = ["DeterminismRow", "determinism_sentence", "load_determinism"]

_COLUMNS = ("recording", "threads", "sampled", "generated", "identical")


@dataclass(frozen=True, slots=True)
class DeterminismRow:
    """One recording re-generated at one thread count."""

    recording: str
    threads: int
    sampled: int
    generated: int
    identical: int

    @property
    def share(self) -> float:
        """The share of sampled calls that came back byte-identical."""
        return self.identical / self.sampled if self.sampled else float("nan")


def load_determinism(path: str | os.PathLike[str]) -> list[DeterminismRow]:
    """The rows of a determinism file, in file order; an empty list when the file does not exist yet.

    Parameters
    ----------
    path : str or os.PathLike
        ``determinism.csv`` as ``measure_determinism.py`` writes it.

    Returns
    -------
    list of DeterminismRow

    Raises
    ------
    ParameterError
        A missing column or a count that is not a whole number, naming the file and the row.
    """
    file = Path(path)
    if not file.is_file():
        return []
    with file.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ParameterError(f"{file}: missing column(s) {', '.join(missing)}; expected {', '.join(_COLUMNS)}")
        rows = []
        for number, raw in enumerate(reader, start=2):
            try:
                counts = [int(raw[c]) for c in _COLUMNS[1:]]
            except ValueError:
                raise ParameterError(f"{file}, line {number}: counts must be whole numbers, got {dict(raw)!r}") from None
            rows.append(DeterminismRow(raw["recording"], *counts))
    return rows


def determinism_sentence(rows: Sequence[DeterminismRow], prefix: str | tuple[str, ...]) -> str:
    """What re-generating the recordings whose file names start with ``prefix`` found, summed per thread count.

    The per-file counts belong in a table (the chapters show one); the
    sentence gives the totals the prose can quote.

    Parameters
    ----------
    rows : sequence of DeterminismRow
        From :func:`load_determinism`.
    prefix : str or tuple of str
        The start of the experiment's file names (``"agent_study."``), or several.

    Returns
    -------
    str
        One clause per thread count; says so when none has been measured yet.
    """
    chosen = [r for r in rows if r.recording.startswith(prefix)]
    if not chosen:
        return "no recording of this study has been re-generated yet (data/model_trials/measure_determinism.py)"
    parts = []
    for threads in sorted({r.threads for r in chosen}):
        at = [r for r in chosen if r.threads == threads]
        files = len({r.recording for r in at})
        parts.append(f"at {threads} thread{'s' * (threads != 1)}, {sum(r.identical for r in at):,} of "
                     f"{sum(r.sampled for r in at):,} sampled calls of {files} recording{'s' * (files != 1)} came back "
                     "byte-identical")
    return "; ".join(parts)

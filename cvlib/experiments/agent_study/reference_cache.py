"""The random reference's results, kept in a committed table so a page does not redraw them each time it runs.

The second edition's random reference answers at a model's own rates in each
arm and order, 200 seeded draws per task (pre-registration part 3, section
6). That is about 0.05 s per task, arm and order on this machine: some seven
minutes for three models' 200 tasks, every time the chapter executes. Its
result depends only on the task, the arm, the answer counts that set the
rates and the number of draws, so it is looked up by those
(:func:`reference_key`) in ``data/model_trials/agent_study_2_random.csv``,
written by ``data/model_trials/derive_random_references.py``. A key the table
lacks (a reader's own model, a recording that grew) is computed as before.
The table is plain CSV: reading it runs no code, and a test recomputes rows
of it.
"""

from __future__ import annotations

import csv
import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from cvlib.core.errors import ParameterError

__all__ = ["CACHE_COLUMNS", "ReferenceKey", "load_reference_cache", "reference_key", "write_reference_cache"]

#: The table's columns, the key first and then the reference's mean cost, pre-failure work and completion share.
CACHE_COLUMNS: tuple[str, ...] = ("task", "arm", "execute", "verify", "replan", "draws", "cost", "pre_failure_work",
                                  "completed")
#: A row's key, made of the task's digest, the arm, the EXECUTE, VERIFY and REPLAN answer counts and the draws.
ReferenceKey = tuple[str, str, int, int, int, int]


def reference_key(task: str, arm: str, counts: Mapping[str, int], draws: int) -> ReferenceKey:
    """The key of one task's random reference: what its result depends on, and nothing else.

    Parameters
    ----------
    task : str
        The task's canonical key (the ``task`` column of the runs).
    arm : str
        The arm whose prompts and enforcement the reference runs under.
    counts : mapping of str to int
        The model's EXECUTE, VERIFY and REPLAN answers in that arm and order (the rates are their shares).
    draws : int
        Draws per task.

    Returns
    -------
    ReferenceKey
    """
    digest = hashlib.sha256(task.encode("utf-8")).hexdigest()[:20]
    return (digest, arm, int(counts["EXECUTE"]), int(counts["VERIFY"]), int(counts["REPLAN"]), int(draws))


def load_reference_cache(path: str | os.PathLike[str]) -> dict[ReferenceKey, tuple[float, float, float]]:
    """The table at ``path`` (empty if there is none).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Returns
    -------
    dict
        Key -> (cost, pre-failure work, completed share).
    """
    target = Path(path)
    if not target.exists():
        return {}
    table: dict[ReferenceKey, tuple[float, float, float]] = {}
    with target.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != CACHE_COLUMNS:
            raise ParameterError(f"{target}: expected the columns {', '.join(CACHE_COLUMNS)}, "
                                 f"got {', '.join(reader.fieldnames or ())}")
        for line, row in enumerate(reader, start=2):
            try:
                key = (row["task"], row["arm"], int(row["execute"]), int(row["verify"]), int(row["replan"]),
                       int(row["draws"]))
                table[key] = (float(row["cost"]), float(row["pre_failure_work"]), float(row["completed"]))
            except (TypeError, ValueError) as error:
                raise ParameterError(f"{target}, line {line}: expected whole counts and numbers ({error})") from None
    return table


def write_reference_cache(path: str | os.PathLike[str], table: Mapping[ReferenceKey, tuple[float, float, float]]) -> None:
    """Write ``table`` to ``path`` whole (sorted rows; a cut write leaves the old file).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.
    table : mapping
        Key -> (cost, pre-failure work, completed share).
    """
    target = Path(path)
    handle = tempfile.NamedTemporaryFile("w", newline="", encoding="utf-8", dir=target.parent, delete=False,
                                         prefix=f".{target.name}.", suffix=".tmp")
    try:
        with handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(CACHE_COLUMNS)
            for key in sorted(table):
                writer.writerow([*key, *(repr(float(v)) for v in table[key])])
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise

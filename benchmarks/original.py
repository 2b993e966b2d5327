"""The original implementation, measured side by side when the reader has a checkout of it.

``bash scripts/bench.sh --original DIR`` points the suite at a checkout of
the original benchmark (Emmimal/context-validity-benchmark, MIT licence),
kept outside this repository and never vendored: ``DIR`` must hold its
package ``context_validity`` (``graph.py``, ``executors.py``, ``facts.py``,
``world.py``, ``scenarios.py``). Each case it can run (the chain, isolated
branches, the grid, cold start and peak memory) is then timed three ways in
the same run, interleaved: cvlib, the tests' reference loop and the
original, and the record holds both ratios. Before anything is timed, the
original's results are checked equal to cvlib's, field by field (PFW, steps
used, completion, replans, verifications and decisions of both executors),
so the comparison is of the same job.

The original's functions are looked up by name (``scenario_D_cascade_chain``,
``scenario_D3_isolated_branch``, ``topology_parameter_grid``,
``scenario_A_value_change``); nothing of its code is copied here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

#: The files a checkout of the original holds, under ``context_validity/``.
FILES = ("graph.py", "executors.py", "facts.py", "world.py", "scenarios.py")
#: The executor-result fields compared between cvlib and the original.
RESULT_FIELDS = (
    "completed",
    "steps_used",
    "budget",
    "replans",
    "verifications",
    "pre_failure_work",
    "decisions_total",
    "decisions_on_stale_deps",
)
#: The grid's columns both implementations give.
GRID_COLUMNS = ("depth", "branching_factor", "merge_factor", "total_nodes", "invalidation_depth",
                "baseline_pfw", "validity_pfw")
#: The article's grid, as the original's ``run_all.py`` sweeps it.
GRID_AXES = ([3, 4, 5, 6, 7, 8], [1, 2, 3, 4], [1, 2, 3, 4])
#: Sizes the original is run at: its loop is quadratic in isolated branches (10,000 take about 40 s).
MAX_SIZE = {"chain": 1_000_000, "isolated_branches": 10_000, "grid": 96}
#: The start-up job, a fresh interpreter running scenario A with the original.
COLD_START = "from context_validity.scenarios import scenario_A_value_change; scenario_A_value_change()"


class OriginalError(ValueError):
    """The folder given as the original is not a checkout of it (one line, naming the folder)."""


def check_dir(folder: str | Path) -> Path:
    """The checkout's folder, resolved, if it holds the original's package; else a one-line :class:`OriginalError`.

    Parameters
    ----------
    folder : str or pathlib.Path
        What was given after ``--original``.

    Returns
    -------
    pathlib.Path
    """
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise OriginalError(f"--original {str(folder)!r} is not a folder; expected a checkout of the original")
    missing = [name for name in FILES if not (path / "context_validity" / name).is_file()]
    if missing:
        raise OriginalError(
            f"--original {str(folder)!r} lacks context_validity/{', context_validity/'.join(missing)}; "
            "expected a checkout of Emmimal/context-validity-benchmark"
        )
    return path


def load(folder: str | Path) -> ModuleType:
    """The original's ``context_validity.scenarios`` module, imported from ``folder`` (put first on the path).

    Parameters
    ----------
    folder : str or pathlib.Path
        A checkout of the original.

    Returns
    -------
    module
    """
    path = str(check_dir(folder))
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module("context_validity.scenarios")


def result_fields(result: Any) -> tuple[Any, ...]:
    """One executor result (either implementation's) as the tuple of :data:`RESULT_FIELDS`."""
    return tuple(getattr(result, name) for name in RESULT_FIELDS)


def runs(case: str, size: int) -> bool:
    """Whether the suite runs the original on ``case`` at ``size`` (small enough to finish in a minute).

    Parameters
    ----------
    case : str
        A timed case's name.
    size : int
        Its size.

    Returns
    -------
    bool
    """
    return case in MAX_SIZE and size <= MAX_SIZE[case]


def job(scenarios: ModuleType, case: str, size: int) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    """The original's job for one case, and how to make its result comparable with cvlib's.

    Parameters
    ----------
    scenarios : module
        The original's scenarios module (:func:`load`).
    case : str
        ``"chain"``, ``"isolated_branches"`` or ``"grid"``.
    size : int
        Steps, branches or configurations.

    Returns
    -------
    (callable, callable)
        The job (no arguments) and a function of its result giving what :func:`comparable_fast` gives for cvlib's.
    """
    if case == "chain":
        return (lambda: scenarios.scenario_D_cascade_chain(depth=size, change_tick=0)), _pair
    if case == "isolated_branches":
        return (lambda: scenarios.scenario_D3_isolated_branch(6, size, 2, change_tick=0)), _pair
    if case == "grid":
        return (lambda: scenarios.topology_parameter_grid(*GRID_AXES, seed=0)), _grid_rows
    raise OriginalError(f"the original has no job for case {case!r}; expected one of {', '.join(MAX_SIZE)}")


def _pair(result: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    return result_fields(result[0]), result_fields(result[1])


def _grid_rows(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(tuple(row[c] for c in GRID_COLUMNS) for row in rows)


def comparable_fast(case: str, result: Any) -> Any:
    """cvlib's result for ``case`` in the shape :func:`job`'s comparable gives the original's.

    Parameters
    ----------
    case : str
        The case.
    result : object
        What cvlib's job returned (a scenario run, or the grid's result).

    Returns
    -------
    object
    """
    if case == "grid":
        frame = result.to_frame() if hasattr(result, "to_frame") else result
        names = set(frame.columns)
        # cvlib's names for the original's columns (steps, not nodes; one column per policy, {policy}_{metric})
        ours = {"total_nodes": "total_steps", "validity_pfw": "validity_aware_pfw"}
        columns = [ours[c] if c in ours and ours[c] in names else c for c in GRID_COLUMNS]
        return sorted(zip(*(list(frame[c]) for c in columns)))
    return result_fields(result.baseline), result_fields(result.validity_aware)

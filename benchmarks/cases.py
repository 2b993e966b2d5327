"""What the suite times: each case is a job done by the library and the same job done by the reference loop.

A case is a function of a size that returns ``(fast, reference, steps,
comparable)``: two callables doing the whole job once (``fast`` with the
library, ``reference`` with the step-by-step executors of
``tests/reference_executor.py``, see :mod:`benchmarks.reference`), the
number of plan steps the job covers, and what makes their results
comparable. :func:`benchmarks.run.measure_pair` checks that both give the
same results, then times them interleaved.

The figures the original implementation was quoted at, and the targets, are
kept here too, each with where it comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cvlib as cv

from . import reference as ref

#: The seed of the timed random family.
FAMILY_SEED = 2026

Job = Callable[[], Any]
#: A case's jobs and what they return, made comparable: (fast, reference, steps, comparable).
Jobs = tuple[Job, Job, int, Callable[[Any], Any]]


def _run_dict(run: Any) -> Any:
    return run.to_dict()


def _rows(rows: Any) -> Any:
    return rows.columns, rows.rows


def _same(rows: Any) -> Any:
    return rows


def chain(steps: int) -> Jobs:
    """Scenario D1, a chain of ``steps`` steps whose root fact breaks before the plan starts."""
    return (
        lambda: cv.run_scenario("D1", depth=steps),
        lambda: ref.reference_scenario("D1", depth=steps),
        steps,
        _run_dict,
    )


def isolated_branches(branches: int) -> Jobs:
    """Scenario D3 with ``branches`` isolated 6-step branches (one fact each; the first one breaks)."""
    return (
        lambda: cv.run_scenario("D3", num_branches=branches),
        lambda: ref.reference_scenario("D3", num_branches=branches),
        6 * branches + 2,
        _run_dict,
    )


def grid(_: int) -> Jobs:
    """The article's 96-configuration topology grid (D2): every plan built, both executors, the rows.

    Timed as plain rows (``as_frame=False``), as the original returns its
    grid as a list of dicts; the DataFrame a notebook asks for costs the
    frame's construction on top (and pandas' import, once).
    """
    steps = sum(cv.topology_grid(as_frame=False).column("total_steps"))
    return lambda: cv.topology_grid(as_frame=False), ref.reference_topology_grid, steps, _rows


def single_runs(count: int) -> Jobs:
    """``cv.run_scenario("D2", ...)`` once per configuration of the article's grid: ``count`` single runs (96).

    What a user pays for one run through the public entry, every call on its
    own: the parameters checked, the diamond built, the setup checked, both
    executors, the structure and the run's record. The topology grid does the
    same work for all 96 at once (the ``grid`` row); this row says how much a
    single run pays beyond its work. The reference is the same calls with the
    step-by-step executors.
    """
    from cvlib.experiments.article import GRID_BRANCHING, GRID_DEPTHS, GRID_MERGING

    configs = [(d, b, m) for d in GRID_DEPTHS for b in GRID_BRANCHING for m in GRID_MERGING][:count]
    steps = sum(len(cv.setup_scenario("D2", depth=d, branching_factor=b, merge_factor=m).plan) for d, b, m in configs)
    return (
        lambda: [cv.run_scenario("D2", depth=d, branching_factor=b, merge_factor=m) for d, b, m in configs],
        lambda: [ref.reference_scenario("D2", depth=d, branching_factor=b, merge_factor=m) for d, b, m in configs],
        steps,
        _run_dicts,
    )


def _run_dicts(runs: Any) -> Any:
    return [run.to_dict() for run in runs]


def random_family(count: int) -> Jobs:
    """``count`` plans of the seeded mixed random family, generated, both executors and the law on each, in one process.

    The library's side is a sweep's rows (``cv.RandomFamily(...).rows``); the reference is the plain statement
    of the whole job: the generator of ``tests/reference_random_plans.py``, the step-by-step executors, the law
    counted step by step (see :func:`benchmarks.reference.family_rows`).
    """
    steps = sum(len(s.plan) for s in cv.random_plans.random_setups(FAMILY_SEED, count))
    return (
        lambda: ref.family_rows(FAMILY_SEED, count, reference=False),
        lambda: ref.family_rows(FAMILY_SEED, count, reference=True),
        steps,
        _same,
    )


#: Case name -> (job maker, sizes, what the size counts). The growth exponent is fitted over the sizes.
CASES: dict[str, tuple[Callable[[int], Jobs], tuple[int, ...], str]] = {
    "chain": (chain, (10_000, 100_000, 1_000_000), "steps"),
    "isolated_branches": (isolated_branches, (3_000, 10_000, 166_666), "branches"),
    "grid": (grid, (96,), "configurations"),
    "single_runs": (single_runs, (96,), "runs"),
    "random_family": (random_family, (2_000,), "plans"),
}

#: The original implementation's figures, as quoted when it is not re-run (``--original`` re-runs it):
#: (case, size) -> CPU seconds.
QUOTED: dict[tuple[str, int], float] = {
    ("chain", 1_000_000): 25.8,
    ("isolated_branches", 10_000): 38.9,
    ("grid", 96): 0.0435,
    ("cold_start", 0): 0.0453,
}
#: The original's peak memory on the million-step chain, as quoted (MiB).
QUOTED_PEAK_MIB = 1058.0
QUOTED_SOURCE = (
    "the original implementation (Emmimal/context-validity-benchmark), as quoted by cvbook's issue 22, not re-run "
    "here: CPU-time medians, interleaved, a fresh process per run, on 2026-12-01 on this 2-core machine at load "
    "3.5-4.5; run bash scripts/bench.sh --original DIR with a checkout of it to measure it in the same run"
)

#: Targets (issues 17, 22 and 36), each on CPU time: (case, size) -> seconds.
TARGETS: dict[tuple[str, int], float] = {
    ("grid", 96): 0.0045,
    ("single_runs", 96): 0.010,
    ("cold_start", 0): 0.15,
    ("cli_cold_start", 0): 0.15,
}
#: Ratio targets (issue 22): the grid at least 10x the original, cold start at most the original's and at most
#: twice the bare interpreter's, the random family at least 10x the reference loop per plan, and the parallel
#: backends' speed-ups over the serial one on 2 workers at low load.
RATIO_TARGETS: dict[str, float] = {
    "grid_vs_original": 10.0,
    "cold_start_vs_original": 1.0,
    "cold_start_vs_interpreter": 2.0,
    "random_family_vs_reference": 10.0,
    "processes_vs_serial": 1.8,
    "dask_vs_serial": 1.6,
    "model_layout_speedup": 1.4,
}
#: Peak memory target for a million-step scenario, in MiB (the whole process).
PEAK_TARGET_MIB = 100.0

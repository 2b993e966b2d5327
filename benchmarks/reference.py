"""The reference side of every timed case: the same job, with the step-by-step executors of the tests.

``tests/reference_executor.py`` states the rules as a plain loop (one step at
a time through the belief view, no bulk stretches, no skipped syncs, no runs
of shared closures); the property tests check that the fast loop computes
exactly what it computes. Here each case's job is written a second time with
that loop in place of :func:`cvlib.run_baseline` and
:func:`cvlib.run_validity_aware`, everything else (the generators, the
structure summary, the rows and the table) unchanged, so the ratio of the two
times is what the fast loop buys, measured on the same machine in the same
run. Each reference job also returns its results, and :mod:`benchmarks.cases`
checks that they equal the fast job's before anything is timed.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import cvlib as cv
from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup
from tests.reference_executor import reference_baseline, reference_break_ticks, reference_pfw, reference_validity_aware
from tests.reference_random_plans import reference_setups


def reference_run(setup: ScenarioSetup) -> ScenarioRun:
    """``setup.run()`` with the plain loop: both executors on fresh worlds, and the structure summary."""
    baseline = reference_baseline(setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    validity = reference_validity_aware(setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    return ScenarioRun(
        scenario=setup.name,
        params=MappingProxyType(dict(setup.params)),
        structure=setup.structure(),
        results=MappingProxyType({"baseline": baseline, "validity_aware": validity}),
    )


def reference_scenario(name: str, **params: Any) -> ScenarioRun:
    """``cv.run_scenario(name, **params)`` with the plain loop."""
    return reference_run(cv.setup_scenario(name, **params))


def reference_topology_grid():
    """``cv.topology_grid(as_frame=False)`` with the plain loop: every plan built, both executors, the rows."""
    from cvlib.experiments.article import GRID_BRANCHING, GRID_DEPTHS, GRID_MERGING, run_row
    from cvlib.experiments.rows import Rows

    rows = []
    for depth in GRID_DEPTHS:
        for bf in GRID_BRANCHING:
            for mf in GRID_MERGING:
                run = reference_scenario("D2", depth=depth, branching_factor=bf, merge_factor=mf, seed=0)
                rows.append({"depth": depth, "branching_factor": bf, "merge_factor": mf, **run_row(run)})
    return Rows.from_dicts(rows)


def family_rows(seed: int, count: int, *, reference: bool) -> list[tuple[int, int, int]]:
    """Each plan of a random family run by both executors: (baseline PFW, validity-aware PFW, predicted PFW).

    With ``reference=True`` the whole job is the plain statement: the
    generator of ``tests/reference_random_plans.py`` (the library's draws made
    with ``random.Random``'s own methods), the step-by-step executors and the
    law counted step by step. Otherwise it is the library's: the rows a
    sweep of ``cv.RandomFamily`` computes (the same plans drawn without the
    setup values, both executors on bit masks, ``cv.predicted_pfw``, and
    the whole row), of which the three numbers are compared.
    """
    if reference:
        return [
            (
                reference_baseline(s.plan, s.new_world(), s.at_risk, s.budget).pre_failure_work,
                reference_validity_aware(s.plan, s.new_world(), s.at_risk, s.budget).pre_failure_work,
                reference_pfw(s.plan, reference_break_ticks(s.events)),
            )
            for s in reference_setups(seed, count)
        ]
    rows = cv.RandomFamily(seed=seed, count=count).rows(0, count)
    return [(r["baseline_pfw"], r["validity_aware_pfw"], r["predicted_pfw"]) for r in rows]

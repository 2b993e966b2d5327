"""The benchmark cases: what is timed, at a given size in plan steps.

Each case is a function of the number of steps it should reach (roughly) that
does the whole job once and returns the number of steps it really had. Sizes
are converted to each generator's own parameters here, so every case can be
measured from 10⁴ to 10⁶ steps and its growth exponent compared.
"""

from __future__ import annotations

from collections.abc import Callable

import cvlib as cv
from cvlib import Event, Fact, World


def chain_core(steps: int) -> int:
    """Chain of ``steps``: generation + budget + both executors, F1 replaced halfway (the issue's 1M-step target)."""
    plan = cv.chain(steps)
    budget = cv.compute_budget(plan, "F1")
    facts = [Fact("F1", 420)]
    events = [Event(steps // 2, "F1", "replace", new_value=610)]
    cv.run_baseline(plan, World(facts, events), "F1", budget)
    cv.run_validity_aware(plan, World(facts, events), "F1", budget)
    return len(plan)


def chain_scenario(steps: int) -> int:
    """Scenario D1 at depth ``steps`` through ``run_scenario`` (adds the structure summary: closure, depth, law)."""
    return cv.run_scenario("D1", depth=steps).structure.total_steps


def isolated_branches(steps: int) -> int:
    """Scenario D3 with as many 6-step branches as make ``steps`` (many facts, one broken)."""
    branches = max(1, (steps - 2) // 6)
    return cv.run_scenario("D3", num_branches=branches).structure.total_steps


def branching_diamond(steps: int) -> int:
    """Scenario D2 with branching factor 2, merge factor 2 and the depth that makes about ``steps``."""
    depth = max(1, steps // 4)
    return cv.run_scenario("D2", depth=depth, branching_factor=2, merge_factor=2).structure.total_steps


def layered_many_facts(steps: int) -> int:
    """A random layered DAG on 50 facts, a third of them breaking at random ticks; both executors and the law."""
    from cvlib.scenarios.random_plans import fact_ids, layered_dag, random_events

    plan = layered_dag(max(1, steps // 3), 5, 50, seed=1)
    names = fact_ids(50)
    facts = [Fact(f, 0) for f in names]
    events = random_events(names, 2, horizon=len(plan), break_prob=0.33)
    at_risk = sorted(plan.facts)[0]
    budget = cv.compute_budget(plan, at_risk)
    cv.run_baseline(plan, World(facts, events), at_risk, budget)
    cv.run_validity_aware(plan, World(facts, events), at_risk, budget)
    cv.predicted_pfw(plan, cv.break_ticks(events))
    return len(plan)


def grid(_: int) -> int:
    """The article's 96-configuration topology grid (D2), in one process."""
    return int(cv.topology_grid()["total_nodes"].sum())


#: name -> (function, sizes in steps or None for a fixed-size case)
CASES: dict[str, tuple[Callable[[int], int], tuple[int, ...] | None]] = {
    "chain_core": (chain_core, (10_000, 100_000, 300_000, 1_000_000)),
    "chain_scenario": (chain_scenario, (10_000, 100_000, 300_000, 1_000_000)),
    "isolated_branches": (isolated_branches, (10_000, 18_002, 60_002, 100_000, 1_000_000)),
    "branching_diamond": (branching_diamond, (10_000, 100_000, 1_000_000)),
    "layered_many_facts": (layered_many_facts, (10_000, 100_000, 1_000_000)),
    "grid": (grid, None),
}

#: What the issue quotes for the original implementation on this machine class: (case, steps) -> seconds.
QUOTED = {
    ("chain_scenario", 100_000): 1.4,
    ("chain_scenario", 300_000): 4.7,
    ("isolated_branches", 18_002): 2.0,  # 3,000 branches
    ("isolated_branches", 60_002): 23.0,  # 10,000 branches
    ("grid", None): 0.032,
}

#: The issue's targets: (case, steps) -> seconds, and the growth-exponent bound.
TARGETS = {
    ("chain_core", 1_000_000): 2.0,
    ("isolated_branches", 60_002): 0.3,
    ("grid", None): 0.010,
}
PEAK_TARGET_MIB = {("chain_core", 1_000_000): 300.0}
EXPONENT_TARGET = 1.1

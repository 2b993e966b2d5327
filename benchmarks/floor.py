"""The floor of a random-plan sweep: the least work that still generates a seeded plan and runs it.

A sweep of random plans does, per plan: seed an independent stream (so plan
*i* is the same plan in any worker), draw a plan and its world, run the
baseline and the validity-aware executor step by step, and compute the law's
prediction. :func:`family` does exactly that and nothing else, written as
plainly fast as Python allows: one integer-seeded :class:`random.Random` per
plan, closures as bit masks (one bit per fact) built while drawing the wiring,
one pass per executor and one for the law, no objects per step, no checks,
no rows. Its plans have the same numbers of steps as the family it is
compared with (the sizes are given), and the same ingredients (1 to 6 facts,
1 or 2 predecessors a step, direct requirements with probability 0.3, facts
breaking at random ticks up to the plan's length plus two, a fact at risk that
sizes the budget), so what separates cvlib's time per plan from this one is
what cvlib does beyond the minimum: validation, plan and world values a user
can inspect, the general rules, and the row.

It returns the baseline PFW, the validity-aware PFW and the prediction of
every plan, and a check that the law holds on its own plans (so the loops are
not dead code an optimiser could drop, and are right).
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def family(seed: int, steps: Sequence[int]) -> list[tuple[int, int, int]]:
    """Plan ``i`` has ``steps[i]`` steps; each plan drawn from its own stream and run: (baseline, validity, predicted).

    Parameters
    ----------
    seed : int
        The family's seed; plan ``i`` is seeded with ``seed * 1_000_003 + i``.
    steps : sequence of int
        Each plan's number of steps (at least 1).

    Returns
    -------
    list of (int, int, int)
        Baseline PFW, validity-aware PFW and the law's predicted PFW, per plan.
    """
    rng = random.Random()
    draw, below = rng.random, rng.randrange
    out = []
    for i, n in enumerate(steps):
        rng.seed(seed * 1_000_003 + i)
        k = below(6) + 1
        closures = [0] * n
        for j in range(n):
            c = 1 << below(k) if j == 0 or draw() < 0.3 else 0
            if j:
                lo = j - 6 if j > 6 else 0
                c |= closures[below(lo, j)]
                if draw() < 0.5:
                    c |= closures[below(lo, j)]
            closures[j] = c
        horizon = n + 2
        breaks = sorted((below(horizon + 1), 1 << f) for f in range(k) if draw() < 0.5)
        at_risk = closures[-1] & -closures[-1] or 1  # a fact the action rests on (its lowest bit)
        affected = sum(1 for c in closures if c & at_risk)
        budget = n + affected + 1
        # baseline: runs to the action, a doomed step is pre-failure work, a doomed action replans
        mask, b, pfw, used = 0, 0, 0, 0
        for t in range(n):
            while b < len(breaks) and breaks[b][0] <= t:
                mask |= breaks[b][1]
                b += 1
            used += 1
            if closures[t] & mask:
                if t == n - 1:
                    used += affected + 1
                else:
                    pfw += 1
            if used > budget:
                break
        # validity-aware: stops at the first step it believes broken, before running it
        mask, b, validity_pfw = 0, 0, 0
        for t in range(n):
            while b < len(breaks) and breaks[b][0] <= t:
                mask |= breaks[b][1]
                b += 1
            if closures[t] & mask:
                break
        # the law: non-action steps at or after their closure's earliest break
        earliest = {}
        for tick, bit in breaks:
            earliest.setdefault(bit, tick)
        predicted = 0
        for t in range(n - 1):
            c = closures[t]
            if c and any(c & bit and tick <= t for bit, tick in earliest.items()):
                predicted += 1
        out.append((pfw, validity_pfw, predicted))
    return out


def law_holds(rows: Sequence[tuple[int, int, int]]) -> bool:
    """Whether every floor plan's baseline PFW equals its prediction and the validity-aware PFW is 0.

    Parameters
    ----------
    rows : sequence of (int, int, int)
        What :func:`family` returned.

    Returns
    -------
    bool
    """
    return all(b == p and v == 0 for b, v, p in rows)

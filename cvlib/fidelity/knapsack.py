"""The exact multiple-choice knapsack every optimising choice in this package uses.

Experiment A's conditions, the obligation-aware schedule, both oracles and the
extractive compactor all pick one option per group (one form per object, keep
or drop per sentence) to maximise a value within a token budget. Doing that
exactly, rather than greedily, keeps "the best a condition can do" a property
of the condition and not of a heuristic.
"""

from __future__ import annotations

from collections.abc import Sequence

from cvlib.core.errors import ParameterError


def mckp(costs: Sequence[Sequence[int]], values: Sequence[Sequence[int]], budget: int) -> tuple[int, ...] | None:
    """Exact multiple-choice knapsack by dynamic programming over integer costs.

    Parameters
    ----------
    costs, values:
        One list per group, one entry per option: its cost in tokens (a
        non-negative integer) and its value (an integer, higher is better).
    budget:
        Total cost allowed, in tokens.

    Returns
    -------
    tuple of int or None
        The option index chosen in each group, maximising total value with
        total cost at most ``budget``; ties go to the smaller total cost, then
        to earlier options. None when even the cheapest options exceed the
        budget.
    """
    import numpy as np

    if budget < 0:
        raise ParameterError(f"budget must be >= 0 tokens, got {budget}")
    if len(costs) != len(values) or any(len(c) != len(v) or not c for c, v in zip(costs, values)):
        raise ParameterError("mckp needs one non-empty cost list and one value list of equal length per group")
    if any(c < 0 for cs in costs for c in cs):
        raise ParameterError(f"every cost must be >= 0 tokens, got {[list(c) for c in costs]}")
    if sum(min(c) for c in costs) > budget:
        return None
    cap = min(budget, sum(max(c) for c in costs))
    neg = np.iinfo(np.int64).min // 4
    best = np.full(cap + 1, neg, dtype=np.int64)
    best[0] = 0
    arg = np.zeros((len(costs), cap + 1), dtype=np.int32)
    for g, (cs, vs) in enumerate(zip(costs, values)):
        new = np.full(cap + 1, neg, dtype=np.int64)
        for k, (c, v) in enumerate(zip(cs, vs)):
            if c > cap:
                continue
            shifted = best[: cap + 1 - c] + int(v)
            seg = new[c:]
            better = shifted > seg
            seg[better] = shifted[better]
            arg[g, c:][better] = k
        best = new
    top = best.max()
    b = int(np.argmax(best == top))
    picks = [0] * len(costs)
    for g in range(len(costs) - 1, -1, -1):
        k = int(arg[g, b])
        picks[g] = k
        b -= costs[g][k]
    return tuple(picks)

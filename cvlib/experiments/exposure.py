"""Size, depth and breadth of what a break exposes, measured apart (X3).

The article's generators tie breadth to size (one root fact under every
step) or to depth (chains inside isolated branches), so its finding "size,
not shape, drives doomed work" could not tell the three apart. Random layered
DAGs with several facts and isolated branches that fan out
(:mod:`cvlib.scenarios.random_plans`) pull them apart. For a plan and the facts that
break, the *exposed set* is the non-action steps before the first action
whose closure holds a broken fact, and

* **exposed size** is how many there are;
* **exposed depth** is the longest chain of steps inside the exposed set;
* **exposed breadth** is the most exposed steps on one level of that chain
  structure (level = length of the longest exposed chain ending at a step).

:func:`exposure_sweep` measures these with the baseline's PFW on thousands of
seeded plans, and :func:`fit_pfw` regresses PFW on them by least squares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.core.events import Event
from cvlib.core.executors import PolicyLike, law_policies, policy_columns, run_policy
from cvlib.core.graph import PlanGraph
from cvlib.core.law import predicted_pfw
from cvlib.core.validation import require_int
from cvlib.scenarios import random_plans
from cvlib.scenarios.sizes import check_runs


@dataclass(frozen=True, slots=True)
class Exposure:
    """What a set of breaks exposes in a plan, before anything runs."""

    size: int
    depth: int
    breadth: int
    after_break: int  #: exposed steps at or after the tick their broken fact breaks (the law's count)


def exposure(plan: PlanGraph, breaks: Mapping[str, int]) -> Exposure:
    """Exposed size, depth and breadth of ``breaks`` in ``plan``, before the first action.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    breaks : mapping of str to int
        Fact -> the tick it breaks.

    Returns
    -------
    Exposure
    """
    level: dict[str, int] = {}
    after = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        if step.is_action:
            break
        ticks = [breaks[f] for f in closure if f in breaks]
        if not ticks:
            continue
        level[step.id] = 1 + max((level[p] for p in step.predecessors if p in level), default=0)
        after += min(ticks) <= position
    if not level:
        return Exposure(0, 0, 0, 0)
    counts = np.bincount(list(level.values()))
    return Exposure(size=len(level), depth=int(max(level.values())), breadth=int(counts.max()), after_break=after)


def exposure_sweep(
    n_plans: int = 2000,
    seed: int = 0,
    families: Sequence[str] = ("layered", "fan_out"),
    max_steps: int = 60,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Seeded random plans: exposure features, the law's prediction and the baseline's PFW, twice per plan.

    Each plan is run on its own random schedule (``timing="random"``: several
    facts break at random ticks, some after the plan has started) and on the
    same schedule with every break moved to tick 0 (``timing="at_start"``).
    Plans alternate between ``families`` (see
    :data:`cvlib.scenarios.random_plans.FAMILIES`); plan *i* uses
    ``random_setup(seed, i)``. Plans where nothing breaks are kept (PFW 0).

    Parameters
    ----------
    n_plans : int
        Plans to draw.
    seed : int
        Seed of the family.
    families : sequence of str
        Plan families to alternate between.
    max_steps : int
        About how many steps a plan may have.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        Executors to run beside the baseline (whose PFW the law predicts), each
        adding its ``{policy}_pfw`` and ``{policy}_completed``; None runs the baseline alone.

    Returns
    -------
    pandas.DataFrame
        One row per (plan, timing), with ``law_holds``.
    """
    chosen = law_policies(policies)
    n_plans = require_int("n_plans", n_plans, minimum=1)
    check_runs("n_plans", 2 * n_plans)  # two runs per plan
    seed = require_int("seed", seed)
    if isinstance(families, str) or not families:
        raise ParameterError(f"families must be a non-empty list of plan families, got {families!r}")
    rows = []
    for i in range(n_plans):
        family = families[i % len(families)]
        setup = random_plans.random_setup(seed, i, family=family, max_steps=max_steps)
        at_start = tuple(Event(0, e.fact_id, e.kind, e.new_value, e.ground_truth_changed) for e in setup.events)
        for timing, timed in (("random", setup), ("at_start", replace(setup, events=at_start))):
            breaks = timed.break_ticks()
            feature = exposure(timed.plan, breaks)
            results = {p.name: run_policy(p, timed.plan, timed.new_world(), timed.at_risk, timed.budget) for p in chosen}
            rows.append({
                "plan": i,
                "family": family,
                "timing": timing,
                "total_steps": len(setup.plan),
                "facts_broken": len(breaks),
                "exposed_size": feature.size,
                "exposed_depth": feature.depth,
                "exposed_breadth": feature.breadth,
                "exposed_after_break": feature.after_break,
                "predicted_pfw": predicted_pfw(setup.plan, breaks),
                **policy_columns(results, ("pfw", "completed")),
            })
    frame = pd.DataFrame(rows)
    frame["law_holds"] = frame["predicted_pfw"] == frame["baseline_pfw"]
    return frame


@dataclass(frozen=True)
class Fit:
    """An ordinary least-squares fit of PFW: coefficients (with the intercept), residual and R^2."""

    terms: tuple[str, ...]
    coefficients: tuple[float, ...]
    rmse: float
    max_abs_residual: float
    r_squared: float
    n: int
    fitted: np.ndarray

    def table(self) -> pd.DataFrame:
        """One row per term (the intercept first) with its fitted coefficient.

        Returns
        -------
        pandas.DataFrame
        """
        return pd.DataFrame({"term": ("intercept", *self.terms), "coefficient": self.coefficients})


def fit_pfw(data: pd.DataFrame, terms: Sequence[str], target: str = "baseline_pfw") -> Fit:
    """Least-squares fit of ``target`` on ``terms`` plus an intercept (numpy ``lstsq``).

    Parameters
    ----------
    data : pandas.DataFrame
        An :func:`exposure_sweep` table (or any with those columns).
    terms : sequence of str
        Columns to regress on.
    target : str
        The column to explain.

    Returns
    -------
    Fit
    """
    missing = [t for t in (*terms, target) if t not in data.columns]
    if missing:
        raise ParameterError(f"fit_pfw: no column(s) {missing}; the data has {list(data.columns)}")
    if len(data) <= len(terms) + 1:
        raise ParameterError(f"fit_pfw needs more rows than terms + 1, got {len(data)} rows for {len(terms)} terms")
    x = np.column_stack([np.ones(len(data)), *(data[t].to_numpy(dtype=float) for t in terms)])
    y = data[target].to_numpy(dtype=float)
    coefficients, *_ = np.linalg.lstsq(x, y, rcond=None)
    fitted = x @ coefficients
    residual = y - fitted
    total = float(((y - y.mean()) ** 2).sum())
    r_squared = 1.0 - float((residual**2).sum()) / total if total > 0 else 1.0
    return Fit(
        terms=tuple(terms),
        coefficients=tuple(float(c) for c in coefficients),
        rmse=float(np.sqrt((residual**2).mean())),
        max_abs_residual=float(np.abs(residual).max()),
        r_squared=r_squared,
        n=len(data),
        fitted=fitted,
    )

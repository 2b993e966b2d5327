"""The budget window: budgets at which only the validity-aware executor completes.

One definition, used by the article's budget sweep, the recovery-model
chapter (X1) and the errata (X5): run both executors on identical fresh
worlds at each budget, and keep the budgets where the validity-aware executor
completes and the baseline does not. The window is measured, never derived.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cvlib.core.executors import (
    BASELINE,
    VALIDITY_AWARE,
    ExecutorResult,
    PolicyLike,
    policy_column,
    policy_columns,
    resolve_policies,
    run_policy,
)
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import require_ints
from cvlib.scenarios.setup import ScenarioSetup

__all__ = ["BudgetOutcome", "budget_window", "outcomes_by_budget", "published_budgets", "window_text"]


@dataclass(frozen=True)
class BudgetOutcome:
    """Every executor asked for, at one budget: each one's result, keyed by name, in order."""

    budget: int
    results: Mapping[str, ExecutorResult]

    def completed(self, name: str) -> bool:
        """Whether the executor called ``name`` completed within this budget.

        Parameters
        ----------
        name : str
            An executor that ran.

        Returns
        -------
        bool
        """
        return self.results[name].completed

    def steps(self, name: str) -> int:
        """Steps the executor called ``name`` used at this budget.

        Parameters
        ----------
        name : str
            An executor that ran.

        Returns
        -------
        int
        """
        return self.results[name].steps_used

    @property
    def only_validity_aware(self) -> bool:
        """Whether this budget is in the window, where the validity-aware executor completes and the baseline does not."""
        return self.completed(VALIDITY_AWARE) and not self.completed(BASELINE)

    def row(self) -> dict[str, Any]:
        """The budget, then ``{policy}_completed`` and ``{policy}_steps`` for each executor (the budget sweep's row).

        Returns
        -------
        dict
        """
        return {"budget": self.budget, **policy_columns(self.results, ("completed", "steps"))}


def published_budgets(natural: int) -> range:
    """The article's budget sweep: the computed budget, then down by one five times (never below 1).

    Parameters
    ----------
    natural : int
        The computed budget (steps + closure + 1).

    Returns
    -------
    range
        Largest first.
    """
    return range(natural, max(natural - 6, 0), -1)


def outcomes_by_budget(
    setup: ScenarioSetup,
    budgets: Iterable[int],
    rules: ExecutionRules | None = None,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> list[BudgetOutcome]:
    """Run each executor on ``setup`` at each of ``budgets`` (in the order given).

    Parameters
    ----------
    setup : ScenarioSetup
        The scenario; its own budget is ignored.
    budgets : iterable of int
        Budgets to try, each >= 0.
    rules : ExecutionRules, optional
        The rules to run under; None is the article's.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    list of BudgetOutcome
    """
    chosen = resolve_policies(policies)
    out = []
    for budget in require_ints("budgets", list(budgets), minimum=0):
        results = {p.name: run_policy(p, setup.plan, setup.new_world(rules), setup.at_risk, budget) for p in chosen}
        out.append(BudgetOutcome(budget, results))
    return out


def window_text(window: Sequence[int]) -> str:
    """A window as a reader writes it: ``"6-8"`` when contiguous, ``"4,6"`` when not, ``"none"`` when empty.

    Parameters
    ----------
    window : sequence of int
        Budgets in the window, any order.

    Returns
    -------
    str
    """
    if not window:
        return "none"
    ordered = sorted(window)
    if ordered[-1] - ordered[0] + 1 == len(ordered):
        return f"{ordered[0]}-{ordered[-1]}"
    return ",".join(map(str, ordered))


def budget_window(setup: ScenarioSetup, rules: ExecutionRules | None = None) -> dict[str, object]:
    """The whole window under ``rules``: every budget from 0 to one past the larger unconstrained run.

    Parameters
    ----------
    setup : ScenarioSetup
        The scenario.
    rules : ExecutionRules, optional
        The rules to run under; None is the article's.

    Returns
    -------
    dict
        ``width``, ``low`` and ``high`` (None when empty), ``contiguous``, and
        both executors' unconstrained step counts (``baseline_steps``,
        ``validity_aware_steps``).
    """
    unconstrained = 10 * (len(setup.plan) + 1) ** 2
    free = outcomes_by_budget(setup, [unconstrained], rules)[0]
    outcomes = outcomes_by_budget(setup, range(max(free.steps(BASELINE), free.steps(VALIDITY_AWARE)) + 2), rules)
    window = [o.budget for o in outcomes if o.only_validity_aware]
    return {
        "width": len(window),
        "low": window[0] if window else None,
        "high": window[-1] if window else None,
        "contiguous": not window or window[-1] - window[0] + 1 == len(window),
        policy_column(BASELINE, "steps"): free.steps(BASELINE),
        policy_column(VALIDITY_AWARE, "steps"): free.steps(VALIDITY_AWARE),
    }

"""The budget window: budgets at which only the validity-aware executor completes.

One definition, used by the article's budget sweep, the recovery-model
chapter (X1) and the errata (X5): run both executors on identical fresh
worlds at each budget, and keep the budgets where the validity-aware executor
completes and the baseline does not. The window is measured, never derived.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cvlib.core.executors import run_baseline, run_validity_aware
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import require_ints
from cvlib.scenarios.setup import ScenarioSetup

__all__ = ["BudgetOutcome", "budget_window", "outcomes_by_budget", "published_budgets", "window_text"]


@dataclass(frozen=True, slots=True)
class BudgetOutcome:
    """Both executors at one budget."""

    budget: int
    baseline_completed: bool
    validity_completed: bool
    baseline_steps: int
    validity_steps: int

    @property
    def only_validity_aware(self) -> bool:
        """Whether this budget is in the window, where the validity-aware executor completes and the baseline does not."""
        return self.validity_completed and not self.baseline_completed


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
    setup: ScenarioSetup, budgets: Iterable[int], rules: ExecutionRules | None = None
) -> list[BudgetOutcome]:
    """Run both executors on ``setup`` at each of ``budgets`` (in the order given).

    Parameters
    ----------
    setup : ScenarioSetup
        The scenario; its own budget is ignored.
    budgets : iterable of int
        Budgets to try, each >= 0.
    rules : ExecutionRules, optional
        The rules to run under; None is the article's.

    Returns
    -------
    list of BudgetOutcome
    """
    out = []
    for budget in require_ints("budgets", list(budgets), minimum=0):
        b = run_baseline(setup.plan, setup.new_world(rules), setup.at_risk, budget)
        v = run_validity_aware(setup.plan, setup.new_world(rules), setup.at_risk, budget)
        out.append(BudgetOutcome(budget, b.completed, v.completed, b.steps_used, v.steps_used))
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
        ``validity_steps``).
    """
    unconstrained = 10 * (len(setup.plan) + 1) ** 2
    free = outcomes_by_budget(setup, [unconstrained], rules)[0]
    outcomes = outcomes_by_budget(setup, range(max(free.baseline_steps, free.validity_steps) + 2), rules)
    window = [o.budget for o in outcomes if o.only_validity_aware]
    return {
        "width": len(window),
        "low": window[0] if window else None,
        "high": window[-1] if window else None,
        "contiguous": not window or window[-1] - window[0] + 1 == len(window),
        "baseline_steps": free.baseline_steps,
        "validity_steps": free.validity_steps,
    }

"""The budget window under each recovery model (X1).

The cost model (:mod:`cvlib.core.recovery`) says what a replan costs; this
module measures what that does to the budget window, the budgets at which
only the validity-aware executor completes, over depth and change tick.
"""

from __future__ import annotations

from collections.abc import Sequence

from cvlib.core.recovery import check_model
from cvlib.core.rules import RECOVERY_MODELS
from cvlib.scenarios.builders import staged_setup


def budget_window(setup, rules) -> dict:
    """Budgets at which only the validity-aware executor completes, under ``rules``.

    Sweeps every budget from 0 to one past the larger unconstrained run, so
    the window is measured, not derived. Returns its width, lowest and
    highest budget (None when empty), whether it is contiguous, and both
    executors' unconstrained step counts.
    """
    from cvlib.core.engine import RuledWorld, run_baseline, run_validity_aware

    def world():
        return RuledWorld(setup.facts, setup.events, rules=rules)

    unconstrained = 10 * (len(setup.plan) + 1) ** 2
    b_steps = run_baseline(setup.plan, world(), setup.at_risk, unconstrained).steps_used
    v_steps = run_validity_aware(setup.plan, world(), setup.at_risk, unconstrained).steps_used
    window = []
    for budget in range(max(b_steps, v_steps) + 2):
        b = run_baseline(setup.plan, world(), setup.at_risk, budget).completed
        v = run_validity_aware(setup.plan, world(), setup.at_risk, budget).completed
        if v and not b:
            window.append(budget)
    return {
        "width": len(window),
        "low": window[0] if window else None,
        "high": window[-1] if window else None,
        "contiguous": not window or window[-1] - window[0] + 1 == len(window),
        "baseline_steps": b_steps,
        "validity_steps": v_steps,
    }


def window_surface(
    depths: Sequence[int],
    change_ticks: Sequence[int],
    models: Sequence[str] = RECOVERY_MODELS,
    num_actions: int = 1,
    budget_rule: str = "original",
):
    """Budget-window width over depth x change tick, for each recovery model, as a tidy DataFrame.

    Cells with ``change_tick >= depth`` (the change comes after the plan) or
    ``num_actions > depth`` are left out.
    """
    import pandas as pd

    from cvlib.core.law import predicted_pfw
    from cvlib.core.rules import ExecutionRules

    rows = []
    for model in models:
        rules = ExecutionRules(recovery=check_model(model), budget_rule=budget_rule)
        for depth in depths:
            if num_actions > depth:
                continue
            for tick in change_ticks:
                if tick >= depth:
                    continue
                setup = staged_setup(depth, num_actions, tick)
                window = budget_window(setup, rules)
                pfw = predicted_pfw(setup.plan, {"F1": tick}, through_actions=model != "flat")
                rows.append({"model": model, "num_actions": num_actions, "depth": depth, "change_tick": tick,
                             "predicted_pfw": pfw, **window})
    return pd.DataFrame(rows)

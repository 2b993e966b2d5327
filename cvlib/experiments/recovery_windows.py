"""The budget window under each recovery model (X1).

The cost model (:mod:`cvlib.core.recovery`) says what a replan costs; this
module measures what that does to the budget window, the budgets at which
only the validity-aware executor completes, over depth and change tick.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from cvlib.core.law import predicted_pfw
from cvlib.core.recovery import check_model
from cvlib.core.rules import RECOVERY_MODELS, ExecutionRules
from cvlib.experiments.windows import budget_window
from cvlib.scenarios.builders import staged_setup

__all__ = ["budget_window", "window_surface"]


def window_surface(
    depths: Sequence[int],
    change_ticks: Sequence[int],
    models: Sequence[str] = RECOVERY_MODELS,
    num_actions: int = 1,
    budget_rule: str = "original",
) -> pd.DataFrame:
    """Budget-window width over depth x change tick, for each recovery model, as a tidy DataFrame.

    Cells with ``change_tick >= depth`` (the change comes after the plan) or
    ``num_actions > depth`` are left out.

    Parameters
    ----------
    depths, change_ticks : sequence of int
        The surface's axes.
    models : sequence of str
        Recovery models (see :data:`~cvlib.core.rules.RECOVERY_MODELS`).
    num_actions : int
        Actions in each staged chain.
    budget_rule : str
        ``original`` or ``strict``.

    Returns
    -------
    pandas.DataFrame
        One row per (model, depth, change tick) with the window
        (:func:`~cvlib.experiments.windows.budget_window`) and the law's PFW.
    """
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

"""What a replan costs under each recovery model (X1).

The article charges a flat ``closure + 1`` whoever replans and whenever: the
replan re-does every step resting on the fact at risk, and the run ends.
That hides two things a real system would exploit: an executor that noticed
early has done little that needs redoing, and an action that already
succeeded does not need doing again. The two other models charge for what
was actually done:

``redo_affected``
    redo every step already executed whose closure holds a re-observed fact,
    plus one replan step; then carry on with the plan.
``subplan``
    the same, except that a successful action and every step it rested on are
    *committed*: they stay done, so only the invalidated sub-plan is redone.

Both are pure functions of the plan, the set of executed and committed steps
and the facts re-observed, so they can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .errors import ParameterError
from .graph import PlanGraph
from .rules import RECOVERY_MODELS


def flat_cost(plan: PlanGraph, at_risk: str) -> int:
    """The article's recovery cost: closure size of the fact at risk + 1."""
    return plan.closure_size(at_risk) + 1


def redo_cost(
    model: str,
    closures: Sequence[frozenset[str]],
    executed: Iterable[int],
    committed: Collection[int],
    refreshed: Collection[str],
) -> int:
    """Steps a non-flat replan spends: executed steps resting on ``refreshed``, plus one.

    Parameters
    ----------
    model:
        ``redo_affected`` or ``subplan``.
    closures:
        Requirement closure of each step, indexed like ``executed``.
    executed:
        Indices of the steps executed so far (not counting the step that
        triggered the replan).
    committed:
        Indices of steps that a successful action has made final; ``subplan``
        never redoes them, ``redo_affected`` ignores this.
    refreshed:
        The facts the replan re-observes.
    """
    if model not in ("redo_affected", "subplan"):
        raise ParameterError(f"redo_cost needs recovery model redo_affected or subplan, got {model!r}")
    skip = committed if model == "subplan" else ()
    refreshed_set = frozenset(refreshed)
    redo = sum(1 for j in executed if j not in skip and not refreshed_set.isdisjoint(closures[j]))
    return redo + 1


def committed_by(plan: PlanGraph, action_id: str) -> frozenset[str]:
    """The action and every step it (transitively) rests on: what a success makes final."""
    out: set[str] = set()
    stack = [action_id]
    while stack:
        sid = stack.pop()
        if sid in out:
            continue
        out.add(sid)
        stack.extend(plan.step(sid).predecessors)
    return frozenset(out)


def check_model(model: str) -> str:
    """``model`` if it is one of :data:`~cvlib.rules.RECOVERY_MODELS`; else a :class:`~cvlib.errors.ParameterError`."""
    if model not in RECOVERY_MODELS:
        raise ParameterError(f"recovery model must be one of {', '.join(RECOVERY_MODELS)}; got {model!r}")
    return model


# -- X1: the budget window under each recovery model ---------------------------------------


def budget_window(setup, rules) -> dict:
    """Budgets at which only the validity-aware executor completes, under ``rules``.

    Sweeps every budget from 0 to one past the larger unconstrained run, so
    the window is measured, not derived. Returns its width, lowest and
    highest budget (None when empty), whether it is contiguous, and both
    executors' unconstrained step counts.
    """
    from .engine import RuledWorld, run_baseline, run_validity_aware

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


def staged_setup(depth: int, num_actions: int, change_tick: int):
    """Scenario A's change on a :func:`~cvlib.plan_families.staged_chain`: F1 replaced at ``change_tick``."""
    from .executors import compute_budget
    from .facts import Fact
    from .plan_families import staged_chain
    from .scenarios import ScenarioSetup
    from .validation import require_int
    from .world import Event, EventKind

    change_tick = require_int("change_tick", change_tick, minimum=0)
    plan = staged_chain(depth, num_actions)
    return ScenarioSetup(
        name="X1-staged",
        plan=plan,
        facts=(Fact("F1", 420),),
        events=(Event(change_tick, "F1", EventKind.REPLACE, new_value=610),),
        at_risk="F1",
        budget=compute_budget(plan, "F1"),
        params={"depth": depth, "num_actions": num_actions, "change_tick": change_tick},
        description="F1 replaced partway through a chain with several actions.",
    )


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

    from .law import predicted_pfw
    from .rules import ExecutionRules

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

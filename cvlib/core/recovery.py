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

from cvlib.core.errors import ParameterError
from cvlib.core.graph import PlanGraph
from cvlib.core.rules import RECOVERY_MODELS


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

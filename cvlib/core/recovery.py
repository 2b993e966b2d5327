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
from cvlib.core.graph import PlanGraph, RunColumns
from cvlib.core.rules import RECOVERY_MODELS
from cvlib.core.validation import require_choice

__all__ = ["check_model", "committed_by", "committed_positions", "recovery_cost", "redo_cost", "redo_cost_before"]


def recovery_cost(plan: PlanGraph, at_risk: str) -> int:
    """What a flat replan costs either executor: the closure size of the fact at risk + 1.

    Parameters
    ----------
    plan : PlanGraph
        The plan being run.
    at_risk : str
        The fact whose closure the replan redoes; it must be required by some step.

    Returns
    -------
    int
    """
    plan.require_fact(at_risk, "fact at risk")
    return plan.closure_size(at_risk) + 1


def redo_cost(
    model: str,
    closures: Sequence[frozenset[str]],
    executed: Iterable[int],
    committed: Collection[int],
    refreshed: Collection[str],
) -> int:
    """Steps a non-flat replan spends: executed steps resting on ``refreshed``, plus one.

    The definition, one step at a time; :func:`redo_cost_before` computes the
    same number for a run that has executed every position before the
    current one, as the executors do.

    Parameters
    ----------
    model : str
        ``redo_affected`` or ``subplan``.
    closures : sequence of frozenset of str
        Requirement closure of each step, indexed like ``executed``.
    executed : iterable of int
        Indices of the steps executed so far (not counting the step that
        triggered the replan).
    committed : collection of int
        Indices of steps that a successful action has made final; ``subplan``
        never redoes them, ``redo_affected`` ignores this.
    refreshed : collection of str
        The facts the replan re-observes.

    Returns
    -------
    int
    """
    if model not in ("redo_affected", "subplan"):
        raise ParameterError(f"redo_cost needs recovery model redo_affected or subplan, got {model!r}")
    skip = committed if model == "subplan" else ()
    refreshed_set = frozenset(refreshed)
    redo = sum(1 for j in executed if j not in skip and not refreshed_set.isdisjoint(closures[j]))
    return redo + 1


def redo_cost_before(
    model: str, columns: RunColumns, position: int, committed: Collection[int], refreshed: Collection[str]
) -> int:
    """:func:`redo_cost` when every position before ``position`` was executed, counted by runs of shared closures.

    Parameters
    ----------
    model : str
        ``redo_affected`` or ``subplan``.
    columns : RunColumns
        The plan in execution order.
    position : int
        The step that triggered the replan; positions ``0 .. position - 1`` were executed.
    committed : collection of int
        Positions made final by a successful action (``subplan`` skips them).
    refreshed : collection of str
        The facts the replan re-observes.

    Returns
    -------
    int
    """
    refreshed_set = frozenset(refreshed)
    redo = columns.count_touching(refreshed_set, 0, position) if refreshed_set else 0
    if model == "subplan" and redo:
        closures = columns.closures
        redo -= sum(1 for j in committed if j < position and not refreshed_set.isdisjoint(closures[j]))
    return redo + 1


def committed_by(plan: PlanGraph, action_id: str) -> frozenset[str]:
    """The action and every step it (transitively) rests on: what a success makes final.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    action_id : str
        The action that succeeded.

    Returns
    -------
    frozenset of str
        Step ids.
    """
    out: set[str] = set()
    stack = [action_id]
    while stack:
        sid = stack.pop()
        if sid in out:
            continue
        out.add(sid)
        stack.extend(plan.step(sid).predecessors)
    return frozenset(out)


def committed_positions(plan: PlanGraph, position: int) -> frozenset[int]:
    """:func:`committed_by` for the action at ``position`` of the execution order, as positions.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    position : int
        Position of the action that succeeded.

    Returns
    -------
    frozenset of int
    """
    return frozenset(plan.ancestors_at(position))


def check_model(model: object) -> str:
    """``model`` if it is one of :data:`~cvlib.core.rules.RECOVERY_MODELS`; else a :class:`~cvlib.core.errors.ParameterError`.

    Parameters
    ----------
    model : object
        The recovery model's name.

    Returns
    -------
    str
    """
    return require_choice("recovery model", model, RECOVERY_MODELS)

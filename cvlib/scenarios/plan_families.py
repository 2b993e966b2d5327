"""Plan shapes the article's generators cannot make, for the extension chapters.

``staged_chain`` (X1) is a chain with several actions: a booking, then a
payment, then a confirmation, each one a step that touches the world. It is
the smallest plan on which "a successful action stays done" means something.
"""

from __future__ import annotations

from cvlib.core.errors import ParameterError
from cvlib.core.graph import PlanGraph, Step, StepKind
from cvlib.core.validation import require_int
from cvlib.scenarios import sizes


def action_positions(depth: int, num_actions: int) -> list[int]:
    """Where the actions of :func:`staged_chain` sit: evenly spaced, the last one last.

    Parameters
    ----------
    depth : int
        Steps in the chain.
    num_actions : int
        Actions, at most ``depth``.

    Returns
    -------
    list of int
        Zero-based positions, ascending.
    """
    depth = require_int("depth", depth, minimum=1)
    num_actions = require_int("num_actions", num_actions, minimum=1)
    if num_actions > depth:
        raise ParameterError(f"num_actions must be at most depth ({depth}), got {num_actions}")
    return [-(-k * depth // num_actions) - 1 for k in range(1, num_actions + 1)]


def staged_chain(depth: int, num_actions: int = 1, root_fact: str = "F1") -> PlanGraph:
    """A chain ``S0 … S{depth-1}`` with ``num_actions`` evenly spaced actions, the last at the end.

    ``S0`` requires ``root_fact`` (so every step rests on it); it is a plan
    step unless it is itself an action. With ``num_actions == 1`` this is the
    article's :func:`~cvlib.scenarios.generators.chain` step for step.

    Parameters
    ----------
    depth : int
        Steps in the chain.
    num_actions : int
        Actions (see :func:`action_positions`).
    root_fact : str
        The fact the first step requires.

    Returns
    -------
    PlanGraph
    """
    sizes.chain_size(depth).check()
    actions = set(action_positions(depth, num_actions))
    width = len(str(depth - 1))
    ids = [f"S{i:0{width}d}" for i in range(depth)] if num_actions > 1 else [f"S{i}" for i in range(depth)]
    steps = []
    for i in range(depth):
        if i in actions:
            kind = StepKind.ACTION
        elif i == 0:
            kind = StepKind.PLAN
        else:
            kind = StepKind.DECISION
        steps.append(
            Step(
                ids[i],
                kind,
                frozenset({root_fact}) if i == 0 else frozenset(),
                (ids[i - 1],) if i else (),
            )
        )
    return PlanGraph(steps)

"""Scenario builders for the extension chapters, next to the article's named scenarios.

Each returns what a chapter's experiment runs on: a staged chain with several
actions (X1), and a chain whose facts rest on a resource that can go down (X4).
"""

from __future__ import annotations

from cvlib.core.errors import ParameterError
from cvlib.core.events import Event, EventKind
from cvlib.core.executors import compute_budget
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, Step, StepKind
from cvlib.core.validation import require_int
from cvlib.scenarios import sizes
from cvlib.scenarios.plan_families import staged_chain
from cvlib.scenarios.setup import ScenarioSetup


def staged_setup(depth: int, num_actions: int, change_tick: int) -> ScenarioSetup:
    """Scenario A's change on a :func:`~cvlib.scenarios.plan_families.staged_chain`: F1 replaced at ``change_tick``.

    Parameters
    ----------
    depth : int
        Steps in the chain.
    num_actions : int
        Actions, evenly spaced, the last at the end.
    change_tick : int
        When the flight price F1 is replaced ($420 -> $610).

    Returns
    -------
    ScenarioSetup
        Named ``X1-staged``, with the computed budget.
    """
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


def operational_setup(depth: int = 8, db_step: int = 1) -> tuple[PlanGraph, tuple[Fact, ...], dict[str, str]]:
    """A chain whose first step rests on a price (F1) and step ``db_step`` on a record count (F2) read from ``db``.

    Parameters
    ----------
    depth : int
        Steps in the chain (at least 2; the last is the action).
    db_step : int
        The step that reads the record count, before the action.

    Returns
    -------
    tuple of (PlanGraph, tuple of Fact, dict)
        The plan, its two facts, and ``{"F2": "db"}``: which resource supports which fact.
    """
    depth = require_int("depth", depth, minimum=2)
    sizes.chain_size(depth).check()
    db_step = require_int("db_step", db_step, minimum=0)
    if db_step >= depth - 1:
        raise ParameterError(f"db_step must be a step before the action (< {depth - 1}), got {db_step}")
    steps = []
    for i in range(depth):
        kind = StepKind.ACTION if i == depth - 1 else (StepKind.PLAN if i == 0 else StepKind.DECISION)
        requires = {"F1"} if i == 0 else set()
        if i == db_step:
            requires.add("F2")
        steps.append(Step(f"S{i}", kind, frozenset(requires), (f"S{i - 1}",) if i else ()))
    facts = (Fact("F1", 420), Fact("F2", 10_000))
    return PlanGraph(steps), facts, {"F2": "db"}

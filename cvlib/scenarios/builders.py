"""Scenario builders for the extension chapters, next to the article's named scenarios.

Each returns the :class:`~cvlib.scenarios.setup.ScenarioSetup` a chapter's
experiment runs on: a staged chain with several actions (X1), a chain whose
one fact may change silently and a chain whose facts rest on a resource that
can go down (X4), and the chain with one ambiguous signal whose verification
may be noisy (X2). An experiment varies a setup's schedule or rules with
:func:`dataclasses.replace` and builds every world with
:meth:`~cvlib.scenarios.setup.ScenarioSetup.new_world`.
"""

from __future__ import annotations

from cvlib.core.errors import ParameterError
from cvlib.core.events import Event, EventKind
from cvlib.core.executors import compute_budget
from cvlib.core.facts import Fact
from cvlib.core.validation import require_int
from cvlib.scenarios import sizes
from cvlib.scenarios.generators import chain
from cvlib.scenarios.setup import ScenarioSetup


def staged_setup(depth: int, num_actions: int, change_tick: int) -> ScenarioSetup:
    """Scenario A's change on a staged :func:`~cvlib.scenarios.generators.chain`: F1 replaced at ``change_tick``.

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
    plan = chain(depth, num_actions=num_actions)
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


def silent_change_setup(depth: int = 8) -> ScenarioSetup:
    """A chain resting on one fact F1, with no change scheduled: X4's time-to-live sweep adds the silent changes.

    Parameters
    ----------
    depth : int
        Steps in the chain.

    Returns
    -------
    ScenarioSetup
        Named ``X4-silent``; vary ``silent_changes`` and the rules to run it.
    """
    plan = chain(depth)
    return ScenarioSetup(
        name="X4-silent",
        plan=plan,
        facts=(Fact("F1", "value observed at tick 0"),),
        events=(),
        at_risk="F1",
        budget=compute_budget(plan, "F1"),
        params={"depth": depth},
        description="A chain whose one fact may change with no signal.",
    )


def operational_setup(depth: int = 8, db_step: int = 1) -> ScenarioSetup:
    """A chain whose first step rests on a price (F1) and step ``db_step`` on a record count (F2) read from ``db``.

    Parameters
    ----------
    depth : int
        Steps in the chain (at least 2; the last is the action).
    db_step : int
        The step that reads the record count, before the action.

    Returns
    -------
    ScenarioSetup
        Named ``X4-operational``, with the two facts, ``supports={"F2": "db"}``
        (the resource behind the record count) and no outage scheduled: vary
        ``resource_events`` and the rules to run it.
    """
    depth = require_int("depth", depth, minimum=2)
    sizes.chain_size(depth).check()
    db_step = require_int("db_step", db_step, minimum=0)
    if db_step >= depth - 1:
        raise ParameterError(f"db_step must be a step before the action (< {depth - 1}), got {db_step}")
    plan = chain(depth, also_requires={db_step: ("F2",)})
    return ScenarioSetup(
        name="X4-operational",
        plan=plan,
        facts=(Fact("F1", 420), Fact("F2", 10_000)),
        events=(),
        at_risk="F1",
        budget=compute_budget(plan, "F1"),
        params={"depth": depth, "db_step": db_step},
        description="A chain whose record count rests on a database that can go down.",
        supports={"F2": "db"},
    )

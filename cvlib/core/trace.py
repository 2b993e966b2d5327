"""Step-by-step traces of an executor run, for pictures of the mechanism.

The executors report totals (steps, PFW, replans); the mechanism diagram needs
the sequence behind them: which step ran at which tick, which of those runs
was doomed, where a verification or a replan happened. A trace is recorded by
a :class:`TraceRecorder` attached to the run's belief view: the executor is
the unchanged one loop, under any rules, and the trace's totals equal its
result (tested), so a figure drawn from a trace is drawn from an actual run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cvlib.core.events import Event
from cvlib.core.executors import ExecutorResult, PolicyLike, resolve_policies, resolve_policy, run_policy
from cvlib.core.graph import PlanGraph
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import SpendKind, World

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunnableSetup", "Trace", "TraceEntry", "TraceKind", "TraceRecorder", "trace_both", "trace_run"]

#: What one stretch of spent steps was spent on (the world's own names for them).
TraceKind = SpendKind


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One stretch of spent steps.

    ``start`` is the world's tick when the stretch began and ``steps`` how many
    steps it took (1, except a replan, which costs what the recovery model
    charges, and a verification, which costs the model's cost).
    ``step_id`` is the plan step being decided when the steps were spent.
    """

    start: int
    steps: int
    kind: SpendKind
    step_id: str

    @property
    def end(self) -> int:
        """Tick just after the stretch, ``start + steps``."""
        return self.start + self.steps


@dataclass(frozen=True)
class Trace:
    """An executor's result together with the steps that produced it."""

    executor: str
    result: ExecutorResult
    entries: tuple[TraceEntry, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per entry, for display.

        Returns
        -------
        pandas.DataFrame
            Columns start, steps, kind, step.
        """
        import pandas as pd

        return pd.DataFrame(
            [{"start": e.start, "steps": e.steps, "kind": str(e.kind), "step": e.step_id} for e in self.entries]
        )


class TraceRecorder:
    """A :class:`~cvlib.core.world.Recorder` that writes down every stretch a run spends, by step id."""

    __slots__ = ("_ids", "_current", "entries")

    def __init__(self, plan: PlanGraph) -> None:
        self._ids = plan.topological_order()
        self._current = ""
        #: Every stretch heard so far, in order.
        self.entries: list[TraceEntry] = []

    def decided(self, position: int) -> None:
        """Remember which step the next spent steps belong to.

        Parameters
        ----------
        position : int
            Position of the step being decided in the execution order.
        """
        self._current = self._ids[position]

    def spent(self, start: int, steps: int, kind: SpendKind) -> None:
        """Write one stretch down.

        Parameters
        ----------
        start : int
            The tick the stretch began.
        steps : int
            How many steps it took.
        kind : SpendKind
            What they were spent on.
        """
        self.entries.append(TraceEntry(start, steps, kind, self._current))


class RunnableSetup(Protocol):
    """What a trace needs from a scenario: a plan, the fact at risk, a budget and fresh worlds."""

    @property
    def plan(self) -> PlanGraph:
        """The plan to run."""

    @property
    def at_risk(self) -> str:
        """The fact whose closure sizes the budget and the recovery cost."""

    @property
    def budget(self) -> int:
        """The step budget."""

    @property
    def events(self) -> tuple[Event, ...]:
        """The announced events."""

    def new_world(self, rules: ExecutionRules | None = None) -> World:
        """A fresh world with the setup's facts and events.

        Parameters
        ----------
        rules : ExecutionRules, optional
            The world's rules; None is the article's.

        Returns
        -------
        World
        """


def trace_run(setup: RunnableSetup, executor: PolicyLike, *, rules: ExecutionRules | None = None) -> Trace:
    """Run one executor on a fresh world built from ``setup`` and record every step it spends.

    Parameters
    ----------
    setup : ScenarioSetup
        A scenario setup (:func:`cvlib.setup_scenario` or :func:`cvlib.load_spec`).
    executor : str or ~cvlib.core.executors.Policy
        ``"baseline"``, ``"validity_aware"``, a registered policy's name, a
        ``"module:attribute"`` reference, or a policy object.
    rules : ExecutionRules, optional
        The rules to run under; None is the article's.

    Returns
    -------
    Trace
    """
    policy = resolve_policy(executor)
    world = setup.new_world(rules)
    recorder = TraceRecorder(setup.plan.with_tie_break(world.rules.order))  # positions in the order the run uses
    result = run_policy(policy, setup.plan, world, setup.at_risk, setup.budget, recorder=recorder)
    return Trace(executor=policy.name, result=result, entries=tuple(recorder.entries))


def trace_both(
    setup: RunnableSetup, *, rules: ExecutionRules | None = None, policies: Iterable[PolicyLike] | None = None
) -> dict[str, Trace]:
    """Traces of each executor asked for on identical fresh worlds, keyed by executor name, in order.

    Parameters
    ----------
    setup : ScenarioSetup
        A scenario setup.
    rules : ExecutionRules, optional
        The rules to run under; None is the article's.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors (see :func:`~cvlib.core.executors.resolve_policies`); None is the article's two.

    Returns
    -------
    dict of str to Trace
    """
    return {policy.name: trace_run(setup, policy, rules=rules) for policy in resolve_policies(policies)}

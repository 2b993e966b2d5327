"""Step-by-step traces of an executor run, for pictures of the mechanism.

The executors report totals (steps, PFW, replans); the mechanism diagram needs
the sequence behind them: which step ran at which tick, which of those runs
was doomed, where a verification or a replan happened. A trace is recorded
by handing the unchanged executor a world whose belief view also writes down
every step it spends. Nothing about the run changes: the executor sees the
same belief view API, and the trace's totals equal the executor's result
(tested), so a figure drawn from a trace is drawn from an actual run.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, run_baseline, run_validity_aware
from cvlib.core.facts import ValidityState
from cvlib.core.graph import Step
from cvlib.scenarios.setup import ScenarioSetup
from cvlib.core.world import BeliefView, World


class TraceKind(str, Enum):
    """What one stretch of steps was spent on."""

    EXECUTE = "execute"  #: a plan or decision step on a closure that still holds
    DOOMED = "doomed"  #: a plan or decision step on a closure already broken (pre-failure work)
    ACTION = "action"  #: the action, succeeding
    ACTION_FAILED = "action_failed"  #: the action, failing against the world
    VERIFY = "verify"  #: a paid verification that confirmed every doubtful fact
    VERIFY_FAILED = "verify_failed"  #: a paid verification that rejected a fact
    REPLAN = "replan"  #: the flat recovery cost

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One stretch of spent steps.

    ``start`` is the world's tick when the stretch began and ``steps`` how many
    steps it took (1, except a replan, which costs closure size + 1).
    ``step_id`` is the plan step being decided when the steps were spent.
    """

    start: int
    steps: int
    kind: TraceKind
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

    def to_frame(self):
        """One row per entry, for display."""
        import pandas as pd

        return pd.DataFrame(
            [{"start": e.start, "steps": e.steps, "kind": str(e.kind), "step": e.step_id} for e in self.entries]
        )


_NOT_ACTIVE = frozenset(set(ValidityState) - {ValidityState.ACTIVE})


class _TracingView(BeliefView):
    """A belief view that also writes down every step it spends."""

    __slots__ = ("_entries", "_order", "_decisions")

    def __init__(self, world: World, order: list[Step]) -> None:
        super().__init__(world)
        self._entries: list[TraceEntry] = []
        self._order = order
        self._decisions = 0

    def _current(self) -> str:
        # Executors decide once per step, in topological order, so the n-th
        # decision is about the n-th step of the order.
        return self._order[self._decisions - 1].id

    def decide(self, closure: frozenset[str]) -> None:
        self._decisions += 1
        super().decide(closure)

    def execute(self, step: Step, closure: frozenset[str]) -> bool:
        start = self.steps_used
        doomed_before = self._world.ledger.pre_failure_work
        ok = super().execute(step, closure)
        if step.is_action:
            kind = TraceKind.ACTION if ok else TraceKind.ACTION_FAILED
        else:
            kind = TraceKind.DOOMED if self._world.ledger.pre_failure_work > doomed_before else TraceKind.EXECUTE
        self._entries.append(TraceEntry(start, 1, kind, step.id))
        return ok

    def verify(self, fact_ids) -> bool:
        start = self.steps_used
        ok = super().verify(fact_ids)
        self._entries.append(TraceEntry(start, 1, TraceKind.VERIFY if ok else TraceKind.VERIFY_FAILED, self._current()))
        return ok

    def replan(self, cost: int) -> None:
        start = self.steps_used
        super().replan(cost)
        self._entries.append(TraceEntry(start, cost, TraceKind.REPLAN, self._current()))

    def execute_run(self, columns, start: int, stop: int, budget: int, *, stop_on_doubt: bool = False):
        """The executors' bulk path, taken one step at a time so that every step is recorded.

        Same contract as :meth:`BeliefView.execute_run`: sync, decide, execute
        and check the budget per step; with ``stop_on_doubt``, stop just before
        deciding a step whose closure holds a fact not believed ACTIVE (its
        sync done). Returns ``(position, over_budget)``.
        """
        closures = getattr(columns, "closures", columns)  # the plan's run columns, or a plain sequence
        position = start
        while position < stop:
            closure = closures[position]
            self.sync()
            if stop_on_doubt and self.any_in_state(closure, _NOT_ACTIVE):
                break
            self.decide(closure)
            self.execute(self._order[position], closure)
            position += 1
            if self.steps_used > budget:
                return position, True
        return position, False


class _TracingWorld(World):
    def __init__(self, setup: ScenarioSetup) -> None:
        super().__init__(setup.facts, setup.events)
        self.view = _TracingView(self, [step for step, _ in setup.plan.ordered_steps()])

    def belief_view(self) -> BeliefView:
        return self.view


_RUNNERS = {BASELINE: run_baseline, VALIDITY_AWARE: run_validity_aware}


def trace_run(setup: ScenarioSetup, executor: str) -> Trace:
    """Run one executor on a fresh world built from ``setup`` and record every step it spends.

    Parameters
    ----------
    setup:
        A scenario setup (:func:`cvlib.setup_scenario` or :func:`cvlib.load_spec`).
    executor:
        ``"baseline"`` or ``"validity_aware"``.
    """
    try:
        runner = _RUNNERS[executor]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown executor {executor!r}; expected one of {', '.join(_RUNNERS)}") from None
    world = _TracingWorld(setup)
    result = runner(setup.plan, world, setup.at_risk, setup.budget)
    return Trace(executor=executor, result=result, entries=tuple(world.view._entries))


def trace_both(setup: ScenarioSetup) -> dict[str, Trace]:
    """Traces of both executors on identical fresh worlds, keyed by executor name."""
    return {name: trace_run(setup, name) for name in _RUNNERS}

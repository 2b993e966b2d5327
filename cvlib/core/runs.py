"""Running executors: one by name, or a set of policies on a set of runs, the bit-mask path chosen here.

:func:`run_executor` (and :func:`run_baseline`, :func:`run_validity_aware`)
runs one executor by name through the loop. :func:`run_policies` is the one
entry that runs a set of policies on a set of runs (a scenario's setups, a
grid's diamonds, a random family's plans): for the article's two executors
on a run its masks can state, it takes the bit-mask path
(:mod:`cvlib.core.bitmasks`), and any other run or choice of executors goes
through the loop (:func:`~cvlib.core.loop.run_policy`), one executor across
every run and then the next. Callers only describe their runs
(:class:`RunInput`); the results are the same whichever path served them,
so a single run pays for its work and not for the loop's set-up (two fresh
worlds), and no caller has to know that a faster path exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cvlib.core._typing import Protocol
from cvlib.core.bitmasks import BitMaskRun, Counts, article_pair, is_article_pair
from cvlib.core.errors import ParameterError
from cvlib.core.graph import PlanGraph
from cvlib.core.loop import run_policy
from cvlib.core.policies import BASELINE, VALIDITY_AWARE
from cvlib.core.registry import PolicyLike, resolve_policies, resolve_policy
from cvlib.core.results import METRICS, ExecutorResult, scur_of
from cvlib.core.rules import ExecutionRules, check_rules
from cvlib.core.values import value_class
from cvlib.core.world import Recorder, World

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PolicyRuns",
    "RunInput",
    "run_baseline",
    "run_executor",
    "run_policies",
    "run_validity_aware",
]


class RunInput(Protocol):
    """One run to make, as :func:`run_policies` takes it (a :class:`~cvlib.scenarios.setup.ScenarioSetup` is one).

    The loop needs the plan, a fresh world, the fact at risk and the budget;
    the bit-mask path needs the same run on bits, which only the run's owner
    can say how to state cheaply (a grid lays its diamonds out without
    building them), so it asks :meth:`bit_masks` and builds nothing else.
    """

    @property
    def plan(self) -> PlanGraph:
        """The plan."""

    @property
    def at_risk(self) -> str:
        """The fact whose closure sizes the budget and the recovery cost."""

    @property
    def budget(self) -> int:
        """Steps each executor may spend."""

    def new_world(self, rules: ExecutionRules | None = None) -> World:
        """A fresh world for one executor's run.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the run's own.

        Returns
        -------
        World
        """

    def bit_masks(self, rules: ExecutionRules | None = None) -> BitMaskRun | None:
        """The run on bit masks under ``rules`` (:func:`~cvlib.core.bitmasks.masked_world`), or None if they cannot state it.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the run's own.

        Returns
        -------
        BitMaskRun or None
        """


#: Where each quantity of :data:`~cvlib.core.results.METRICS` sits in a run's counts (``scur`` is computed).
_COUNT_AT = {"completed": 0, "steps": 1, "replans": 2, "verifications": 3, "pfw": 4}


@value_class
class PolicyRuns:
    """Each policy's counts on each run, policies and runs in the order asked: what :func:`run_policies` gives.

    Kept as counts rather than one :class:`~cvlib.core.results.ExecutorResult`
    per run, because a sweep reads whole columns (:meth:`column`) and would
    otherwise make and take apart an object per executor and plan.
    """

    #: The executors' names, in order.
    names: tuple[str, ...]
    #: Per executor, per run, ``(completed, steps_used, replans, verifications, pre_failure_work,
    #: decisions_total, decisions_on_stale_deps)``.
    counts: tuple[tuple[Counts, ...], ...]
    #: Each run's budget.
    budgets: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.budgets)

    def results(self, run: int) -> dict[str, ExecutorResult]:
        """Every executor's result on run number ``run``, by name, in order.

        Parameters
        ----------
        run : int
            The run's number, in the order the runs were given.

        Returns
        -------
        dict of str to ExecutorResult
        """
        budget = self.budgets[run]
        return {name: _result(name, counts[run], budget) for name, counts in zip(self.names, self.counts)}

    def column(self, name: str, metric: str) -> list[Any]:
        """One executor's ``metric`` on every run: the column ``{name}_{metric}`` of a results table.

        Parameters
        ----------
        name : str
            An executor's name, one of :attr:`names`.
        metric : str
            A key of :data:`~cvlib.core.results.METRICS`.

        Returns
        -------
        list
        """
        try:
            counts = self.counts[self.names.index(name)]
        except ValueError:
            raise ParameterError(f"no executor called {name!r} ran; it ran {', '.join(self.names)}") from None
        if metric == "scur":
            return [scur_of(c[6], c[5]) for c in counts]
        at = _COUNT_AT.get(metric)
        if at is None:
            raise ParameterError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
        return [c[at] for c in counts]


def _result(name: str, c: Counts, budget: int) -> ExecutorResult:
    return ExecutorResult(name, c[0], c[1], budget, c[2], c[3], c[4], c[5], c[6])


def _counts(r: ExecutorResult) -> Counts:
    return (r.completed, r.steps_used, r.replans, r.verifications, r.pre_failure_work, r.decisions_total,
            r.decisions_on_stale_deps)


def run_policies(
    policies: Iterable[PolicyLike] | PolicyLike | None,
    runs: Iterable[RunInput],
    *,
    rules: ExecutionRules | None = None,
) -> PolicyRuns:
    """Run each of ``policies`` on its own fresh world of each of ``runs``; the bit-mask path where it applies.

    For the article's two executors (:func:`~cvlib.core.bitmasks.is_article_pair`)
    each run is asked for its bit masks, and a run that has them is counted on
    them (:func:`~cvlib.core.bitmasks.article_pair`); every other run, or any
    other choice of executors, goes through the loop, every run of the first
    executor, then every run of the next (the code of one phase stays hot in
    the processor's caches). The counts are the same either way, which the
    property tests check against the loop and the step-by-step reference.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        The executors, in order (:func:`~cvlib.core.registry.resolve_policies`); None is the article's two.
    runs : iterable of RunInput
        The runs (:class:`~cvlib.scenarios.setup.ScenarioSetup` values, or anything shaped like them).
    rules : ExecutionRules, optional
        Rules every run uses instead of its own.

    Returns
    -------
    PolicyRuns
    """
    chosen = resolve_policies(policies)
    inputs: Sequence[RunInput] = runs if isinstance(runs, (list, tuple)) else list(runs)
    columns: list[list[Any]] = [[None] * len(inputs) for _ in chosen]
    loop: Sequence[int] = range(len(inputs))  # the runs the loop makes
    if is_article_pair(chosen):
        unmasked: list[int] = []
        base, aware = columns
        for i, item in enumerate(inputs):
            masks = item.bit_masks(rules)
            if masks is None:
                unmasked.append(i)
            else:
                base[i], aware[i] = article_pair(masks)
        loop = unmasked
    for policy, column in zip(chosen, columns):
        for i in loop:
            item = inputs[i]
            column[i] = _counts(run_policy(policy, item.plan, item.new_world(rules), item.at_risk, item.budget))
    return PolicyRuns(tuple(p.name for p in chosen), tuple(map(tuple, columns)), tuple(r.budget for r in inputs))


def _in_rules(world: World, rules: ExecutionRules | None) -> World:
    """``world``, or a fresh copy of it under ``rules`` when those differ from the world's own."""
    rules = check_rules(rules)
    if rules is None or rules == world.rules:
        return world
    return world.with_rules(rules)


def run_executor(
    name: PolicyLike,
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Run the executor called ``name`` (see :func:`executor_names`).

    Parameters
    ----------
    name : str or Policy
        ``"baseline"``, ``"validity_aware"``, ``"timestamp_only"``, a registered
        policy's name, a ``"module:attribute"`` reference, or a policy object.
    plan, world, at_risk, budget, recorder
        As for :func:`run_policy`.
    rules : ExecutionRules, optional
        Run in a fresh copy of ``world`` under these rules instead of its own.

    Returns
    -------
    ExecutorResult
    """
    policy = resolve_policy(name)
    if not isinstance(world, World):
        raise ParameterError(f"an executor runs in a World, got {type(world).__name__}")
    return run_policy(policy, plan, _in_rules(world, rules), at_risk, budget, recorder=recorder)


def run_baseline(
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Execute every step in order; learn of a broken dependency only when an action fails.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    world : World
        A fresh world (the executor only gets its belief view).
    at_risk : str
        The fact whose closure sizes the budget and the recovery cost.
    budget : int, optional
        Step budget; None computes it with :func:`compute_budget`.
    rules : ExecutionRules, optional
        Run in a fresh copy of ``world`` under these rules instead of its own.
    recorder : Recorder, optional
        Hears every step spent.

    Returns
    -------
    ExecutorResult
    """
    return run_executor(BASELINE, plan, world, at_risk, budget, rules=rules, recorder=recorder)


def run_validity_aware(
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Check what is believed about a step's closure before acting on it (see :class:`ValidityAware`).

    Parameters
    ----------
    plan, world, at_risk, budget, rules, recorder
        As for :func:`run_baseline`.

    Returns
    -------
    ExecutorResult
    """
    return run_executor(VALIDITY_AWARE, plan, world, at_risk, budget, rules=rules, recorder=recorder)



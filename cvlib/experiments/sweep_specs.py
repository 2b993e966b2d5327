"""What a sweep computes: its specs, a :class:`Grid` of one named scenario or a seeded :class:`RandomFamily`.

A spec is a list of tasks numbered 0 … n-1 whose rows for any range of them
are a pure function of (spec, start, stop), so that
:func:`~cvlib.experiments.large_sweeps.sweep` may compute its chunks in any
process, in any order, any number of times. Both specs take ``policies=``
(default: the article's two) and ask :func:`~cvlib.core.runs.run_policies`
for their runs; the policy list is part of the spec's identity
(:meth:`describe`), so a checkpoint of one set of executors never resumes another.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol

from cvlib.core.bitmasks import BitMaskRun
from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, Policy, PolicyLike, PolicyRuns, policy_column, resolve_policies, run_policies
from cvlib.core.law import predicted_pfw_masks
from cvlib.core.validation import require_choice, require_int
from cvlib.experiments.article import run_row
from cvlib.scenarios.named import get_scenario
from cvlib.scenarios.random_plans import FALSE_ALARM, FAMILIES, REPLACE, family_mask_draws, random_setup
from cvlib.scenarios.setup import run_setups
from cvlib.scenarios.sizes import check_runs, random_plan_size

if TYPE_CHECKING:
    from cvlib.core.graph import PlanGraph
    from cvlib.core.rules import ExecutionRules
    from cvlib.core.world import World
    from cvlib.scenarios.random_plans import MaskDraw
    from cvlib.scenarios.setup import ScenarioSetup

__all__ = ["Grid", "RandomFamily", "SweepSpec"]


class SweepSpec(Protocol):
    """What :func:`~cvlib.experiments.large_sweeps.sweep` needs from a spec: a length, rows for a range of tasks, a description."""

    def __len__(self) -> int: ...

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """One result row for each task ``start`` up to (not including) ``stop``.

        Parameters
        ----------
        start, stop : int
            Task numbers.

        Returns
        -------
        list of dict
        """
        ...

    def describe(self) -> dict[str, Any]:
        """A JSON-able description that identifies the sweep (a resumed run must match it).

        Returns
        -------
        dict
        """
        ...





def _scalar_values(name: str, values: object) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ParameterError(f"grid parameter {name!r} needs a list of values, got {type(values).__name__} {values!r}")
    out = tuple(values)
    if not out:
        raise ParameterError(f"grid parameter {name!r} needs at least one value, got an empty list")
    return out


@dataclass(frozen=True, slots=True)
class Grid:
    """Every combination of parameter values for one named scenario, the last parameter varying fastest.

    ``Grid("D2", depth=[3, 4], branching_factor=[1, 2])`` is four tasks. Each
    row holds the task number, the scenario, its parameters and the numbers of
    :func:`cvlib.experiments.article.run_row` for each of ``policies`` (default:
    the article's two).
    """

    scenario: str
    params: tuple[tuple[str, tuple[Any, ...]], ...] = field(default=())
    policies: tuple[Policy, ...] = field(default=())

    def __init__(
        self, scenario: str, *, policies: Iterable[PolicyLike] | None = None, **params: Iterable[Any]
    ) -> None:
        definition = get_scenario(scenario)
        checked = tuple((name, _scalar_values(name, values)) for name, values in params.items())
        definition.resolve({name: values[0] for name, values in checked})  # names, early
        for name, values in checked:  # and every value, before any task runs
            for value in values:
                definition.resolve({name: value})
        object.__setattr__(self, "scenario", scenario)
        object.__setattr__(self, "params", checked)
        object.__setattr__(self, "policies", resolve_policies(policies))

    def __len__(self) -> int:
        return math.prod(len(values) for _, values in self.params)

    def task(self, index: int) -> dict[str, Any]:
        """The parameters of task ``index`` (mixed-radix digits, last parameter fastest).

        Parameters
        ----------
        index : int
            The task's number.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {}
        for name, values in reversed(self.params):
            index, digit = divmod(index, len(values))
            out[name] = values[digit]
        return dict(reversed(list(out.items())))

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Run tasks ``start`` up to (not including) ``stop``: one row each.

        Parameters
        ----------
        start, stop : int
            Task numbers.

        Returns
        -------
        list of dict
            The task number, the scenario, its parameters and :func:`~cvlib.experiments.article.run_row`.
        """
        definition = get_scenario(self.scenario)
        tasks = [self.task(index) for index in range(start, stop)]
        runs = run_setups([definition.run_input(**params) for params in tasks], policies=self.policies)
        return [
            {"task": index, "scenario": self.scenario, **params, **run_row(run)}
            for index, params, run in zip(range(start, stop), tasks, runs)
        ]

    def describe(self) -> dict[str, Any]:
        """The scenario, its parameter values and the executors' names, JSON-able (a resumed run must match it).

        Returns
        -------
        dict
        """
        return {
            "kind": "grid",
            "scenario": self.scenario,
            "params": [[n, list(v)] for n, v in self.params],
            "policies": [p.name for p in self.policies],
        }


@dataclass(frozen=True, slots=True)
class RandomFamily:
    """Tasks ``0 … count-1`` of a seeded family of random scenarios (:func:`cvlib.scenarios.random_plans.random_setup`).

    Each row checks the generalized law on one plan: ``predicted_pfw`` is
    ``cv.predicted_pfw(plan, cv.break_ticks(events))`` from structure alone,
    ``baseline_pfw`` what the baseline executor did, ``law_holds`` whether
    they agree; ``validity_aware_pfw`` should always be 0. Each of
    ``policies`` (default: the article's two) adds its ``{policy}_pfw``,
    ``_steps``, ``_completed`` and ``_verifications``; ``law_holds`` needs
    the baseline among them (it is None otherwise).
    """

    seed: int
    count: int
    family: str = "mixed"
    max_steps: int = 60
    policies: tuple[Policy, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "policies", resolve_policies(self.policies))
        require_int("seed", self.seed)
        require_int("count", self.count, minimum=0)
        require_int("max_steps", self.max_steps, minimum=1)
        require_choice("plan family", self.family, (*FAMILIES, "mixed"))
        check_runs("count", self.count)
        random_plan_size(self.family, self.max_steps).check()

    def __len__(self) -> int:
        return self.count

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Generate and run plans ``start`` up to (not including) ``stop``: one row each.

        Parameters
        ----------
        start, stop : int
            Plan numbers.

        Returns
        -------
        list of dict
        """
        plans = [
            _DrawnPlan(self, index, draw)
            for index, draw in enumerate(
                family_mask_draws(self.seed, start, stop, family=self.family, max_steps=self.max_steps), start
            )
        ]
        return _family_rows(plans, run_policies(self.policies, plans))

    def describe(self) -> dict[str, Any]:
        """Seed, count, family, size limit and the executors' names, JSON-able (a resumed run must match it).

        Returns
        -------
        dict
        """
        return {
            "kind": "random",
            "seed": self.seed,
            "count": self.count,
            "family": self.family,
            "max_steps": self.max_steps,
            "policies": [p.name for p in self.policies or ()],
        }


class _DrawnPlan:
    """One plan of a random family as :func:`~cvlib.core.runs.run_policies` takes it: drawn as bit masks.

    The plan is drawn as its closure masks in execution order, without its
    graph or its setup (:func:`~cvlib.scenarios.random_plans.family_mask_draws`:
    the very draws of :func:`~cvlib.scenarios.random_plans.random_setup`);
    random setups run under the article's rules with every fact ACTIVE at the
    start, so the bit-mask path can always take them. The loop needs the plan
    and fresh worlds: the first time it asks, the plan's setup is built.
    """

    __slots__ = ("spec", "index", "family", "closures", "first_action", "facts", "breaks", "events", "closure_size",
                 "budget", "masks", "_setup")

    def __init__(self, spec: RandomFamily, index: int, draw: MaskDraw) -> None:
        family, closures, first_action, required, horizons, events, at_risk = draw
        self.spec = spec
        self.index = index
        self.family = family
        self.closures = closures
        self.first_action = first_action
        self.facts = len(required)
        self.events = len(events)
        self.breaks = [(tick, 1 << k) for tick, k, code in events if code != FALSE_ALARM]  # a fact breaks at most once
        # The world's schedule: by tick, ties in the order given (sorted is stable).
        schedule = [(tick, k, code == REPLACE, code != FALSE_ALARM) for tick, k, code in sorted(events, key=_by_tick)]
        n = len(closures)
        size = sum(map((1 << at_risk).__and__, closures)) >> at_risk  # the steps whose closure holds the bit
        #: The closure size of the fact at risk.
        self.closure_size = size
        #: Steps each executor may spend (steps + closure of the fact at risk + 1).
        self.budget = n + size + 1
        self.masks = BitMaskRun(range(n + 1), closures, first_action, horizons, schedule, size + 1, self.budget)
        self._setup: ScenarioSetup | None = None

    def _built(self) -> ScenarioSetup:
        if self._setup is None:
            spec = self.spec
            self._setup = random_setup(spec.seed, self.index, family=spec.family, max_steps=spec.max_steps)
        return self._setup

    @property
    def plan(self) -> PlanGraph:
        """The plan, built on first use."""
        return self._built().plan

    @property
    def at_risk(self) -> str:
        """The fact at risk."""
        return self._built().at_risk

    def new_world(self, rules: ExecutionRules | None = None) -> World:
        """A fresh world of the plan's setup.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the setup's own.

        Returns
        -------
        World
        """
        return self._built().new_world(rules)

    def bit_masks(self, rules: ExecutionRules | None = None) -> BitMaskRun | None:
        """The plan on bit masks (None under rules other than the article's).

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the setup's own (the article's).

        Returns
        -------
        BitMaskRun or None
        """
        return self.masks if rules is None else None


_by_tick = itemgetter(0)


def _family_rows(plans: list[_DrawnPlan], runs: PolicyRuns) -> list[dict[str, Any]]:
    """:meth:`RandomFamily.rows` from the drawn plans and every executor's counts on them.

    The law is counted on the masks (:func:`~cvlib.core.law.predicted_pfw_masks`,
    what :func:`~cvlib.core.law.predicted_pfw` gives on the plan); ``law_holds``
    compares it with the baseline's PFW when the baseline ran.
    """
    names = runs.names
    later = [(metric, p) for metric in _FAMILY_METRICS[1:] for p in names]
    keys = (
        "task", "family", "total_steps", "facts", "broken_facts", "events", "closure_size", "predicted_pfw",
        *(policy_column(p, "pfw") for p in names),
        "law_holds",
        *(policy_column(p, metric) for metric, p in later),
        "budget",
    )
    pfw = list(zip(*[runs.column(p, "pfw") for p in names]))
    rest = list(zip(*[runs.column(p, metric) for metric, p in later]))
    baseline = names.index(BASELINE) if BASELINE in names else None
    rows = []
    for i, plan in enumerate(plans):
        predicted = predicted_pfw_masks(plan.closures, plan.first_action, plan.breaks)
        law = None if baseline is None else predicted == pfw[i][baseline]
        rows.append(dict(zip(keys, (
            plan.index, plan.family, len(plan.closures), plan.facts, len(plan.breaks), plan.events,
            plan.closure_size, predicted, *pfw[i], law, *rest[i], plan.budget,
        ))))
    return rows


#: A random family's per-executor columns, in order (``law_holds`` follows the PFWs).
_FAMILY_METRICS = ("pfw", "steps", "completed", "verifications")

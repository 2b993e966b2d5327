"""The agent-loop experiment's tasks: which scenarios a model-driven executor runs, in which order.

A task is a named scenario with its parameters, or a seeded random plan; it
is JSON-ready (:meth:`AgentTask.to_dict`), so a recorded decision names its
task and any task can be rebuilt alone. :func:`agent_tasks` lists them in the
order a recording takes them, so that whatever part of a recording has
finished is a balanced result: the seven named scenarios at the article's
parameters first, then random plans in seed order, with the value-change
budget sweep and a few variants of each scenario early among them. Any policy
runs a task (:func:`run_task`), the model-driven ones and the two
deterministic references (:func:`reference_results`) alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.core.events import EventKind, SilentChange
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, Policy, get_policy, run_policy
from cvlib.core.rules import ExecutionRules, VerificationModel
from cvlib.core.validation import require_int
from cvlib.core.values import replace
from cvlib.experiments.windows import published_budgets
from cvlib.scenarios.named import scenario_names, setup_scenario
from cvlib.scenarios.random_plans import plan_seed, random_events, random_setup
from cvlib.scenarios.setup import ScenarioSetup

__all__ = [
    "FAMILIES",
    "FLOORLESS_FAMILIES",
    "NOISY_VERIFICATION",
    "RANDOM_MAX_STEPS",
    "VARIANTS",
    "AgentTask",
    "agent_tasks",
    "reference_results",
    "run_task",
    "run_task_dict",
    "task_setup",
]

#: Kinds of task (the article's scenario as published, a variant of it, a point of the value-change budget sweep, a random
#: plan), then the second edition's random plans on which the validity-aware executor is not the floor
#: (:data:`FLOORLESS_FAMILIES`).
FAMILIES = ("named", "variant", "budget", "random", "hidden", "false_alarm", "noisy")
#: Random plans changed so that checking states first is not optimal — ``hidden``, every replacement happens
#: silently (only an action's failure or a re-observation finds it); ``false_alarm``, doubts are added that prove
#: false (a check costs a step and finds nothing); ``noisy``, verification misses a real change 30 % of the time
#: and raises a false alarm 20 % of the time (X2's noisy verification, seeded by the plan's index).
FLOORLESS_FAMILIES = ("hidden", "false_alarm", "noisy")
#: The miss rate and the false-alarm rate of the noisy family's verification.
NOISY_VERIFICATION = (0.3, 0.2)
#: Random plans are small, about this many steps at most, because a model decides every step.
RANDOM_MAX_STEPS = 8

#: A few variants of each named scenario (parameters that differ from the article's).
VARIANTS: dict[str, tuple[dict[str, Any], ...]] = {
    "C": ({"depth": 3}, {"depth": 8}),
    "A": ({"change_tick": 0}, {"change_tick": 2}, {"depth": 6, "change_tick": 3}),
    "D1": ({"depth": 3}, {"depth": 8}),
    "D2": ({"depth": 4}, {"depth": 4, "seed": 1}),
    "D3": ({"num_branches": 3, "pre_merge_depth": 3}, {"num_branches": 4, "pre_merge_depth": 2, "change_tick": 2}),
    "E1": ({"change_tick": 0}, {"depth": 5, "change_tick": 2}),
    "E2": ({"change_tick": 0}, {"depth": 5, "change_tick": 2}),
}


@dataclass(frozen=True, slots=True)
class AgentTask:
    """One task of the agent loop.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    scenario : str
        The named scenario (``random`` for a random plan).
    params : tuple of (str, object)
        The scenario's parameters (a random plan: ``seed``, ``index``, ``max_steps``), sorted by name.
    """

    family: str
    scenario: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ParameterError(f"unknown agent-loop task family {self.family!r}; expected one of {', '.join(FAMILIES)}")
        object.__setattr__(self, "params", tuple(sorted(dict(self.params).items())))

    @classmethod
    def of(cls, family: str, scenario: str, **params: Any) -> AgentTask:
        """A task from keyword parameters.

        Parameters
        ----------
        family : str
            One of :data:`FAMILIES`.
        scenario : str
            The scenario's name, or ``random``.
        **params
            Its parameters.

        Returns
        -------
        AgentTask
        """
        return cls(family, scenario, tuple(params.items()))

    def to_dict(self) -> dict[str, Any]:
        """The task as recorded: ``{"family", "scenario", "params"}``.

        Returns
        -------
        dict
        """
        return {"family": self.family, "scenario": self.scenario, "params": dict(self.params)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentTask:
        """A task read back from a recording.

        Parameters
        ----------
        data : Mapping
            What :meth:`to_dict` wrote.

        Returns
        -------
        AgentTask
        """
        try:
            return cls(str(data["family"]), str(data["scenario"]), tuple(dict(data["params"]).items()))
        except (KeyError, TypeError, ValueError):
            raise ParameterError(f"not an agent-loop task: {data!r:.120}; expected family, scenario and params") from None

    @property
    def label(self) -> str:
        """A short name for tables, e.g. ``A`` or ``A change_tick=0`` or ``random 17``."""
        params = dict(self.params)
        if self.family == "random":
            return f"random {params.get('index')}"
        if self.family in FLOORLESS_FAMILIES:
            return f"{self.family} {params.get('index')}"
        if self.family == "named":
            return self.scenario
        return self.scenario + " " + " ".join(f"{k}={v}" for k, v in self.params)


def agent_tasks(random_count: int = 100, *, seed: int = 0, variants: bool = True, budget_sweep: bool = True) -> list[AgentTask]:
    """The tasks in recording order: named scenarios, the first random plans, the budget sweep, variants, the rest.

    Parameters
    ----------
    random_count : int
        How many seeded random plans.
    seed : int
        The random plans' family seed.
    variants : bool
        Include :data:`VARIANTS`.
    budget_sweep : bool
        Include scenario A under the article's budget sweep (the computed budget down by five).

    Returns
    -------
    list of AgentTask
    """
    random_count = require_int("random_count", random_count, minimum=0)
    seed = require_int("seed", seed)
    tasks = [AgentTask.of("named", name) for name in scenario_names()]
    randoms = [AgentTask.of("random", "random", seed=seed, index=k, max_steps=RANDOM_MAX_STEPS) for k in range(random_count)]
    early = min(len(randoms), 40)
    tasks += randoms[:early]
    if budget_sweep:
        natural = setup_scenario("A").budget
        tasks += [AgentTask.of("budget", "A", budget=b) for b in published_budgets(natural)][1:]  # the first is the named A
    if variants:
        tasks += [AgentTask.of("variant", name, **params) for name in scenario_names() for params in VARIANTS[name]]
    tasks += randoms[early:]
    return tasks


def task_setup(task: AgentTask) -> ScenarioSetup:
    """The scenario a task runs.

    Parameters
    ----------
    task : AgentTask
        The task.

    Returns
    -------
    ScenarioSetup
    """
    params = dict(task.params)
    if task.family == "random":
        return random_setup(params["seed"], params["index"], max_steps=params.get("max_steps", RANDOM_MAX_STEPS))
    if task.family in FLOORLESS_FAMILIES:
        return _floorless_setup(task.family, params["seed"], params["index"], params.get("max_steps", RANDOM_MAX_STEPS))
    return setup_scenario(task.scenario, **params)


def _floorless_setup(family: str, seed: int, index: int, max_steps: int) -> ScenarioSetup:
    """A random plan changed as :data:`FLOORLESS_FAMILIES` says (the same plan, facts and horizons)."""
    setup = random_setup(seed, index, max_steps=max_steps)
    if family == "hidden":
        silent = tuple(SilentChange(e.tick, e.fact_id) for e in setup.events if e.kind is EventKind.REPLACE)
        kept = tuple(e for e in setup.events if e.kind is not EventKind.REPLACE)
        return replace(setup, events=kept, silent_changes=setup.silent_changes + silent)
    if family == "false_alarm":
        facts = sorted(setup.plan.facts)
        alarms = random_events(facts, plan_seed(seed, index) + 1, horizon=max(1, setup.budget // 2), break_prob=0.0,
                               false_alarm_prob=0.6)
        return replace(setup, events=setup.events + alarms)
    miss, false_alarm = NOISY_VERIFICATION
    noise = VerificationModel(miss_rate=miss, false_alarm_rate=false_alarm, seed=index)
    return replace(setup, rules=ExecutionRules(verification=noise))


def run_task(task: AgentTask, policy: Policy) -> ExecutorResult:
    """Run ``policy`` on a fresh world of ``task`` under the article's rules and the task's budget.

    Parameters
    ----------
    task : AgentTask
        The task.
    policy : Policy
        Any policy: a model-driven one or a registered executor.

    Returns
    -------
    ExecutorResult
    """
    setup = task_setup(task)
    return run_policy(policy, setup.plan, setup.new_world(), setup.at_risk, setup.budget)


def run_task_dict(task: Mapping[str, Any], policy: Policy) -> ExecutorResult:
    """:func:`run_task` for a task as recorded (what a recording's worker processes receive).

    Parameters
    ----------
    task : Mapping
        :meth:`AgentTask.to_dict`'s mapping.
    policy : Policy
        Any policy.

    Returns
    -------
    ExecutorResult
    """
    return run_task(AgentTask.from_dict(task), policy)


def reference_results(
    tasks: Iterable[AgentTask], executors: Sequence[str] = (BASELINE, VALIDITY_AWARE)
) -> list[tuple[AgentTask, ExecutorResult]]:
    """The deterministic executors on each task, for the references beside the model's arms.

    Parameters
    ----------
    tasks : iterable of AgentTask
        The tasks.
    executors : sequence of str
        Registered executors' names.

    Returns
    -------
    list of (AgentTask, ExecutorResult)
        Task by task, executors in the order given.
    """
    policies = [get_policy(name) for name in executors]
    return [(task, run_task(task, policy)) for task in tasks for policy in policies]

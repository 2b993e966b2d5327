"""A scenario setup, and running it on the executors being compared.

A scenario is a *setup*: a plan, the facts it starts with, a schedule of
events, the fact at risk and a budget, and whatever else the world can hold
(silent changes, resources with outages and the facts they support, the
execution rules). Running it builds a fresh, identical world from the setup
for each executor (by default the article's two, any registered or given
policy on request), so no executor can influence what another sees. Every
experiment builds its worlds through :meth:`ScenarioSetup.new_world`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType

from cvlib.core.bitmasks import MAX_MASKED_FACTS, BitMaskRun, MaskedWorld, mask_plan, masked_world
from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Event, ResourceEvent, SilentChange
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, PolicyLike, run_policies
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, RunColumns
from cvlib.core.law import break_ticks, predicted_pfw, predicted_pfw_columns
from cvlib.core.rules import ORIGINAL, ExecutionRules, check_rules
from cvlib.core.validation import require_int
from cvlib.core.values import asdict, field, value_class
from cvlib.core.world import World

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd


@value_class(slots=False)
class ScenarioSetup:
    """Everything needed to run a scenario; building worlds from it never mutates it.

    Parameters
    ----------
    name : str
        Names the scenario in results.
    plan : PlanGraph
        The plan both executors run.
    facts : tuple of Fact
        The facts the world starts with.
    events : tuple of Event
        Announced changes (a replaced value, an ambiguous signal).
    at_risk : str
        The fact that sizes the budget and the recovery cost.
    budget : int
        Steps each executor may spend.
    params : mapping
        The parameters that produced the setup, recorded with every run.
    description : str
        One line on what the scenario tests.
    silent_changes : tuple of SilentChange
        Changes no signal announces.
    resource_events : tuple of ResourceEvent
        Outages and restorations of resources.
    supports : mapping of str to str
        Fact id -> the resource that makes it usable.
    rules : ExecutionRules or None
        The rules the scenario runs under unless a run asks for others; None is the article's.
    """

    name: str
    plan: PlanGraph
    facts: tuple[Fact, ...]
    events: tuple[Event, ...]
    at_risk: str
    budget: int
    params: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    silent_changes: tuple[SilentChange, ...] = ()
    resource_events: tuple[ResourceEvent, ...] = ()
    supports: Mapping[str, str] = field(default_factory=dict)
    rules: ExecutionRules | None = None

    def __post_init__(self) -> None:
        for name, values, kind in (
            ("events", self.events, Event),
            ("silent_changes", self.silent_changes, SilentChange),
            ("resource_events", self.resource_events, ResourceEvent),
        ):
            if isinstance(values, list):  # a value holds tuples; a list given is copied into one
                values = tuple(values)
                object.__setattr__(self, name, values)
            if not isinstance(values, tuple) or not all(isinstance(v, kind) for v in values):
                raise ParameterError(
                    f"scenario {self.name!r}: {name} must be a tuple of {kind.__name__} values, got {values!r:.200}"
                )
        check_rules(self.rules)
        # Fail here, naming what is missing, rather than deep inside a run.
        held = {f.id for f in self.facts if isinstance(f, Fact)}
        required = self.plan.facts
        missing = sorted(required - held)
        if missing:
            raise UnknownFactError(
                f"scenario {self.name!r}: the plan requires fact(s) {', '.join(map(repr, missing))} "
                f"that the scenario's facts do not define; defined: {', '.join(sorted(held)) or '(none)'}"
            )
        if self.at_risk not in required:
            raise UnknownFactError(
                f"scenario {self.name!r}: fact at risk {self.at_risk!r} is not required by any step; "
                f"the plan requires: {', '.join(sorted(required))}"
            )
        require_int("budget", self.budget, minimum=0)
        if self._plain_world() is None:  # a world of more than facts and events, or of unhashable values
            self.new_world()  # checks the facts, that every change names one of them, and the supports

    def effective_rules(self, rules: ExecutionRules | None = None) -> ExecutionRules:
        """The rules a run uses: ``rules`` if given, else the setup's own, else the article's.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules a run asks for, overriding the setup's.

        Returns
        -------
        ExecutionRules
        """
        return check_rules(rules) or self.rules or ORIGINAL

    def new_world(self, rules: ExecutionRules | None = None) -> World:
        """A fresh world holding everything this setup carries: one per executor run.

        Parameters
        ----------
        rules : ExecutionRules, optional
            The world's rules; None is the setup's own (see :meth:`effective_rules`).

        Returns
        -------
        World
        """
        return World(
            self.facts,
            self.events,
            rules=self.effective_rules(rules),
            silent_changes=self.silent_changes,
            resource_events=self.resource_events,
            supports=self.supports or None,
        )

    def _plain_world(self) -> _PlainWorld | None:
        """What a world of just these facts and events is on bits, checked; None for a world of more than those.

        A world is checked by building it; one of facts and announced events
        only is checked once per distinct (facts, events), since many setups
        share them (every run of one named scenario at one change tick).
        """
        if self.silent_changes or self.resource_events or self.supports or len(self.facts) > MAX_MASKED_FACTS:
            return None  # (hashing many facts to look them up would cost about what building their world does)
        try:
            return _checked_plain_world(self.facts, self.events)
        except TypeError:  # a list of facts, or a fact whose value cannot be hashed: no shared check
            return None

    def bit_masks(self, rules: ExecutionRules | None = None) -> BitMaskRun | None:
        """This setup's run on bit masks under ``rules``, or None when it holds what they do not state.

        What :func:`~cvlib.core.runs.run_policies` asks before it takes the
        bit-mask path (:mod:`cvlib.core.bitmasks`): the article's rules, facts
        that all start ACTIVE, announced events only.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the setup's own (see :meth:`effective_rules`).

        Returns
        -------
        BitMaskRun or None
        """
        effective = self.effective_rules(rules)
        plain = self._plain_world() if effective is ORIGINAL or effective.is_original else None
        if plain is not None:
            world = plain.masked
        else:
            world = masked_world(
                self.facts,
                self.events,
                rules=effective,
                silent_changes=self.silent_changes,
                resource_events=self.resource_events,
                supports=self.supports,
            )
        if world is None:
            return None
        return mask_plan(world, self.plan.run_columns(), self.at_risk, self.budget)

    def structure(self) -> StructureSummary:
        """What the plan's structure predicts before anything runs (sizes, depth, the law's PFW).

        Returns
        -------
        StructureSummary
        """
        size = self.plan.closure_size(self.at_risk)
        return StructureSummary(
            total_steps=len(self.plan),
            closure_size=size,
            exposed_pct=100.0 * size / len(self.plan),
            invalidation_depth=self.plan.invalidation_depth(self.at_risk),
            predicted_baseline_pfw=predicted_pfw(self.plan, self.break_ticks()),
        )

    def break_ticks(self) -> dict[str, int]:
        """For each fact that really breaks, the earliest tick: from the events and the silent changes.

        An outage is left out: it makes a fact unusable only while its
        resource is down, which the law's prediction does not model.

        Returns
        -------
        dict of str to int
        """
        ticks = break_ticks(self.events)
        for change in self.silent_changes:
            ticks[change.fact_id] = min(change.tick, ticks.get(change.fact_id, change.tick))
        return ticks

    def run(self, *, rules: ExecutionRules | None = None, policies: Iterable[PolicyLike] | None = None) -> ScenarioRun:
        """Run each executor on its own identical fresh world.

        Parameters
        ----------
        rules : ExecutionRules, optional
            The extension chapters' options; None is the setup's own rules (the article's unless it carries others).
        policies : list of (str or ~cvlib.core.executors.Policy), optional
            The executors to compare, in order (names, ``"module:attribute"``
            references or policy objects); None is the article's two.

        Returns
        -------
        ScenarioRun
        """
        return run_setups([self], rules=rules, policies=policies)[0]


@value_class
class _PlainWorld:
    """A world of facts and announced events that was built once, so is known to be well formed, and its bits."""

    #: The world's start on bits; None when the bit-mask path cannot state it (too many facts, one not ACTIVE).
    masked: MaskedWorld | None


@lru_cache(maxsize=256)
def _checked_plain_world(facts: tuple[Fact, ...], events: tuple[Event, ...]) -> _PlainWorld:
    """Build the world of ``facts`` and ``events`` (raising what it raises), once per distinct pair."""
    World(facts, events)
    return _PlainWorld(masked_world(facts, events))


def plain_world(facts: tuple[Fact, ...], events: tuple[Event, ...]) -> MaskedWorld | None:
    """The start on bits of a world of just ``facts`` and ``events``, built and checked once per distinct pair.

    Parameters
    ----------
    facts : tuple of Fact
        The facts the world starts with.
    events : tuple of Event
        Announced changes.

    Returns
    -------
    MaskedWorld or None
        None when the bit-mask path cannot state the world (too many facts, one not ACTIVE).
    """
    return _checked_plain_world(facts, events).masked


class LaidOutRun:
    """A scenario's run described by its plan's columns; its setup is built only if the loop asks for it.

    What :func:`run_setups` (and :func:`~cvlib.core.runs.run_policies`) take
    in place of a :class:`ScenarioSetup` when a generator can lay a plan out
    by construction (the article's diamonds up to ten layers, without their
    graph): the structure summary and the bit masks are read from the columns,
    and the plan and fresh worlds come from the scenario's setup, built by
    ``build(*build_args)`` the first time the loop needs them (another choice
    of executors, other rules). Every number is the one the setup gives; the tests compare
    them.

    Parameters
    ----------
    name : str
        The scenario's name.
    params : mapping or None
        The parameters that produced it, recorded with the run as the setup
        records them; None reads them from the setup when asked (a sweep that
        never records them need not make them).
    columns : RunColumns
        The plan in execution order under the article's rules.
    depth_at_risk : int
        The longest chain of steps resting on the fact at risk (the plan's invalidation depth).
    world : MaskedWorld or None
        The world's start on bits; None when the bit-mask path cannot state it.
    at_risk : str
        The fact at risk.
    breaks : dict of str to int
        The tick each fact really breaks (:meth:`ScenarioSetup.break_ticks`).
    build : callable
        Builds the scenario's :class:`ScenarioSetup`, checked as always, from ``build_args``.
    build_args : tuple
        What ``build`` takes (the configuration, which a sweep already holds, rather than a closure per run).
    budget : int, optional
        The budget; None computes it (steps + closure of the fact at risk + 1).
    masks : dict, optional
        Closure -> mask already computed, shared by the runs of one sweep.
    """

    __slots__ = ("name", "columns", "at_risk", "budget", "closure_size", "invalidation_depth", "_params", "_breaks",
                 "_masks", "_build", "_build_args", "_setup")

    #: A laid-out run uses the article's rules unless a run asks for others.
    rules = None

    def __init__(
        self,
        name: str,
        params: Mapping[str, Any] | None,
        columns: RunColumns,
        depth_at_risk: int,
        world: MaskedWorld | None,
        at_risk: str,
        breaks: dict[str, int],
        build: Callable[..., ScenarioSetup],
        build_args: tuple[Any, ...] = (),
        budget: int | None = None,
        masks: dict[frozenset[str], int] | None = None,
    ) -> None:
        starts, closures = columns.run_starts, columns.run_closures
        if len(closures) == 1:  # one run of one closure (a diamond up to ten layers, a chain)
            size = starts[1] if at_risk in closures[0] else 0
        else:
            size = sum([starts[r + 1] - starts[r] for r, closure in enumerate(closures) if at_risk in closure])
        self.name = name
        self._params = params
        self.columns = columns
        self.at_risk = at_risk
        self.budget = starts[-1] + size + 1 if budget is None else budget  # compute_budget's rule
        #: The closure size of the fact at risk.
        self.closure_size = size
        #: The longest chain of steps resting on the fact at risk.
        self.invalidation_depth = depth_at_risk
        self._breaks = breaks
        self._masks = None if world is None else mask_plan(world, columns, at_risk, self.budget, masks, size)
        self._build = build
        self._build_args = build_args
        self._setup: ScenarioSetup | None = None

    def setup(self) -> ScenarioSetup:
        """The scenario's setup, built (and checked) the first time it is asked for.

        Returns
        -------
        ScenarioSetup
        """
        if self._setup is None:
            self._setup = self._build(*self._build_args)
        return self._setup

    @property
    def params(self) -> Mapping[str, Any]:
        """The parameters that produced the run, as its setup records them."""
        return self.setup().params if self._params is None else self._params

    @property
    def plan(self) -> PlanGraph:
        """The plan, built on first use."""
        return self.setup().plan

    def new_world(self, rules: ExecutionRules | None = None) -> World:
        """A fresh world of the scenario's setup.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the scenario's own.

        Returns
        -------
        World
        """
        return self.setup().new_world(rules)

    def effective_rules(self, rules: ExecutionRules | None = None) -> ExecutionRules:
        """The rules a run uses: ``rules`` if given, else the article's.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules a run asks for.

        Returns
        -------
        ExecutionRules
        """
        return check_rules(rules) or ORIGINAL

    def bit_masks(self, rules: ExecutionRules | None = None) -> BitMaskRun | None:
        """The run on bit masks; None under other rules than the article's, or when its world holds more.

        Parameters
        ----------
        rules : ExecutionRules, optional
            Rules the run asks for; None is the article's.

        Returns
        -------
        BitMaskRun or None
        """
        if rules is None:
            return self._masks
        effective = self.effective_rules(rules)
        return self._masks if effective is ORIGINAL or effective.is_original else None

    def break_ticks(self) -> dict[str, int]:
        """For each fact that really breaks, the earliest tick.

        Returns
        -------
        dict of str to int
        """
        return dict(self._breaks)

    def structure(self) -> StructureSummary:
        """What the plan's structure predicts, read from its columns (see :meth:`ScenarioSetup.structure`).

        Returns
        -------
        StructureSummary
        """
        n = self.columns.run_starts[-1]
        return StructureSummary(
            total_steps=n,
            closure_size=self.closure_size,
            exposed_pct=100.0 * self.closure_size / n,
            invalidation_depth=self.invalidation_depth,
            predicted_baseline_pfw=predicted_pfw_columns(self.columns, self._breaks),
        )


def run_setups(
    setups: Iterable[ScenarioSetup | LaidOutRun],
    *,
    rules: ExecutionRules | None = None,
    policies: Iterable[PolicyLike] | None = None,
) -> list[ScenarioRun]:
    """Run many setups, each as :meth:`ScenarioSetup.run` would, one phase at a time across all of them.

    The executors run through :func:`~cvlib.core.runs.run_policies`, which
    takes the bit-mask path for the article's two wherever a setup allows it
    and otherwise runs every setup with the first executor, then with the
    next; then every structure summary: the same results, in the same order,
    as ``[s.run() for s in setups]``.

    Parameters
    ----------
    setups : list of (ScenarioSetup or LaidOutRun)
        The scenarios to run.
    rules : ExecutionRules or None
        The execution rules for every run; None is the article's.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    list of ScenarioRun
    """
    setups = setups if isinstance(setups, list) else list(setups)
    runs = run_policies(policies, setups, rules=rules)
    structures = [s.structure() for s in setups]
    return [
        ScenarioRun(
            scenario=s.name,
            params=MappingProxyType(dict(s.params)),
            structure=structure,
            results=MappingProxyType(runs.results(k)),
            rules=_recorded(s.effective_rules(rules)),
        )
        for k, (s, structure) in enumerate(zip(setups, structures))
    ]


def _recorded(rules: ExecutionRules) -> ExecutionRules | None:
    """The rules a run records: None for the article's, so default output is unchanged."""
    return None if rules is ORIGINAL or rules.is_original else rules


@value_class
class StructureSummary:
    """What the plan's shape says before anything runs."""

    total_steps: int
    closure_size: int
    exposed_pct: float
    invalidation_depth: int
    predicted_baseline_pfw: int


#: Keys of :meth:`ScenarioRun.to_dict` that are not executors' names, so no policy may be called by them.
RESERVED_NAMES = frozenset({"scenario", "params", "structure", "rules", "results"})


def check_executor_names(scenario: str, names: Iterable[str]) -> None:
    """Refuse executors called by a name a :class:`ScenarioRun` keeps for its own fields (:data:`RESERVED_NAMES`).

    Parameters
    ----------
    scenario : str
        The scenario's name, for the message.
    names : iterable of str
        The executors' names.

    Raises
    ------
    ParameterError
        One line naming the clashing names.
    """
    clash = sorted(RESERVED_NAMES.intersection(names))
    if clash:
        raise ParameterError(
            f"scenario {scenario!r}: an executor may not be called {', '.join(map(repr, clash))} "
            f"(reserved for the run's own fields: {', '.join(sorted(RESERVED_NAMES))})"
        )


@value_class(slots=False)
class ScenarioRun:
    """Each executor's result on one scenario, with the parameters that produced them.

    ``results`` holds one :class:`~cvlib.core.executors.ExecutorResult` per
    executor, keyed by name, in the order they were asked for;
    :attr:`baseline` and :attr:`validity_aware` are the article's two.
    """

    scenario: str
    params: Mapping[str, Any]
    structure: StructureSummary
    results: Mapping[str, ExecutorResult]
    #: Non-default execution rules the run used (None for the article's).
    rules: ExecutionRules | None = None

    def __post_init__(self) -> None:
        check_executor_names(self.scenario, self.results)

    def result(self, name: str) -> ExecutorResult:
        """The result of the executor called ``name``; one that did not run raises a one-line error.

        Parameters
        ----------
        name : str
            An executor's name.

        Returns
        -------
        ExecutorResult
        """
        try:
            return self.results[name]
        except KeyError:
            raise ParameterError(
                f"scenario {self.scenario!r} was not run with executor {name!r}; it ran {', '.join(self.results)}"
            ) from None

    @property
    def baseline(self) -> ExecutorResult:
        """The baseline's result (when it ran)."""
        return self.result(BASELINE)

    @property
    def validity_aware(self) -> ExecutorResult:
        """The validity-aware executor's result (when it ran)."""
        return self.result(VALIDITY_AWARE)

    @property
    def policies(self) -> list[str]:
        """The executors' names, in the order they ran."""
        return list(self.results)

    @property
    def overhead(self) -> int:
        """Extra steps the validity-aware executor used (negative when it saved steps)."""
        return self.validity_aware.steps_used - self.baseline.steps_used

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe record: scenario name, the full parameters used, structure and every executor's result.

        Returns
        -------
        dict
            Each executor's result under its name; non-default rules are
            recorded under ``rules``, the article's leave no key.
        """
        out = {
            "scenario": self.scenario,
            "params": dict(self.params),
            "structure": asdict(self.structure),
            **{name: result.to_dict() for name, result in self.results.items()},
        }
        if self.rules is not None:  # only non-default rules are recorded, so default output is unchanged
            out["rules"] = self.rules.to_dict()
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per executor, for display.

        Returns
        -------
        pandas.DataFrame
            Indexed by executor name.
        """
        import pandas as pd

        return pd.DataFrame([r.to_dict() for r in self.results.values()]).set_index("executor")

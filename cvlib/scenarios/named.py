"""The article's named scenarios: each a few checked parameters and a builder of its setup.

Named scenarios are setups (:class:`~cvlib.scenarios.setup.ScenarioSetup`)
built from a few parameters; a spec file (:mod:`cvlib.scenarios.spec`) is a
setup written without Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from cvlib.core.bitmasks import MaskedWorld
from cvlib.core.errors import ParameterError
from cvlib.core.events import Event, EventKind
from cvlib.core.executors import PolicyLike, compute_budget
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import parse_int, require_bool, require_int, shown
from cvlib.core.values import value_class
from cvlib.scenarios import generators
from cvlib.scenarios.setup import LaidOutRun, ScenarioRun, ScenarioSetup, plain_world, run_setups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# -- parameters --------------------------------------------------------------------


@value_class
class Param:
    """A scenario parameter: its default and how to check a value for it."""

    name: str
    default: Any
    kind: str  # "int", "optional_int" or "bool"
    minimum: int | None = None
    help: str = ""

    def check(self, value: Any) -> Any:
        """``value`` if it suits this parameter, else a :class:`~cvlib.core.errors.ParameterError` naming it.

        Parameters
        ----------
        value : object
            What was given.

        Returns
        -------
        object
            The checked value (a plain ``int``, a ``bool``, or None).
        """
        if self.kind == "bool":
            return require_bool(self.name, value)
        if self.kind == "optional_int" and value is None:
            return None
        return require_int(self.name, value, minimum=self.minimum)

    def parse(self, text: str) -> Any:
        """Read a value typed on the command line: integers in ASCII digits only (``٣`` and ``1_0`` are refused).

        Parameters
        ----------
        text : str
            What was typed after ``KEY=``.

        Returns
        -------
        object
            The value, then checked by :meth:`check`.
        """
        lowered = text.strip().lower()
        if self.kind == "bool":
            if lowered in {"true", "yes", "1"}:
                return True
            if lowered in {"false", "no", "0"}:
                return False
            raise ParameterError(f"{self.name} must be true or false, got {shown(text)}")
        if self.kind == "optional_int" and lowered in {"none", "null", ""}:
            return None
        return parse_int(self.name, text)


DEPTH_HELP = "steps in the chain"
TICK_HELP = "tick at which the fact changes (0 = before the plan starts)"
BUDGET_HELP = "step budget; None computes steps + closure + 1"


def _budget_param() -> Param:
    return Param("budget", None, "optional_int", 0, BUDGET_HELP)


@value_class(slots=False)
class ScenarioDefinition:
    """A named scenario: a description, its parameters, how to build its setup, and how to lay its run out.

    ``layout`` (optional) describes one run from the checked parameters
    without building the setup (a :class:`~cvlib.scenarios.setup.LaidOutRun`),
    when a generator knows the plan's columns by construction; the setup is
    then built only if the loop needs it. :func:`run_scenario` uses it.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    build: Callable[..., ScenarioSetup]
    layout: Callable[..., LaidOutRun] | None = None

    def defaults(self) -> dict[str, Any]:
        """Each parameter's default, the values the article ran.

        Returns
        -------
        dict
        """
        return {p.name: p.default for p in self.params}

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given``, every value checked; unknown names are an error.

        Parameters
        ----------
        given : mapping of str to object
            Parameters to override.

        Returns
        -------
        dict
            Every parameter's value.
        """
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ParameterError(
                f"scenario {self.name!r} has no parameter {', '.join(map(shown, unknown))}; "
                f"valid parameters: {', '.join(f'{p.name} (default {p.default!r})' for p in self.params)}"
            )
        values = self.defaults()
        for name, value in given.items():
            values[name] = known[name].check(value)
        return values

    def setup(self, **params: Any) -> ScenarioSetup:
        """Check ``params`` against the defaults and build the scenario's setup.

        Parameters
        ----------
        **params
            Parameters to override.

        Returns
        -------
        ScenarioSetup
        """
        values = self.resolve(params)
        return self.build(**values)

    def run_input(self, **params: Any) -> ScenarioSetup | LaidOutRun:
        """Check ``params`` and describe one run: laid out when the scenario can be, else its setup.

        Parameters
        ----------
        **params
            Parameters to override.

        Returns
        -------
        ScenarioSetup or LaidOutRun
            Either runs through :func:`~cvlib.scenarios.setup.run_setups` with the same results.
        """
        values = self.resolve(params)
        if self.layout is None:
            return self.build(**values)
        return self.layout(**values)


def _single_fact_setup(
    name: str,
    description: str,
    plan: PlanGraph,
    facts: list[Fact],
    events: list[Event],
    at_risk: str,
    budget: int | None,
    params: dict[str, Any],
) -> ScenarioSetup:
    return ScenarioSetup(
        name=name,
        plan=plan,
        facts=tuple(facts),
        events=tuple(events),
        at_risk=at_risk,
        budget=compute_budget(plan, at_risk) if budget is None else budget,
        params=params,
        description=description,
    )


# Facts and events are immutable values that depend only on a scenario's constants and its change tick, so
# each is made once and shared by every setup that holds it (making a Fact checks its fields, which cost
# a single run more than the bit-mask path runs both executors).
@lru_cache(maxsize=16)
def _fact(fact_id: str, value: Any) -> Fact:
    return Fact(fact_id, value)


@lru_cache(maxsize=1024)
def _event(tick: int, fact_id: str, kind: EventKind, new_value: Any = None, ground_truth_changed: bool | None = None) -> Event:
    if kind is EventKind.AMBIGUOUS:
        return Event(tick, fact_id, kind, ground_truth_changed=ground_truth_changed)
    return Event(tick, fact_id, kind, new_value=new_value)


def _control(depth: int, budget: int | None) -> ScenarioSetup:
    plan = generators.chain(depth)
    return _single_fact_setup(
        "C", SCENARIO_TEXT["C"], plan, [_fact("F1", 420)], [], "F1", budget, {"depth": depth, "budget": budget}
    )


def _value_change(depth: int, change_tick: int, budget: int | None) -> ScenarioSetup:
    plan = generators.chain(depth)
    events = [_event(change_tick, "F1", EventKind.REPLACE, 610)]
    params = {"depth": depth, "change_tick": change_tick, "budget": budget}
    return _single_fact_setup("A", SCENARIO_TEXT["A"], plan, [_fact("F1", 420)], events, "F1", budget, params)


def _depth_chain(depth: int, change_tick: int, budget: int | None) -> ScenarioSetup:
    plan = generators.chain(depth)
    events = [_event(change_tick, "F1", EventKind.REPLACE, "unavailable")]
    params = {"depth": depth, "change_tick": change_tick, "budget": budget}
    return _single_fact_setup("D1", SCENARIO_TEXT["D1"], plan, [_fact("F1", "available")], events, "F1", budget, params)


def _topology(
    depth: int, branching_factor: int, merge_factor: int, seed: int, change_tick: int, budget: int | None
) -> ScenarioSetup:
    plan = generators.branching(depth, branching_factor, merge_factor, seed=seed)
    events = [_event(change_tick, "F1", EventKind.REPLACE, "unavailable")]
    params = {
        "depth": depth,
        "branching_factor": branching_factor,
        "merge_factor": merge_factor,
        "seed": seed,
        "change_tick": change_tick,
        "budget": budget,
    }
    return _single_fact_setup("D2", SCENARIO_TEXT["D2"], plan, [_fact("F1", "available")], events, "F1", budget, params)


def _topology_layout(
    depth: int, branching_factor: int, merge_factor: int, seed: int, change_tick: int, budget: int | None
) -> LaidOutRun:
    """One D2 run laid out by construction (:func:`~cvlib.scenarios.generators.branching_columns`), as :func:`_topology` builds it."""
    ((columns, depth_at_risk),) = generators.branching_columns([(depth, branching_factor, merge_factor)], seed=seed)
    params = {
        "depth": depth,
        "branching_factor": branching_factor,
        "merge_factor": merge_factor,
        "seed": seed,
        "change_tick": change_tick,
        "budget": budget,
    }

    world = _topology_world(change_tick)
    built_by = (depth, branching_factor, merge_factor, seed, change_tick, budget)
    return LaidOutRun("D2", params, columns, depth_at_risk, world, "F1", {"F1": change_tick}, _build_topology, built_by,
                      budget)


@lru_cache(maxsize=1024)
def _topology_world(change_tick: int) -> MaskedWorld | None:
    """D2's world on bits: its one fact, replaced at ``change_tick`` (the same for every shape)."""
    return plain_world((_fact("F1", "available"),), (_event(change_tick, "F1", EventKind.REPLACE, "unavailable"),))


def _build_topology(*args: Any) -> ScenarioSetup:
    return _topology(*args)  # looked up when called, so the tests can watch it


def _isolated_branches(
    pre_merge_depth: int, num_branches: int, post_merge_depth: int, change_tick: int, budget: int | None
) -> ScenarioSetup:
    plan = generators.multi_branch(pre_merge_depth, num_branches, post_merge_depth)
    facts = [Fact(f, "ok") for f in generators.branch_facts(num_branches)]
    events = [_event(change_tick, "F1", EventKind.REPLACE, "broken")]
    params = {
        "pre_merge_depth": pre_merge_depth,
        "num_branches": num_branches,
        "post_merge_depth": post_merge_depth,
        "change_tick": change_tick,
        "budget": budget,
    }
    return _single_fact_setup("D3", SCENARIO_TEXT["D3"], plan, facts, events, "F1", budget, params)


def _ambiguous(name: str, real_change: bool) -> Callable[..., ScenarioSetup]:
    def build(depth: int, change_tick: int, budget: int | None) -> ScenarioSetup:
        plan = generators.chain(depth)
        events = [_event(change_tick, "F1", EventKind.AMBIGUOUS, ground_truth_changed=real_change)]
        params = {"depth": depth, "change_tick": change_tick, "budget": budget}
        return _single_fact_setup(name, SCENARIO_TEXT[name], plan, [_fact("F1", 420)], events, "F1", budget, params)

    return build


SCENARIO_TEXT = {
    "C": "Stable world: nothing changes; measures the validity layer's overhead.",
    "A": "Value change: the flight price F1 is replaced ($420 -> $610) partway through a chain.",
    "D1": "Depth chain: the root fact breaks before the plan starts; PFW vs chain depth.",
    "D2": "Branching topology: one root fact under a fan-out/merge diamond.",
    "D3": "Isolated branches: each branch rests on its own fact; the first branch's fact breaks.",
    "E1": "Ambiguous signal that is a real change: verification pays off.",
    "E2": "Ambiguous signal that is a false alarm: verification is pure cost.",
}

#: The article's named scenarios by name, in the order the article presents them.
SCENARIOS: dict[str, ScenarioDefinition] = {
    d.name: d
    for d in [
        ScenarioDefinition(
            "C", SCENARIO_TEXT["C"], (Param("depth", 5, "int", 1, DEPTH_HELP), _budget_param()), _control
        ),
        ScenarioDefinition(
            "A",
            SCENARIO_TEXT["A"],
            (Param("depth", 4, "int", 1, DEPTH_HELP), Param("change_tick", 1, "int", 0, TICK_HELP), _budget_param()),
            _value_change,
        ),
        ScenarioDefinition(
            "D1",
            SCENARIO_TEXT["D1"],
            (Param("depth", 5, "int", 1, DEPTH_HELP), Param("change_tick", 0, "int", 0, TICK_HELP), _budget_param()),
            _depth_chain,
        ),
        ScenarioDefinition(
            "D2",
            SCENARIO_TEXT["D2"],
            (
                Param("depth", 8, "int", 1, "layers"),
                Param("branching_factor", 2, "int", 1, "fan-out per layer"),
                Param("merge_factor", 2, "int", 1, "width divisor in the merging half"),
                Param("seed", 0, "int", None, "seed of the wiring"),
                Param("change_tick", 0, "int", 0, TICK_HELP),
                _budget_param(),
            ),
            _topology,
            _topology_layout,
        ),
        ScenarioDefinition(
            "D3",
            SCENARIO_TEXT["D3"],
            (
                Param("pre_merge_depth", 6, "int", 1, "steps in each private branch"),
                Param("num_branches", 8, "int", 1, "isolated branches"),
                Param("post_merge_depth", 2, "int", 1, "steps in the shared segment"),
                Param("change_tick", 0, "int", 0, TICK_HELP),
                _budget_param(),
            ),
            _isolated_branches,
        ),
        ScenarioDefinition(
            "E1",
            SCENARIO_TEXT["E1"],
            (Param("depth", 3, "int", 1, DEPTH_HELP), Param("change_tick", 1, "int", 0, TICK_HELP), _budget_param()),
            _ambiguous("E1", True),
        ),
        ScenarioDefinition(
            "E2",
            SCENARIO_TEXT["E2"],
            (Param("depth", 3, "int", 1, DEPTH_HELP), Param("change_tick", 1, "int", 0, TICK_HELP), _budget_param()),
            _ambiguous("E2", False),
        ),
    ]
}


def scenario_names() -> list[str]:
    """The article's scenario names, in the order the article presents them.

    Returns
    -------
    list of str
    """
    return list(SCENARIOS)


def get_scenario(name: str) -> ScenarioDefinition:
    """The definition of a named scenario.

    Parameters
    ----------
    name : str
        One of :func:`scenario_names`; an unknown name raises a :class:`~cvlib.core.errors.ParameterError` listing them.

    Returns
    -------
    ScenarioDefinition
    """
    if not isinstance(name, str) or name not in SCENARIOS:
        raise ParameterError(f"unknown scenario {shown(name)}; expected one of {', '.join(SCENARIOS)}")
    return SCENARIOS[name]


def setup_scenario(name: str, **params: Any) -> ScenarioSetup:
    """The setup of a named scenario, parameters checked and defaults filled in.

    Parameters
    ----------
    name : str
        One of :func:`scenario_names`.
    **params
        Parameters to override (see :func:`get_scenario`'s ``params``).

    Returns
    -------
    ScenarioSetup
    """
    return get_scenario(name).setup(**params)


def run_scenario(
    name: str, *, rules: ExecutionRules | None = None, policies: Iterable[PolicyLike] | None = None, **params: Any
) -> ScenarioRun:
    """Run a named scenario on the executors being compared (by default the article's two).

    >>> run = run_scenario("A")
    >>> run.baseline.steps_used, run.validity_aware.steps_used
    (9, 6)

    Parameters
    ----------
    name : str
        One of :func:`scenario_names`.
    rules : ExecutionRules, optional
        The extension chapters' options (see :mod:`cvlib.core.rules`); None is the article's.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order: registered names, ``"module:attribute"``
        references or policy objects; None is the article's two.
    **params
        Parameters to override.

    Returns
    -------
    ScenarioRun
    """
    return run_setups([get_scenario(name).run_input(**params)], rules=rules, policies=policies)[0]

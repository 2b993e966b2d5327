"""The random-plan generator stated plainly: the draws of :mod:`cvlib.scenarios.random_plans`, one library call each.

This is the statement the fast generator must reproduce draw for draw: one
:class:`random.Random` per stream, seeded as the library seeds it, the draws
made with ``randint``, ``sample``, ``choice`` and ``random`` in the order the
docstrings of :mod:`cvlib.scenarios.random_plans` describe, every value
checked by its constructor, plans built with ``PlanGraph.from_columns`` from
the same columns. ``tests/scenarios/test_random_plans.py`` checks that plan
number *i* of a family is the same setup here and there, and
``benchmarks/reference.py`` times the library's whole random-family job against
this generator with the plain executors of ``tests/reference_executor.py``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cvlib.core.events import Event, EventKind
from cvlib.core.executors import compute_budget
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, StepKind
from cvlib.scenarios.generators import branching, chain, multi_branch
from cvlib.scenarios.random_plans import FAMILIES, fact_ids
from cvlib.scenarios.setup import ScenarioSetup

_EMPTY: frozenset[str] = frozenset()


def layered_dag(
    num_layers: int,
    max_width: int,
    num_facts: int,
    seed: int,
    *,
    max_predecessors: int = 3,
    require_prob: float = 0.3,
) -> PlanGraph:
    """A random layered DAG resting on several facts, ending on one action.

    Layer ``l`` has between 1 and ``max_width`` steps ``R{l}_{j}`` (the last
    layer exactly one, the action). A layer-0 step is a plan requiring one or
    two random facts; every later step is a decision after 1 to
    ``max_predecessors`` random steps of the previous layer, and with
    probability ``require_prob`` it also requires one random fact directly.
    Some steps feed no later step, so the action need not rest on every fact
    and the order can put side work after it: the law must hold anyway.

    Parameters
    ----------
    num_layers:
        Layers including the final action's (>= 1); steps grow about
        ``num_layers * max_width / 2``.
    max_width:
        Most steps in one layer (>= 1).
    num_facts:
        Facts ``F1 … F{num_facts}`` the steps draw their requirements from.
    seed:
        Seed of the :class:`random.Random` that draws everything.

    Returns
    -------
    PlanGraph
    """
    facts = fact_ids(num_facts)
    rng = random.Random(seed)
    ids: list[str] = []
    kinds: list[StepKind] = []
    requires: list[frozenset[str]] = []
    predecessors: list[tuple[int, ...]] = []
    previous = range(0)
    for layer in range(num_layers):
        last = layer == num_layers - 1
        width = 1 if last else rng.randint(1, max_width)
        start = len(ids)
        for j in range(width):
            ids.append(f"R{layer}_{j}")
            if layer == 0:
                kinds.append(StepKind.ACTION if last else StepKind.PLAN)
                requires.append(frozenset(rng.sample(facts, min(len(facts), rng.randint(1, 2)))))
                predecessors.append(())
                continue
            kinds.append(StepKind.ACTION if last else StepKind.DECISION)
            take = rng.randint(1, min(max_predecessors, len(previous)))
            predecessors.append(tuple(sorted(rng.sample(previous, take))))
            requires.append(frozenset({rng.choice(facts)}) if rng.random() < require_prob else _EMPTY)
        previous = range(start, len(ids))
    return PlanGraph.from_columns(ids, kinds, requires, predecessors)


def isolated_fan_out(
    num_branches: int,
    fan_out: int,
    seed: int,
    *,
    branch_depth: int = 2,
    post_merge_depth: int = 2,
) -> PlanGraph:
    """Isolated branches that fan out and fan back in, merging into one shared segment.

    Branch ``b`` starts with a plan step ``B{b}_0`` requiring its own fact
    ``F{b+1}``; then come ``branch_depth`` levels of 1 to ``fan_out``
    parallel decisions ``B{b}_{level}_{j}`` (a random width per level), each
    after every step of the level before. The shared segment ``M0 …`` starts
    after the last level of every branch and ends on the action. Breaking one
    branch's fact exposes that branch and the shared segment only, however
    wide the other branches are.

    Parameters
    ----------
    num_branches:
        Branches, each with its own fact (>= 1).
    fan_out:
        Most parallel steps in one level of a branch (>= 1).
    seed:
        Seed of the :class:`random.Random` that draws the level widths.
    branch_depth:
        Levels after each branch's first step (>= 0).
    post_merge_depth:
        Steps in the shared segment (>= 1).

    Returns
    -------
    PlanGraph
    """
    rng = random.Random(seed)
    ids: list[str] = []
    kinds: list[StepKind] = []
    requires: list[frozenset[str]] = []
    predecessors: list[tuple[int, ...]] = []
    tails: list[int] = []
    for b in range(num_branches):
        ids.append(f"B{b}_0")
        kinds.append(StepKind.PLAN)
        requires.append(frozenset({f"F{b + 1}"}))
        predecessors.append(())
        level: tuple[int, ...] = (len(ids) - 1,)
        for depth in range(1, branch_depth + 1):
            width = rng.randint(1, fan_out)
            start = len(ids)
            for j in range(width):
                ids.append(f"B{b}_{depth}_{j}")
                kinds.append(StepKind.DECISION)
                requires.append(_EMPTY)
                predecessors.append(level)
            level = tuple(range(start, len(ids)))
        tails.extend(level)
    for i in range(post_merge_depth):
        ids.append(f"M{i}")
        kinds.append(StepKind.ACTION if i == post_merge_depth - 1 else StepKind.DECISION)
        requires.append(_EMPTY)
        predecessors.append(tuple(tails) if i == 0 else (len(ids) - 2,))
    return PlanGraph.from_columns(ids, kinds, requires, predecessors)


def random_facts(
    facts: Sequence[str], seed: int, *, horizon: int, expiry_prob: float = 0.2
) -> tuple[Fact, ...]:
    """Facts with value 0; each gets a validity horizon (``valid_until``) with probability ``expiry_prob``.

    A horizon is a tick drawn from ``0 … horizon``, so validity-aware
    executors meet STALE facts and pay for verifications; expiry never breaks
    a fact in ground truth, so the law does not see it.

    Parameters
    ----------
    facts : sequence of str
        Fact ids.
    seed : int
        Seed of the draws.
    horizon : int
        Latest tick a horizon may fall on.
    expiry_prob : float
        Probability that a fact has a horizon.

    Returns
    -------
    tuple of Fact
    """
    rng = random.Random(seed)
    return tuple(
        Fact(f, 0, valid_until=rng.randint(0, horizon) if rng.random() < expiry_prob else None) for f in facts
    )


def random_events(
    facts: Sequence[str],
    seed: int,
    *,
    horizon: int,
    break_prob: float = 0.5,
    ambiguous_prob: float = 0.25,
    false_alarm_prob: float = 0.15,
) -> tuple[Event, ...]:
    """A schedule where several facts break at random ticks, and some only seem to.

    Each fact breaks with probability ``break_prob`` at a tick drawn from
    ``0 … horizon``: by a ``replace`` event, or, with probability
    ``ambiguous_prob``, by an ambiguous signal that is a real change. Each
    fact also gets a false alarm (an ambiguous signal, nothing changed) with
    probability ``false_alarm_prob``, at its own random tick. Events are
    listed in fact order; the world sorts them by tick.

    Parameters
    ----------
    facts : sequence of str
        Fact ids.
    seed : int
        Seed of the draws.
    horizon : int
        Latest tick an event may fall on.
    break_prob, ambiguous_prob, false_alarm_prob : float
        As above.

    Returns
    -------
    tuple of Event
    """
    rng = random.Random(seed)
    events: list[Event] = []
    for f in facts:
        if rng.random() < break_prob:
            tick = rng.randint(0, horizon)
            if rng.random() < ambiguous_prob:
                events.append(Event(tick, f, EventKind.AMBIGUOUS, ground_truth_changed=True))
            else:
                events.append(Event(tick, f, EventKind.REPLACE, new_value=1))
        if rng.random() < false_alarm_prob:
            events.append(Event(rng.randint(0, horizon), f, EventKind.AMBIGUOUS, ground_truth_changed=False))
    return tuple(events)


def reference_plan(family: str, seed: int, max_steps: int = 60) -> tuple[PlanGraph, dict[str, int]]:
    """One plan of ``family`` with random size parameters (within about ``max_steps`` steps).

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    seed : int
        Seed of the size parameters and the wiring.
    max_steps : int
        About how many steps the plan may have.

    Returns
    -------
    tuple of (PlanGraph, dict)
        The plan and the generator parameters drawn.
    """
    rng = random.Random(seed)
    if family == "chain":
        depth = rng.randint(1, max_steps)
        return chain(depth), {"depth": depth}
    if family == "branching":
        bf = rng.randint(1, 3)
        params = {
            "depth": rng.randint(1, max(1, min(8, max_steps // max(1, bf**2)))),
            "branching_factor": bf,
            "merge_factor": rng.randint(1, 3),
            "seed": rng.randint(0, 2**31 - 1),
        }
        return branching(params["depth"], params["branching_factor"], params["merge_factor"], seed=params["seed"]), params
    if family == "multi_branch":
        p = rng.randint(1, max(1, min(8, max_steps // 4)))
        params = {
            "pre_merge_depth": p,
            "num_branches": rng.randint(1, max(1, min(8, max_steps // (p + 1)))),
            "post_merge_depth": rng.randint(1, 4),
        }
        return multi_branch(**params), params
    if family == "layered":
        width = rng.randint(1, 6)
        params = {
            "num_layers": rng.randint(1, max(1, max_steps * 2 // (width + 1))),
            "max_width": width,
            "num_facts": rng.randint(1, 6),
            "seed": rng.randint(0, 2**31 - 1),
        }
        return layered_dag(**params), params
    if family == "fan_out":
        fan = rng.randint(1, 4)
        depth = rng.randint(0, 3)
        params = {
            "num_branches": rng.randint(1, max(1, min(8, max_steps // (1 + depth * (fan + 1) // 2 + 1)))),
            "fan_out": fan,
            "seed": rng.randint(0, 2**31 - 1),
            "branch_depth": depth,
            "post_merge_depth": rng.randint(1, 3),
        }
    return isolated_fan_out(**params), params


def reference_setup(seed: int, index: int = 0, *, family: str = "mixed", max_steps: int = 60) -> ScenarioSetup:
    """Scenario number ``index`` of a seeded random family: plan, facts, events, fact at risk, budget.

    Facts are those the plan's generator names (at least ``F1``), some with
    validity horizons; several of them may break, at ticks up to the plan's
    length plus two (so some break after the action, or never matter). The
    fact at risk, which sizes the budget and the recovery cost, is one the
    plan requires, drawn at random. The setup's name is ``random-{family}``
    and its parameters record the seed, the index and the generator's own
    parameters, so a row of a sweep can be rebuilt alone.

    Parameters
    ----------
    seed : int
        The family's seed.
    index : int
        The plan's number.
    family : str
        One of :data:`FAMILIES` or ``"mixed"`` (a family drawn per plan).
    max_steps : int
        About how many steps a plan may have.

    Returns
    -------
    ScenarioSetup
    """
    own_seed = random.Random(f"cvlib.scenarios.random_plans:{seed}:{index}").getrandbits(63)
    rng = random.Random(own_seed)
    chosen = rng.choice(FAMILIES) if family == "mixed" else family
    plan, params = reference_plan(chosen, rng.getrandbits(63), max_steps)
    required = sorted(plan.facts)
    names = fact_ids(max(int(f[1:]) for f in required))
    horizon = len(plan) + 2
    facts = random_facts(names, rng.getrandbits(63), horizon=horizon)
    events = random_events(names, rng.getrandbits(63), horizon=horizon)
    at_risk = rng.choice(required)
    return ScenarioSetup(
        name=f"random-{chosen}",
        plan=plan,
        facts=facts,
        events=events,
        at_risk=at_risk,
        budget=compute_budget(plan, at_risk),
        params={"family": chosen, "seed": seed, "index": index, "max_steps": max_steps, **{f"plan_{k}": v for k, v in params.items()}},
        description=f"Random {chosen} plan number {index} of seed {seed}.",
    )


def reference_setups(seed: int, count: int, *, family: str = "mixed", max_steps: int = 60, start: int = 0) -> list[ScenarioSetup]:
    """Setups ``start … start + count - 1`` of a family, one :func:`reference_setup` each."""
    return [reference_setup(seed, i, family=family, max_steps=max_steps) for i in range(start, start + count)]

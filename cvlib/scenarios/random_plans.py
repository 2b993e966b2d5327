"""Seeded random plans, facts and event schedules, for checks at scale.

The article's generators make one family of shapes each, with one fact at
risk. A law that is claimed for *any* plan needs plans nobody picked by hand:
layered random DAGs that rest on several facts, isolated branches that fan out
and merge, and schedules where several facts break, or only look as if they
did, at random ticks. Everything here is a pure function of an explicit seed
(a :class:`random.Random` seeded with it; never global state), so plan number
*i* of seed *s* is the same plan on every machine and in every worker process,
which is what lets :func:`cvlib.sweep` split a family across workers and still
return identical results.

Main entry points:

* :func:`layered_dag` and :func:`isolated_fan_out`, two plan generators;
* :func:`random_events` and :func:`random_facts`, a world to go with a plan;
* :func:`random_setup`, the whole scenario (plan number ``index`` of a
  family), ready for ``.run()`` and for the generalized law
  ``cv.predicted_pfw(setup.plan, cv.break_ticks(setup.events))``;
* :func:`family_draws`, the same plans as raw draws, for a sweep that needs
  numbers rather than values to inspect;
* :func:`family_mask_draws`, the same plans again as closure bit masks in
  execution order, made while they are drawn, for a sweep's rows, which
  need nothing else of a plan.

The draws are those of :class:`random.Random`'s methods (``randint``,
``choice``, ``sample``) written out, since a sweep makes millions of them:
the same plans, without the layers of calls and checks of the methods.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, StepKind
from cvlib.core.validation import require_choice, require_int, require_probability
from cvlib.scenarios import sizes
from cvlib.scenarios._draws import below as _below
from cvlib.scenarios._draws import sample as _sample
from cvlib.scenarios._draws import seed as _seed
from cvlib.scenarios._plan_masks import plan_masks as _plan_masks
from cvlib.scenarios.generators import branching, chain, multi_branch
from cvlib.scenarios.setup import ScenarioSetup

#: Plan families :func:`random_setup` draws from; ``mixed`` picks one of them per plan.
FAMILIES: tuple[str, ...] = ("chain", "branching", "multi_branch", "layered", "fan_out")

_EMPTY: frozenset[str] = frozenset()

#: The draws below are those of :class:`random.Random`'s ``randint``, ``choice`` and ``sample`` (CPython's
#: algorithms since 3.2, made of ``getrandbits`` words), written without the layers of checks and calls of
#: the library methods; a plain statement of the generator with the methods themselves is checked to draw
#: the same plans.
Bits = Callable[[int], int]


def _string_seeded(rng: random.Random, text: str) -> None:
    """Seed ``rng`` as ``random.Random(text)`` does (version 2: the text's bytes followed by their SHA-512)."""
    data = text.encode()
    _seed(rng, int.from_bytes(data + hashlib.sha512(data).digest(), "big"))


def fact_ids(num_facts: int) -> list[str]:
    """The fact names random plans use, ``F1 … F{num_facts}``.

    Parameters
    ----------
    num_facts : int
        How many (at least 1).

    Returns
    -------
    list of str
    """
    num_facts = require_int("num_facts", num_facts, minimum=1)
    sizes.facts_size(num_facts).check()
    return [f"F{i + 1}" for i in range(num_facts)]


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
    sizes.layered_dag_size(num_layers, max_width, num_facts, max_predecessors).check()
    num_layers = require_int("num_layers", num_layers, minimum=1)
    max_width = require_int("max_width", max_width, minimum=1)
    facts = fact_ids(num_facts)
    seed = require_int("seed", seed)
    max_predecessors = require_int("max_predecessors", max_predecessors, minimum=1)
    require_prob = require_probability("require_prob", require_prob)
    return _layered(random.Random(seed), num_layers, max_width, facts, max_predecessors, require_prob)


def _layered(
    rng: random.Random, num_layers: int, max_width: int, facts: list[str], max_predecessors: int, require_prob: float
) -> PlanGraph:
    """:func:`layered_dag`'s draws from ``rng``, its arguments trusted."""
    bits, draw = rng.getrandbits, rng.random
    ids: list[str] = []
    kinds: list[StepKind] = []
    requires: list[frozenset[str]] = []
    predecessors: list[tuple[int, ...]] = []
    nfacts = len(facts)
    one_fact = [frozenset({f}) for f in facts]
    plan_kind, decision, action = StepKind.PLAN, StepKind.DECISION, StepKind.ACTION
    start = previous_start = 0
    for layer in range(num_layers):
        last = layer == num_layers - 1
        width = 1 if last else 1 + _below(bits, max_width)
        start = len(ids)
        if layer == 0:
            for j in range(width):
                ids.append(f"R0_{j}")
                kinds.append(action if last else plan_kind)
                take = min(nfacts, 1 + _below(bits, 2))
                requires.append(frozenset(_sample(bits, facts, take)))
                predecessors.append(())
        else:
            previous = range(previous_start, start)
            candidates = len(previous)
            most = min(max_predecessors, candidates)
            most_bits, facts_bits = most.bit_length(), nfacts.bit_length()
            kind = action if last else decision
            ids.extend([f"R{layer}_{j}" for j in range(width)])
            kinds.extend([kind] * width)
            for _ in range(width):
                # _below and _sample written inline (the pool branch, which sample takes for up to 21 items)
                r = bits(most_bits)
                while r >= most:
                    r = bits(most_bits)
                take = r + 1
                if candidates <= 21:
                    pool = list(previous)
                    picked = []
                    for i in range(candidates, candidates - take, -1):
                        k = i.bit_length()
                        r = bits(k)
                        while r >= i:
                            r = bits(k)
                        picked.append(pool[r])
                        pool[r] = pool[i - 1]
                    picked.sort()
                    predecessors.append(tuple(picked))
                else:
                    predecessors.append(tuple(sorted(_sample(bits, previous, take))))
                if draw() < require_prob:
                    r = bits(facts_bits)
                    while r >= nfacts:
                        r = bits(facts_bits)
                    requires.append(one_fact[r])
                else:
                    requires.append(_EMPTY)
        previous_start = start
    # Kahn's order is the index order while layer numbers and step numbers have one digit (see _layered_masks).
    order = range(len(ids)) if num_layers <= 10 and max_width <= 10 else None
    return PlanGraph.from_columns(ids, kinds, requires, predecessors, order=order)


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
    sizes.isolated_fan_out_size(num_branches, fan_out, branch_depth, post_merge_depth).check()
    num_branches = require_int("num_branches", num_branches, minimum=1)
    fan_out = require_int("fan_out", fan_out, minimum=1)
    seed = require_int("seed", seed)
    branch_depth = require_int("branch_depth", branch_depth, minimum=0)
    post_merge_depth = require_int("post_merge_depth", post_merge_depth, minimum=1)
    return _fan_out(random.Random(seed), num_branches, fan_out, branch_depth, post_merge_depth)


def _fan_out(rng: random.Random, num_branches: int, fan_out: int, branch_depth: int, post_merge_depth: int) -> PlanGraph:
    """:func:`isolated_fan_out`'s draws from ``rng``, its arguments trusted."""
    bits = rng.getrandbits
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
            width = 1 + _below(bits, fan_out)
            start = len(ids)
            ids.extend([f"B{b}_{depth}_{j}" for j in range(width)])
            kinds.extend([StepKind.DECISION] * width)
            requires.extend([_EMPTY] * width)
            predecessors.extend([level] * width)
            level = tuple(range(start, len(ids)))
        tails.extend(level)
    for i in range(post_merge_depth):
        ids.append(f"M{i}")
        kinds.append(StepKind.ACTION if i == post_merge_depth - 1 else StepKind.DECISION)
        requires.append(_EMPTY)
        predecessors.append(tuple(tails) if i == 0 else (len(ids) - 2,))
    # Kahn's order is the index order while branch and step numbers have one digit: a branch's first step
    # "B{b}_0" is ready from the start, but "B{b}_…" sorts before "B{b+1}_0", so branch b runs whole first
    # (one level at a time, "B{b}_{level}_0" < "B{b}_{level}_1" < …); the shared segment waits for all of them.
    order = range(len(ids)) if num_branches <= 10 and fan_out <= 10 else None
    return PlanGraph.from_columns(ids, kinds, requires, predecessors, order=order)


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
    horizon = require_int("horizon", horizon, minimum=0)
    expiry_prob = require_probability("expiry_prob", expiry_prob)
    return _facts(random.Random(require_int("seed", seed)), facts, horizon, expiry_prob)


def _facts(rng: random.Random, facts: Sequence[str], horizon: int, expiry_prob: float) -> tuple[Fact, ...]:
    """:func:`random_facts`' draws from ``rng``, its arguments trusted."""
    return tuple(Fact(f, 0, valid_until=v) for f, v in zip(facts, _horizons(rng, len(facts), horizon, expiry_prob)))


def _horizons(rng: random.Random, count: int, horizon: int, expiry_prob: float) -> list[int | None]:
    """The ``valid_until`` of each of ``count`` facts, drawn as :func:`random_facts` draws them (None: no horizon)."""
    bits, draw, span = rng.getrandbits, rng.random, horizon + 1
    k = span.bit_length()
    out: list[int | None] = []
    for _ in range(count):
        if draw() < expiry_prob:
            r = bits(k)  # _below(bits, span), inline: a sweep draws this for every fact of every plan
            while r >= span:
                r = bits(k)
            out.append(r)
        else:
            out.append(None)
    return out


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
    horizon = require_int("horizon", horizon, minimum=0)
    break_prob = require_probability("break_prob", break_prob)
    ambiguous_prob = require_probability("ambiguous_prob", ambiguous_prob)
    false_alarm_prob = require_probability("false_alarm_prob", false_alarm_prob)
    rng = random.Random(require_int("seed", seed))
    return _events(rng, facts, horizon, break_prob, ambiguous_prob, false_alarm_prob)


#: Codes of a raw event (a replacement, a real ambiguous change, a false alarm) in :class:`Draw` events.
REPLACE, AMBIGUOUS_CHANGE, FALSE_ALARM = 0, 1, 2


def _events(
    rng: random.Random,
    facts: Sequence[str],
    horizon: int,
    break_prob: float = 0.5,
    ambiguous_prob: float = 0.25,
    false_alarm_prob: float = 0.15,
) -> tuple[Event, ...]:
    """:func:`random_events`' draws from ``rng``, its arguments trusted."""
    return _as_events(facts, _event_draws(rng, len(facts), horizon, break_prob, ambiguous_prob, false_alarm_prob))


def _as_events(facts: Sequence[str], draws: list[tuple[int, int, int]]) -> tuple[Event, ...]:
    """Event values from :func:`_event_draws`' (tick, fact number, code) triples, in the same order."""
    ambiguous = EventKind.AMBIGUOUS
    return tuple(
        Event(tick, facts[f], EventKind.REPLACE, new_value=1)
        if code == REPLACE
        else Event(tick, facts[f], ambiguous, ground_truth_changed=code == AMBIGUOUS_CHANGE)
        for tick, f, code in draws
    )


def _event_draws(
    rng: random.Random, count: int, horizon: int, break_prob: float, ambiguous_prob: float, false_alarm_prob: float
) -> list[tuple[int, int, int]]:
    """:func:`random_events`' schedule for facts ``0 … count-1`` as (tick, fact number, code) triples, in fact order."""
    bits, draw, span = rng.getrandbits, rng.random, horizon + 1
    k = span.bit_length()
    out: list[tuple[int, int, int]] = []
    for f in range(count):
        if draw() < break_prob:
            tick = bits(k)  # _below(bits, span), inline as in _horizons
            while tick >= span:
                tick = bits(k)
            out.append((tick, f, AMBIGUOUS_CHANGE if draw() < ambiguous_prob else REPLACE))
        if draw() < false_alarm_prob:
            tick = bits(k)
            while tick >= span:
                tick = bits(k)
            out.append((tick, f, FALSE_ALARM))
    return out


def plan_seed(seed: int, index: int) -> int:
    """The seed of plan number ``index`` of family seed ``seed``: independent streams, no shared state.

    Derived by hashing the pair inside :class:`random.Random` (string seeds
    are hashed with SHA-512, the same on every platform and process).

    Parameters
    ----------
    seed : int
        The family's seed.
    index : int
        The plan's number.

    Returns
    -------
    int
    """
    seed = require_int("seed", seed)
    index = require_int("index", index, minimum=0)
    return _plan_seed(random.Random(), seed, index)


def _plan_seed(rng: random.Random, seed: int, index: int) -> int:
    """:func:`plan_seed` drawn with ``rng`` (reseeded), its arguments trusted."""
    _string_seeded(rng, f"cvlib.scenarios.random_plans:{seed}:{index}")
    return rng.getrandbits(63)


def random_plan(family: str, seed: int, max_steps: int = 60) -> tuple[PlanGraph, dict[str, int]]:
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
    require_choice("plan family", family, FAMILIES)
    sizes.random_plan_size(family, max_steps).check()
    max_steps = require_int("max_steps", max_steps, minimum=1)
    return _plan(random.Random(require_int("seed", seed)), family, max_steps)


def _plan(rng: random.Random, family: str, max_steps: int) -> tuple[PlanGraph, dict[str, int]]:
    """:func:`random_plan`'s draws from ``rng`` (which the plan's own generator then reuses), its arguments trusted."""
    bits = rng.getrandbits
    if family == "chain":
        depth = 1 + _below(bits, max_steps)
        return chain(depth), {"depth": depth}
    if family == "branching":
        bf = 1 + _below(bits, 3)
        depth = 1 + _below(bits, max(1, min(8, max_steps // max(1, bf**2))))
        merge = 1 + _below(bits, 3)
        seed = _below(bits, 2**31)
        params = {"depth": depth, "branching_factor": bf, "merge_factor": merge, "seed": seed}
        return branching(depth, bf, merge, seed=seed), params
    if family == "multi_branch":
        p = 1 + _below(bits, max(1, min(8, max_steps // 4)))
        params = {
            "pre_merge_depth": p,
            "num_branches": 1 + _below(bits, max(1, min(8, max_steps // (p + 1)))),
            "post_merge_depth": 1 + _below(bits, 4),
        }
        return multi_branch(**params), params
    if family == "layered":
        width = 1 + _below(bits, 6)
        params = {
            "num_layers": 1 + _below(bits, max(1, max_steps * 2 // (width + 1))),
            "max_width": width,
            "num_facts": 1 + _below(bits, 6),
            "seed": _below(bits, 2**31),
        }
        facts = [f"F{i + 1}" for i in range(params["num_facts"])]
        _seed(rng, params["seed"])
        return _layered(rng, params["num_layers"], width, facts, 3, 0.3), params
    fan = 1 + _below(bits, 4)
    depth = _below(bits, 4)
    params = {
        "num_branches": 1 + _below(bits, max(1, min(8, max_steps // (1 + depth * (fan + 1) // 2 + 1)))),
        "fan_out": fan,
        "seed": _below(bits, 2**31),
        "branch_depth": depth,
        "post_merge_depth": 1 + _below(bits, 3),
    }
    _seed(rng, params["seed"])
    return _fan_out(rng, params["num_branches"], fan, depth, params["post_merge_depth"]), params


def random_setup(seed: int, index: int = 0, *, family: str = "mixed", max_steps: int = 60) -> ScenarioSetup:
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
    require_choice("plan family", family, (*FAMILIES, "mixed"))
    sizes.random_plan_size(family, max_steps).check()
    seed = require_int("seed", seed)
    index = require_int("index", index, minimum=0)
    return _setup(random.Random(), random.Random(), seed, index, family, max_steps)


def _draw(main: random.Random, sub: random.Random, seed: int, index: int, family: str, max_steps: int) -> Draw:
    """Plan number ``index``'s draws, as :func:`random_setup` makes them, before any value is built around them.

    Two reusable streams, reseeded for each plan, stand for the independent
    :class:`random.Random` of each draw; the arguments are trusted.
    """
    _seed(main, _plan_seed(main, seed, index))
    bits = main.getrandbits
    chosen = FAMILIES[_below(bits, len(FAMILIES))] if family == "mixed" else family
    _seed(sub, bits(63))
    plan, params = _plan(sub, chosen, max_steps)
    required = sorted(plan.facts)
    count = max(int(f[1:]) for f in required)
    horizon = len(plan) + 2
    _seed(sub, bits(63))
    horizons = _horizons(sub, count, horizon, 0.2)
    _seed(sub, bits(63))
    events = _event_draws(sub, count, horizon, 0.5, 0.25, 0.15)
    at_risk = required[_below(bits, len(required))]
    return Draw(chosen, plan, params, horizons, events, at_risk, required)


class Draw(NamedTuple):
    """What :func:`_draw` drew for one plan: the family, the plan and its parameters, facts, events, fact at risk.

    Facts are ``F1 … F{len(horizons)}``; ``events`` are (tick, fact number,
    code) triples (:data:`REPLACE`, :data:`AMBIGUOUS_CHANGE`, :data:`FALSE_ALARM`).
    """

    family: str
    plan: PlanGraph
    params: dict[str, int]
    horizons: list[int | None]
    events: list[tuple[int, int, int]]
    at_risk: str
    required: list[str]


class MaskDraw(NamedTuple):
    """One plan of a family as bit masks (fact ``F{k+1}`` is bit ``1 << k``): what a sweep's row reads.

    ``closures`` holds each step's closure mask in execution order, so
    ``len(closures)`` is the plan's number of steps; ``required`` lists the
    numbers of the facts the plan requires, in the order of
    ``sorted(plan.facts)``; ``horizons`` and ``events`` are :class:`Draw`'s;
    ``at_risk`` is the number of the fact at risk.
    """

    family: str
    closures: list[int]
    first_action: int
    required: list[int]
    horizons: list[int | None]
    events: list[tuple[int, int, int]]
    at_risk: int


def family_mask_draws(
    seed: int, start: int, stop: int, *, family: str = "mixed", max_steps: int = 60
) -> Iterator[MaskDraw]:
    """Plans ``start … stop-1`` of a family as closure bit masks in execution order: the same plans, no graph built.

    A sweep's row needs of a plan only each step's closure in execution
    order, where the first action is and which facts it requires; building a
    :class:`~cvlib.core.graph.PlanGraph` (its columns, Kahn's order, the
    interned closures) was most of the time a small random plan took. Here
    every plan is drawn with the very draws of :func:`family_draws` (the same
    ``getrandbits`` calls in the same order: the draws are the plan), and its
    closures are made as masks while it is drawn; the execution order, which
    breaks ties by the smallest step id as a string, is the index order for
    every family but layered plans of more than ten layers (``"R10_0"`` sorts
    before ``"R2_0"``), which run Kahn's algorithm on integer keys that sort
    as the ids do.

    Parameters
    ----------
    seed : int
        The family's seed.
    start, stop : int
        Plan numbers, ``stop`` excluded.
    family : str
        As for :func:`random_setup`.
    max_steps : int
        As for :func:`random_setup`.

    Returns
    -------
    iterator of MaskDraw
        The plans of :func:`random_setups`, in index order.
    """
    require_choice("plan family", family, (*FAMILIES, "mixed"))
    sizes.random_plan_size(family, max_steps).check()
    seed = require_int("seed", seed)
    start = require_int("start", start, minimum=0)
    stop = require_int("stop", stop, minimum=start)
    max_steps = require_int("max_steps", max_steps, minimum=1)
    return map(MaskDraw._make, _mask_draws(seed, start, stop, family, max_steps))


def _mask_draws(
    seed: int, start: int, stop: int, family: str, max_steps: int
) -> Iterator[tuple[str, list[int], int, list[int], list[int | None], list[tuple[int, int, int]], int]]:
    """:func:`family_mask_draws` as plain tuples (a sweep's rows unpack them), the arguments trusted."""
    main, sub = random.Random(), random.Random()
    for index in range(start, stop):
        yield _mask_draw(main, sub, seed, index, family, max_steps)


def _mask_draw(
    main: random.Random, sub: random.Random, seed: int, index: int, family: str, max_steps: int
) -> tuple[str, list[int], int, list[int], list[int | None], list[tuple[int, int, int]], int]:
    """:func:`_draw` with the plan made as masks (:func:`_plan_masks`), as :class:`MaskDraw`'s fields; the arguments are trusted."""
    _seed(main, _plan_seed(main, seed, index))
    bits = main.getrandbits
    chosen = FAMILIES[_below(bits, len(FAMILIES))] if family == "mixed" else family
    _seed(sub, bits(63))
    closures, first_action, required = _plan_masks(sub, chosen, max_steps)
    horizon = len(closures) + 2
    count = max(required) + 1
    _seed(sub, bits(63))
    horizons = _horizons(sub, count, horizon, 0.2)
    _seed(sub, bits(63))
    events = _event_draws(sub, count, horizon, 0.5, 0.25, 0.15)
    at_risk = required[_below(bits, len(required))]
    return chosen, closures, first_action, required, horizons, events, at_risk


def _setup(main: random.Random, sub: random.Random, seed: int, index: int, family: str, max_steps: int) -> ScenarioSetup:
    """:func:`random_setup` from :func:`_draw`'s draws."""
    chosen, plan, params, horizons, draws, at_risk, _ = _draw(main, sub, seed, index, family, max_steps)
    names = [f"F{i + 1}" for i in range(len(horizons))]
    return ScenarioSetup(
        name=f"random-{chosen}",
        plan=plan,
        facts=tuple(Fact(f, 0, valid_until=v) for f, v in zip(names, horizons)),
        events=_as_events(names, draws),
        at_risk=at_risk,
        budget=len(plan) + plan.closure_size(at_risk) + 1,
        params={"family": chosen, "seed": seed, "index": index, "max_steps": max_steps, **{f"plan_{k}": v for k, v in params.items()}},
        description=f"Random {chosen} plan number {index} of seed {seed}.",
    )


def family_draws(seed: int, start: int, stop: int, *, family: str = "mixed", max_steps: int = 60) -> Iterator[Draw]:
    """Plans ``start … stop-1`` of a family as raw draws (no facts, events or setup built): what a sweep's rows need.

    Parameters
    ----------
    seed : int
        The family's seed.
    start, stop : int
        Plan numbers, ``stop`` excluded.
    family : str
        As for :func:`random_setup`.
    max_steps : int
        As for :func:`random_setup`.

    Returns
    -------
    iterator of Draw
        The same plans as :func:`random_setups`, in index order.
    """
    require_choice("plan family", family, (*FAMILIES, "mixed"))
    sizes.random_plan_size(family, max_steps).check()
    seed = require_int("seed", seed)
    start = require_int("start", start, minimum=0)
    stop = require_int("stop", stop, minimum=start)
    max_steps = require_int("max_steps", max_steps, minimum=1)
    main, sub = random.Random(), random.Random()
    for index in range(start, stop):
        yield _draw(main, sub, seed, index, family, max_steps)


def random_setups(seed: int, count: int, *, family: str = "mixed", max_steps: int = 60, start: int = 0) -> Iterator[ScenarioSetup]:
    """Scenarios ``start … start + count - 1`` of a seeded family, in index order.

    Parameters
    ----------
    seed : int
        The family's seed.
    count : int
        How many.
    family : str
        As for :func:`random_setup`.
    max_steps : int
        As for :func:`random_setup`.
    start : int
        The first index.

    Returns
    -------
    iterator of ScenarioSetup
    """
    count = require_int("count", count, minimum=0)
    start = require_int("start", start, minimum=0)
    sizes.random_plan_size(family, max_steps).check()
    require_choice("plan family", family, (*FAMILIES, "mixed"))
    seed = require_int("seed", seed)
    max_steps = require_int("max_steps", max_steps, minimum=1)
    main, sub = random.Random(), random.Random()
    for index in range(start, start + count):
        yield _setup(main, sub, seed, index, family, max_steps)

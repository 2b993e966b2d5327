"""The benchmark's three plan shapes.

Step ids are part of the mechanics, not decoration: the topological order
breaks ties by the smallest id as a string, so renaming steps can reorder a
plan. The ids below are the published ones.
"""

from __future__ import annotations

import random

from .errors import ParameterError
from .graph import PlanGraph, Step, StepKind
from .validation import require_int


def chain(depth: int, root_fact: str = "F1") -> PlanGraph:
    """A single path ``S0 → S1 → … → S{depth-1}``.

    ``S0`` is a plan step requiring ``root_fact``, the last step is the action
    and the rest are decisions; with ``depth == 1`` the only step is an action
    that requires ``root_fact`` itself.
    """
    depth = require_int("depth", depth, minimum=1)
    steps = []
    for i in range(depth):
        if i == depth - 1:
            kind = StepKind.ACTION
        elif i == 0:
            kind = StepKind.PLAN
        else:
            kind = StepKind.DECISION
        steps.append(
            Step(
                id=f"S{i}",
                kind=kind,
                requires=frozenset({root_fact}) if i == 0 else frozenset(),
                predecessors=(f"S{i - 1}",) if i else (),
            )
        )
    return PlanGraph(steps)


def branching_layer_widths(depth: int, branching_factor: int, merge_factor: int) -> list[int]:
    """Widths of the diamond's layers: fan out for the first half, merge after, end on one action."""
    widths = []
    width = 1
    for layer in range(depth):
        if layer < depth / 2:
            width = min(width * branching_factor, branching_factor**3)
        else:
            width = max(1, width // merge_factor)
        widths.append(width)
    widths[-1] = 1
    return widths


def branching(
    depth: int,
    branching_factor: int = 2,
    merge_factor: int = 2,
    seed: int = 0,
    root_fact: str = "F1",
) -> PlanGraph:
    """A diamond of layers ``L{layer}_{j}`` that fans out, then merges to one action.

    Layer 0 steps are plans requiring ``root_fact``; each later step takes
    ``min(len(previous layer), branching_factor)`` predecessors sampled from
    the previous layer by a :class:`random.Random` seeded with ``seed`` (one
    generator for the whole plan, sampled layer by layer, step by step), so the
    same seed gives the same wiring.
    """
    depth = require_int("depth", depth, minimum=1)
    branching_factor = require_int("branching_factor", branching_factor, minimum=1)
    merge_factor = require_int("merge_factor", merge_factor, minimum=1)
    seed = require_int("seed", seed)
    rng = random.Random(seed)
    widths = branching_layer_widths(depth, branching_factor, merge_factor)
    steps: list[Step] = []
    previous: list[str] = []
    last_layer = len(widths) - 1
    for layer, width in enumerate(widths):
        current = []
        for j in range(width):
            step_id = f"L{layer}_{j}"
            if layer == 0:
                predecessors: tuple[str, ...] = ()
                requires = frozenset({root_fact})
            else:
                predecessors = tuple(rng.sample(previous, min(len(previous), branching_factor)))
                requires = frozenset()
            if layer == last_layer:
                kind = StepKind.ACTION
            elif layer == 0:
                kind = StepKind.PLAN
            else:
                kind = StepKind.DECISION
            steps.append(Step(id=step_id, kind=kind, requires=requires, predecessors=predecessors))
            current.append(step_id)
        previous = current
    return PlanGraph(steps)


def multi_branch(pre_merge_depth: int, num_branches: int, post_merge_depth: int) -> PlanGraph:
    """Isolated branches, each resting on its own fact, merging into one shared segment.

    Branch ``b`` is the chain ``B{b}_0 … B{b}_{p-1}``; its first step is a plan
    requiring ``F{b+1}``. The shared segment ``M0 … M{q-1}`` starts after every
    branch's last step and ends on the action. Breaking one branch's fact
    exposes only that branch and the shared segment.
    """
    p = require_int("pre_merge_depth", pre_merge_depth, minimum=1)
    b = require_int("num_branches", num_branches, minimum=1)
    q = require_int("post_merge_depth", post_merge_depth, minimum=1)
    steps: list[Step] = []
    tails = []
    for branch in range(b):
        for i in range(p):
            steps.append(
                Step(
                    id=f"B{branch}_{i}",
                    kind=StepKind.PLAN if i == 0 else StepKind.DECISION,
                    requires=frozenset({f"F{branch + 1}"}) if i == 0 else frozenset(),
                    predecessors=(f"B{branch}_{i - 1}",) if i else (),
                )
            )
        tails.append(f"B{branch}_{p - 1}")
    for i in range(q):
        steps.append(
            Step(
                id=f"M{i}",
                kind=StepKind.ACTION if i == q - 1 else StepKind.DECISION,
                predecessors=tuple(tails) if i == 0 else (f"M{i - 1}",),
            )
        )
    return PlanGraph(steps)


def branch_facts(num_branches: int) -> list[str]:
    """The private facts of :func:`multi_branch`'s branches, ``F1 … F{num_branches}``."""
    num_branches = require_int("num_branches", num_branches, minimum=1)
    return [f"F{b + 1}" for b in range(num_branches)]


GENERATORS = {"chain": chain, "branching": branching, "multi_branch": multi_branch}


def generate(name: str, **params: object) -> PlanGraph:
    """Build a plan with the generator called ``name`` (used by scenario spec files)."""
    try:
        generator = GENERATORS[name]
    except KeyError:
        raise ParameterError(
            f"unknown plan generator {name!r}; expected one of {', '.join(sorted(GENERATORS))}"
        ) from None
    try:
        return generator(**params)  # type: ignore[operator]
    except TypeError as err:
        raise ParameterError(f"generator {name!r}: {err}") from None

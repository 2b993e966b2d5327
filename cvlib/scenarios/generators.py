"""The benchmark's three plan shapes.

Step ids are part of the mechanics, not decoration: the topological order
breaks ties by the smallest id as a string, so renaming steps can reorder a
plan. The ids below are the published ones.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable
from itertools import accumulate

from cvlib.core.errors import ParameterError
from cvlib.core.graph import PlanGraph, StepKind
from cvlib.core.validation import require_int, require_name
from cvlib.scenarios import sizes

_EMPTY: frozenset[str] = frozenset()


def chain(depth: int, root_fact: str = "F1") -> PlanGraph:
    """A single path ``S0 → S1 → … → S{depth-1}``.

    ``S0`` is a plan step requiring ``root_fact``, the last step is the action
    and the rest are decisions; with ``depth == 1`` the only step is an action
    that requires ``root_fact`` itself.
    """
    sizes.chain_size(depth).check()
    depth = require_int("depth", depth, minimum=1)
    root_fact = require_name("root_fact", root_fact)
    kinds = [StepKind.DECISION] * depth
    kinds[0] = StepKind.PLAN
    kinds[-1] = StepKind.ACTION
    requires = [_EMPTY] * depth
    requires[0] = frozenset({root_fact})
    # Step i's only predecessor is i - 1: CSR pointers 0, 0, 1, 2, ..., depth - 1.
    pointers = array("q", range(-1, depth))
    pointers[0] = 0
    indices = array("q", range(depth - 1))
    return PlanGraph._from_columns(
        [f"S{i}" for i in range(depth)],
        kinds,
        requires,
        (pointers, indices),
        order=range(depth),  # one ready step at a time
        closures=[requires[0]] * depth,
    )


def _sample_positions(getrandbits: Callable[[int], int], n: int, k: int) -> list[int]:
    """``random.Random.sample(range(n), k)``, draw for draw, without its per-call overhead.

    The wiring of :func:`branching` is defined by :meth:`random.Random.sample`;
    this is CPython's algorithm for it (3.11 and later) written for a range, so
    the same seed gives the same plan. ``tests/test_generators_fast.py`` checks
    it against :meth:`random.Random.sample` over many seeds and sizes.
    """
    result = [0] * k
    setsize = 21  # CPython's threshold between its two sampling methods
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = list(range(n))
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            r = getrandbits(bits)
            while r >= m:
                r = getrandbits(bits)
            result[i] = pool[r]
            pool[r] = pool[m - 1]
    else:
        bits = n.bit_length()
        selected: set[int] = set()
        for i in range(k):
            r = getrandbits(bits)
            while r >= n or r in selected:
                r = getrandbits(bits)
            selected.add(r)
            result[i] = r
    return result


def branching_layer_widths(depth: int, branching_factor: int, merge_factor: int) -> list[int]:
    """Widths of the diamond's layers: fan out for the first half, merge after, end on one action."""
    sizes.branching_size(depth, branching_factor, merge_factor).check()
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
    sizes.branching_size(depth, branching_factor, merge_factor).check()
    depth = require_int("depth", depth, minimum=1)
    branching_factor = require_int("branching_factor", branching_factor, minimum=1)
    merge_factor = require_int("merge_factor", merge_factor, minimum=1)
    seed = require_int("seed", seed)
    root_fact = require_name("root_fact", root_fact)
    getrandbits = random.Random(seed).getrandbits
    widths = branching_layer_widths(depth, branching_factor, merge_factor)
    ids: list[str] = []
    kinds: list[StepKind] = []
    predecessors: list[tuple[int, ...]] = []
    order: list[int] = []
    previous_start = previous_width = 0
    last_layer = len(widths) - 1
    for layer, width in enumerate(widths):
        start = len(ids)
        kind = StepKind.ACTION if layer == last_layer else StepKind.PLAN if layer == 0 else StepKind.DECISION
        ids.extend([f"L{layer}_{j}" for j in range(width)])
        kinds.extend([kind] * width)
        if layer:
            # The draws of rng.sample(previous_layer_ids, take), as step indices.
            take = min(previous_width, branching_factor)
            for _ in range(width):
                picks = _sample_positions(getrandbits, previous_width, take)
                predecessors.append(tuple([previous_start + k for k in picks]))
        else:
            predecessors.extend([()] * width)
        # Kahn's order without the heap while layer numbers have one digit: a
        # layer's steps all become ready before the next layer's ids (larger
        # strings) can be popped, and within a layer "L3_10" < "L3_2".
        order.extend(sorted(range(start, start + width), key=ids.__getitem__))
        previous_start, previous_width = start, width
    root = frozenset({root_fact})
    requires = [root] * widths[0] + [_EMPTY] * (len(ids) - widths[0])
    # Every step descends from layer 0, so every closure is {root_fact}.
    return PlanGraph._from_columns(
        ids, kinds, requires, predecessors, order=order if depth <= 10 else None, closures=[root] * len(ids)
    )


def multi_branch(pre_merge_depth: int, num_branches: int, post_merge_depth: int) -> PlanGraph:
    """Isolated branches, each resting on its own fact, merging into one shared segment.

    Branch ``b`` is the chain ``B{b}_0 … B{b}_{p-1}``; its first step is a plan
    requiring ``F{b+1}``. The shared segment ``M0 … M{q-1}`` starts after every
    branch's last step and ends on the action. Breaking one branch's fact
    exposes only that branch and the shared segment.
    """
    sizes.multi_branch_size(pre_merge_depth, num_branches, post_merge_depth).check()
    p = require_int("pre_merge_depth", pre_merge_depth, minimum=1)
    b = require_int("num_branches", num_branches, minimum=1)
    q = require_int("post_merge_depth", post_merge_depth, minimum=1)
    ids: list[str] = []
    kinds: list[StepKind] = []
    requires: list[frozenset[str]] = []
    closures: list[frozenset[str]] = []
    for branch in range(b):
        own = frozenset({f"F{branch + 1}"})
        ids.extend(f"B{branch}_{i}" for i in range(p))
        kinds.append(StepKind.PLAN)
        kinds.extend([StepKind.DECISION] * (p - 1))
        requires.append(own)
        requires.extend([_EMPTY] * (p - 1))
        closures.extend([own] * p)
    ids.extend(f"M{i}" for i in range(q))
    kinds.extend([StepKind.DECISION] * (q - 1) + [StepKind.ACTION])
    requires.extend([_EMPTY] * q)
    closures.extend([frozenset(f"F{branch + 1}" for branch in range(b))] * q)
    # Predecessors in CSR form: within a branch, step i follows i - 1; M0 follows
    # every branch's tail; M{i} follows M{i-1}.
    counts = ([0] + [1] * (p - 1)) * b + [b] + [1] * (q - 1)
    pointers = array("q", accumulate(counts, initial=0))
    indices = array("q")
    for branch in range(b):
        indices.extend(range(branch * p, branch * p + p - 1))
    indices.extend(range(p - 1, b * p, p))  # every branch's tail, in branch order
    indices.extend(range(b * p, b * p + q - 1))
    # Kahn's order here, without the heap: branches run whole, in the string
    # order of their first ids ("B10_0" < "B1_0"), then the shared segment.
    branch_order = sorted(range(b), key=lambda branch: f"B{branch}_")
    order = [branch * p + i for branch in branch_order for i in range(p)]
    order.extend(range(b * p, b * p + q))
    return PlanGraph._from_columns(ids, kinds, requires, (pointers, indices), order=order, closures=closures)


def branch_facts(num_branches: int) -> list[str]:
    """The private facts of :func:`multi_branch`'s branches, ``F1 … F{num_branches}``."""
    num_branches = require_int("num_branches", num_branches, minimum=1)
    sizes.facts_size(num_branches).check()
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

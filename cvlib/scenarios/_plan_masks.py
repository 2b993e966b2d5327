"""Random plans drawn as closure bit masks, for a sweep's rows, with no graph built.

:func:`cvlib.scenarios.random_plans.family_mask_draws` draws each plan with
the very draws of :func:`~cvlib.scenarios.random_plans.family_draws` (the
draws *are* the plan) and makes, while drawing, what a sweep's row needs of
it: each step's closure as a bit mask (fact ``F{k+1}`` is bit ``1 << k``)
in execution order, where the first action is, and which facts it requires.
What the generators would build around the draws is known by construction
for every family but layered plans, whose masks, and order past ten layers,
are worked out here layer by layer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache
from heapq import heappop, heappush

from cvlib.scenarios import sizes
from cvlib.scenarios._draws import below, sample, seed


def plan_masks(rng: random.Random, family: str, max_steps: int) -> tuple[list[int], int, list[int]]:
    """:func:`~cvlib.scenarios.random_plans._plan`'s plan as (closure masks in execution order, first action's position, required fact numbers).

    The draws are :func:`~cvlib.scenarios.random_plans._plan`'s, one for one. What the generators build
    around them is known by construction: a chain, a diamond of at most ten
    layers, isolated branches and a fan-out of at most ten branches (of at
    most ten steps a level) run in index order, their only action last;
    every step of a chain or a diamond rests on ``F1``, every step of a
    branch on that branch's fact, the shared segment on all of them.
    :func:`~cvlib.scenarios.random_plans._plan` caps diamonds at eight layers, branches at eight and a
    fan-out's levels at four steps, so no other case arises. A diamond's
    wiring is drawn from its own stream, which no closure depends on, so it
    is not drawn at all.

    Parameters
    ----------
    rng : random.Random
        The plan's own stream, seeded.
    family : str
        One of :data:`~cvlib.scenarios.random_plans.FAMILIES`.
    max_steps : int
        About how many steps the plan may have.

    Returns
    -------
    tuple
        ``(closure masks in execution order, first action's position, required fact numbers)``.
    """
    bits = rng.getrandbits
    if family == "chain":
        depth = 1 + below(bits, max_steps)
        return [1] * depth, depth - 1, [0]
    if family == "branching":
        bf = 1 + below(bits, 3)
        depth = 1 + below(bits, max(1, min(8, max_steps // max(1, bf**2))))
        merge = 1 + below(bits, 3)
        below(bits, 2**31)  # the wiring's seed: no closure depends on the wiring, and nothing draws after it
        n = diamond_steps(depth, bf, merge)
        return [1] * n, n - 1, [0]
    if family == "multi_branch":
        p = 1 + below(bits, max(1, min(8, max_steps // 4)))
        b = 1 + below(bits, max(1, min(8, max_steps // (p + 1))))
        q = 1 + below(bits, 4)
        closures = []
        for branch in range(b):
            closures += [1 << branch] * p
        closures += [(1 << b) - 1] * q
        return closures, len(closures) - 1, list(range(b))
    if family == "layered":
        width = 1 + below(bits, 6)
        num_layers = 1 + below(bits, max(1, max_steps * 2 // (width + 1)))
        num_facts = 1 + below(bits, 6)
        seed(rng, below(bits, 2**31))
        return layered_masks(rng, num_layers, width, num_facts, 3, 0.3)
    fan = 1 + below(bits, 4)
    depth = below(bits, 4)
    num_branches = 1 + below(bits, max(1, min(8, max_steps // (1 + depth * (fan + 1) // 2 + 1))))
    wiring_seed = below(bits, 2**31)
    post_merge_depth = 1 + below(bits, 3)
    seed(rng, wiring_seed)
    closures = []
    fan_bits = fan.bit_length()
    for branch in range(num_branches):
        size = 1 + depth  # B{b}_0, then each level's width, 1 + a draw below fan_out
        for _ in range(depth):
            r = bits(fan_bits)
            while r >= fan:
                r = bits(fan_bits)
            size += r
        closures += [1 << branch] * size
    closures += [(1 << num_branches) - 1] * post_merge_depth
    return closures, len(closures) - 1, list(range(num_branches))


@lru_cache(maxsize=256)
def diamond_steps(depth: int, branching_factor: int, merge_factor: int) -> int:
    """Steps of :func:`~cvlib.scenarios.generators.branching`'s diamond (a random plan draws from 72 shapes).

    Parameters
    ----------
    depth, branching_factor, merge_factor : int
        The diamond's shape.

    Returns
    -------
    int
    """
    return sum(width * layers for width, layers in sizes.branching_layer_runs(depth, branching_factor, merge_factor))


def layered_masks(
    rng: random.Random, num_layers: int, max_width: int, num_facts: int, max_predecessors: int, require_prob: float
) -> tuple[list[int], int, list[int]]:
    """:func:`~cvlib.scenarios.random_plans._layered`'s plan, draw for draw, as (closure masks in execution order,
    action's position, facts required).

    A step's closure is its own requirement's bits OR its predecessors'
    closures. The predecessors are ``sample``'s pool method written out for
    one and two picks (the pool is only made for a third): the first pick
    is a draw ``r`` below the candidates, the second a draw below one fewer,
    which stands for the last candidate when it lands on ``r``. A draw
    below 1 is always 0 but still spends its rejected bits, so it only
    spends them. Up to ten layers Kahn's order is the index order: layer
    ``l`` becomes ready only once layer ``l - 1`` has run, and ``"R{l}_…"``
    sorts before ``"R{l+1}_…"`` while ``l + 1`` has one digit. Past that see
    :func:`layered_order`. Layers from the tenth on of a plan of more than
    ten layers also record, for that order, each step's predecessors.

    Parameters
    ----------
    rng : random.Random
        The plan's stream, seeded.
    num_layers, max_width, num_facts, max_predecessors : int
        The plan's shape, as for :func:`~cvlib.scenarios.random_plans.layered_dag`.
    require_prob : float
        The chance that a step past the first layer requires a fact of its own.

    Returns
    -------
    tuple
        ``(closure masks in execution order, the action's position, required fact numbers)``.
    """
    bits = rng.getrandbits
    masks: list[int] = []
    # Past ten layers, for Kahn's order: the successors of each step from layer 9 on (from index
    # ``layer_starts[9]``), and how many predecessors each step from layer 10 on waits for.
    successors: list[list[int]] = []
    waiting: list[int] = []
    layer_starts: list[int] = []
    keep = num_layers > 10
    every = 0  # every fact some step requires directly (the plan's facts)
    previous_start = 0
    width_bits = max_width.bit_length()
    shapes = layer_shapes(max_width, max_predecessors)
    own = _OwnFact(rng.random, bits, require_prob, num_facts)
    for layer in range(num_layers):
        width = 1 if layer == num_layers - 1 else _layer_width(bits, width_bits, max_width)
        start = len(masks)
        layer_starts.append(start)
        if layer == 9 and width == 1 and num_layers <= 100:
            keep = False  # one step in layer 9, two-digit layers: the order stays the index order (see layered_order)
        if layer == 0:
            drawn, required = _first_layer(bits, width, num_facts)
        elif keep and layer >= 10:
            head = layer_starts[9]
            if layer == 10:
                successors.extend([] for _ in range(start - head))  # layer 9's
            successors.extend([] for _ in range(width))
            drawn, required = _recorded_layer(
                bits, own, masks, previous_start, start, width, shapes[start - previous_start], head, successors, waiting
            )
        elif start - previous_start == 1:
            drawn, required = _after_one(bits, own, masks[previous_start], width, shapes[1])
        else:
            drawn, required = _layer(bits, own, masks[previous_start:start], width, shapes[start - previous_start])
        masks += drawn
        every |= required
        previous_start = start
    n = len(masks)
    facts = [k for k in range(num_facts) if every >> k & 1]
    if not keep:
        return masks, n - 1, facts
    order = layered_order(successors, waiting, layer_starts, n)
    return [masks[i] for i in order], order.index(n - 1), facts


class _OwnFact:
    """How a step past the first layer draws a fact of its own: with ``require_prob``, one below ``num_facts``.

    The layer loops read these once and draw inline (they run millions of
    times in a sweep): ``draw() < require_prob``, then rejection on
    ``facts_bits`` bits, as ``Random.random`` and ``Random._randbelow`` do.
    """

    __slots__ = ("bits", "draw", "facts_bits", "num_facts", "require_prob")

    def __init__(self, draw: Callable[[], float], bits: Callable[[int], int], require_prob: float, num_facts: int) -> None:
        self.draw, self.bits, self.require_prob = draw, bits, require_prob
        self.num_facts, self.facts_bits = num_facts, num_facts.bit_length()


def _layer_width(bits: Callable[[int], int], width_bits: int, max_width: int) -> int:
    """A layer's width, 1 … max_width (the last layer is the one action and draws none)."""
    width = bits(width_bits)
    while width >= max_width:
        width = bits(width_bits)
    return width + 1


def _first_layer(bits: Callable[[int], int], width: int, num_facts: int) -> tuple[list[int], int]:
    """Layer 0: each step requires one or two facts (as many as there are), sampled from F1 … F{num_facts}."""
    f0, f1 = num_facts, num_facts - 1
    g0, g1 = f0.bit_length(), f1.bit_length()
    drawn, every = [], 0
    for _ in range(width):
        two = bits(2)
        while two >= 2:
            two = bits(2)
        a = bits(g0)
        while a >= f0:
            a = bits(g0)
        mask = 1 << a
        if two and num_facts > 1:
            b = bits(g1)
            while b >= f1:
                b = bits(g1)
            mask |= 1 << (f1 if b == a else b)
        drawn.append(mask)
        every |= mask
    return drawn, every


def _after_one(
    bits: Callable[[int], int], own: _OwnFact, only: int, width: int, shape: tuple[int, int, int, int, int, bool]
) -> tuple[list[int], int]:
    """A layer after a one-step layer: one predecessor, the only one (both draws below 1 spend their bits)."""
    most_bits, b0 = shape[1], shape[3]
    draw, require_prob, facts_bits, num_facts = own.draw, own.require_prob, own.facts_bits, own.num_facts
    drawn, every = [], 0
    for _ in range(width):
        while bits(most_bits):
            pass
        while bits(b0):
            pass
        fact = 0
        if draw() < require_prob:  # the step's own fact (see _OwnFact), drawn inline: this loop runs millions of times
            fact = bits(facts_bits)
            while fact >= num_facts:
                fact = bits(facts_bits)
            fact = 1 << fact
        drawn.append(only | fact)
        every |= fact
    return drawn, every


def _layer(
    bits: Callable[[int], int], own: _OwnFact, previous: list[int], width: int, shape: tuple[int, int, int, int, int, bool]
) -> tuple[list[int], int]:
    """A layer's masks: each step's predecessors drawn among ``previous`` (their masks), then its own fact."""
    most, most_bits, c1, b0, b1, pooled = shape
    c0 = len(previous)
    draw, require_prob, facts_bits, num_facts = own.draw, own.require_prob, own.facts_bits, own.num_facts
    drawn, every = [], 0
    for _ in range(width):
        r = bits(most_bits)
        while r >= most:
            r = bits(most_bits)
        if r < 2 and pooled:
            a = bits(b0)
            while a >= c0:
                a = bits(b0)
            if r:
                b = bits(b1)
                while b >= c1:
                    b = bits(b1)
                mask = previous[a] | previous[c1 if b == a else b]
            else:
                mask = previous[a]
        else:
            mask = 0
            for p in sample(bits, previous, r + 1):
                mask |= p
        fact = 0
        if draw() < require_prob:  # the step's own fact (see _OwnFact), drawn inline: this loop runs millions of times
            fact = bits(facts_bits)
            while fact >= num_facts:
                fact = bits(facts_bits)
            fact = 1 << fact
        drawn.append(mask | fact)
        every |= fact
    return drawn, every


def _recorded_layer(
    bits: Callable[[int], int],
    own: _OwnFact,
    masks: list[int],
    previous_start: int,
    start: int,
    width: int,
    shape: tuple[int, int, int, int, int, bool],
    head: int,
    successors: list[list[int]],
    waiting: list[int],
) -> tuple[list[int], int]:
    """:func:`_layer` for a layer from the tenth on, also recording each step's predecessors for Kahn's order."""
    most, most_bits, c1, b0, b1, pooled = shape
    c0 = start - previous_start
    previous = masks[previous_start:start]
    base = previous_start - head
    draw, require_prob, facts_bits, num_facts = own.draw, own.require_prob, own.facts_bits, own.num_facts
    drawn, every = [], 0
    for step in range(start, start + width):
        r = bits(most_bits)
        while r >= most:
            r = bits(most_bits)
        take = r + 1
        if take <= 2 and pooled:
            a = bits(b0)
            while a >= c0:
                a = bits(b0)
            if take == 1:
                mask = previous[a]
                successors[base + a].append(step)
                waiting.append(1)
            else:
                b = bits(b1)
                while b >= c1:
                    b = bits(b1)
                if b == a:  # the pool's hole at a holds the last candidate
                    b = c1
                mask = previous[a] | previous[b]
                successors[base + a].append(step)
                successors[base + b].append(step)
                waiting.append(2)
        else:
            mask = 0
            for p in sample(bits, range(previous_start, start), take):
                mask |= masks[p]
                successors[p - head].append(step)
            waiting.append(take)
        fact = 0
        if draw() < require_prob:  # the step's own fact (see _OwnFact), drawn inline: this loop runs millions of times
            fact = bits(facts_bits)
            while fact >= num_facts:
                fact = bits(facts_bits)
            fact = 1 << fact
        drawn.append(mask | fact)
        every |= fact
    return drawn, every


@lru_cache(maxsize=64)
def layer_shapes(max_width: int, max_predecessors: int) -> list[tuple[int, int, int, int, int, bool]]:
    """What a layer's draws depend on, by how many candidates (steps of the layer before) it has.

    Each entry is (most predecessors, its bits, one fewer candidate, the
    bits of both, whether ``sample`` pools them); a random plan has one of
    six widths, so the table is made once per width.

    Parameters
    ----------
    max_width : int
        The widest a layer may be.
    max_predecessors : int
        The most predecessors a step may have.

    Returns
    -------
    list of tuple
    """
    return [
        (min(max_predecessors, c), min(max_predecessors, c).bit_length(), c - 1, c.bit_length(), (c - 1).bit_length(), c <= 21)
        for c in range(max_width + 1)
    ]


def layered_order(successors: list[list[int]], waiting: list[int], layer_starts: list[int], n: int) -> list[int]:
    """Kahn's order of a layered plan of more than ten layers, ties broken as ``R{l}_{j}`` sorts as a string.

    Layers 0 to 8 run whole, in index order, as in a plan of ten layers: a
    layer-10 step, the first whose id sorts out of layer order (``"R10_0"``
    < ``"R2_0"``), can be ready only once a layer-9 step has run. From
    layer 9 on, Kahn's algorithm runs on a heap of integer keys (the rank
    of ``"{l}_"`` among the layers' strings, then the index), which sort
    as the ids do as long as a layer has at most ten steps (:func:`~cvlib.scenarios.random_plans._plan`
    draws at most six). ``successors`` holds those of the steps from layer
    9 on, ``waiting`` the predecessor counts of the steps from layer 10 on.
    A plan whose layer 9 has a single step needs none of this: once it has
    run, all of layer 10 is ready and runs in index order before any step
    of layer 11 (``"R10_"`` sorts before ``"R11_"``), which is then all
    ready, and so on, so its order is the index order, as long as no layer
    has three digits (``"R100_"`` sorts before ``"R99_"``, the same break
    again).

    Parameters
    ----------
    successors : list of list of int
        The successors of each step from layer 9 on.
    waiting : list of int
        How many predecessors each step from layer 10 on waits for.
    layer_starts : list of int
        The index of each layer's first step.
    n : int
        The number of steps.

    Returns
    -------
    list of int
        Step indices in execution order.
    """
    ranks = layer_ranks(len(layer_starts))
    shift = n.bit_length()
    low = (1 << shift) - 1
    head, first = layer_starts[9], layer_starts[10]
    keys = [0] * head
    for layer in range(9, len(layer_starts)):
        lo = layer_starts[layer]
        hi = layer_starts[layer + 1] if layer + 1 < len(layer_starts) else n
        high = ranks[layer] << shift  # its low bits are clear, so high | i == high + i
        keys += range(high + lo, high + hi)
    waiting = [0] * first + waiting
    order = list(range(head))
    ready = keys[head:first]  # layer 9, all ready once layer 8 has run, already in key order
    while ready:
        i = heappop(ready) & low
        order.append(i)
        for s in successors[i - head]:
            waiting[s] -= 1
            if not waiting[s]:
                heappush(ready, keys[s])
    return order


# At index l, the rank of f"{l}_" among the strings of layers 0 … len - 1 (the order of the layers' ids).
_LAYER_RANKS: list[int] = []


def layer_ranks(count: int) -> list[int]:
    """Ranks of layers ``0 … count-1`` in the string order of their ids (``"10_"`` < ``"1_"`` < ``"2_"``), grown on demand.

    The string order is total, so the ranks among more layers sort any
    fewer of them as well.

    Parameters
    ----------
    count : int
        How many layers.

    Returns
    -------
    list of int
        At least ``count`` ranks, by layer.
    """
    global _LAYER_RANKS
    if len(_LAYER_RANKS) < count:
        size = max(count, 2 * len(_LAYER_RANKS), 64)
        ranks = [0] * size
        for rank, layer in enumerate(sorted(range(size), key="{}_".format)):
            ranks[layer] = rank
        _LAYER_RANKS = ranks
    return _LAYER_RANKS

"""Every deterministic plan shape: the benchmark's three (chain, diamond, isolated branches), one builder each.

The chain also makes the staged chains of X1 (several actions) and the
chains of X4 whose steps read further facts; the random plan families are in
:mod:`cvlib.scenarios.random_plans`.

Step ids are part of the mechanics, not decoration: the topological order
breaks ties by the smallest id as a string, so renaming steps can reorder a
plan. The ids below are the published ones.

What the generators hand the plan, so that a plan of a million steps is built
in a few C-level passes and holds no per-step objects: ids as
:class:`~cvlib.core.graph.CompactIds` (made from the index when asked for),
kinds as one byte a step, requirements as a sparse column, predecessors in
CSR arrays, and what they know by construction (the execution order, the
closures, where runs of one closure start, the links, the longest path),
each kept equal to what the general algorithm computes by the test suite.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, compress, cycle, repeat
from itertools import chain as concatenated

from cvlib.core._typing import overload
from cvlib.core.errors import ParameterError
from cvlib.core.graph import (
    ACTION_CODE,
    CSR,
    DECISION_CODE,
    PLAN_CODE,
    CompactIds,
    PlanGraph,
    RunColumns,
    parse_index,
)
from cvlib.core.validation import require_int, require_name
from cvlib.scenarios import sizes

_EMPTY: frozenset[str] = frozenset()


class _NumberedIds(CompactIds):
    """``{prefix}0 … {prefix}{n-1}`` (a chain's ``S0 … S{depth-1}``)."""

    __slots__ = ("_prefix", "_n")

    def __init__(self, prefix: str, n: int) -> None:
        self._prefix, self._n = prefix, n

    def __len__(self) -> int:
        return self._n

    def make(self, index: int) -> str:
        return f"{self._prefix}{index}"

    def find(self, step_id: str) -> int:
        if not step_id.startswith(self._prefix):
            return -1
        i = parse_index(step_id[len(self._prefix) :])
        return i if i < self._n else -1


class _BranchIds(CompactIds):
    """:func:`multi_branch`'s ids: ``B{b}_{i}`` for ``b`` branches of ``p`` steps, then ``M0 … M{q-1}``."""

    __slots__ = ("_p", "_b", "_q")

    def __init__(self, p: int, b: int, q: int) -> None:
        self._p, self._b, self._q = p, b, q

    def __len__(self) -> int:
        return self._b * self._p + self._q

    def make(self, index: int) -> str:
        branch, i = divmod(index, self._p)
        return f"B{branch}_{i}" if branch < self._b else f"M{index - self._b * self._p}"

    def find(self, step_id: str) -> int:
        if step_id.startswith("M"):
            i = parse_index(step_id[1:])
            return self._b * self._p + i if 0 <= i < self._q else -1
        branch_text, _, i_text = step_id[1:].partition("_")
        branch, i = parse_index(branch_text), parse_index(i_text)
        if not step_id.startswith("B") or not 0 <= branch < self._b or not 0 <= i < self._p:
            return -1
        return branch * self._p + i


class _LayerIds(CompactIds):
    """:func:`branching`'s ids: ``L{layer}_{j}`` for ``j`` below the layer's width."""

    __slots__ = ("_widths", "_starts")

    def __init__(self, widths: list[int]) -> None:
        self._widths = widths
        self._starts = list(accumulate(widths, initial=0))

    def __len__(self) -> int:
        return self._starts[-1]

    def make(self, index: int) -> str:
        layer = bisect_right(self._starts, index) - 1
        return f"L{layer}_{index - self._starts[layer]}"

    def find(self, step_id: str) -> int:
        layer_text, _, j_text = step_id[1:].partition("_")
        layer, j = parse_index(layer_text), parse_index(j_text)
        if not step_id.startswith("L") or not 0 <= layer < len(self._widths) or not 0 <= j < self._widths[layer]:
            return -1
        return self._starts[layer] + j


class _SparseRequires(Sequence[frozenset[str]]):
    """A requirement column that is empty except at a few steps (no list of a million empty sets)."""

    __slots__ = ("_n", "_at")

    def __init__(self, n: int, at: dict[int, frozenset[str]]) -> None:
        self._n, self._at = n, at

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> frozenset[str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[frozenset[str]]: ...

    def __getitem__(self, index: int | slice) -> frozenset[str] | list[frozenset[str]]:
        if isinstance(index, slice):
            return [self._at.get(i, _EMPTY) for i in range(*index.indices(self._n))]
        if not -self._n <= index < self._n:
            raise IndexError(f"step index {index} out of range for {self._n} steps")
        return self._at.get(index % self._n, _EMPTY)

    def __iter__(self) -> Iterator[frozenset[str]]:
        return map(self._at.get, range(self._n), repeat(_EMPTY))


class _Repeated(Sequence[frozenset[str]]):
    """One closure object for every step (a chain's, a diamond's): no list of a million pointers."""

    __slots__ = ("_n", "_value")

    def __init__(self, n: int, value: frozenset[str]) -> None:
        self._n, self._value = n, value

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> frozenset[str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[frozenset[str]]: ...

    def __getitem__(self, index: int | slice) -> frozenset[str] | list[frozenset[str]]:
        if isinstance(index, slice):
            return [self._value] * len(range(*index.indices(self._n)))
        if not -self._n <= index < self._n:
            raise IndexError(f"step index {index} out of range for {self._n} steps")
        return self._value

    def __iter__(self) -> Iterator[frozenset[str]]:
        return repeat(self._value, self._n)


def action_positions(depth: int, num_actions: int) -> list[int]:
    """Where a chain's actions sit: evenly spaced, the last one last.

    Parameters
    ----------
    depth : int
        Steps in the chain.
    num_actions : int
        Actions, at most ``depth``.

    Returns
    -------
    list of int
        Zero-based positions, ascending.
    """
    depth = require_int("depth", depth, minimum=1)
    num_actions = require_int("num_actions", num_actions, minimum=1)
    if num_actions > depth:
        raise ParameterError(f"num_actions must be at most depth ({depth}), got {num_actions}")
    return [-(-k * depth // num_actions) - 1 for k in range(1, num_actions + 1)]


def _also_required(depth: int, also_requires: Mapping[int, Iterable[str]]) -> dict[int, frozenset[str]]:
    """``also_requires`` checked: positions of the chain, each to a set of fact names."""
    if not isinstance(also_requires, Mapping):
        raise ParameterError(
            f"also_requires must map step positions to lists of fact ids, got {type(also_requires).__name__}"
        )
    out: dict[int, frozenset[str]] = {}
    for position, names in also_requires.items():
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < depth:
            raise ParameterError(f"also_requires is keyed by step positions 0 to {depth - 1}, got {position!r}")
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise ParameterError(f"also_requires[{position}] must be a list of fact ids, got {names!r}")
        out[position] = frozenset(require_name(f"a fact id in also_requires[{position}]", n) for n in names)
    return out


def chain(
    depth: int,
    root_fact: str = "F1",
    *,
    num_actions: int = 1,
    also_requires: Mapping[int, Iterable[str]] | None = None,
) -> PlanGraph:
    """A single path ``S0 → S1 → … → S{depth-1}``: the one chain builder.

    ``S0`` is a plan step requiring ``root_fact``, the last step is the action
    and the rest are decisions; with ``depth == 1`` the only step is an action
    that requires ``root_fact`` itself. With ``num_actions > 1`` the actions
    are evenly spaced, the last at the end (:func:`action_positions`): a
    *staged* chain, where, say, a booking, a payment and a confirmation each
    touch the world; its ids are zero-padded (``S00 … S11``) so that they
    sort in order. ``also_requires`` adds facts to the steps at the given
    positions (X4's record count read at step 1).

    Parameters
    ----------
    depth : int
        Steps (at least 1).
    root_fact : str
        The fact the first step requires.
    num_actions : int
        Actions, at most ``depth`` (1: the article's chain).
    also_requires : mapping of int to list of str, optional
        Step position -> further facts that step requires.

    Returns
    -------
    PlanGraph
    """
    sizes.chain_size(depth).check()
    depth = require_int("depth", depth, minimum=1)
    root_fact = require_name("root_fact", root_fact)
    num_actions = require_int("num_actions", num_actions, minimum=1)
    root = frozenset({root_fact})
    # Step i's only predecessor is i - 1: CSR pointers 0, 0, 1, 2, ..., depth - 1.
    pointers = array("q", range(-1, depth))
    pointers[0] = 0
    indices = array("q", range(depth - 1))
    if num_actions > 1 or also_requires:
        return _general_chain(depth, root, num_actions, also_requires or {}, CSR(pointers, indices))
    if depth == 1:
        kinds = bytes([ACTION_CODE])
    else:
        kinds = bytes([PLAN_CODE]) + bytes([DECISION_CODE]) * (depth - 2) + bytes([ACTION_CODE])
    return PlanGraph.from_columns(
        _NumberedIds("S", depth),
        kinds,
        _SparseRequires(depth, {0: root}),
        CSR(pointers, indices),
        order=range(depth),  # one ready step at a time
        closures=_Repeated(depth, root),
        run_starts=[0, depth],
        links=[0],
        longest=depth,
    )


def _general_chain(
    depth: int, root: frozenset[str], num_actions: int, also_requires: Mapping[int, Iterable[str]], links: CSR
) -> PlanGraph:
    """:func:`chain` with several actions or further requirements: the closures are left to the plan to work out."""
    at = _also_required(depth, also_requires)
    at[0] = root | at.get(0, _EMPTY)
    actions = action_positions(depth, num_actions)
    kinds = bytearray([DECISION_CODE]) * depth
    kinds[0] = PLAN_CODE
    for position in actions:
        kinds[position] = ACTION_CODE
    ids: Sequence[str]
    if num_actions > 1:
        width = len(str(depth - 1))
        ids = [f"S{i:0{width}d}" for i in range(depth)]
    else:
        ids = _NumberedIds("S", depth)
    return PlanGraph.from_columns(ids, bytes(kinds), _SparseRequires(depth, at), links, order=range(depth))


def _sample_positions(getrandbits: Callable[[int], int], n: int, k: int) -> list[int]:
    """``random.Random.sample(range(n), k)``, draw for draw, without its per-call overhead.

    The wiring of :func:`branching` is defined by :meth:`random.Random.sample`;
    this is CPython's algorithm for it (3.11 and later) written for a range, so
    the same seed gives the same plan. :func:`branching` runs the same
    algorithm inline, a layer at a time; both are checked against
    :meth:`random.Random.sample` over many seeds and sizes.
    """
    result = [0] * k
    if n <= _pool_limit(k):
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


def _pool_limit(k: int) -> int:
    """CPython's threshold between :meth:`random.Random.sample`'s two methods, for ``k`` picks."""
    setsize = 21
    if k > 5:
        from math import ceil, log

        setsize += 4 ** ceil(log(k * 3, 4))
    return setsize


def _wire_layer(getrandbits: Callable[[int], int], out: list[int], base: int, n: int, k: int, width: int) -> None:
    """Append, for each of ``width`` steps, ``k`` predecessors sampled from the ``n`` steps from index ``base``.

    Exactly ``[base + j for j in rng.sample(range(n), k)]`` for each step in
    turn (see :func:`_sample_positions`), with the per-call work of
    :meth:`random.Random.sample` (its checks, the pool's set-up, the bit
    lengths) done once for the layer, and the first four picks, which are
    all of a diamond's up to a branching factor of four, written out: this
    loop is most of the time it takes to build a small diamond.
    """
    append = out.append
    if k == 1:  # both of sample's methods draw one number below n
        bits = n.bit_length()
        for _ in range(width):
            r = getrandbits(bits)
            while r >= n:
                r = getrandbits(bits)
            append(base + r)
        return
    if n <= _pool_limit(k):
        # Pool method: pick from a shrinking pool, moving the last candidate into the hole.
        template = list(range(base, base + n))
        m1, m2, m3 = n - 1, n - 2, n - 3
        b0, b1 = n.bit_length(), m1.bit_length()
        b2 = m2.bit_length() if k > 2 else 0
        b3 = m3.bit_length() if k > 3 else 0
        rest = [(n - i, (n - i).bit_length()) for i in range(4, k)]
        for _ in range(width):
            pool = template[:]
            r = getrandbits(b0)
            while r >= n:
                r = getrandbits(b0)
            append(pool[r])
            pool[r] = pool[m1]
            r = getrandbits(b1)
            while r >= m1:
                r = getrandbits(b1)
            append(pool[r])
            if k == 2:
                continue
            pool[r] = pool[m2]
            r = getrandbits(b2)
            while r >= m2:
                r = getrandbits(b2)
            append(pool[r])
            if k == 3:
                continue
            pool[r] = pool[m3]
            r = getrandbits(b3)
            while r >= m3:
                r = getrandbits(b3)
            append(pool[r])
            if rest:
                pool[r] = pool[m3 - 1]
                for m, bits in rest:
                    r = getrandbits(bits)
                    while r >= m:
                        r = getrandbits(bits)
                    append(pool[r])
                    pool[r] = pool[m - 1]
        return
    # Set method: draw below n from the whole layer, redrawing what was already picked.
    bits = n.bit_length()
    for _ in range(width):
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        first = r
        append(base + r)
        r = getrandbits(bits)
        while r >= n or r == first:
            r = getrandbits(bits)
        append(base + r)
        if k == 2:
            continue
        second = r
        r = getrandbits(bits)
        while r >= n or r == first or r == second:
            r = getrandbits(bits)
        append(base + r)
        if k == 3:
            continue
        picked = {first, second, r}
        for _ in range(k - 3):
            r = getrandbits(bits)
            while r >= n or r in picked:
                r = getrandbits(bits)
            picked.add(r)
            append(base + r)


class _Wiring:
    """A diamond's predecessor indices, drawn when the plan is first asked for them (see :class:`CSR`).

    Running a diamond reads its closures and its order, which
    :func:`branching` knows by construction, never its wiring; the draws are
    most of the time it takes to build one, so the plan holds this instead and
    calls it at most once. The draws are those :func:`branching` defines: one
    :class:`random.Random` seeded with ``seed`` for the whole plan, layer by
    layer, step by step. A plain class (not a closure), so a plan pickles.
    """

    __slots__ = ("seed", "widths", "branching_factor")

    def __init__(self, seed: int, widths: list[int], branching_factor: int) -> None:
        self.seed, self.widths, self.branching_factor = seed, widths, branching_factor

    def __call__(self) -> Sequence[int]:
        import random  # only the diamonds draw: a chain never loads the module

        getrandbits = random.Random(self.seed).getrandbits
        indices: list[int] = []
        start = previous_width = 0
        for layer, width in enumerate(self.widths):
            if layer:
                # The draws of rng.sample(previous_layer_ids, take), as step indices.
                take = min(previous_width, self.branching_factor)
                _wire_layer(getrandbits, indices, start - previous_width, previous_width, take, width)
            start, previous_width = start + width, width
        return indices if len(indices) <= _SMALL_CSR else array("q", indices)

    def __getstate__(self) -> tuple[int, list[int], int]:
        return self.seed, self.widths, self.branching_factor

    def __setstate__(self, state: tuple[int, list[int], int]) -> None:
        self.seed, self.widths, self.branching_factor = state


#: :func:`_string_order` of the widths from 11 to 100 already asked for (a diamond's layers repeat them).
_STRING_ORDERS: dict[int, list[int]] = {}


def _string_order(width: int) -> Sequence[int]:
    """``0 … width-1`` sorted as decimal strings (``sorted(range(width), key=str)``), which Kahn's tie-break follows."""
    if width <= 10:
        return range(width)
    if width > 100:
        return sorted(range(width), key=str)
    known = _STRING_ORDERS.get(width)
    if known is not None:
        return known
    out = [0]
    for d in range(1, 10):  # "1" < "10" < … < "19" < "2" < "20" …
        if d >= width:
            break
        out.append(d)
        out.extend(range(10 * d, min(10 * d + 10, width)))
    _STRING_ORDERS[width] = out  # read only: the callers copy from it
    return out


#: Most predecessor links a plan keeps in lists rather than arrays (see :func:`_csr`).
_SMALL_CSR = 4096


def _csr(pointers: list[int], indices: list[int]) -> CSR:
    """The predecessor columns as they were built (lists) for a small plan; as flat arrays for a large one.

    Filling an array costs more than the list it comes from, which is most of
    a small plan's set-up; a large plan's lists would hold an int object per
    entry, which the arrays do not.
    """
    if len(indices) <= _SMALL_CSR:
        return CSR(pointers, indices)
    return CSR(array("q", pointers), array("q", indices))


def _pointers(pointers: list[int]) -> Sequence[int]:
    """A predecessor pointer column as :func:`_csr` keeps it: a list for a small plan, an array for a large one."""
    return pointers if pointers[-1] <= _SMALL_CSR else array("q", pointers)


def branching_layer_widths(depth: int, branching_factor: int, merge_factor: int) -> list[int]:
    """Widths of the diamond's layers: fan out for the first half, merge after, end on one action.

    One width per layer of :func:`~cvlib.scenarios.sizes.branching_layer_runs`,
    which defines the shape.

    Parameters
    ----------
    depth : int
        Layers.
    branching_factor : int
        Fan-out per layer.
    merge_factor : int
        Width divisor in the merging half.

    Returns
    -------
    list of int
    """
    sizes.branching_size(depth, branching_factor, merge_factor).check()
    runs = sizes.branching_layer_runs(depth, branching_factor, merge_factor)
    return list(concatenated.from_iterable(map(repeat, *zip(*runs))))


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

    Parameters
    ----------
    depth : int
        Layers.
    branching_factor : int
        Fan-out per layer, and predecessors per step.
    merge_factor : int
        Width divisor in the merging half.
    seed : int
        Seed of the wiring.
    root_fact : str
        The fact layer 0 requires.

    Returns
    -------
    PlanGraph
    """
    sizes.branching_size(depth, branching_factor, merge_factor).check()
    depth = require_int("depth", depth, minimum=1)
    branching_factor = require_int("branching_factor", branching_factor, minimum=1)
    merge_factor = require_int("merge_factor", merge_factor, minimum=1)
    seed = require_int("seed", seed)
    root_fact = require_name("root_fact", root_fact)
    runs = sizes.branching_layer_runs(depth, branching_factor, merge_factor)  # the size check above ran it once
    widths = list(concatenated.from_iterable(map(repeat, *zip(*runs))))
    n = sum(widths)
    counts = [0] * widths[0]
    for previous_width, width in zip(widths, widths[1:]):
        counts += [min(previous_width, branching_factor)] * width
    order: list[int] | None = None
    if depth <= 10:
        # Kahn's order without the heap while layer numbers have one digit: a
        # layer's steps all become ready before the next layer's ids (larger
        # strings) can be popped, and within a layer "L3_10" < "L3_2".
        order = []
        start = 0
        for width in widths:
            order.extend(map(start.__add__, _string_order(width)) if width > 10 else range(start, start + width))
            start += width
    kinds = bytearray([DECISION_CODE]) * n
    kinds[: widths[0]] = bytes([PLAN_CODE]) * widths[0]
    kinds[-1] = ACTION_CODE
    root = frozenset({root_fact})
    # Every step descends from layer 0, so every closure is {root_fact}, one run;
    # every layer after the first rests on the one before, so a longest path has a step per layer.
    return PlanGraph.from_columns(
        _LayerIds(widths),
        bytes(kinds),
        _SparseRequires(n, dict.fromkeys(range(widths[0]), root)),
        CSR(_pointers(list(accumulate(counts, initial=0))), _Wiring(seed, widths, branching_factor)),
        order=order,
        closures=[root] * n,  # a list: the order is a permutation, indexed step by step
        run_starts=[0, n],
        longest=depth,
    )


def branching_columns(
    shapes: Iterable[tuple[int, int, int]], seed: int = 0, root_fact: str = "F1"
) -> list[tuple[RunColumns, int]]:
    """Many of :func:`branching`'s plans as the executors and the law read them, in one pass.

    For each ``(depth, branching_factor, merge_factor)``, what
    ``branching(...).run_columns()`` and ``.invalidation_depth(root_fact)``
    give, for a sweep of many diamonds that needs nothing else (the article's
    topology grid): up to ten layers the plan is not built, because its
    columns are known by construction (every step rests on ``root_fact``, so
    the plan is one run of one closure; the order goes layer by layer, so the
    single action is last; a longest path has a step per layer). Past ten
    layers the order depends on the wiring (see :func:`branching`), so the
    plan is built and asked. Each shape is checked as :func:`branching`
    checks it, with the same errors, in the order given; the size limit is
    read once.

    Parameters
    ----------
    shapes : iterable of (int, int, int)
        ``(depth, branching_factor, merge_factor)`` of each diamond.
    seed : int
        Seed of the wiring.
    root_fact : str
        The fact layer 0 requires.

    Returns
    -------
    list of (RunColumns, int)
        Per shape, the columns and the longest chain of steps holding ``root_fact``.
    """
    seed = require_int("seed", seed)
    root_fact = require_name("root_fact", root_fact)
    limit = sizes.max_steps()
    root = frozenset({root_fact})
    out = []
    for depth, branching_factor, merge_factor in shapes:
        n = sizes.branching_size(depth, branching_factor, merge_factor).check(limit).steps  # checks the three
        if depth > 10:
            plan = branching(depth, branching_factor, merge_factor, seed=seed, root_fact=root_fact)
            out.append((plan.run_columns(), plan.invalidation_depth(root_fact)))
        else:
            out.append((RunColumns([root] * n, [n - 1], [0, n], [root]), depth))
    return out


def multi_branch(pre_merge_depth: int, num_branches: int, post_merge_depth: int) -> PlanGraph:
    """Isolated branches, each resting on its own fact, merging into one shared segment.

    Branch ``b`` is the chain ``B{b}_0 … B{b}_{p-1}``; its first step is a plan
    requiring ``F{b+1}``. The shared segment ``M0 … M{q-1}`` starts after every
    branch's last step and ends on the action. Breaking one branch's fact
    exposes only that branch and the shared segment.

    Parameters
    ----------
    pre_merge_depth : int
        Steps in each branch.
    num_branches : int
        Branches.
    post_merge_depth : int
        Steps in the shared segment.

    Returns
    -------
    PlanGraph
    """
    sizes.multi_branch_size(pre_merge_depth, num_branches, post_merge_depth).check()
    p = require_int("pre_merge_depth", pre_merge_depth, minimum=1)
    b = require_int("num_branches", num_branches, minimum=1)
    q = require_int("post_merge_depth", post_merge_depth, minimum=1)
    n = b * p + q
    own = [frozenset({f"F{branch + 1}"}) for branch in range(b)]
    kinds = (bytes([PLAN_CODE]) + bytes([DECISION_CODE]) * (p - 1)) * b
    kinds += bytes([DECISION_CODE]) * (q - 1) + bytes([ACTION_CODE])
    requires = _SparseRequires(n, dict(zip(range(0, b * p, p), own)))
    # The shared segment's closure; with one branch it is that branch's very object, as interning makes it.
    merged = frozenset().union(*own) if b > 1 else own[0]
    # The columns below are built by C-level iterators (repeat, compress, chain), not a loop per branch.
    closures = list(concatenated.from_iterable(map(repeat, own, repeat(p))))
    closures += [merged] * q
    # Predecessors in CSR form: within a branch, step i follows i - 1; M0 follows
    # every branch's tail; M{i} follows M{i-1}.
    counts = ([0] + [1] * (p - 1)) * b + [b] + [1] * (q - 1)
    pointers = array("q", accumulate(counts, initial=0))
    # Every branch step but the last of its branch, then every branch's tail, then the shared segment.
    indices = array("q", compress(range(b * p), cycle([True] * (p - 1) + [False])))
    indices.extend(range(p - 1, b * p, p))
    indices.extend(range(b * p, b * p + q - 1))
    # Kahn's order here, without the heap: branches run whole, in the string
    # order of their first ids ("B10_0" < "B1_0"), then the shared segment.
    branch_order = sorted(range(b), key="B{}_".format)
    starts = [branch * p for branch in branch_order]
    order = array("q", concatenated.from_iterable(map(range, starts, map(p.__add__, starts))))
    order.extend(range(b * p, n))
    # Each branch is one run of its own closure and one link; so is the shared
    # segment, which continues the only branch's run and link when there is one
    # branch. A longest path is a branch and the shared segment.
    branch_starts = list(range(0, b * p, p))
    return PlanGraph.from_columns(
        _BranchIds(p, b, q),
        kinds,
        requires,
        CSR(pointers, indices),
        order=order,
        closures=closures,
        run_starts=[*branch_starts, b * p, n] if b > 1 else [0, n],
        links=branch_starts + ([b * p] if b > 1 else []),
        longest=p + q,
    )


def branch_facts(num_branches: int) -> list[str]:
    """The private facts of :func:`multi_branch`'s branches, ``F1 … F{num_branches}``.

    Parameters
    ----------
    num_branches : int
        Branches.

    Returns
    -------
    list of str
    """
    num_branches = require_int("num_branches", num_branches, minimum=1)
    sizes.facts_size(num_branches).check()
    return [f"F{b + 1}" for b in range(num_branches)]


GENERATORS: dict[str, Callable[..., PlanGraph]] = {"chain": chain, "branching": branching, "multi_branch": multi_branch}


def generate(name: str, **params: object) -> PlanGraph:
    """Build a plan with the deterministic generator called ``name``.

    Spec files reach these and the random families too, through
    :data:`cvlib.scenarios.spec.PLAN_GENERATORS`.

    Parameters
    ----------
    name : str
        ``chain``, ``branching`` or ``multi_branch``.
    **params
        The generator's parameters.

    Returns
    -------
    PlanGraph
    """
    try:
        generator = GENERATORS[name]
    except KeyError:
        raise ParameterError(
            f"unknown plan generator {name!r}; expected one of {', '.join(sorted(GENERATORS))}"
        ) from None
    try:
        return generator(**params)
    except TypeError as err:
        raise ParameterError(f"generator {name!r}: {err}") from None

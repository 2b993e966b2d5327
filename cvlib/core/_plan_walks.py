"""The walks over a plan's columns that :class:`~cvlib.core.graph.PlanGraph` delegates to.

A plan is stored as flat columns (see :mod:`cvlib.core.graph`): step ids,
one kind byte a step, requirements, and predecessors in compressed-sparse-row
form (``ptr``, ``idx``: step ``i`` follows ``idx[ptr[i]:ptr[i + 1]]``). The
algorithms here read those columns and nothing else, so the graph's module
holds what a plan *is* and this one how its order, closures, runs and depths
are *found*; each is linear in steps and edges (the order's heap aside).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from itertools import accumulate, chain, compress, islice
from operator import is_not

from cvlib.core.errors import CycleError, ParameterError, UnknownStepError

TYPE_CHECKING = False  # typing is not imported at run time (see cvlib.core._typing)
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sized
    from typing import Any

_EMPTY: frozenset[str] = frozenset()


def index_steps(steps: Sequence[object], step_type: type) -> tuple[dict[str, int], list[tuple[int, ...]]]:
    """Check a plan's steps and number them: each step's index by id, and its predecessors as indices.

    Parameters
    ----------
    steps : sequence of Step
        The plan's steps, in construction order.
    step_type : type
        :class:`~cvlib.core.graph.Step` (each entry must be one).

    Returns
    -------
    tuple
        ``(index by id, predecessor indices by step)``.
    """
    index: dict[str, int] = {}
    for i, step in enumerate(steps):
        if not isinstance(step, step_type):
            raise ParameterError(f"a plan is built from Step values, got {type(step).__name__}: {step!r}")
        if step.id in index:  # type: ignore[attr-defined]
            raise ParameterError(f"duplicate step id {step.id!r} in the plan")  # type: ignore[attr-defined]
        index[step.id] = i  # type: ignore[attr-defined]
    if not steps:
        raise ParameterError("a plan needs at least one step, got none")
    predecessors: list[tuple[int, ...]] = []
    for step in steps:
        try:
            predecessors.append(tuple(index[p] for p in step.predecessors))  # type: ignore[attr-defined]
        except KeyError as missing:
            raise UnknownStepError(
                f"step {step.id!r} comes after {missing.args[0]!r}, which is not a step of the plan"  # type: ignore[attr-defined]
            ) from None
    return index, predecessors


def check_lengths(
    n: int,
    kinds: Sized,
    requires: Sized,
    predecessors: Sequence[Any],
    order: Sized | None,
    closures: Sized | None,
    *,
    csr: bool,
) -> None:
    """Refuse columns handed to :meth:`~cvlib.core.graph.PlanGraph.from_columns` whose lengths do not match.

    Parameters
    ----------
    n : int
        The number of steps (the ids' length).
    kinds, requires : sized
        One entry per step.
    predecessors : sequence
        One entry per step, or a CSR pair whose pointers have ``n + 1``.
    order, closures : sized or None
        One entry per step when given.
    csr : bool
        Whether ``predecessors`` is a CSR pair.
    """
    counts = {"kinds": len(kinds), "requires": len(requires)}
    if order is not None:
        counts["order"] = len(order)
    if closures is not None:
        counts["closures"] = len(closures)
    if csr:
        if len(predecessors[0]) != n + 1:
            raise ParameterError(f"a plan of {n} steps needs {n + 1} predecessor pointers, got {len(predecessors[0])}")
    else:
        counts["predecessors"] = len(predecessors)
    for column, count in counts.items():
        if count != n:
            raise ParameterError(f"a plan of {n} steps needs one {column} entry per step, got {count}")


def predecessor_columns(
    predecessors: Any, csr: bool
) -> tuple[Sequence[int], Sequence[int] | None, Callable[[], Sequence[int]] | None]:
    """The predecessors as CSR columns: pointers, indices (None while deferred) and the callable that draws them.

    Parameters
    ----------
    predecessors : sequence of tuple of int, or CSR
        One tuple of step indices per step, or a CSR pair.
    csr : bool
        Whether it is a CSR pair.

    Returns
    -------
    tuple
        ``(pointers, indices or None, draw or None)``.
    """
    if csr:
        pointers, indices = predecessors
        if callable(indices):
            return pointers, None, indices
        return pointers, indices, None
    return array("q", accumulate(map(len, predecessors), initial=0)), array("q", chain.from_iterable(predecessors)), None


def count_touching(
    run_starts: Sequence[int], run_closures: Sequence[frozenset[str]], facts: AbstractSet[str], start: int, stop: int
) -> int:
    """How many positions in ``[start, stop)`` have a closure holding any of ``facts``, counted by runs.

    Parameters
    ----------
    run_starts, run_closures : sequence
        The runs of shared closures (see :class:`~cvlib.core.graph.RunColumns`).
    facts : set of str
        The facts asked about.
    start, stop : int
        Positions, ``stop`` excluded.

    Returns
    -------
    int
    """
    r = bisect_right(run_starts, start) - 1
    count = 0
    while r < len(run_closures) and run_starts[r] < stop:
        if not facts.isdisjoint(run_closures[r]):
            count += min(run_starts[r + 1], stop) - max(run_starts[r], start)
        r += 1
    return count


def kahn_order(ids: Sequence[str], ptr: Sequence[int], idx: Sequence[int]) -> list[int]:
    """Kahn's algorithm, the ready step with the smallest id (as a string) first; a cycle raises CycleError.

    Parameters
    ----------
    ids : sequence of str
        Step ids, by index.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.

    Returns
    -------
    list of int
        Step indices in execution order.
    """
    n = len(ids)
    in_degree = [ptr[i + 1] - ptr[i] for i in range(n)]
    successors: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for p in idx[ptr[i] : ptr[i + 1]]:
            successors[p].append(i)
    ready = [(ids[i], i) for i in range(n) if in_degree[i] == 0]
    from heapq import heapify, heappop, heappush  # only plans built without their order

    heapify(ready)
    order: list[int] = []
    push, pop = heappush, heappop
    while ready:
        _, current = pop(ready)
        order.append(current)
        for succ in successors[current]:
            in_degree[succ] -= 1
            if in_degree[succ] == 0:
                push(ready, (ids[succ], succ))
    if len(order) != n:
        stuck = sorted(ids[i] for i in range(n) if in_degree[i] > 0)
        shown = ", ".join(stuck[:10]) + (" …" if len(stuck) > 10 else "")
        raise CycleError(f"the plan has a cycle: no order exists for steps {shown}")
    return order


def kahn_order_by(
    ids: Sequence[str], ptr: Sequence[int], idx: Sequence[int], key: Callable[[str], object]
) -> list[int]:
    """Kahn's algorithm with the ready step of the smallest ``key(id)`` first (the plan is known to be acyclic).

    Parameters
    ----------
    ids : sequence of str
        Step ids, by index.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.
    key : callable
        The tie-break's sort key of an id.

    Returns
    -------
    list of int
        Step indices in execution order.
    """
    n = len(ids)
    in_degree = [ptr[i + 1] - ptr[i] for i in range(n)]
    successors: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for p in idx[ptr[i] : ptr[i + 1]]:
            successors[p].append(i)
    ready = [(key(ids[i]), i) for i in range(n) if in_degree[i] == 0]
    from heapq import heapify, heappop, heappush  # only plans built without their order

    heapify(ready)
    order: list[int] = []
    while ready:
        _, current = heappop(ready)
        order.append(current)
        for succ in successors[current]:
            in_degree[succ] -= 1
            if in_degree[succ] == 0:
                heappush(ready, (key(ids[succ]), succ))
    return order


def interned_closures(
    requires: Sequence[frozenset[str]], ptr: Sequence[int], idx: Sequence[int], order: Sequence[int]
) -> list[frozenset[str]]:
    """Each step's closure, by step index, reusing a predecessor's frozenset wherever the union adds nothing.

    Parameters
    ----------
    requires : sequence of frozenset of str
        Each step's own requirements.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.
    order : sequence of int
        The execution order (every step after its predecessors).

    Returns
    -------
    list of frozenset of str
    """
    closures: list[frozenset[str]] = [_EMPTY] * len(requires)
    for i in order:
        own = requires[i]
        lo, hi = ptr[i], ptr[i + 1]
        if lo == hi:
            closures[i] = own if own else _EMPTY
            continue
        first = closures[idx[lo]]
        if hi - lo == 1 and own <= first:
            closures[i] = first
            continue
        preds = idx[lo:hi]
        merged = set(own)
        for p in preds:
            merged |= closures[p]
        # Reuse a predecessor's object when the union added nothing new.
        same = next((closures[p] for p in preds if len(closures[p]) == len(merged)), None)
        closures[i] = same if same is not None else frozenset(merged)
    return closures


def inverse(order: Sequence[int]) -> array[int]:
    """Each step's position in ``order``, by step index, as a flat array.

    Parameters
    ----------
    order : sequence of int
        Step indices in execution order.

    Returns
    -------
    array of int
    """
    positions = array("q", bytes(8 * len(order)))
    for position, i in enumerate(order):
        positions[i] = position
    return positions


def ancestors(
    position: int,
    known: AbstractSet[int],
    ptr: Sequence[int],
    idx: Sequence[int],
    order: Sequence[int],
    positions: Sequence[int],
) -> set[int]:
    """Positions of the step at ``position`` and of everything it rests on, not walking past ``known`` ones.

    Parameters
    ----------
    position : int
        Position in the execution order.
    known : set of int
        Positions whose ancestors need not be walked again.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.
    order, positions : sequence of int
        The execution order and its inverse.

    Returns
    -------
    set of int
    """
    found: set[int] = set()
    stack = [position]
    while stack:
        here = stack.pop()
        if here in found or here in known:
            continue
        found.add(here)
        i = order[here]
        stack.extend(positions[p] for p in idx[ptr[i] : ptr[i + 1]])
    return found


def execution_runs(
    closures: Sequence[frozenset[str]],
    order: Sequence[int],
    kinds: bytes,
    action_code: int,
    positions: Sequence[int] | None,
    find_positions: Callable[[], Sequence[int]],
    run_starts: list[int] | None,
) -> tuple[Sequence[frozenset[str]], list[int], list[int], list[frozenset[str]]]:
    """The columns of :class:`~cvlib.core.graph.RunColumns`: closures in order, actions, runs and their closures.

    Parameters
    ----------
    closures : sequence of frozenset of str
        Each step's closure, by step index.
    order : sequence of int
        The execution order.
    kinds : bytes
        The kind column (one code a step).
    action_code : int
        The code of an action in ``kinds``.
    positions : sequence of int or None
        The order's inverse if already made (None: not yet).
    find_positions : callable
        Makes (and keeps) the inverse, called only when it is needed.
    run_starts : list of int or None
        Where runs start, if handed over by a generator.

    Returns
    -------
    tuple
        ``(closures in order, action positions, run starts, run closures)``.
    """
    n = len(closures)
    ordered: Sequence[frozenset[str]]
    if isinstance(order, range) and order == range(n):
        ordered = closures
    else:
        ordered = list(map(closures.__getitem__, order))
    # The actions: the kind column is one byte a step, so bytes.find walks it in C.
    found = kinds.find(action_code)
    action_steps = []
    while found >= 0:
        action_steps.append(found)
        found = kinds.find(action_code, found + 1)
    if positions is order:
        actions = action_steps
    elif len(action_steps) <= 4 and positions is None:
        actions = sorted([order.index(i) for i in action_steps])  # searched in C; no inverse needed
    else:
        inverse_order = find_positions()
        actions = sorted([inverse_order[i] for i in action_steps])
    if run_starts is None:
        # A run starts wherever a closure is not the very object before it (compared in C).
        run_starts = [0, *compress(range(1, n), map(is_not, islice(ordered, 1, None), ordered)), n]
    run_closures = [ordered[start] for start in islice(run_starts, len(run_starts) - 1)]
    return ordered, actions, run_starts, run_closures


def link_starts(order: Sequence[int], positions: Sequence[int], ptr: Sequence[int], idx: Sequence[int]) -> list[int]:
    """Positions that start a *link*: every position but those whose step's only predecessor is the one before.

    Along a link closures only grow, so the steps holding a fact form a
    suffix of it, and their depths inside the fact's closure rise by one a
    step.

    Parameters
    ----------
    order, positions : sequence of int
        The execution order and its inverse.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.

    Returns
    -------
    list of int
    """
    starts = [0]
    for k in range(1, len(order)):
        i = order[k]
        lo = ptr[i]
        if ptr[i + 1] - lo != 1 or positions[idx[lo]] != k - 1:
            starts.append(k)
    return starts


def deepest(
    fact_id: str | None,
    starts: list[int],
    run_starts: list[int],
    run_closures: list[frozenset[str]],
    order: Sequence[int],
    positions: Sequence[int],
    ptr: Sequence[int],
    idx: Sequence[int],
) -> int:
    """The longest chain of steps holding ``fact_id`` (None: of all steps), by runs and links.

    Only the runs whose closure holds the fact are visited, and in them
    one entry per link: a link's depth at its first holding position
    comes from its first step's predecessors (or is 1 when that position
    is not the link's first), and grows by one a step after it.

    Parameters
    ----------
    fact_id : str or None
        The fact, or None for every step.
    starts : list of int
        The link starts (:func:`link_starts`).
    run_starts, run_closures : list
        The runs of shared closures, in execution order.
    order, positions : sequence of int
        The execution order and its inverse.
    ptr, idx : sequence of int
        The predecessors, in compressed-sparse-row form.

    Returns
    -------
    int
    """
    n, links = len(order), len(starts)
    if fact_id is None:
        holding = range(len(run_closures))
    else:
        holding = [r for r, closure in enumerate(run_closures) if fact_id in closure]  # type: ignore[assignment]
    # Per link met: its first position holding the fact, and the depth there.
    first: dict[int, int] = {}
    depth_at: dict[int, int] = {}
    deepest = 0
    for r in holding:
        lo, hi = run_starts[r], run_starts[r + 1]
        g = bisect_right(starts, lo) - 1
        while g < links and starts[g] < hi:
            if g in first:  # met in an earlier run already
                g += 1
                continue
            start = starts[g]
            stop = starts[g + 1] if g + 1 < links else n
            hit = max(start, lo)
            d = 1
            if hit == start:
                i = order[start]
                preds = idx[ptr[i] : ptr[i + 1]]
                if len(preds) <= 2 * len(first) + 16:
                    for p in preds:
                        q = positions[p]
                        h = bisect_right(starts, q) - 1
                        a = first.get(h, n)
                        if q >= a:
                            d = max(d, depth_at[h] + q - a + 1)
                else:
                    # Many predecessors (a merge of many branches), few links holding the fact so
                    # far: for each such link, its deepest holding predecessor is its last one.
                    found = sorted(map(positions.__getitem__, preds))
                    for h, a in first.items():
                        end = starts[h + 1] if h + 1 < links else n
                        k = bisect_left(found, end) - 1
                        if k >= 0 and found[k] >= a:
                            d = max(d, depth_at[h] + found[k] - a + 1)
            first[g] = hit
            depth_at[g] = d
            deepest = max(deepest, d + stop - 1 - hit)
            g += 1
    return deepest

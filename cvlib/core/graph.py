"""Plan steps and the dependency graph they form.

A step's *requirement closure* is every fact it depends on, directly or through
any predecessor. Invalidation travels along that closure: a decision three
hops downstream of a broken fact still rests on it although it never names it.

What keeps this linear in the number of steps and edges:

* the graph is stored by columns (ids, kinds, requirements, and predecessor
  *indices* in compressed-sparse-row ``array("q")`` columns), not as one
  object per step;
  :class:`Step` values are made on demand when a caller asks for one, so a
  plan of a million steps costs a few lists, not a million objects;
* the topological order is Kahn's algorithm with a binary heap keyed by step
  id, so "smallest id first among the ready steps" costs O(log w) a pop for w
  ready steps instead of re-sorting the ready list; generators that know their
  order by construction hand it over (tests check it against Kahn's);
* closures are computed once in that order and *interned*: a step whose
  closure equals one of its predecessors' reuses that very frozenset, so a
  chain of a million steps holds one closure object, not a million;
* the executors walk the closures in execution order as *runs* of one shared
  closure object (:class:`RunColumns`), so a stretch of steps is judged
  against ground truth once per run, not once per step;
* per-fact queries (closure size, invalidation depth) are single passes over
  the steps, memoised per fact because the graph is immutable; the id index
  used by per-step lookups is built only when first needed.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate, chain, compress, groupby, repeat
from operator import contains, is_
from typing import NamedTuple

from cvlib.core.errors import (
    CycleError,
    ParameterError,
    UnknownFactError,
    UnknownStepError,
)


class StepKind(str, Enum):
    """What a step does: plan and decision steps prepare; an action touches the world."""

    PLAN = "plan"
    DECISION = "decision"
    ACTION = "action"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Step:
    """One plan step.

    Parameters
    ----------
    id:
        Unique name; ties in the topological order are broken by the smallest id
        as a string, so ids matter (``"S10"`` sorts before ``"S2"``).
    kind:
        plan, decision or action.
    requires:
        Facts this step depends on directly.
    predecessors:
        Steps that must run before this one.
    """

    id: str
    kind: StepKind
    requires: frozenset[str] = frozenset()
    predecessors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ParameterError(f"a step id must be a non-empty string, got {self.id!r}")
        try:
            kind = StepKind(self.kind)
        except ValueError:
            raise ParameterError(
                f"step {self.id!r} has kind {self.kind!r}; expected one of "
                f"{', '.join(k.value for k in StepKind)}"
            ) from None
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "requires", frozenset(self.requires))
        object.__setattr__(self, "predecessors", tuple(self.predecessors))

    @property
    def is_action(self) -> bool:
        """Whether the step touches the world (the only kind whose failure reveals a broken fact)."""
        return self.kind is StepKind.ACTION


def _trusted_step(step_id: str, kind: StepKind, requires: frozenset[str], predecessors: tuple[str, ...]) -> Step:
    """A Step from values already known to be valid (skips ``__post_init__``'s checks)."""
    step = object.__new__(Step)
    object.__setattr__(step, "id", step_id)
    object.__setattr__(step, "kind", kind)
    object.__setattr__(step, "requires", requires)
    object.__setattr__(step, "predecessors", predecessors)
    return step


_EMPTY: frozenset[str] = frozenset()


class RunColumns(NamedTuple):
    """A plan laid out in execution order, as the executors and the law read it.

    ``closures[k]`` is the closure of the step at position ``k``; ``actions``
    lists the positions of the actions, ascending. Consecutive positions that
    share one (interned) closure object form a *run*: run ``r`` covers
    positions ``run_starts[r]`` to ``run_starts[r + 1] - 1`` and has closure
    ``run_closures[r]``. A chain is one run, so judging a stretch of it
    against ground truth is one set operation, not one per step.
    """

    closures: list[frozenset[str]]
    actions: list[int]
    run_starts: list[int]
    run_closures: list[frozenset[str]]

    def count_touching(self, facts: set[str] | frozenset[str], start: int, stop: int) -> int:
        """How many positions in ``[start, stop)`` have a closure that holds any of ``facts``."""
        starts, objects = self.run_starts, self.run_closures
        r = bisect_right(starts, start) - 1
        count = 0
        while r < len(objects) and starts[r] < stop:
            if not facts.isdisjoint(objects[r]):
                count += min(starts[r + 1], stop) - max(starts[r], start)
            r += 1
        return count


class PlanGraph:
    """An immutable, validated dependency graph of plan steps.

    Build one from a sequence of :class:`Step` values, ``PlanGraph(steps)``
    (or with a generator in :mod:`cvlib.scenarios.generators`). Construction fails with a clear error on a
    duplicate id, an unknown predecessor or a cycle.
    """

    __slots__ = (
        "_ids",
        "_kinds",
        "_requires",
        "_pred_ptr",
        "_pred_idx",
        "_order",
        "_positions",
        "_closures",
        "_index_cache",
        "_facts_cache",
        "_closure_size_cache",
        "_run_columns_cache",
    )

    def __init__(self, steps: Sequence[Step]) -> None:
        steps = list(steps)
        index: dict[str, int] = {}
        for i, step in enumerate(steps):
            if not isinstance(step, Step):
                raise ParameterError(f"a plan is built from Step values, got {type(step).__name__}: {step!r}")
            if step.id in index:
                raise ParameterError(f"duplicate step id {step.id!r} in the plan")
            index[step.id] = i
        if not steps:
            raise ParameterError("a plan needs at least one step, got none")
        predecessors: list[tuple[int, ...]] = []
        for step in steps:
            try:
                predecessors.append(tuple(index[p] for p in step.predecessors))
            except KeyError as missing:
                raise UnknownStepError(
                    f"step {step.id!r} comes after {missing.args[0]!r}, which is not a step of the plan"
                ) from None
        self._setup(
            [s.id for s in steps], [s.kind for s in steps], [s.requires for s in steps], predecessors, index=index
        )

    @classmethod
    def _from_columns(
        cls,
        ids: list[str],
        kinds: list[StepKind],
        requires: list[frozenset[str]],
        predecessors: Sequence[tuple[int, ...]] | tuple[array[int], array[int]],
        order: Sequence[int] | None = None,
        closures: list[frozenset[str]] | None = None,
    ) -> PlanGraph:
        """The trusted constructor used by generators: columns known to be valid by construction.

        ``predecessors`` is one tuple of step indices per step, or the CSR pair
        ``(pointers, indices)`` as ``array("q")`` values: step ``i``'s
        predecessors are ``indices[pointers[i]:pointers[i + 1]]``. ``order`` and ``closures`` may be given when
        the generator knows them (its tests check them against the general
        algorithms); otherwise they are computed. Ids are assumed unique and
        the graph acyclic.
        """
        graph = object.__new__(cls)
        graph._setup(ids, kinds, requires, predecessors, order=order, closures=closures)
        return graph

    def _setup(
        self,
        ids: list[str],
        kinds: list[StepKind],
        requires: list[frozenset[str]],
        predecessors: Sequence[tuple[int, ...]] | tuple[array[int], array[int]],
        *,
        order: Sequence[int] | None = None,
        closures: list[frozenset[str]] | None = None,
        index: dict[str, int] | None = None,
    ) -> None:
        self._ids = ids
        self._kinds = kinds
        self._requires = requires
        if isinstance(predecessors, tuple) and len(predecessors) == 2 and isinstance(predecessors[0], array):
            self._pred_ptr, self._pred_idx = predecessors
        else:
            self._pred_ptr = array("q", accumulate(map(len, predecessors), initial=0))
            self._pred_idx = array("q", chain.from_iterable(predecessors))
        self._index_cache = index
        self._facts_cache: frozenset[str] | None = None
        self._closure_size_cache: dict[str, int] = {}
        self._run_columns_cache: RunColumns | None = None
        self._order: Sequence[int] = order if order is not None else self._kahn_order()
        if isinstance(self._order, range) and self._order == range(len(ids)):
            self._positions: Sequence[int] = self._order
        else:
            positions = [0] * len(ids)
            for position, i in enumerate(self._order):
                positions[i] = position
            self._positions = positions
        self._closures = closures if closures is not None else self._interned_closures()

    # -- columns -------------------------------------------------------------
    def _make_step(self, i: int) -> Step:
        lo, hi = self._pred_ptr[i], self._pred_ptr[i + 1]
        ids = self._ids
        return _trusted_step(ids[i], self._kinds[i], self._requires[i], tuple(ids[p] for p in self._pred_idx[lo:hi]))

    @property
    def _index(self) -> dict[str, int]:
        if self._index_cache is None:
            self._index_cache = {step_id: i for i, step_id in enumerate(self._ids)}
        return self._index_cache

    def _index_of(self, step_id: str) -> int:
        try:
            return self._index[step_id]
        except (KeyError, TypeError):
            raise UnknownStepError(f"no step {step_id!r} in this plan") from None

    def run_columns(self) -> RunColumns:
        """The plan as the executors and the law walk it (see :class:`RunColumns`), computed once."""
        if self._run_columns_cache is None:
            closures, kinds, order = self._closures, self._kinds, self._order
            if isinstance(order, range) and order == range(len(closures)):
                ordered = closures
            else:
                ordered = [closures[i] for i in order]
            positions = self._positions
            action_steps = compress(range(len(kinds)), map(is_, kinds, repeat(StepKind.ACTION)))
            actions = sorted(positions[i] for i in action_steps)
            lengths = [len(list(group)) for _, group in groupby(ordered, key=id)]
            run_starts = list(accumulate(lengths, initial=0))
            run_closures = [ordered[start] for start in run_starts[:-1]]
            self._run_columns_cache = RunColumns(ordered, actions, run_starts, run_closures)
        return self._run_columns_cache

    # -- the steps -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[Step]:
        return (self._make_step(i) for i in range(len(self._ids)))

    def __contains__(self, step_id: object) -> bool:
        try:
            return step_id in self._index
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"PlanGraph({len(self)} steps, {len(self.facts)} facts)"

    @property
    def steps(self) -> Mapping[str, Step]:
        """Steps by id, in construction order."""
        return {s.id: s for s in self}

    def step_at(self, position: int) -> Step:
        """The step at ``position`` of the execution order."""
        return self._make_step(self._order[position])

    def step(self, step_id: str) -> Step:
        """The step called ``step_id``; an unknown id raises :class:`~cvlib.core.errors.UnknownStepError`."""
        return self._make_step(self._index_of(step_id))

    @property
    def facts(self) -> frozenset[str]:
        """Every fact some step requires directly."""
        if self._facts_cache is None:
            self._facts_cache = frozenset().union(*set(self._requires))
        return self._facts_cache

    def require_fact(self, fact_id: object, role: str = "fact") -> str:
        """``fact_id`` if some step requires it; else an :class:`~cvlib.core.errors.UnknownFactError` naming ``role``.

        Parameters
        ----------
        fact_id : object
            The fact asked about.
        role : str
            What the caller calls it ("fact at risk"), used in the error.

        Returns
        -------
        str
        """
        if not isinstance(fact_id, str) or fact_id not in self.facts:
            raise UnknownFactError(
                f"{role} {fact_id!r} is not required by any step of the plan; "
                f"the plan requires: {', '.join(sorted(self.facts)) or '(none)'}"
            )
        return fact_id

    # -- order and closures --------------------------------------------------
    def topological_order(self) -> list[str]:
        """Step ids in execution order: Kahn's algorithm, smallest ready id first."""
        ids = self._ids
        return [ids[i] for i in self._order]

    def ordered_steps(self) -> Iterator[tuple[Step, frozenset[str]]]:
        """Each step with its requirement closure, in execution order."""
        closures = self._closures
        for i in self._order:
            yield self._make_step(i), closures[i]

    def position(self, step_id: str) -> int:
        """Zero-based position of a step in the topological order."""
        return self._positions[self._index_of(step_id)]

    def ancestors_at(self, position: int, known: AbstractSet[int] = frozenset()) -> set[int]:
        """Positions of the step at ``position`` and of every step it rests on, transitively.

        Positions in ``known`` are taken as already found together with their
        own ancestors, so the walk stops there: a caller that accumulates
        ancestors (the executors' committed steps) pays for each step once.

        Parameters
        ----------
        position : int
            Position in the execution order.
        known : set of int
            Positions whose ancestors need not be walked again.

        Returns
        -------
        set of int
            The newly found positions (``position`` included unless known).
        """
        ptr, idx, order, positions = self._pred_ptr, self._pred_idx, self._order, self._positions
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

    def closure(self, step_id: str) -> frozenset[str]:
        """Facts the step rests on: its own requirements and all its predecessors' closures."""
        return self._closures[self._index_of(step_id)]

    def closure_size(self, fact_id: str) -> int:
        """Number of steps whose closure holds ``fact_id`` (its blast radius)."""
        cached = self._closure_size_cache.get(fact_id)
        if cached is None:
            cached = self._closure_size_cache[fact_id] = sum(map(contains, self._closures, repeat(fact_id)))
        return cached

    def invalidation_depth(self, fact_id: str) -> int:
        """Longest chain of steps inside ``fact_id``'s closure, counted in steps."""
        ptr, idx = self._pred_ptr, self._pred_idx
        closures = self._closures
        depth = [0] * len(self._ids)
        deepest = 0
        for i in self._order:
            if fact_id not in closures[i]:
                continue
            lo, hi = ptr[i], ptr[i + 1]
            if hi - lo == 1:
                d = depth[idx[lo]] + 1
            elif lo == hi:
                d = 1
            else:
                d = max(depth[p] for p in idx[lo:hi]) + 1
            depth[i] = d
            if d > deepest:
                deepest = d
        return deepest

    def action_count(self) -> int:
        """Number of action steps in the plan."""
        action = StepKind.ACTION
        return sum(1 for k in self._kinds if k is action)

    # -- construction algorithms ---------------------------------------------
    def _kahn_order(self) -> list[int]:
        ids = self._ids
        n = len(ids)
        ptr, idx = self._pred_ptr, self._pred_idx
        in_degree = [ptr[i + 1] - ptr[i] for i in range(n)]
        successors: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            for p in idx[ptr[i] : ptr[i + 1]]:
                successors[p].append(i)
        ready = [(ids[i], i) for i in range(n) if in_degree[i] == 0]
        heapq.heapify(ready)
        order: list[int] = []
        push, pop = heapq.heappush, heapq.heappop
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

    def _interned_closures(self) -> list[frozenset[str]]:
        requires = self._requires
        ptr, idx = self._pred_ptr, self._pred_idx
        closures: list[frozenset[str]] = [_EMPTY] * len(requires)
        for i in self._order:
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

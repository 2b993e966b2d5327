"""Plan steps and the dependency graph they form.

A step's *requirement closure* is every fact it depends on, directly or through
any predecessor. Invalidation travels along that closure: a decision three
hops downstream of a broken fact still rests on it although it never names it.

What keeps this linear in the number of steps and edges:

* steps are indexed by integers once, at construction; ids are only used at the
  edges of the API;
* the topological order is Kahn's algorithm with a binary heap keyed by step
  id, so "smallest id first among the ready steps" costs O(log n) a pop instead
  of re-sorting the ready list (O(n log n) overall, which measures as linear);
* closures are computed once in that order and *interned*: a step whose
  closure equals one of its predecessors' reuses that very frozenset, so a
  chain of a million steps holds one closure object, not a million;
* per-fact queries (closure size, invalidation depth) are single passes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from .errors import CycleError, ParameterError, UnknownStepError


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
        return self.kind is StepKind.ACTION


class PlanGraph:
    """An immutable, validated dependency graph of plan steps.

    Build one with :meth:`from_steps` (or a generator in
    :mod:`cvlib.generators`). Construction fails with a clear error on a
    duplicate id, an unknown predecessor or a cycle.
    """

    __slots__ = ("_steps", "_index", "_order", "_closures", "_positions")

    def __init__(self, steps: Sequence[Step]) -> None:
        index: dict[str, int] = {}
        for i, step in enumerate(steps):
            if not isinstance(step, Step):
                raise ParameterError(f"a plan is built from Step values, got {type(step).__name__}: {step!r}")
            if step.id in index:
                raise ParameterError(f"duplicate step id {step.id!r} in the plan")
            index[step.id] = i
        if not steps:
            raise ParameterError("a plan needs at least one step, got none")
        predecessor_indices: list[tuple[int, ...]] = []
        for step in steps:
            try:
                predecessor_indices.append(tuple(index[p] for p in step.predecessors))
            except KeyError as missing:
                raise UnknownStepError(
                    f"step {step.id!r} comes after {missing.args[0]!r}, which is not a step of the plan"
                ) from None
        self._steps: tuple[Step, ...] = tuple(steps)
        self._index = index
        self._order = _kahn_order(self._steps, predecessor_indices)
        self._positions = [0] * len(steps)
        for position, i in enumerate(self._order):
            self._positions[i] = position
        self._closures = _interned_closures(self._steps, predecessor_indices, self._order)

    @classmethod
    def from_steps(cls, steps: Iterable[Step]) -> PlanGraph:
        """Validate ``steps`` and compute their order and closures."""
        return cls(list(steps))

    # -- the steps -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __contains__(self, step_id: object) -> bool:
        return step_id in self._index

    def __repr__(self) -> str:
        return f"PlanGraph({len(self)} steps, {len(self.facts)} facts)"

    @property
    def steps(self) -> Mapping[str, Step]:
        """Steps by id, in construction order."""
        return {s.id: s for s in self._steps}

    def step(self, step_id: str) -> Step:
        try:
            return self._steps[self._index[step_id]]
        except KeyError:
            raise UnknownStepError(f"no step {step_id!r} in this plan") from None

    @property
    def facts(self) -> frozenset[str]:
        """Every fact some step requires directly."""
        out: set[str] = set()
        for s in self._steps:
            out |= s.requires
        return frozenset(out)

    # -- order and closures --------------------------------------------------
    def topological_order(self) -> list[str]:
        """Step ids in execution order: Kahn's algorithm, smallest ready id first."""
        return [self._steps[i].id for i in self._order]

    def ordered_steps(self) -> Iterator[tuple[Step, frozenset[str]]]:
        """Each step with its requirement closure, in execution order."""
        steps, closures = self._steps, self._closures
        for i in self._order:
            yield steps[i], closures[i]

    def position(self, step_id: str) -> int:
        """Zero-based position of a step in the topological order."""
        self.step(step_id)
        return self._positions[self._index[step_id]]

    def closure(self, step_id: str) -> frozenset[str]:
        """Facts the step rests on: its own requirements and all its predecessors' closures."""
        self.step(step_id)
        return self._closures[self._index[step_id]]

    def closure_size(self, fact_id: str) -> int:
        """Number of steps whose closure holds ``fact_id`` (its blast radius)."""
        return sum(1 for c in self._closures if fact_id in c)

    def invalidation_depth(self, fact_id: str) -> int:
        """Longest chain of steps inside ``fact_id``'s closure, counted in steps."""
        depth = [0] * len(self._steps)
        deepest = 0
        for i in self._order:
            if fact_id not in self._closures[i]:
                continue
            inherited = max((depth[self._index[p]] for p in self._steps[i].predecessors), default=0)
            depth[i] = inherited + 1
            deepest = max(deepest, depth[i])
        return deepest

    def action_count(self) -> int:
        return sum(1 for s in self._steps if s.is_action)


def _kahn_order(steps: Sequence[Step], predecessors: Sequence[tuple[int, ...]]) -> list[int]:
    n = len(steps)
    in_degree = [len(p) for p in predecessors]
    successors: list[list[int]] = [[] for _ in range(n)]
    for i, preds in enumerate(predecessors):
        for p in preds:
            successors[p].append(i)
    ready = [(steps[i].id, i) for i in range(n) if in_degree[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, current = heapq.heappop(ready)
        order.append(current)
        for succ in successors[current]:
            in_degree[succ] -= 1
            if in_degree[succ] == 0:
                heapq.heappush(ready, (steps[succ].id, succ))
    if len(order) != n:
        stuck = sorted(steps[i].id for i in range(n) if in_degree[i] > 0)
        shown = ", ".join(stuck[:10]) + (" …" if len(stuck) > 10 else "")
        raise CycleError(f"the plan has a cycle: no order exists for steps {shown}")
    return order


def _interned_closures(
    steps: Sequence[Step], predecessors: Sequence[tuple[int, ...]], order: Sequence[int]
) -> list[frozenset[str]]:
    closures: list[frozenset[str]] = [frozenset()] * len(steps)
    empty: frozenset[str] = frozenset()
    for i in order:
        own = steps[i].requires
        preds = predecessors[i]
        if not preds:
            closures[i] = own if own else empty
            continue
        first = closures[preds[0]]
        if len(preds) == 1 and own <= first:
            closures[i] = first
            continue
        merged = set(own)
        for p in preds:
            merged |= closures[p]
        # Reuse a predecessor's object when the union added nothing new.
        same = next((closures[p] for p in preds if len(closures[p]) == len(merged)), None)
        closures[i] = same if same is not None else frozenset(merged)
    return closures

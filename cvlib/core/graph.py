"""Plan steps and the dependency graph they form.

A step's *requirement closure* is every fact it depends on, directly or through
any predecessor. Invalidation travels along that closure: a decision three
hops downstream of a broken fact still rests on it although it never names it.

What keeps this linear in the number of steps and edges, and small:

* the graph is stored by columns (kinds as one byte each, requirements, and
  predecessor *indices* in compressed-sparse-row ``array("q")`` columns), not
  as one object per step; :class:`Step` values are made on demand when a
  caller asks for one, so a plan of a million steps costs a few flat arrays,
  not a million objects;
* step ids may be *compact* (:class:`CompactIds`): a generator whose ids
  follow a pattern (``S0 … S999999``) hands over an object that makes each id
  from its index and parses an id back, instead of a million strings;
* the topological order is Kahn's algorithm with a binary heap keyed by step
  id, so "smallest id first among the ready steps" costs O(log w) a pop for w
  ready steps instead of re-sorting the ready list; generators that know their
  order by construction hand it over (tests check it against Kahn's); a plan
  re-ordered with numeric tie-breaks (:meth:`PlanGraph.with_tie_break`) is a
  separate plan, so the default order's path is untouched;
* closures are computed once in that order and *interned*: a step whose
  closure equals one of its predecessors' reuses that very frozenset, so a
  chain of a million steps holds one closure object, not a million;
* the executors and the law walk the closures in execution order as *runs* of
  one shared closure object (:class:`RunColumns`), so a stretch of steps is
  judged once per run, not once per step; closure sizes are sums of run
  lengths;
* the invalidation depth walks *links*, maximal stretches of the order in
  which each step's only predecessor is the step just before it: along a link
  the depth grows by one a step, so it is computed once per link, not once
  per step;
* the id index used by per-step lookups is built only when first needed.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from enum import Enum

from cvlib.core import _plan_walks as _walks
from cvlib.core._typing import NamedTuple, overload
from cvlib.core.errors import ParameterError, UnknownFactError, UnknownStepError
from cvlib.core.values import value_class


class StepKind(str, Enum):
    """What a step does: plan and decision steps prepare; an action touches the world."""

    PLAN = "plan"
    DECISION = "decision"
    ACTION = "action"

    def __str__(self) -> str:
        return self.value


@value_class
class Step:
    """One plan step.

    Parameters
    ----------
    id:
        Unique name; ties in the topological order are broken by the smallest id
        as a string, so ids matter (``"S10"`` sorts before ``"S2"``); see
        :data:`TIE_BREAKS` for the numeric alternative.
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


#: Step kinds by their one-byte code in a plan's kind column, and back.
_KIND_OF_CODE: tuple[StepKind, ...] = (StepKind.PLAN, StepKind.DECISION, StepKind.ACTION)
_CODE_OF_KIND: dict[StepKind, int] = {kind: code for code, kind in enumerate(_KIND_OF_CODE)}
_ACTION_CODE = _CODE_OF_KIND[StepKind.ACTION]


def kind_codes(kinds: Sequence[StepKind]) -> bytes:
    """A kind column in the one-byte form plans store (what generators may hand over directly).

    Parameters
    ----------
    kinds : list of StepKind
        One kind per step.

    Returns
    -------
    bytes
        One code per step: 0 plan, 1 decision, 2 action.
    """
    return bytes(map(_CODE_OF_KIND.__getitem__, kinds))


#: The code of each kind, for generators that build a kind column directly.
PLAN_CODE, DECISION_CODE, ACTION_CODE = (_CODE_OF_KIND[k] for k in _KIND_OF_CODE)


class CompactIds(Sequence[str]):
    """Step ids made from their index on demand, and parsed back, instead of stored.

    A generator whose ids follow a pattern subclasses this with
    ``__len__``, :meth:`make` (index -> id) and :meth:`find` (id -> index, or
    -1 for an id that is not one of them). A plan holding compact ids never
    builds the id strings, nor a dictionary from ids to indices, unless a
    caller asks for every id at once.
    """

    __slots__ = ()

    @abstractmethod
    def make(self, index: int) -> str:
        """The id of the step at ``index``.

        Parameters
        ----------
        index : int
            ``0 <= index < len(self)``.

        Returns
        -------
        str
        """

    @abstractmethod
    def find(self, step_id: str) -> int:
        """The index of ``step_id``.

        Parameters
        ----------
        step_id : str
            An id.

        Returns
        -------
        int
            -1 when it is not one of these ids.
        """

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self.make(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"step index {index} out of range for {n} steps")
        return self.make(index)

    def __iter__(self) -> Iterator[str]:
        return map(self.make, range(len(self)))

    def __contains__(self, step_id: object) -> bool:
        return isinstance(step_id, str) and self.find(step_id) >= 0


def parse_index(text: str) -> int:
    """``text`` as a non-negative decimal index written as ``str`` writes it, else -1.

    Compact ids use it to parse an id back: ``"07"``, ``"+7"``, ``" 7"`` and
    non-ASCII digits are not ``str(7)``, so they are not ids.

    Parameters
    ----------
    text : str
        The digits after an id's prefix.

    Returns
    -------
    int
    """
    if not text or not text.isascii() or not text.isdigit() or (text[0] == "0" and len(text) > 1):
        return -1
    return int(text)


#: How the topological order may break ties among ready steps.
#:
#: ``string`` takes the smallest id as a string, the original benchmark's rule
#: (``"L10_0"`` before ``"L2_0"``); ``numeric`` takes the smallest id with its
#: digit runs read as numbers (``"L2_0"`` before ``"L10_0"``), so a layered plan
#: runs layer by layer whatever the number of digits.
TIE_BREAKS = ("string", "numeric")

_DIGITS: re.Pattern[str] | None = None  # compiled on first use (a plan rarely asks for the numeric order)


def numeric_id_key(step_id: str) -> tuple[tuple[str | int, ...], str]:
    """The sort key of the ``numeric`` tie-break: digit runs compared as numbers, then the id itself.

    ``re.split`` with a captured group alternates text and digits, so two keys
    always compare text with text and number with number; ids that read the
    same as numbers (``"L01"``, ``"L1"``) fall back to their string order.

    Parameters
    ----------
    step_id : str
        A step id.

    Returns
    -------
    tuple
        ``(pieces, step_id)``.
    """
    global _DIGITS
    if _DIGITS is None:
        _DIGITS = re.compile(r"(\d+)")
    pieces = _DIGITS.split(step_id)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(pieces)), step_id


class CSR(NamedTuple):
    """Predecessors in compressed-sparse-row form: step ``i`` follows ``indices[pointers[i]:pointers[i + 1]]``.

    Either column may be a list (cheapest to build for a small plan) or an
    ``array("q")`` (eight bytes an entry, no int objects, for a large one).
    ``indices`` may also be a callable that returns them: a plan built by
    :meth:`PlanGraph.from_columns` then calls it the first time anything reads
    its predecessors, and never when nothing does (running a plan whose order
    and closures were handed over reads none). A generator whose wiring is
    drawn at random, and costs more than the rest of the plan, defers it so.
    The callable must be picklable if the plan is to be (a module-level
    class's instance, not a closure).
    """

    pointers: Sequence[int]
    indices: Sequence[int] | Callable[[], Sequence[int]]


class RunColumns(NamedTuple):
    """A plan laid out in execution order, as the executors and the law read it.

    ``closures[k]`` is the closure of the step at position ``k``; ``actions``
    lists the positions of the actions, ascending. Consecutive positions that
    share one (interned) closure object form a *run*: run ``r`` covers
    positions ``run_starts[r]`` to ``run_starts[r + 1] - 1`` and has closure
    ``run_closures[r]``. A chain is one run, so judging a stretch of it
    against ground truth is one set operation, not one per step.
    """

    closures: Sequence[frozenset[str]]
    actions: list[int]
    run_starts: list[int]
    run_closures: list[frozenset[str]]

    def count_touching(self, facts: AbstractSet[str], start: int, stop: int) -> int:
        """How many positions in ``[start, stop)`` have a closure that holds any of ``facts``.

        Parameters
        ----------
        facts : set of str
            The facts asked about (e.g. the broken ones).
        start, stop : int
            Positions, ``stop`` excluded.

        Returns
        -------
        int
        """
        return _walks.count_touching(self.run_starts, self.run_closures, facts, start, stop)


def _is_csr(predecessors: object) -> bool:
    """Whether predecessors come as a :class:`CSR` pair (an ``(array("q"), array("q"))`` tuple counts as one)."""
    return isinstance(predecessors, CSR) or (
        isinstance(predecessors, tuple) and len(predecessors) == 2 and isinstance(predecessors[0], array)
    )


class PlanGraph:
    """An immutable, validated dependency graph of plan steps.

    Build one from a sequence of :class:`Step` values, ``PlanGraph(steps)``,
    from trusted columns with :meth:`from_columns`, or with a generator in
    :mod:`cvlib.scenarios.generators`. Construction fails with a clear error on a
    duplicate id, an unknown predecessor or a cycle.
    """

    __slots__ = (
        "_ids",
        "_kinds",
        "_requires",
        "_pred_ptr",
        "_pred_idx",
        "_pred_draw",
        "_order",
        "_positions",
        "_closures",
        "_index_cache",
        "_facts_cache",
        "_closure_size_cache",
        "_depth_cache",
        "_run_starts",
        "_run_columns_cache",
        "_links",
        "_longest",
    )

    def __init__(self, steps: Sequence[Step]) -> None:
        steps = list(steps)
        index, predecessors = _walks.index_steps(steps, Step)
        self._setup(
            [s.id for s in steps], kind_codes([s.kind for s in steps]), [s.requires for s in steps], predecessors,
            index=index,
        )

    @classmethod
    def from_columns(
        cls,
        ids: Sequence[str],
        kinds: Sequence[StepKind] | bytes,
        requires: Sequence[frozenset[str]],
        predecessors: Sequence[tuple[int, ...]] | CSR | tuple[array[int], array[int]],
        order: Sequence[int] | None = None,
        closures: Sequence[frozenset[str]] | None = None,
        *,
        run_starts: list[int] | None = None,
        links: list[int] | None = None,
        longest: int | None = None,
    ) -> PlanGraph:
        """A plan from its columns, trusted as valid: how a generator builds a large plan without a Step per step.

        ``PlanGraph(steps)`` checks every step and builds the columns itself;
        a generator that knows its plan is well formed by construction hands
        the columns over directly, so a plan of a million steps is a few
        C-level passes. Only the columns' lengths are checked here (in
        constant time): ids are assumed unique, predecessors in range and
        the graph acyclic, so build from :class:`Step` values when the input
        is not known to be valid. What the generator also knows by
        construction (the order, the closures, ...) it may hand over too,
        checked against the general algorithms by the generator's own tests.

        Parameters
        ----------
        ids : sequence of str
            Step ids: a list, or a :class:`CompactIds` that makes them from the index.
        kinds : sequence of StepKind or bytes
            One kind per step, or the one-byte codes of :func:`kind_codes`.
        requires : sequence of frozenset of str
            The facts each step requires.
        predecessors : sequence of tuple of int, or CSR
            One tuple of step indices per step, or a :class:`CSR` pair (an
            ``(array("q"), array("q"))`` tuple is read as one too).
        order : sequence of int, optional
            The execution order (Kahn's, ties broken by the smallest id as a
            string); None computes it.
        closures : sequence of frozenset of str, optional
            Each step's closure (the facts it rests on, through its
            ancestors), by step index; None computes them.
        run_starts : list of int, optional
            Where the runs of shared closure objects start, in execution
            order, followed by the number of steps.
        links : list of int, optional
            The positions that start a link (see ``_link_starts``).
        longest : int, optional
            The number of steps on a longest path.

        Returns
        -------
        PlanGraph
        """
        n = len(ids)
        if n == 0:
            raise ParameterError("a plan needs at least one step, got none")
        _walks.check_lengths(n, kinds, requires, predecessors, order, closures, csr=_is_csr(predecessors))
        graph = object.__new__(cls)
        codes = kinds if isinstance(kinds, bytes) else kind_codes(kinds)
        graph._setup(ids, codes, requires, predecessors, order=order, closures=closures)
        graph._run_starts = run_starts
        graph._links = links
        graph._longest = longest
        return graph

    def _setup(
        self,
        ids: Sequence[str],
        kinds: bytes,
        requires: Sequence[frozenset[str]],
        predecessors: Sequence[tuple[int, ...]] | CSR | tuple[array[int], array[int]],
        *,
        order: Sequence[int] | None = None,
        closures: Sequence[frozenset[str]] | None = None,
        index: dict[str, int] | None = None,
    ) -> None:
        self._ids = ids
        self._kinds = kinds
        self._requires = requires
        self._pred_ptr, self._pred_idx, self._pred_draw = _walks.predecessor_columns(predecessors, _is_csr(predecessors))
        self._index_cache = index
        self._facts_cache: frozenset[str] | None = None
        self._closure_size_cache: dict[str, int] = {}
        self._depth_cache: dict[str, int] = {}
        self._run_starts: list[int] | None = None
        self._run_columns_cache: RunColumns | None = None
        self._links: list[int] | None = None
        self._longest: int | None = None
        if order is None:
            order = self._kahn_order()
        self._order: Sequence[int] = order
        self._positions: Sequence[int] | None = None  # made when first needed (see _pos)
        if isinstance(order, range) and order == range(len(ids)):
            self._positions = order
        elif len(order) > 256:
            # A flat array: a list of a million positions would hold a million int objects.
            self._order = order if isinstance(order, array) else array("q", order)
        self._closures = closures if closures is not None else self._interned_closures()

    # -- columns -------------------------------------------------------------
    def _pos(self) -> Sequence[int]:
        """Each step's position in the execution order, by step index (the inverse of the order)."""
        if self._positions is None:
            self._positions = _walks.inverse(self._order)
        return self._positions

    def _indices(self) -> Sequence[int]:
        """The predecessor indices, drawn first if they were handed over as a callable (see :class:`CSR`)."""
        idx = self._pred_idx
        if idx is None:
            assert self._pred_draw is not None
            idx = self._pred_idx = self._pred_draw()
            self._pred_draw = None
        return idx

    def _make_step(self, i: int) -> Step:
        lo, hi = self._pred_ptr[i], self._pred_ptr[i + 1]
        ids = self._ids
        return _trusted_step(
            ids[i], _KIND_OF_CODE[self._kinds[i]], self._requires[i], tuple([ids[p] for p in self._indices()[lo:hi]])
        )

    def _index_of(self, step_id: str) -> int:
        ids = self._ids
        if isinstance(ids, CompactIds):
            found = ids.find(step_id) if isinstance(step_id, str) else -1
            if found < 0:
                raise UnknownStepError(f"no step {step_id!r} in this plan")
            return found
        if self._index_cache is None:
            self._index_cache = {step_id: i for i, step_id in enumerate(ids)}
        try:
            return self._index_cache[step_id]
        except (KeyError, TypeError):
            raise UnknownStepError(f"no step {step_id!r} in this plan") from None

    def run_columns(self) -> RunColumns:
        """The plan as the executors and the law walk it (see :class:`RunColumns`), computed once.

        Returns
        -------
        RunColumns
        """
        if self._run_columns_cache is None:
            self._run_columns_cache = RunColumns(*_walks.execution_runs(
                self._closures, self._order, self._kinds, _ACTION_CODE, self._positions, self._pos, self._run_starts
            ))
        return self._run_columns_cache

    # -- the steps -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[Step]:
        return map(self._make_step, range(len(self._ids)))

    def __contains__(self, step_id: object) -> bool:
        if not isinstance(step_id, str):
            return False
        try:
            self._index_of(step_id)
        except UnknownStepError:
            return False
        return True

    def __repr__(self) -> str:
        return f"PlanGraph({len(self)} steps, {len(self.facts)} facts)"

    @property
    def steps(self) -> Mapping[str, Step]:
        """Steps by id, in construction order."""
        return {s.id: s for s in self}

    def step_at(self, position: int) -> Step:
        """The step at ``position`` of the execution order.

        Parameters
        ----------
        position : int
            Zero-based.

        Returns
        -------
        Step
        """
        return self._make_step(self._order[position])

    def kind_at(self, position: int) -> StepKind:
        """The kind of the step at ``position`` of the execution order (without making the step).

        Parameters
        ----------
        position : int
            Zero-based.

        Returns
        -------
        StepKind
        """
        return _KIND_OF_CODE[self._kinds[self._order[position]]]

    def step(self, step_id: str) -> Step:
        """The step called ``step_id``.

        Parameters
        ----------
        step_id : str
            An id; an unknown one raises :class:`~cvlib.core.errors.UnknownStepError`.

        Returns
        -------
        Step
        """
        return self._make_step(self._index_of(step_id))

    @property
    def facts(self) -> frozenset[str]:
        """Every fact some step requires directly."""
        if self._facts_cache is None:
            # Every fact in a closure is some step's own requirement, and every
            # requirement is in its step's closure: the union over runs is the same set.
            self._facts_cache = frozenset().union(*self.run_columns().run_closures)
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
        """Step ids in execution order: Kahn's algorithm, smallest ready id first.

        Returns
        -------
        list of str
        """
        ids = self._ids
        return [ids[i] for i in self._order]

    def with_tie_break(self, tie_break: str) -> PlanGraph:
        """This plan with its ready steps ordered by ``tie_break`` (one of :data:`TIE_BREAKS`).

        ``"string"`` is the plan itself. ``"numeric"`` is a new plan with the
        same steps, kinds, requirements and predecessors, re-ordered by
        :func:`numeric_id_key`: past layer 9 of a diamond (``L10_0``) the
        string order runs the action before steps of earlier layers, the
        numeric one does not. The executors use it when
        :class:`~cvlib.core.rules.ExecutionRules` say ``order="numeric"``.

        Parameters
        ----------
        tie_break : str
            ``"string"`` or ``"numeric"``.

        Returns
        -------
        PlanGraph
        """
        if tie_break == "string":
            return self
        if tie_break != "numeric":
            raise ParameterError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, got {tie_break!r}")
        ptr, idx = self._pred_ptr, self._indices()
        order = _walks.kahn_order_by(self._ids, ptr, idx, numeric_id_key)
        # Closures are indexed by step and do not depend on the order; runs and links do, so they are rebuilt.
        return PlanGraph.from_columns(
            self._ids, self._kinds, self._requires, CSR(ptr, idx), order=order, closures=self._closures,
            longest=self._longest,
        )

    def ordered_steps(self) -> Iterator[tuple[Step, frozenset[str]]]:
        """Each step with its requirement closure, in execution order.

        Returns
        -------
        iterator of (Step, frozenset of str)
        """
        closures = self._closures
        for i in self._order:
            yield self._make_step(i), closures[i]

    def position(self, step_id: str) -> int:
        """Zero-based position of a step in the topological order.

        Parameters
        ----------
        step_id : str
            An id.

        Returns
        -------
        int
        """
        return self._pos()[self._index_of(step_id)]

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
        return _walks.ancestors(position, known, self._pred_ptr, self._indices(), self._order, self._pos())

    def closure(self, step_id: str) -> frozenset[str]:
        """Facts the step rests on: its own requirements and all its predecessors' closures.

        Parameters
        ----------
        step_id : str
            An id.

        Returns
        -------
        frozenset of str
        """
        return self._closures[self._index_of(step_id)]

    def closure_size(self, fact_id: str) -> int:
        """Number of steps whose closure holds ``fact_id`` (its blast radius), summed over runs.

        Parameters
        ----------
        fact_id : str
            A fact.

        Returns
        -------
        int
        """
        cached = self._closure_size_cache.get(fact_id)
        if cached is None:
            columns = self.run_columns()
            starts = columns.run_starts
            cached = sum(
                [starts[r + 1] - starts[r] for r, closure in enumerate(columns.run_closures) if fact_id in closure]
            )
            self._closure_size_cache[fact_id] = cached
        return cached

    def invalidation_depth(self, fact_id: str) -> int:
        """Longest chain of steps inside ``fact_id``'s closure, counted in steps.

        Computed once per link (see ``_link_starts``) of the runs holding
        the fact, not once per step; a plan that is one run of one closure
        holding the fact answers with its longest path, which generators hand
        over.

        Parameters
        ----------
        fact_id : str
            A fact.

        Returns
        -------
        int
        """
        cached = self._depth_cache.get(fact_id)
        if cached is None:
            run_closures = self.run_columns().run_closures
            if len(run_closures) == 1:
                cached = self._longest_path() if fact_id in run_closures[0] else 0
            else:
                cached = self._deepest(fact_id)
            self._depth_cache[fact_id] = cached
        return cached

    def _longest_path(self) -> int:
        """Steps on a longest path of the plan, handed over by a generator or computed once by links."""
        if self._longest is None:
            self._longest = self._deepest(None)
        return self._longest

    def _link_starts(self) -> list[int]:
        """Positions that start a *link*, computed once (or handed over by a generator).

        A position ``k > 0`` continues a link when its step has exactly one
        predecessor, the step at position ``k - 1``; every other position
        starts one. Along a link closures only grow, so the steps holding a
        fact form a suffix of it, and their depths inside the fact's closure
        rise by one a step.
        """
        if self._links is None:
            self._links = _walks.link_starts(self._order, self._pos(), self._pred_ptr, self._indices())
        return self._links

    def _deepest(self, fact_id: str | None) -> int:
        """The longest chain of steps holding ``fact_id`` (None: of all steps), by runs and links."""
        columns = self.run_columns()
        return _walks.deepest(
            fact_id, self._link_starts(), columns.run_starts, columns.run_closures, self._order, self._pos(),
            self._pred_ptr, self._indices(),
        )

    def action_count(self) -> int:
        """Number of action steps in the plan.

        Returns
        -------
        int
        """
        return self._kinds.count(_ACTION_CODE)

    # -- construction algorithms ---------------------------------------------
    def _kahn_order(self) -> list[int]:
        return _walks.kahn_order(self._ids, self._pred_ptr, self._indices())

    def _interned_closures(self) -> list[frozenset[str]]:
        return _walks.interned_closures(self._requires, self._pred_ptr, self._indices(), self._order)

"""Selection schedules: which stored form of each admitted object is resident now.

Every schedule sees the same :class:`Snapshot`: the turn, the budget, and for
each admitted object its stored forms (tokens, checked vector, claim), which
forms are legal now, its age, importance, active form and declared task
relation, plus whatever the schedule itself carried over from the previous
turn (``Snapshot.carried``; only Magic Context's port uses it, to
remember its last fold). Only the oracle is built with the hidden probes. A
schedule is a pure function of the snapshot (``choose`` gives the desired
choice, ``apply`` what is actually rendered), so the same snapshot and policy
version always give the same choice.

Each schedule chooses only among its own ``forms``: the tiered schedules
among the four views (full, dense, record, anchor), the flat compactor
between the full text and its one extractive compaction, the oracle among
every stored form. When a schedule's applied forms exceed the turn's budget
the turn is recorded infeasible; nothing grants it more budget.

Every number a schedule uses by default is a named choice in
:mod:`cvlib.fidelity.params`, marked with who chose it.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError

from . import magic_context as mc
from .knapsack import mckp
from .params import default
from .records import Check, Obligation, Probe
from .render import LADDER

#: The forms every trajectory stores for Experiment B (the four views and the flat compaction).
STORED: tuple[str, ...] = ("full", "dense", "record", "anchor", "compact")

#: Magic Context's tier boundaries on z = age / half-life; z at or past the last means archived.
MAGIC_BOUNDARIES: tuple[float, ...] = mc.BOUNDARIES
ARCHIVED_TIER = len(MAGIC_BOUNDARIES)

#: The form each Magic Context tier renders as (P1-P4 the four views, P5 or archived the anchor).
TIER_FORMS: tuple[str, ...] = ("full", "dense", "record", "anchor", "anchor")

#: The schedules compared, by name (what :func:`make_policy` accepts).
POLICIES: tuple[str, ...] = (
    "full_while_feasible",
    "age_only",
    "pressure_only",
    "obligation_aware",
    "magic_context_decay",
    "book_decay",
    "oracle",
)


@dataclass(frozen=True, slots=True)
class RepOption:
    """One stored form of an object as a schedule sees it: its size in tokens and the checks it passes.

    ``checks`` are what the independent checker found; ``claimed`` is what the
    form's producer says it preserves (evidence to compare, not to trust).
    """

    name: str
    tokens: int
    checks: frozenset[Check]
    claimed: frozenset[Check]


@dataclass(frozen=True, slots=True)
class ObjectState:
    """Everything a schedule may know about one admitted object at the current turn.

    ``age`` is turns since admission; ``legal`` names the stored forms whose
    checked vector satisfies every obligation that applies now.
    """

    object_id: str
    age: int
    importance: int
    options: tuple[RepOption, ...]
    legal: tuple[str, ...]
    obligations: tuple[Obligation, ...]
    active: str | None
    last_changed: int | None
    related: bool

    def option(self, name: str) -> RepOption:
        """The stored form called ``name``."""
        for o in self.options:
            if o.name == name:
                return o
        raise ParameterError(f"object {self.object_id!r} has no stored form {name!r}")

    def admitted_at(self, turn: int) -> int:
        """The turn this object was admitted, seen from ``turn``."""
        return turn - self.age


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything a schedule may know at one turn (never the hidden probes).

    ``objects`` are in admission order, oldest first (ties by id), so the
    last one is the newest. ``carried`` is the schedule's own memory from the
    previous turn, as ``(key, value)`` pairs.
    """

    turn: int
    budget: int
    objects: tuple[ObjectState, ...]
    carried: tuple[tuple[str, int], ...] = ()

    @property
    def pressure(self) -> float:
        """Projected input if every admitted object were full text, over the usable budget."""
        full = sum(o.option("full").tokens for o in self.objects)
        return full / self.budget if self.budget > 0 else math.inf


Choice = dict[str, str]


# --- policies --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Schedule:
    """Base: desired choice equals applied choice unless a subclass delays application."""

    name: str = "policy"
    version: str = "2"
    #: the forms this schedule chooses among (and pays to generate and store)
    forms: tuple[str, ...] = LADDER
    #: whether the schedule pays to read forms with the checker
    validates: bool = False

    def choose(self, snap: Snapshot) -> Choice:  # pragma: no cover - abstract
        """The desired form per object id: a pure function of the snapshot."""
        raise NotImplementedError

    def apply(self, snap: Snapshot, desired: Choice) -> tuple[Choice, dict[str, str]]:
        """What is rendered, and for each object where it differs from desired, why."""
        return dict(desired), {}

    def carry(self, snap: Snapshot, applied: Choice) -> tuple[tuple[str, int], ...]:
        """What this schedule remembers into the next turn's snapshot (nothing, by default)."""
        return ()

    def own(self, o: ObjectState) -> list[RepOption]:
        """The stored forms of ``o`` this schedule chooses among."""
        return [x for x in o.options if x.name in self.forms]


def _cheapest_legal(o: ObjectState, forms: Sequence[str]) -> str:
    legal = [x for x in o.options if x.name in o.legal and x.name in forms] or [o.option("full")]
    return min(legal, key=lambda x: (x.tokens, list(forms).index(x.name) if x.name in forms else 0)).name


@dataclass(frozen=True, slots=True)
class FullWhileFeasible(Schedule):
    """Full text until it does not fit; then a one-shot compactor replaces older objects with its compaction.

    The compaction is the fair extractive one (:mod:`cvlib.fidelity.extractive`)
    at the trajectory's ``compact_ratio``. Compaction is sticky: the summary
    replaced the history, so a compacted object is never promoted back.
    Objects younger than ``keep_recent`` turns are not compacted.
    """

    name: str = "full_while_feasible"
    forms: tuple[str, ...] = ("full", "compact")
    keep_recent: int = default("keep_recent")  # type: ignore[assignment]

    def choose(self, snap: Snapshot) -> Choice:
        """Full text, or the compaction once compacted; compaction fires when full text does not fit."""
        d = {o.object_id: ("compact" if o.active == "compact" else "full") for o in snap.objects}
        if sum(o.option(d[o.object_id]).tokens for o in snap.objects) > snap.budget:
            for o in snap.objects:
                if o.age >= self.keep_recent:
                    d[o.object_id] = "compact"
        return d


@dataclass(frozen=True, slots=True)
class AgeOnly(Schedule):
    """Form by age band alone: full, dense, record, anchor at ages below each threshold (turns)."""

    name: str = "age_only"
    thresholds: tuple[int, ...] = default("age_thresholds")  # type: ignore[assignment]

    def __post_init__(self) -> None:
        t = self.thresholds
        if len(t) != len(LADDER) - 1 or any(x < 0 for x in t) or list(t) != sorted(t):
            raise ParameterError(f"age thresholds must be {len(LADDER) - 1} non-decreasing non-negative turns, got {t!r}")

    def choose(self, snap: Snapshot) -> Choice:
        """The ladder rung of each object's age band."""
        return {o.object_id: LADDER[bisect_right(self.thresholds, o.age)] for o in snap.objects}


@dataclass(frozen=True, slots=True)
class PressureOnly(Schedule):
    """Start from full text and demote, largest saving first, down the ladder until the budget fits.

    Obligations, age and task are ignored; recomputed from scratch each turn,
    so forms are promoted again when the budget rises.
    """

    name: str = "pressure_only"

    def choose(self, snap: Snapshot) -> Choice:
        """Greedy demotion from all-full until the budget fits or everything is an anchor."""
        idx = {o.object_id: 0 for o in snap.objects}
        tok = {o.object_id: [o.option(n).tokens for n in LADDER] for o in snap.objects}
        age = {o.object_id: o.age for o in snap.objects}
        total = sum(t[0] for t in tok.values())
        while total > snap.budget:
            cands = [k for k in idx if idx[k] < len(LADDER) - 1]
            if not cands:
                break
            k = max(cands, key=lambda k: (tok[k][idx[k]] - tok[k][idx[k] + 1], age[k], [-ord(c) for c in k]))
            total -= tok[k][idx[k]] - tok[k][idx[k] + 1]
            idx[k] += 1
        return {k: LADDER[i] for k, i in idx.items()}


@dataclass(frozen=True, slots=True)
class ObligationAware(Schedule):
    """Legal forms only; the richest legal set that fits, found exactly.

    Value of a form is the number of checks it passes, times
    ``related_weight`` for objects the current task declares related; ties go
    to fewer tokens. If even the cheapest legal forms exceed the budget the
    turn is infeasible and those forms are still what is desired: an illegal
    form is never admitted to make room. ``hysteresis`` (turns) keeps an
    object's legal form for that many turns after it last changed, unless
    that makes the turn infeasible.
    """

    name: str = "obligation_aware"
    validates: bool = True
    hysteresis: int = default("hysteresis")  # type: ignore[assignment]
    related_weight: int = default("related_weight")  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if isinstance(self.hysteresis, bool) or not isinstance(self.hysteresis, int) or self.hysteresis < 0:
            raise ParameterError(f"hysteresis must be a non-negative number of turns, got {self.hysteresis!r}")
        if isinstance(self.related_weight, bool) or not isinstance(self.related_weight, int) or self.related_weight < 1:
            raise ParameterError(f"related_weight must be a positive integer, got {self.related_weight!r}")

    def _solve(self, snap: Snapshot, lock: bool) -> Choice | None:
        groups, costs, values = [], [], []
        for o in snap.objects:
            opts = [x for x in self.own(o) if x.name in o.legal]
            locked = (
                lock
                and self.hysteresis > 0
                and o.active in o.legal
                and o.last_changed is not None
                and snap.turn - o.last_changed < self.hysteresis
            )
            if locked:
                opts = [o.option(o.active)]  # type: ignore[arg-type]
            w = self.related_weight if o.related else 1
            groups.append(opts)
            costs.append([x.tokens for x in opts])
            values.append([w * len(x.checks) for x in opts])
        sol = mckp(costs, values, snap.budget)
        if sol is None:
            return None
        return {o.object_id: g[k].name for o, g, k in zip(snap.objects, groups, sol)}

    def choose(self, snap: Snapshot) -> Choice:
        """The exact best legal set within budget, else the cheapest legal forms (an infeasible turn)."""
        d = self._solve(snap, lock=True)
        if d is None and self.hysteresis > 0:
            d = self._solve(snap, lock=False)
        if d is None:
            d = {o.object_id: _cheapest_legal(o, self.forms) for o in snap.objects}
        return d


def half_life(importance: float, pressure: float) -> float:
    """Magic Context's half-life in compartments: 24 * 2^((I - 50) / 25) / max(p, 0.10) (importance clamped to [1, 100])."""
    return mc.half_life(importance, pressure)


def magic_tier(z: float) -> int:
    """Tier 0-4 for z = age / half-life; a boundary value belongs to the tier above it; 4 is archived."""
    if math.isnan(z) or z < 0:
        raise ParameterError(f"z must be a non-negative number, got {z!r}")
    return bisect_right(MAGIC_BOUNDARIES, z)


@dataclass(frozen=True, slots=True)
class BookDecay(Schedule):
    """The book's first-edition reading of Magic Context's curve, kept under its own name.

    It uses Magic Context's formula and cut points but three inputs of its
    own: age is *turns since admission* (the plugin: rank from the newest
    compartment), pressure is *full-text tokens* over the budget (the plugin:
    natural-tier cost, corrected), and re-tiering happens *every
    ``fold_every`` turns* (the plugin: on hard folds). A newly admitted object
    gets its tier at once. Compare :class:`MagicContextDecay`.
    """

    name: str = "book_decay"
    fold_every: int = default("fold_every")  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if isinstance(self.fold_every, bool) or not isinstance(self.fold_every, int) or self.fold_every < 1:
            raise ParameterError(f"fold_every must be a positive number of turns, got {self.fold_every!r}")

    def tiers(self, snap: Snapshot) -> dict[str, int]:
        """Tier (0-4) of every admitted object at this snapshot."""
        p = snap.pressure
        out = {}
        for o in snap.objects:
            h = half_life(o.importance, p)
            z = math.inf if h == 0 else o.age / h
            out[o.object_id] = ARCHIVED_TIER if math.isinf(z) else magic_tier(z)
        return out

    def choose(self, snap: Snapshot) -> Choice:
        """The form of each object's tier; archived shows as the anchor."""
        return {k: LADDER[min(t, len(LADDER) - 1)] for k, t in self.tiers(snap).items()}

    def apply(self, snap: Snapshot, desired: Choice) -> tuple[Choice, dict[str, str]]:
        """Apply re-tiering only every ``fold_every`` turns; new objects get their tier at once."""
        if snap.turn % self.fold_every == 0:
            return dict(desired), {}
        applied, why = {}, {}
        for o in snap.objects:
            if o.active is None:
                applied[o.object_id] = desired[o.object_id]
            else:
                applied[o.object_id] = o.active
                if o.active != desired[o.object_id]:
                    why[o.object_id] = f"re-tiering waits for turn {snap.turn + (-snap.turn) % self.fold_every}"
        return applied, why


@dataclass(frozen=True, slots=True)
class MagicContextDecay(Schedule):
    """A port of Magic Context's decay renderer (see :mod:`cvlib.fidelity.magic_context` for the files it follows).

    Age is each object's rank from the newest admitted object; pressure is
    the natural-tier cost over the budget with the correction pass
    (``pressure_passes=2``); tiers P1-P4 render as full, dense, record,
    anchor and P5 (archived) as the anchor; a budget guard demotes the oldest
    first. Tiers change only on a hard fold: the first render, a provider
    cache expiry every ``cache_ttl_turns`` turns (off by default: our
    trajectories have no idle gaps), usage at or above ``force`` of the
    budget, or new objects since the last fold (held at full text, as the
    plugin holds new compartments at P1) costing more than ``m1_cap`` of the
    budget. The desired choice is what a fold now would render.
    """

    name: str = "magic_context_decay"
    pressure_passes: int = default("mc_pressure_passes")  # type: ignore[assignment]
    force: float | None = default("mc_force")  # type: ignore[assignment]
    m1_cap: float = default("mc_m1_cap")  # type: ignore[assignment]
    cache_ttl_turns: int | None = default("mc_cache_ttl_turns")  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.pressure_passes not in (1, 2):
            raise ParameterError(f"pressure_passes must be 1 or 2, got {self.pressure_passes!r}")
        if self.force is not None and not (isinstance(self.force, (int, float)) and 0 < self.force):
            raise ParameterError(f"force must be a positive share of the budget or None, got {self.force!r}")
        if isinstance(self.m1_cap, bool) or not isinstance(self.m1_cap, (int, float)) or self.m1_cap <= 0:
            raise ParameterError(f"m1_cap must be a positive share of the budget, got {self.m1_cap!r}")
        ttl = self.cache_ttl_turns
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 1):
            raise ParameterError(f"cache_ttl_turns must be a positive number of turns or None, got {ttl!r}")

    def render(self, snap: Snapshot) -> tuple[dict[str, int], float]:
        """Magic Context tier (1-5) of every admitted object if it folded now, and the pressure used."""
        objs = snap.objects
        costs = [[o.option(f).tokens for f in TIER_FORMS] for o in objs]
        tiers, p = mc.render_tiers([o.importance for o in objs], costs, snap.budget, passes=self.pressure_passes)
        return {o.object_id: t for o, t in zip(objs, tiers)}, p

    def choose(self, snap: Snapshot) -> Choice:
        """What a hard fold now would render: each object's tier as a form."""
        tiers, _ = self.render(snap)
        return {k: TIER_FORMS[t - 1] for k, t in tiers.items()}

    def last_fold(self, snap: Snapshot) -> int | None:
        """The turn of the last hard fold, from what the previous turn carried over."""
        return dict(snap.carried).get("last_fold")

    def fold_reason(self, snap: Snapshot) -> str | None:
        """Why a hard fold happens at this snapshot (None: the cached baseline replays unchanged)."""
        if not snap.objects:
            return None
        last = self.last_fold(snap)
        if last is None:
            return "first render"
        if self.cache_ttl_turns is not None and snap.turn - last >= self.cache_ttl_turns:
            return "provider cache expired"
        now, delta = 0, 0
        for o in snap.objects:
            if o.admitted_at(snap.turn) <= last and o.active is not None:
                now += o.option(o.active).tokens
            else:
                full = o.option("full").tokens
                now += full
                delta += full
        if self.force is not None and (snap.budget <= 0 or now >= self.force * snap.budget):
            return "force materialization"
        if delta > self.m1_cap * snap.budget:
            return "new compartments over the delta cap"
        return None

    def apply(self, snap: Snapshot, desired: Choice) -> tuple[Choice, dict[str, str]]:
        """Re-tier everything on a hard fold; otherwise replay folded forms and hold new objects at full text."""
        if self.fold_reason(snap) is not None:
            return dict(desired), {}
        last = self.last_fold(snap)
        applied: Choice = {}
        why: dict[str, str] = {}
        for o in snap.objects:
            folded = last is not None and o.admitted_at(snap.turn) <= last and o.active is not None
            applied[o.object_id] = o.active if folded and o.active is not None else "full"
            if applied[o.object_id] != desired[o.object_id]:
                why[o.object_id] = "re-tiering waits for a hard fold"
        return applied, why

    def carry(self, snap: Snapshot, applied: Choice) -> tuple[tuple[str, int], ...]:
        """Remember the turn of the last hard fold."""
        last = snap.turn if self.fold_reason(snap) is not None else self.last_fold(snap)
        return () if last is None else (("last_fold", last),)


@dataclass(frozen=True, slots=True)
class Oracle(Schedule):
    """Hindsight: knows this trajectory's probes and maximises the probes it passes, exactly.

    Lexicographic objective per turn: probes passed, then objects kept legal,
    then checks passed, then fewer tokens. It may choose an illegal form when
    that is the only way to pass a probe, so it is a bound on probe failures,
    not a legal schedule. Stored forms can be promoted at no model cost, so
    the per-turn optimum is the trajectory optimum for probe failures.
    """

    name: str = "oracle"
    forms: tuple[str, ...] = STORED
    validates: bool = True
    probes: tuple[Probe, ...] = ()

    def objective(self, snap: Snapshot, choice: Choice) -> tuple[int, int, int, int]:
        """The lexicographic objective of one choice: (probes passed, objects legal, checks passed, -tokens)."""
        due = [p for p in self.probes if p.turn == snap.turn]
        by_id = {o.object_id: o for o in snap.objects}
        opts = {k: by_id[k].option(v) for k, v in choice.items()}
        passed = sum(set(p.checks) <= opts[p.object_id].checks for p in due if p.object_id in opts)
        legal = sum(v in by_id[k].legal for k, v in choice.items())
        return passed, legal, sum(len(x.checks) for x in opts.values()), -sum(x.tokens for x in opts.values())

    def choose(self, snap: Snapshot) -> Choice:
        """The exact per-turn optimum of the lexicographic hindsight objective."""
        due = [p for p in self.probes if p.turn == snap.turn]
        c_tot = sum(max(len(x.checks) for x in self.own(o)) for o in snap.objects)
        w2 = c_tot + 1
        w1 = (len(snap.objects) + 1) * w2
        groups, costs, values = [], [], []
        for o in snap.objects:
            mine = [p for p in due if p.object_id == o.object_id]
            opts = self.own(o)
            vals = []
            for x in opts:
                passed = sum(set(p.checks) <= x.checks for p in mine)
                vals.append(passed * w1 + (x.name in o.legal) * w2 + len(x.checks))
            groups.append(opts)
            costs.append([x.tokens for x in opts])
            values.append(vals)
        sol = mckp(costs, values, snap.budget)
        if sol is None:
            return {o.object_id: _cheapest_legal(o, self.forms) for o in snap.objects}
        return {o.object_id: g[k].name for o, g, k in zip(snap.objects, groups, sol)}


#: Schedule parameters :func:`make_policy` accepts, and the schedule each goes to.
POLICY_PARAMETERS: dict[str, str] = {
    "keep_recent": "full_while_feasible",
    "age_thresholds": "age_only",
    "hysteresis": "obligation_aware",
    "related_weight": "obligation_aware",
    "pressure_passes": "magic_context_decay",
    "force": "magic_context_decay",
    "m1_cap": "magic_context_decay",
    "cache_ttl_turns": "magic_context_decay",
    "fold_every": "book_decay",
}


def _int_param(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def make_policy(name: str, *, probes: Sequence[Probe] = (), **params: object) -> Schedule:
    """Build a schedule by name, passing each the parameters it takes.

    Parameters
    ----------
    name:
        One of :data:`POLICIES`.
    probes:
        The hidden probes, given to the oracle only.
    **params:
        Any of :data:`POLICY_PARAMETERS`; each goes to its schedule and is
        ignored by the others, so one parameter set can build every schedule.
        Omitted ones take their defaults from :mod:`cvlib.fidelity.params`.

    Returns
    -------
    Schedule
    """
    bad = set(params) - set(POLICY_PARAMETERS)
    if bad:
        raise ParameterError(f"unknown schedule parameter(s) {sorted(bad)}; expected some of {sorted(POLICY_PARAMETERS)}")
    mine = {k: v for k, v in params.items() if POLICY_PARAMETERS[k] == name}
    if name == "full_while_feasible":
        return FullWhileFeasible(keep_recent=_int_param("keep_recent", mine.get("keep_recent", default("keep_recent")), 0))
    if name == "age_only":
        at = mine.get("age_thresholds", default("age_thresholds"))
        if isinstance(at, (str, bytes)) or not isinstance(at, Sequence) or any(isinstance(x, bool) or not isinstance(x, int) for x in at):
            raise ParameterError(f"age_thresholds must be a list of integer turns, got {at!r}")
        return AgeOnly(thresholds=tuple(at))
    if name == "pressure_only":
        return PressureOnly()
    if name == "obligation_aware":
        return ObligationAware(**mine)  # type: ignore[arg-type]
    if name == "magic_context_decay":
        return MagicContextDecay(**mine)  # type: ignore[arg-type]
    if name == "book_decay":
        return BookDecay(**mine)  # type: ignore[arg-type]
    if name == "oracle":
        return Oracle(probes=tuple(probes))
    raise ParameterError(f"unknown policy {name!r}; expected one of {POLICIES}")

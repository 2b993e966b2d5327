"""Selection schedules: which stored form of each admitted object is resident now.

Every schedule sees the same :class:`Snapshot`: the turn, the budget, and for
each admitted object its stored forms (tokens, checked vector, claim), which
forms are legal now, its age, importance, active form and declared task
relation. Only the oracle is built with the hidden probes. A schedule is a
pure function of the snapshot (``choose`` gives the desired choice, ``apply``
what is actually rendered), so the same snapshot and policy version always
give the same choice.

When a schedule's applied forms exceed the turn's budget the turn is recorded
infeasible; nothing grants it more budget.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cvlib.core.errors import ParameterError
from .records import Check, Obligation, Probe
from .render import LADDER, REPRESENTATIONS

#: Magic Context's tier boundaries on z = age / half-life; z at or past the last means archived.
MAGIC_BOUNDARIES: tuple[float, ...] = (0.201, 0.729, 1.322, 2.587)
ARCHIVED_TIER = len(MAGIC_BOUNDARIES)

#: The schedules compared, by name (what :func:`make_policy` accepts).
POLICIES: tuple[str, ...] = (
    "full_while_feasible",
    "age_only",
    "pressure_only",
    "obligation_aware",
    "magic_context_decay",
    "oracle",
)


@dataclass(frozen=True, slots=True)
class RepOption:
    """One stored form as a schedule sees it: its tokens, checked vector and (untrusted) claim."""

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
    """One admitted object at one turn: its forms, which are legal now, age, importance, active form, task relation."""

    """Everything a schedule may know about one admitted object at the current turn."""

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


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything a schedule may know at one turn (never the hidden probes)."""

    turn: int
    budget: int
    objects: tuple[ObjectState, ...]

    @property
    def pressure(self) -> float:
        """Projected input if every admitted object were full text, over the usable budget."""
        full = sum(o.option("full").tokens for o in self.objects)
        return full / self.budget if self.budget > 0 else math.inf


Choice = dict[str, str]


# --- exact multiple-choice knapsack ----------------------------------------------------------


def mckp(costs: Sequence[Sequence[int]], values: Sequence[Sequence[int]], budget: int) -> tuple[int, ...] | None:
    """Exact multiple-choice knapsack by dynamic programming over integer costs.

    Pick one option per group to maximise total value with total cost at most
    ``budget``. Ties go to the smaller total cost, then to earlier options.
    Returns the option index per group, or None when even the cheapest
    options exceed the budget.
    """
    if budget < 0:
        raise ParameterError(f"budget must be >= 0 tokens, got {budget}")
    if any(len(c) != len(v) or not c for c, v in zip(costs, values)) or len(costs) != len(values):
        raise ParameterError("mckp needs one non-empty cost list and one value list of equal length per group")
    if sum(min(c) for c in costs) > budget:
        return None
    cap = min(budget, sum(max(c) for c in costs))
    neg = np.iinfo(np.int64).min // 4
    best = np.full(cap + 1, neg, dtype=np.int64)
    best[0] = 0
    arg = np.zeros((len(costs), cap + 1), dtype=np.int16)
    for g, (cs, vs) in enumerate(zip(costs, values)):
        new = np.full(cap + 1, neg, dtype=np.int64)
        for k, (c, v) in enumerate(zip(cs, vs)):
            if c > cap:
                continue
            cand = np.full(cap + 1, neg, dtype=np.int64)
            cand[c:] = best[: cap + 1 - c] + int(v)
            better = cand > new
            new[better] = cand[better]
            arg[g, better] = k
        best = new
    top = best.max()
    b = int(np.argmax(best == top))
    picks = [0] * len(costs)
    for g in range(len(costs) - 1, -1, -1):
        k = int(arg[g, b])
        picks[g] = k
        b -= costs[g][k]
    return tuple(picks)


# --- policies --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Policy:
    """Base: desired choice equals applied choice unless a subclass delays application."""

    name: str = "policy"
    version: str = "1"
    #: the forms this schedule uses (for generation and storage accounting)
    forms: tuple[str, ...] = REPRESENTATIONS
    #: whether the schedule pays to read forms with the checker
    validates: bool = False

    def choose(self, snap: Snapshot) -> Choice:  # pragma: no cover - abstract
        """The desired form per object id: a pure function of the snapshot."""
        raise NotImplementedError

    def apply(self, snap: Snapshot, desired: Choice) -> tuple[Choice, dict[str, str]]:
        """What is rendered, and for each object where it differs from desired, why."""
        return dict(desired), {}


def _cheapest_legal(o: ObjectState) -> str:
    legal = [x for x in o.options if x.name in o.legal]
    return min(legal, key=lambda x: (x.tokens, REPRESENTATIONS.index(x.name))).name


@dataclass(frozen=True, slots=True)
class FullWhileFeasible(Policy):
    """Full text until it does not fit; then a one-shot compactor replaces older objects with the prose summary.

    Compaction is sticky: the summary replaced the history, so a compacted
    object is never promoted back. Objects younger than ``keep_recent`` turns
    are not compacted.
    """

    name: str = "full_while_feasible"
    forms: tuple[str, ...] = ("full", "summary")
    keep_recent: int = 1

    def choose(self, snap: Snapshot) -> Choice:
        """Full text, or the summary once compacted; compaction fires when full text does not fit."""
        d = {o.object_id: ("summary" if o.active == "summary" else "full") for o in snap.objects}
        if sum(o.option(d[o.object_id]).tokens for o in snap.objects) > snap.budget:
            for o in snap.objects:
                if o.age >= self.keep_recent:
                    d[o.object_id] = "summary"
        return d


@dataclass(frozen=True, slots=True)
class AgeOnly(Policy):
    """Form by age band alone: full, dense, record, anchor at ages below each threshold (turns)."""

    name: str = "age_only"
    forms: tuple[str, ...] = LADDER
    thresholds: tuple[int, ...] = (3, 8, 15)

    def __post_init__(self) -> None:
        t = self.thresholds
        if len(t) != len(LADDER) - 1 or any(x < 0 for x in t) or list(t) != sorted(t):
            raise ParameterError(f"age thresholds must be {len(LADDER) - 1} non-decreasing non-negative turns, got {t!r}")

    def choose(self, snap: Snapshot) -> Choice:
        """The ladder rung of each object's age band."""
        return {o.object_id: LADDER[bisect_right(self.thresholds, o.age)] for o in snap.objects}


@dataclass(frozen=True, slots=True)
class PressureOnly(Policy):
    """Start from full text and demote, largest saving first, down the ladder until the budget fits.

    Obligations, age and task are ignored; recomputed from scratch each turn,
    so forms are promoted again when the budget rises.
    """

    name: str = "pressure_only"
    forms: tuple[str, ...] = LADDER

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
class ObligationAware(Policy):
    """Legal forms only; the richest legal set that fits, found exactly.

    Value of a form is the number of checks it passes, tripled for objects the
    current task declares related; ties go to fewer tokens. If even the
    cheapest legal forms exceed the budget the turn is infeasible and those
    forms are still what is desired: an illegal form is never admitted to
    make room. ``hysteresis`` (turns) keeps an object's legal form for that
    many turns after it last changed, unless that makes the turn infeasible.
    """

    name: str = "obligation_aware"
    validates: bool = True
    hysteresis: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.hysteresis, bool) or not isinstance(self.hysteresis, int) or self.hysteresis < 0:
            raise ParameterError(f"hysteresis must be a non-negative number of turns, got {self.hysteresis!r}")

    def _solve(self, snap: Snapshot, lock: bool) -> Choice | None:
        groups, costs, values = [], [], []
        for o in snap.objects:
            opts = [x for x in o.options if x.name in o.legal]
            locked = (
                lock
                and self.hysteresis > 0
                and o.active in o.legal
                and o.last_changed is not None
                and snap.turn - o.last_changed < self.hysteresis
            )
            if locked:
                opts = [o.option(o.active)]
            w = 3 if o.related else 1
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
            d = {o.object_id: _cheapest_legal(o) for o in snap.objects}
        return d


def half_life(importance: float, pressure: float) -> float:
    """Magic Context's half-life in compartments: 24 * 2^((I - 50) / 25) / max(p, 0.10)."""
    return 24.0 * 2.0 ** ((importance - 50.0) / 25.0) / max(pressure, 0.10)


def magic_tier(z: float) -> int:
    """Tier 0-4 for z = age / half-life; a boundary value belongs to the tier above it; 4 is archived."""
    if math.isnan(z) or z < 0:
        raise ParameterError(f"z must be a non-negative number, got {z!r}")
    return bisect_right(MAGIC_BOUNDARIES, z)


@dataclass(frozen=True, slots=True)
class MagicContextDecay(Policy):
    """The decay-curve renderer the chapter reads: tier from age, importance and budget pressure.

    Each object is one compartment. Tiers 0-3 map to full, dense, record and
    anchor; tier 4 (archived) maps to the anchor, the smallest form every
    schedule shares (the chapter has no empty tier; dropping content is
    pruning, not fidelity). The desired tier is computed every turn but, as in
    the plugin, applied only at fold boundaries (every ``fold_every`` turns);
    a newly admitted compartment gets its tier at once.
    """

    name: str = "magic_context_decay"
    forms: tuple[str, ...] = LADDER
    fold_every: int = 4

    def __post_init__(self) -> None:
        if isinstance(self.fold_every, bool) or not isinstance(self.fold_every, int) or self.fold_every < 1:
            raise ParameterError(f"fold_every must be a positive number of turns, got {self.fold_every!r}")

    def tiers(self, snap: Snapshot) -> dict[str, int]:
        """Magic Context tier (0-4) of every admitted object at this snapshot."""
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
        """Apply re-tiering only at fold boundaries; new compartments get their tier at once."""
        if snap.turn % self.fold_every == 0:
            return dict(desired), {}
        applied, why = {}, {}
        for o in snap.objects:
            if o.active is None:
                applied[o.object_id] = desired[o.object_id]
            else:
                applied[o.object_id] = o.active
                if o.active != desired[o.object_id]:
                    why[o.object_id] = f"re-tiering waits for the fold at turn {snap.turn + (-snap.turn) % self.fold_every}"
        return applied, why


@dataclass(frozen=True, slots=True)
class Oracle(Policy):
    """Hindsight: knows this trajectory's probes and maximises the probes it passes, exactly.

    Lexicographic objective per turn: probes passed, then objects kept legal,
    then checks passed, then fewer tokens. It may choose an illegal form when
    that is the only way to pass a probe, so it is a bound on probe failures,
    not a legal schedule. Stored forms can be promoted at no model cost, so
    the per-turn optimum is the trajectory optimum for probe failures.
    """

    name: str = "oracle"
    validates: bool = True
    probes: tuple[Probe, ...] = ()

    def choose(self, snap: Snapshot) -> Choice:
        """The exact per-turn optimum of the lexicographic hindsight objective."""
        due = [p for p in self.probes if p.turn == snap.turn]
        c_tot = sum(max(len(x.checks) for x in o.options) for o in snap.objects)
        w2 = c_tot + 1
        w1 = (len(snap.objects) + 1) * w2
        groups, costs, values = [], [], []
        for o in snap.objects:
            mine = [p for p in due if p.object_id == o.object_id]
            vals = []
            for x in o.options:
                passed = sum(set(p.checks) <= x.checks for p in mine)
                vals.append(passed * w1 + (x.name in o.legal) * w2 + len(x.checks))
            groups.append(o.options)
            costs.append([x.tokens for x in o.options])
            values.append(vals)
        sol = mckp(costs, values, snap.budget)
        if sol is None:
            return {o.object_id: _cheapest_legal(o) for o in snap.objects}
        return {o.object_id: g[k].name for o, g, k in zip(snap.objects, groups, sol)}


def make_policy(name: str, *, probes: Sequence[Probe] = (), **params: object) -> Policy:
    """Build a schedule by name, passing only the parameters it takes.

    ``age_thresholds`` goes to age_only, ``hysteresis`` to obligation_aware,
    ``fold_every`` to magic_context_decay, ``keep_recent`` to
    full_while_feasible; ``probes`` only to the oracle.
    """
    known = {"age_thresholds", "hysteresis", "fold_every", "keep_recent"}
    bad = set(params) - known
    if bad:
        raise ParameterError(f"unknown schedule parameter(s) {sorted(bad)}; expected some of {sorted(known)}")
    if name == "full_while_feasible":
        kr = params.get("keep_recent", 1)
        if isinstance(kr, bool) or not isinstance(kr, int) or kr < 0:
            raise ParameterError(f"keep_recent must be a non-negative number of turns, got {kr!r}")
        return FullWhileFeasible(keep_recent=kr)
    if name == "age_only":
        at = params.get("age_thresholds", (3, 8, 15))
        if isinstance(at, (str, bytes)) or not isinstance(at, Sequence) or any(
            isinstance(x, bool) or not isinstance(x, int) for x in at
        ):
            raise ParameterError(f"age_thresholds must be a list of integer turns, got {at!r}")
        return AgeOnly(thresholds=tuple(at))
    if name == "pressure_only":
        return PressureOnly()
    if name == "obligation_aware":
        return ObligationAware(hysteresis=params.get("hysteresis", 0))  # type: ignore[arg-type]
    if name == "magic_context_decay":
        return MagicContextDecay(fold_every=params.get("fold_every", 4))  # type: ignore[arg-type]
    if name == "oracle":
        return Oracle(probes=tuple(probes))
    raise ParameterError(f"unknown policy {name!r}; expected one of {POLICIES}")


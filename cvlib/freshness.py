"""Time-to-live, silent change, resources and outages (X4): the data the world needs.

The article separates a fact that becomes *false* (a price moved) from one
that stays true but cannot be *used* (a record count from a database that is
now offline), and says a timestamp cannot see the second kind. To run that
claim the world needs three things the original benchmark lacks:

* a :class:`SilentChange`: the fact changes in the world and nothing announces
  it, so only a verification (or a failing action) can find out;
* a :class:`ResourceEvent`: a resource that supports some facts goes down or
  comes back; while it is down those facts are true but unusable;
* an :class:`ObservationLog`: *when the evidence behind each fact was
  observed at its source*. Freshness is measured from that moment, never from
  the moment the evidence was read, so re-reading or re-verifying old evidence
  (a cache, a replica, a log) cannot make an old observation count as fresh.
  That mistake is "freshness laundering"; the log makes it impossible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import ParameterError
from .validation import require_int


@dataclass(frozen=True, slots=True)
class SilentChange:
    """At ``tick`` the fact really changes; no signal reaches any executor."""

    tick: int
    fact_id: str

    def __post_init__(self) -> None:
        require_int("silent change tick", self.tick, minimum=0)
        if not isinstance(self.fact_id, str) or not self.fact_id:
            raise ParameterError(f"a silent change names a fact id, got {self.fact_id!r}")


@dataclass(frozen=True, slots=True)
class ResourceEvent:
    """At ``tick`` the resource goes down (``up=False``) or comes back (``up=True``).

    Outages are announced: a health signal anyone may read. Whether an
    executor *reads* it is the difference between the two checkers.
    """

    tick: int
    resource: str
    up: bool

    def __post_init__(self) -> None:
        require_int("resource event tick", self.tick, minimum=0)
        if not isinstance(self.resource, str) or not self.resource:
            raise ParameterError(f"a resource event names a resource, got {self.resource!r}")
        if not isinstance(self.up, bool):
            raise ParameterError(f"resource event 'up' must be true or false, got {self.up!r}")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence for a fact: when it was observed at its source, and when it was read."""

    fact_id: str
    observed_at: int
    read_at: int

    def __post_init__(self) -> None:
        require_int("observed_at", self.observed_at, minimum=0)
        require_int("read_at", self.read_at, minimum=0)
        if self.read_at < self.observed_at:
            raise ParameterError(
                f"evidence for {self.fact_id!r} is read at tick {self.read_at}, before it was observed "
                f"at tick {self.observed_at}"
            )

    @property
    def age(self) -> int:
        """Ticks between observation and read, which a read does *not* reset."""
        return self.read_at - self.observed_at


class ObservationLog:
    """The latest tick at which each fact was observed at its source.

    Only :meth:`record` changes it, and only forwards: evidence observed
    earlier than what the log holds changes nothing, and a read changes
    nothing at all. That is what keeps freshness honest.
    """

    __slots__ = ("_observed",)

    def __init__(self, observed: Mapping[str, int] | None = None) -> None:
        self._observed: dict[str, int] = {}
        for fact_id, tick in (observed or {}).items():
            self._observed[fact_id] = require_int(f"observation tick of {fact_id!r}", tick, minimum=0)

    def record(self, evidence: Evidence) -> int:
        """Take ``evidence`` into account; return the fact's (possibly unchanged) observation tick."""
        current = self._observed.get(evidence.fact_id)
        if current is None or evidence.observed_at > current:
            self._observed[evidence.fact_id] = evidence.observed_at
        return self._observed[evidence.fact_id]

    def observed_at(self, fact_id: str) -> int | None:
        """Latest tick ``fact_id`` was observed at its source, or None if never."""
        return self._observed.get(fact_id)

    def age(self, fact_id: str, now: int) -> int | None:
        """Ticks since the fact was last observed at its source (None if never)."""
        seen = self._observed.get(fact_id)
        return None if seen is None else now - seen

    def horizon(self, fact_id: str, ttl: int) -> int | None:
        """Last tick at which the fact is still fresh under ``ttl``."""
        seen = self._observed.get(fact_id)
        return None if seen is None else seen + ttl

    def snapshot(self) -> dict[str, int]:
        """Every fact's latest observation tick, by id (a copy)."""
        return dict(self._observed)


def check_supports(supports: Mapping[str, str] | None, facts: Iterable[str]) -> dict[str, str]:
    """Validate a fact -> supporting resource map against the facts a world holds."""
    if supports is None:
        return {}
    if not isinstance(supports, Mapping):
        raise ParameterError(f"supports must map fact ids to resource names, got {type(supports).__name__}")
    known = set(facts)
    out = {}
    for fact_id, resource in supports.items():
        if fact_id not in known:
            raise ParameterError(
                f"supports names fact {fact_id!r}, which the world does not hold; known facts: {', '.join(sorted(known))}"
            )
        if not isinstance(resource, str) or not resource:
            raise ParameterError(f"the resource supporting {fact_id!r} must be a non-empty name, got {resource!r}")
        out[fact_id] = resource
    return out


# -- X4 experiments ----------------------------------------------------------------------------


def _geometric_ticks(uniforms, rate: float) -> list[int | None]:
    """First tick of a per-tick change probability ``rate``, from shared uniforms (None: never)."""
    import math

    if rate <= 0.0:
        return [None] * len(uniforms)
    if rate >= 1.0:
        return [0] * len(uniforms)
    return [int(math.floor(math.log1p(-u) / math.log1p(-rate))) for u in uniforms]


def _mean_row(results) -> dict:
    n = len(results)
    return {
        "completion_rate": sum(r.completed for r in results) / n,
        "mean_steps": sum(r.steps_used for r in results) / n,
        "mean_pfw": sum(r.pre_failure_work for r in results) / n,
        "mean_scur": sum(r.scur for r in results) / n,
        "mean_verifications": sum(r.verifications for r in results) / n,
    }


def ttl_sweep(ttls, rates, n_schedules: int = 200, depth: int = 8, seed: int = 0):
    """Time-to-live against the rate of silent change, on a chain resting on one fact.

    Each schedule draws when F1 silently changes (per-tick probability
    ``rate``; the same uniforms for every rate and TTL). The validity-aware
    executor treats F1 as STALE once older than ``ttl`` and verifies it; a
    confirmation renews the horizon from the time of the new observation. A
    TTL of None means facts never expire (the executor then never verifies,
    and finds a silent change only when its action fails, like the baseline).
    One row per (rate, ttl) with mean SCUR, PFW, verifications, steps and
    completion, plus the baseline's row per rate (``ttl`` = "baseline").
    """
    import numpy as np
    import pandas as pd

    from . import generators
    from .engine import RuledWorld, run_baseline, run_validity_aware
    from .facts import Fact
    from .rules import ExecutionRules
    from .validation import require_int

    n_schedules = require_int("n_schedules", n_schedules, minimum=1)
    depth = require_int("depth", depth, minimum=1)
    seed = require_int("seed", seed)
    for ttl in ttls:
        if ttl is not None:
            require_int("each ttl", ttl, minimum=0)
    plan = generators.chain(depth)
    facts = (Fact("F1", "value observed at tick 0"),)
    uniforms = np.random.default_rng(seed).random(n_schedules)
    rows = []
    for rate in rates:
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ParameterError(f"each rate must be a probability per tick in [0, 1], got {rate!r}")
        ticks = _geometric_ticks(uniforms, float(rate))
        schedules = [() if t is None or t >= 10 * depth else (SilentChange(t, "F1"),) for t in ticks]
        changed = sum(1 for t in ticks if t is not None and t < depth) / n_schedules
        base = [run_baseline(plan, RuledWorld(facts, silent_changes=s), "F1") for s in schedules]
        rows.append({"rate": float(rate), "ttl": "baseline", "changed_in_run": changed, **_mean_row(base)})
        for ttl in ttls:
            rules = ExecutionRules(ttl=ttl, ttl_refresh=True)
            runs = [run_validity_aware(plan, RuledWorld(facts, rules=rules, silent_changes=s), "F1") for s in schedules]
            rows.append({"rate": float(rate), "ttl": "none" if ttl is None else int(ttl), "changed_in_run": changed,
                         **_mean_row(runs)})
    return pd.DataFrame(rows)


#: The checkers compared in :func:`operational_comparison`, with the rules each one runs under.
OPERATIONAL_CHECKERS = ("baseline", "timestamp", "timestamp_laundering", "dependency")


def operational_setup(depth: int = 8, db_step: int = 1):
    """A chain whose first step rests on a price (F1) and step ``db_step`` on a record count (F2) read from ``db``."""
    from .facts import Fact
    from .graph import PlanGraph, Step, StepKind
    from .validation import require_int

    depth = require_int("depth", depth, minimum=2)
    db_step = require_int("db_step", db_step, minimum=0)
    if db_step >= depth - 1:
        raise ParameterError(f"db_step must be a step before the action (< {depth - 1}), got {db_step}")
    steps = []
    for i in range(depth):
        kind = StepKind.ACTION if i == depth - 1 else (StepKind.PLAN if i == 0 else StepKind.DECISION)
        requires = {"F1"} if i == 0 else set()
        if i == db_step:
            requires.add("F2")
        steps.append(Step(f"S{i}", kind, frozenset(requires), (f"S{i - 1}",) if i else ()))
    facts = (Fact("F1", 420), Fact("F2", 10_000))
    return PlanGraph(steps), facts, {"F2": "db"}


def operational_comparison(ttls, depth: int = 8, outage_prob: float = 0.5, n_schedules: int = 200, seed: int = 0):
    """Timestamp/TTL-only vs dependency-aware checking on the same outage schedules.

    Each schedule takes the database down, with probability ``outage_prob``,
    at a tick drawn uniformly over the run (it stays down). The record count
    F2 stays *true* throughout: only its usability changes. One row per
    (checker, ttl): ``baseline`` (no checks), ``timestamp`` (TTL only, honest
    freshness), ``timestamp_laundering`` (TTL only, but a re-verification
    that can only read cached evidence counts as fresh) and ``dependency``
    (TTL plus the health of the resource behind each fact).
    """
    import numpy as np
    import pandas as pd

    from .engine import RuledWorld, run_baseline, run_validity_aware
    from .rules import ExecutionRules, _probability
    from .validation import require_int

    outage_prob = _probability("outage_prob", outage_prob)
    n_schedules = require_int("n_schedules", n_schedules, minimum=1)
    plan, facts, supports = operational_setup(depth)
    rng = np.random.default_rng(require_int("seed", seed))
    happens, where = rng.random(n_schedules), rng.random(n_schedules)
    schedules = [
        (ResourceEvent(int(w * depth), "db", up=False),) if h < outage_prob else () for h, w in zip(happens, where)
    ]
    rows = []
    for ttl in ttls:
        require_int("each ttl", ttl, minimum=0)
        for checker in OPERATIONAL_CHECKERS:
            if checker == "baseline":
                rules, runner = ExecutionRules(ttl=ttl, ttl_refresh=True), run_baseline
            else:
                rules = ExecutionRules(
                    ttl=ttl,
                    ttl_refresh=True,
                    checker="dependency" if checker == "dependency" else "timestamp",
                    launder=checker == "timestamp_laundering",
                )
                runner = run_validity_aware
            runs = [
                runner(plan, RuledWorld(facts, rules=rules, resource_events=s, supports=supports), "F1")
                for s in schedules
            ]
            rows.append({"checker": checker, "ttl": int(ttl), **_mean_row(runs)})
    return pd.DataFrame(rows)

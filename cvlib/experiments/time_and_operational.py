"""Time-to-live, silent change and outages measured (X4).

The world's data for these (:mod:`cvlib.core.events`) and the rules
(``ttl``, ``ttl_refresh``, ``checker``, ``launder`` in
:class:`~cvlib.core.rules.ExecutionRules`) live in the core; this module runs
the chapter's two experiments on them: TTL against the rate of silent change,
and timestamp-only against dependency-aware checking under outages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from cvlib.core.events import ResourceEvent, SilentChange
from cvlib.core.executors import (
    BASELINE,
    VALIDITY_AWARE,
    ExecutorResult,
    PolicyLike,
    resolve_policies,
    run_policy,
)
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import require_int, require_probability
from cvlib.scenarios.builders import operational_setup, silent_change_setup
from cvlib.scenarios.sizes import check_runs

__all__ = ["OPERATIONAL_CHECKERS", "operational_comparison", "ttl_sweep"]


def _geometric_ticks(uniforms: np.ndarray, rate: float) -> list[int | None]:
    """First tick of a per-tick change probability ``rate``, from shared uniforms (None: never)."""
    if rate <= 0.0:
        return [None] * len(uniforms)
    if rate >= 1.0:
        return [0] * len(uniforms)
    return [int(math.floor(math.log1p(-u) / math.log1p(-rate))) for u in uniforms]


def _mean_row(results: Sequence[ExecutorResult]) -> dict[str, Any]:
    n = len(results)
    return {
        "completion_rate": sum(r.completed for r in results) / n,
        "mean_steps": sum(r.steps_used for r in results) / n,
        "mean_pfw": sum(r.pre_failure_work for r in results) / n,
        "mean_scur": sum(r.scur for r in results) / n,
        "mean_verifications": sum(r.verifications for r in results) / n,
    }


def ttl_sweep(
    ttls: Sequence[int | None],
    rates: Sequence[float],
    n_schedules: int = 200,
    depth: int = 8,
    seed: int = 0,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Time-to-live against the rate of silent change, on a chain resting on one fact.

    Each schedule draws when F1 silently changes (per-tick probability
    ``rate``; the same uniforms for every rate and TTL). The validity-aware
    executor treats F1 as STALE once older than ``ttl`` and verifies it; a
    confirmation renews the horizon from the time of the new observation. A
    TTL of None means facts never expire (the executor then never verifies,
    and finds a silent change only when its action fails, like the baseline).

    Parameters
    ----------
    ttls : sequence of int or None
        Time-to-live values to compare.
    rates : sequence of float
        Per-tick probabilities of a silent change.
    n_schedules : int
        Schedules per (rate, ttl).
    depth : int
        Steps in the chain.
    seed : int
        Seed of the shared uniforms.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two. The baseline
        reads no TTL, so it has one row per rate; every other executor one
        per (rate, ttl).

    Returns
    -------
    pandas.DataFrame
        One row per (rate, executor, ttl) with the executor's name
        (``executor``) and mean SCUR, PFW, verifications, steps and
        completion; the baseline's row per rate has ``ttl`` = "baseline".
    """
    chosen = resolve_policies(policies)
    n_schedules = require_int("n_schedules", n_schedules, minimum=1)
    check_runs("n_schedules", n_schedules)
    depth = require_int("depth", depth, minimum=1)
    seed = require_int("seed", seed)
    for ttl in ttls:
        if ttl is not None:
            require_int("each ttl", ttl, minimum=0)
    setup = silent_change_setup(depth)
    uniforms = np.random.default_rng(seed).random(n_schedules)
    rows = []
    for rate in rates:
        rate = require_probability("each rate", rate)
        ticks = _geometric_ticks(uniforms, rate)
        setups = [
            replace(setup, silent_changes=() if t is None or t >= 10 * depth else (SilentChange(t, "F1"),))
            for t in ticks
        ]
        changed = sum(1 for t in ticks if t is not None and t < depth) / n_schedules
        for policy in chosen:
            if policy.name == BASELINE:
                base = [run_policy(policy, s.plan, s.new_world(), s.at_risk, s.budget) for s in setups]
                rows.append({"rate": float(rate), "ttl": "baseline", "executor": policy.name, "changed_in_run": changed,
                             **_mean_row(base)})
                continue
            for ttl in ttls:
                rules = ExecutionRules(ttl=ttl, ttl_refresh=True)
                runs = [run_policy(policy, s.plan, s.new_world(rules), s.at_risk, s.budget) for s in setups]
                rows.append({"rate": float(rate), "ttl": "none" if ttl is None else int(ttl), "executor": policy.name,
                             "changed_in_run": changed, **_mean_row(runs)})
    return pd.DataFrame(rows)


#: The checkers compared in :func:`operational_comparison`, with the rules each one runs under.
OPERATIONAL_CHECKERS = ("baseline", "timestamp", "timestamp_laundering", "dependency")


def operational_comparison(
    ttls: Sequence[int],
    depth: int = 8,
    outage_prob: float = 0.5,
    n_schedules: int = 200,
    seed: int = 0,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Timestamp/TTL-only vs dependency-aware checking on the same outage schedules.

    Each schedule takes the database down, with probability ``outage_prob``,
    at a tick drawn uniformly over the run (it stays down). The record count
    F2 stays *true* throughout: only its usability changes.

    Parameters
    ----------
    ttls : sequence of int
        Time-to-live values.
    depth : int
        Steps in the chain.
    outage_prob : float
        Probability that a schedule has an outage.
    n_schedules : int
        Schedules per (checker, ttl).
    seed : int
        Seed of the draws.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two. The baseline
        gives the ``baseline`` row, the validity-aware executor the three
        checker configurations below, and any other executor one row named
        after it, under the TTL with the dependency checker (so that an
        executor that reads resource health is told of outages).

    Returns
    -------
    pandas.DataFrame
        One row per (checker, ttl): ``baseline`` (no checks), ``timestamp``
        (TTL only, honest freshness), ``timestamp_laundering`` (TTL only, but a
        re-verification that can only read cached evidence counts as fresh)
        and ``dependency`` (TTL plus the health of the resource behind each fact),
        then one per other executor.
    """
    chosen = resolve_policies(policies)
    outage_prob = require_probability("outage_prob", outage_prob)
    n_schedules = require_int("n_schedules", n_schedules, minimum=1)
    setup = operational_setup(depth)
    rng = np.random.default_rng(require_int("seed", seed))
    happens, where = rng.random(n_schedules), rng.random(n_schedules)
    setups = [
        replace(setup, resource_events=(ResourceEvent(int(w * depth), "db", up=False),) if h < outage_prob else ())
        for h, w in zip(happens, where)
    ]
    rows = []
    for ttl in ttls:
        require_int("each ttl", ttl, minimum=0)
        for policy in chosen:
            for checker, rules in _configurations(policy.name, ttl):
                runs = [run_policy(policy, s.plan, s.new_world(rules), s.at_risk, s.budget) for s in setups]
                rows.append({"checker": checker, "ttl": int(ttl), **_mean_row(runs)})
    return pd.DataFrame(rows)


def _configurations(name: str, ttl: int) -> list[tuple[str, ExecutionRules]]:
    """The rows one executor gives in :func:`operational_comparison`: (checker label, rules)."""
    if name == VALIDITY_AWARE:
        return [
            (checker, ExecutionRules(ttl=ttl, ttl_refresh=True, checker="dependency" if checker == "dependency" else "timestamp",
                                     launder=checker == "timestamp_laundering"))
            for checker in OPERATIONAL_CHECKERS[1:]
        ]
    if name == BASELINE:
        return [(name, ExecutionRules(ttl=ttl, ttl_refresh=True))]
    return [(name, ExecutionRules(ttl=ttl, ttl_refresh=True, checker="dependency"))]

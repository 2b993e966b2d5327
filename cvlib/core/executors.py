"""The executors under comparison, in one place: the loop, the policies, the registry and the bit-mask path.

This module holds no code of its own; it gathers the public names of the
modules that make up the executors, so that ``from cvlib.core.executors
import ...`` reaches all of them:

* :mod:`cvlib.core.loop`: the one loop, :func:`run_policy`, the
  :class:`RunState` it keeps, a policy's verdict (:class:`Replan`) and the
  :class:`Policy` protocol;
* :mod:`cvlib.core.policies`: the executors themselves (:class:`Baseline`,
  :class:`ValidityAware`, :class:`TimestampOnly`) and their names;
* :mod:`cvlib.core.registry`: executors by name, entry point or
  ``"module:attribute"`` (:func:`register_policy`, :func:`unregister_policy`,
  :func:`resolve_policies`);
* :mod:`cvlib.core.bitmasks`: the article's two executors under the
  article's rules on integers (:func:`article_pair_small`,
  :func:`article_pair_runs`);
* :mod:`cvlib.core.runs`: running them, one by name (:func:`run_executor`)
  or a set of policies on a set of runs (:func:`run_policies`, which takes
  the bit-mask path wherever it applies);
* :mod:`cvlib.core.results`: what a run gives (:class:`ExecutorResult`) and
  the one rule for naming per-executor columns (:func:`policy_column`).

Adding an executor means writing a policy and registering it; every
scenario, sweep, trace, table and chapter can then run it by name (see
:mod:`cvlib.core.registry`).
"""

from __future__ import annotations

from cvlib.core.bitmasks import (
    MAX_MASKED_FACTS,
    BitMaskRun,
    MaskedWorld,
    article_pair,
    article_pair_runs,
    article_pair_small,
    is_article_pair,
    mask_plan,
    masked_world,
)
from cvlib.core.loop import Policy, Replan, RunState, compute_budget, run_policy
from cvlib.core.policies import (
    ARTICLE_POLICIES,
    BASELINE,
    TIMESTAMP_ONLY,
    VALIDITY_AWARE,
    Baseline,
    TimestampOnly,
    ValidityAware,
)
from cvlib.core.recovery import recovery_cost
from cvlib.core.registry import (
    BUILT_IN_POLICIES,
    ENTRY_POINT_GROUP,
    PolicyLike,
    executor_names,
    get_policy,
    law_policies,
    policies,
    policy_names,
    register_policy,
    resolve_policies,
    resolve_policy,
    unregister_policy,
)
from cvlib.core.results import METRICS, ExecutorResult, policy_column, policy_columns, scur_of
from cvlib.core.runs import PolicyRuns, RunInput, run_baseline, run_executor, run_policies, run_validity_aware

__all__ = [
    "ARTICLE_POLICIES",
    "BASELINE",
    "BUILT_IN_POLICIES",
    "ENTRY_POINT_GROUP",
    "MAX_MASKED_FACTS",
    "METRICS",
    "TIMESTAMP_ONLY",
    "VALIDITY_AWARE",
    "Baseline",
    "BitMaskRun",
    "ExecutorResult",
    "MaskedWorld",
    "Policy",
    "PolicyLike",
    "PolicyRuns",
    "Replan",
    "RunInput",
    "RunState",
    "TimestampOnly",
    "ValidityAware",
    "article_pair",
    "article_pair_runs",
    "article_pair_small",
    "compute_budget",
    "executor_names",
    "get_policy",
    "is_article_pair",
    "law_policies",
    "mask_plan",
    "masked_world",
    "policies",
    "policy_column",
    "policy_columns",
    "policy_names",
    "recovery_cost",
    "register_policy",
    "resolve_policies",
    "resolve_policy",
    "run_baseline",
    "run_executor",
    "run_policies",
    "run_policy",
    "run_validity_aware",
    "scur_of",
    "unregister_policy",
]

"""What the time-and-operational chapter (X4) says of its two sweeps, as glue.

The chapter's prose quotes a handful of numbers and verdicts from each frame;
reading them off here keeps the notebook to its calls and makes the reading
testable: which TTL is best at each rate, whether doomed work ever falls as the
TTL grows, and how the checkers compare at the reference TTL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from cvlib.experiments.time_and_operational import OPERATIONAL_CHECKERS
from cvlib.presentation.formatting import words

__all__ = ["operational_values", "ttl_values"]


def ttl_values(
    ttl_table: pd.DataFrame, timestamp_rows: pd.DataFrame, rates: Sequence[float], ttls: Sequence[int], depth: int
) -> tuple[dict[str, Any], dict[str, str]]:
    """The TTL sweep's glued values and verdicts.

    Parameters
    ----------
    ttl_table : pandas.DataFrame
        :func:`~cvlib.experiments.time_and_operational.ttl_sweep` for the article's two executors.
    timestamp_rows : pandas.DataFrame
        The same sweep for the ``timestamp_only`` executor alone.
    rates : sequence of float
        The rates of change swept, lowest first.
    ttls : sequence of int
        The TTLs swept.
    depth : int
        The chain's length.

    Returns
    -------
    tuple of (dict, dict)
        Values for :func:`~cvlib.presentation.formatting.glue_all`, and texts for
        :func:`~cvlib.presentation.formatting.glue_text`, by key.
    """
    numeric = ttl_table[ttl_table.ttl != "baseline"].copy()
    numeric["ttl"] = numeric["ttl"].astype(int)
    best = {}
    for rate in rates:
        part = ttl_table[(ttl_table.rate == rate) & (ttl_table.ttl != "baseline")]
        best[rate] = part.loc[part.mean_steps.idxmin()]
    pfw_rises = all(
        bool(np.all(np.diff(numeric[numeric.rate == r].sort_values("ttl").mean_pfw.to_numpy()) >= 0)) for r in rates
    )
    lo, hi = rates[0], rates[-1]
    base = {rate: ttl_table[(ttl_table.rate == rate) & (ttl_table.ttl == "baseline")].iloc[0] for rate in (lo, hi)}
    shortest = ttl_table[(ttl_table.rate == lo) & (ttl_table.ttl == min(ttls))].iloc[0]
    validity_rows = ttl_table[ttl_table.executor == "validity_aware"]
    same = (
        timestamp_rows.drop(columns="executor").to_dict("records")
        == validity_rows.drop(columns="executor").to_dict("records")
    )
    texts = {
        "X4_timestamp_only_ttl": words(
            same, "equal the validity-aware executor's on every schedule", "differ from the validity-aware executor's"
        ),
        "X4_pfw_rises_with_ttl": words(
            pfw_rises, "never falls as the TTL grows, at any rate", "falls somewhere as the TTL grows"
        ),
    }
    values = {
        "X4_depth": depth, "X4_rate_low": (lo, "probability"), "X4_rate_high": (hi, "probability"),
        "X4_best_ttl_low": int(best[lo].ttl), "X4_best_ttl_high": int(best[hi].ttl),
        "X4_best_steps_high": (best[hi].mean_steps, "mean"), "X4_baseline_steps_high": (base[hi].mean_steps, "mean"),
        "X4_min_ttl": min(ttls), "X4_min_ttl_steps_low": (shortest.mean_steps, "mean"),
        "X4_baseline_steps_low": (base[lo].mean_steps, "mean"),
        "X4_min_ttl_verifications_low": (shortest.mean_verifications, "mean"),
        "X4_ttl_completion_min": (ttl_table[ttl_table.ttl != "baseline"].completion_rate.min(), "share"),
    }
    return values, texts


def operational_values(
    ops: pd.DataFrame, reference_ttl: int, outage_prob: float, ops_ttls: Sequence[int]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The operational comparison's glued values and verdicts.

    Parameters
    ----------
    ops : pandas.DataFrame
        :func:`~cvlib.experiments.time_and_operational.operational_comparison`, with ``timestamp_only`` among its checkers.
    reference_ttl : int
        The TTL at which the prose compares the checkers.
    outage_prob : float
        The probability of an outage the comparison ran with.
    ops_ttls : sequence of int
        The TTLs compared.

    Returns
    -------
    tuple of (dict, dict)
        Values for :func:`~cvlib.presentation.formatting.glue_all`, and texts for
        :func:`~cvlib.presentation.formatting.glue_text`, by key.
    """
    ref = ops[ops.ttl == reference_ttl].set_index("checker")
    values: dict[str, Any] = {"X4_ref_ttl": reference_ttl, "X4_outage_prob": (outage_prob, "probability")}
    for checker in OPERATIONAL_CHECKERS:
        values |= {
            f"X4_pfw_{checker}": (ref.loc[checker, "mean_pfw"], "mean"),
            f"X4_scur_{checker}": (ref.loc[checker, "mean_scur"], "share"),
            f"X4_completion_{checker}": (ref.loc[checker, "completion_rate"], "share"),
            f"X4_verifications_{checker}": (ref.loc[checker, "mean_verifications"], "mean"),
        }
    values |= {
        "X4_pfw_timestamp_only": (ref.loc["timestamp_only", "mean_pfw"], "mean"),
        "X4_completion_timestamp_only": (ref.loc["timestamp_only", "completion_rate"], "share"),
    }
    long_ttl = ops[ops.ttl == max(ops_ttls)].set_index("checker")
    values |= {
        "X4_dependency_pfw_max": (ops[ops.checker == "dependency"].mean_pfw.max(), "mean"),
        "X4_long_ttl": max(ops_ttls),
    }
    texts = {
        "X4_timestamp_equals_baseline_at_long_ttl": words(
            bool(long_ttl.loc["timestamp", "mean_pfw"] == long_ttl.loc["baseline", "mean_pfw"]),
            "equals the baseline's", "differs from the baseline's",
        )
    }
    return values, texts

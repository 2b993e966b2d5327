"""Paired comparisons over tasks, the one way both model studies compare arms (scipy and statsmodels, nothing hand-written).

A study's unit is the task: two arms are compared by each task's difference
(repeats averaged within the task first), and the interval comes from
resampling tasks, which is the cluster bootstrap by task over repeats
(Miller 2024, "Adding Error Bars to Evals"). A paired yes/no outcome gets
McNemar's exact test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError

__all__ = ["PairedEffect", "PairedTest", "mcnemar_exact", "paired_effect"]


@dataclass(frozen=True, slots=True)
class PairedEffect:
    """A mean paired difference over tasks and its interval."""

    tasks: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class PairedTest:
    """McNemar's exact test of a paired yes/no outcome: the discordant counts and the p-value."""

    tasks: int
    only_first: int
    only_second: int
    p_value: float


def paired_effect(differences: Sequence[float], confidence: float = 0.95, resamples: int = 10_000) -> PairedEffect:
    """The mean of per-task differences with a percentile bootstrap interval over tasks (seed 0).

    Parameters
    ----------
    differences : sequence of float
        One difference per task (repeats already averaged).
    confidence : float
        The interval's level.
    resamples : int
        Bootstrap resamples.

    Returns
    -------
    PairedEffect
        The interval is the mean itself when every difference is the same (nothing to resample).
    """
    import numpy as np
    from scipy.stats import bootstrap

    data = np.asarray([float(d) for d in differences])
    if data.size == 0:
        raise ParameterError("a paired effect needs at least one task's difference, got none")
    if not 0.0 < confidence < 1.0:
        raise ParameterError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    mean = float(data.mean())
    if data.size == 1 or float(np.ptp(data)) == 0.0:
        return PairedEffect(int(data.size), mean, mean, mean)
    ci = bootstrap((data,), np.mean, confidence_level=confidence, n_resamples=resamples, method="percentile",
                   random_state=np.random.default_rng(0)).confidence_interval
    return PairedEffect(int(data.size), mean, float(ci.low), float(ci.high))


def mcnemar_exact(first: Sequence[bool], second: Sequence[bool]) -> PairedTest:
    """McNemar's exact test of two paired yes/no outcomes, task by task.

    Parameters
    ----------
    first, second : sequence of bool
        The outcome of each task under the two arms, in the same task order.

    Returns
    -------
    PairedTest
    """
    from statsmodels.stats.contingency_tables import mcnemar

    if len(first) != len(second) or not first:
        raise ParameterError(f"McNemar's test needs two equally long, non-empty lists, got {len(first)} and {len(second)}")
    pairs = [(bool(a), bool(b)) for a, b in zip(first, second)]
    both = sum(a and b for a, b in pairs)
    only_first = sum(a and not b for a, b in pairs)
    only_second = sum(b and not a for a, b in pairs)
    neither = len(pairs) - both - only_first - only_second
    result = mcnemar([[both, only_first], [only_second, neither]], exact=True)
    return PairedTest(len(pairs), only_first, only_second, float(result.pvalue))

"""Nulls as bounds (issue 47, item 7): two one-sided tests on a paired per-task difference, by the paired bootstrap.

A contrast whose interval holds zero says nothing by itself; what it can say is
how large an effect the data rule out. Two one-sided tests at level α (TOST)
reject "the difference is at most −margin" and "at least +margin" together
exactly when the (1 − 2α) interval lies inside (−margin, +margin). The
interval here is the one every other contrast of the study uses
(:func:`cvlib.experiments.paired.paired_effect`: the percentile bootstrap over
tasks, repeats averaged within a task), at 90 % for α = 0.05. The bootstrap
rather than a t-based TOST (``statsmodels.stats.weightstats.ttost_paired``)
because a task's difference of two yes/no shares takes a handful of values
(mostly 0, ±1 in a greedy repeat), far from normal at 60 tasks, and because it
is then the same resampling as the effect it bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError
from cvlib.experiments.paired import paired_effect

__all__ = ["EQUIVALENCE_MARGIN", "MIN_TASKS", "Equivalence", "equivalence"]

#: The pre-registered margin for a difference in stale-edit (or held-back) share, 15 points.
EQUIVALENCE_MARGIN = 0.15
#: The fewest tasks a bound is given on.
MIN_TASKS = 10


@dataclass(frozen=True, slots=True)
class Equivalence:
    """Two one-sided tests on a paired difference: the (1 − 2α) interval, the margin and the verdicts.

    Parameters
    ----------
    tasks : int
        Tasks with a difference.
    mean, low, high : float
        The mean difference and its (1 − 2α) bootstrap interval.
    margin : float
        The margin.
    no_larger_reduction : bool
        The lower test rejects: the difference is above −margin (no reduction larger than the margin).
    no_larger_increase : bool
        The upper test rejects: the difference is below +margin.
    verdict : str
        ``equivalent`` (both), ``no reduction larger than the margin`` (lower only), ``no increase larger than the
        margin`` (upper only), ``not bounded`` (neither) or ``too few tasks``.
    """

    tasks: int
    mean: float
    low: float
    high: float
    margin: float
    no_larger_reduction: bool
    no_larger_increase: bool
    verdict: str

    @property
    def largest_reduction(self) -> float:
        """The largest reduction the data leave open (minus the interval's low end, at least 0), in the difference's units."""
        return max(0.0, -self.low)


def equivalence(differences: Sequence[float], margin: float = EQUIVALENCE_MARGIN, alpha: float = 0.05,
                resamples: int = 10_000) -> Equivalence:
    """TOST of a paired difference against ±margin, by the percentile bootstrap over tasks (seed 0).

    Parameters
    ----------
    differences : sequence of float
        One difference per task (repeats averaged within the task).
    margin : float
        The equivalence margin, in the difference's units (a share: 0.15 is 15 points).
    alpha : float
        Each one-sided test's level; the interval is at 1 − 2α.
    resamples : int
        Bootstrap resamples.

    Returns
    -------
    Equivalence
    """
    if not margin > 0:
        raise ParameterError(f"the equivalence margin must be positive, got {margin!r}")
    if not 0.0 < alpha < 0.5:
        raise ParameterError(f"alpha must lie strictly between 0 and 0.5, got {alpha!r}")
    effect = paired_effect(differences, 1.0 - 2.0 * alpha, resamples)
    lower, upper = effect.low > -margin, effect.high < margin
    if effect.tasks < MIN_TASKS:
        verdict = "too few tasks"
        lower = upper = False
    elif lower and upper:
        verdict = "equivalent"
    elif lower:
        verdict = "no reduction larger than the margin"
    elif upper:
        verdict = "no increase larger than the margin"
    else:
        verdict = "not bounded"
    return Equivalence(effect.tasks, effect.mean, effect.low, effect.high, margin, lower, upper, verdict)

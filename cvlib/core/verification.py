"""Verification that is noisy and costs what it costs (X2).

The article's verification always resolves, at one step. Here a check can miss
a real change (``miss_rate``), raise a false alarm (``false_alarm_rate``) and
cost ``cost`` steps (:class:`~cvlib.core.rules.VerificationModel`). Whether to pay
for it becomes a decision under uncertainty: with prior probability *p* that a
doubtful fact really changed, verifying saves

    p (1 - m) G  -  (1 - p) f L  -  c

steps in expectation, where *G* is what catching a real change saves and *L*
what a false alarm costs. Under the article's flat recovery, verifying at a
step with *r* steps left up to and including the action, *G = r* and
*L = R - r* (*R* the flat replan). The break-even prior is where the saving
is zero. This module holds that algebra, which the validity-aware executor's
``expected_cost`` policy consults; :mod:`cvlib.experiments.noisy_verification`
measures it.
"""

from __future__ import annotations

from cvlib.core.validation import require_probability


def expected_saving(prior: float, miss_rate: float, false_alarm_rate: float, cost: int, gain: float, loss: float) -> float:
    """Expected steps saved by verifying now rather than acting on belief (may be negative).

    Parameters
    ----------
    prior : float
        Probability that the doubtful fact really changed.
    miss_rate, false_alarm_rate : float
        The verification's error rates.
    cost : int
        Steps one verification spends.
    gain : float
        Steps that catching a real change saves.
    loss : float
        Steps a false alarm costs.

    Returns
    -------
    float
        ``prior (1 - miss) gain - (1 - prior) false_alarm loss - cost``.
    """
    return prior * (1.0 - miss_rate) * gain - (1.0 - prior) * false_alarm_rate * loss - cost


def break_even_prior(miss_rate: float, false_alarm_rate: float, cost: int, gain: float, loss: float) -> float:
    """The prior at which verifying and not verifying cost the same, in expectation.

    Parameters
    ----------
    miss_rate, false_alarm_rate : float
        The verification's error rates.
    cost : int
        Steps one verification spends.
    gain, loss : float
        As for :func:`expected_saving`.

    Returns
    -------
    float
        ``inf`` when no prior makes verifying worthwhile (a check that always
        misses, or one that saves nothing), and 0.0 when verifying is
        worthwhile even for a fact that surely did not change.
    """
    m = require_probability("miss_rate", miss_rate)
    f = require_probability("false_alarm_rate", false_alarm_rate)
    numerator = cost + f * loss
    denominator = (1.0 - m) * gain + f * loss
    if denominator <= 0:
        return float("inf")
    p = numerator / denominator
    if p > 1.0:
        return float("inf")
    return max(p, 0.0)

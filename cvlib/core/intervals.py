"""One interval for a share, with one contract, for every layer and side package.

A share of ``count`` in ``total`` trials gets statsmodels' Wilson score
interval: it stays inside [0, 1] and is honest at 0 of 44 and 44 of 44, where
many of the book's shares sit (the normal approximation is not). Three
hand-written copies with three contracts came before this one; now a bad count
is one :class:`~cvlib.core.errors.ParameterError` everywhere, and an empty
sample is an error too, never a silent NaN: a caller that may have no trials
says what to show for them.

statsmodels is imported on first use, so ``import cvlib`` stays light.
"""

from __future__ import annotations

from cvlib.core.errors import ParameterError

__all__ = ["proportion_interval"]


def _whole(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ParameterError(f"proportion_interval() needs a whole {name}, got {value!r}")
    return int(value)


def proportion_interval(count: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of the share ``count / total``.

    Parameters
    ----------
    count : int
        Successes, ``0 <= count <= total``.
    total : int
        Trials, at least 1.
    confidence : float
        The interval's level, strictly between 0 and 1.

    Returns
    -------
    tuple of (float, float)
        ``(low, high)``; exactly 0.0 as the low end when ``count`` is 0 and exactly 1.0 as the high end
        when ``count`` is ``total``.
    """
    k, n = _whole("count", count), _whole("total", total)
    if n < 1 or not 0 <= k <= n:
        raise ParameterError(f"proportion_interval() needs 0 <= count <= total and total >= 1, got {k!r} of {n!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0.0 < confidence < 1.0:
        raise ParameterError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(k, n, alpha=1.0 - float(confidence), method="wilson")
    low = 0.0 if k == 0 else min(max(0.0, float(low)), 1.0)
    high = 1.0 if k == n else min(max(0.0, float(high)), 1.0)
    return low, high

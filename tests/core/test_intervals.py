"""One interval for a share: statsmodels' Wilson interval, one contract everywhere."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.core.intervals import proportion_interval


def test_the_ends_are_exact_at_none_and_all() -> None:
    low, high = proportion_interval(10, 10)
    assert 0.65 < low < 1 and high == 1.0
    low, high = proportion_interval(0, 4)
    assert low == 0.0 and 0 < high < 0.6


def test_it_agrees_with_the_wilson_formula() -> None:
    # 37 of 44 at 95 %: the score interval's closed form, computed by hand once.
    low, high = proportion_interval(37, 44)
    assert low == pytest.approx(0.70634, abs=1e-5) and high == pytest.approx(0.92073, abs=1e-5)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), st.floats(0.5, 0.99))
def test_the_interval_holds_the_share(counts: tuple[int, int], confidence: float) -> None:
    k, n = counts
    low, high = proportion_interval(k, n, confidence)
    assert 0.0 <= low <= k / n <= high <= 1.0


@pytest.mark.parametrize(
    ("count", "total", "confidence", "needle"),
    [(1, 0, 0.95, "total >= 1"), (5, 4, 0.95, "0 <= count <= total"), (-1, 4, 0.95, "0 <= count"),
     (1.5, 4, 0.95, "whole count"), (True, 4, 0.95, "whole count"), (1, 4, 1.0, "confidence"), (1, 4, 0, "confidence")],
)
def test_bad_counts_are_one_line_errors(count: object, total: object, confidence: float, needle: str) -> None:
    with pytest.raises(ParameterError, match=needle):
        proportion_interval(count, total, confidence)  # type: ignore[arg-type]

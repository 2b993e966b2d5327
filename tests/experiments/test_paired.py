"""Paired comparisons over tasks: scipy's bootstrap and statsmodels' McNemar, one contract each."""

from __future__ import annotations

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.paired import mcnemar_exact, paired_effect


def test_the_effect_is_the_mean_with_a_seeded_interval_around_it() -> None:
    diffs = [-1.0, 0.0, -2.0, 0.0, -1.0, 1.0, -1.0, 0.0]
    effect = paired_effect(diffs, resamples=2000)
    assert effect.tasks == 8 and effect.mean == pytest.approx(-0.5)
    assert effect.low < effect.mean < effect.high
    assert paired_effect(diffs, resamples=2000) == effect


def test_constant_differences_have_no_spread() -> None:
    assert paired_effect([0.0, 0.0, 0.0]) == paired_effect([0.0, 0.0, 0.0])
    assert paired_effect([1.0]).low == paired_effect([1.0]).high == 1.0


def test_mcnemar_counts_the_discordant_tasks() -> None:
    test = mcnemar_exact([True, True, False, False, True], [True, False, False, False, False])
    assert (test.tasks, test.only_first, test.only_second) == (5, 2, 0)
    assert test.p_value == pytest.approx(0.5)  # two discordant tasks, both one way: 2 × 0.5²


def test_bad_input_is_one_line() -> None:
    with pytest.raises(ParameterError, match="at least one"):
        paired_effect([])
    with pytest.raises(ParameterError, match="confidence"):
        paired_effect([1.0, 2.0], confidence=1.0)
    with pytest.raises(ParameterError, match="equally long"):
        mcnemar_exact([True], [True, False])

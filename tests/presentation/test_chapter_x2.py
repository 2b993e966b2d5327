"""The X2 noisy-verification chapter's module: one row per noise level, and the numbers it glues."""

from __future__ import annotations

import pytest

from cvlib.core.errors import ParameterError
from cvlib.core.rules import VerificationModel
from cvlib.experiments import noisy_verification as verification
from cvlib.presentation import formatting
from cvlib.presentation.chapters import x2_noisy_verification as chapter


@pytest.fixture(scope="module")
def sweep():
    return verification.verification_sweep([0.0, 0.5, 1.0], [0.0, 0.2], n_schedules=20, seed=1)


def test_one_row_per_noise_level_from_the_sweep_and_the_closed_form(sweep) -> None:
    chain = verification.AmbiguousChain(3, 1)
    table = chapter.by_noise(sweep, chain, [0.0, 0.2], 1)
    assert list(table.noise) == [0.0, 0.2] and list(table.columns) == list(chapter.COLUMNS)
    assert table.break_even_analytic.iloc[1] == chain.break_even(VerificationModel(0.2, 0.2, 1))
    part = sweep[(sweep.noise == 0.2) & (sweep.policy == "never")]
    assert table.never_mean_steps.iloc[1] == pytest.approx(part.mean_steps.mean())
    assert table.always_completion_at_p1.iloc[0] == float(
        sweep[(sweep.noise == 0.0) & (sweep.policy == "always") & (sweep.prior == 1.0)].completion_rate.iloc[0]
    )
    with pytest.raises(ParameterError, match="noise level 0.3 is not in the sweep"):
        chapter.by_noise(sweep, chain, [0.3], 1)


def test_the_glued_numbers_are_the_lowest_and_highest_noise_rows(sweep) -> None:
    chain = verification.AmbiguousChain(3, 1)
    table = chapter.by_noise(sweep, chain, [0.0, 0.2], 1)
    values = chapter.glue_values(table, chain, 20)
    assert values["X2_noise_low"] == (0.0, "probability") and values["X2_noise_high"] == (0.2, "probability")
    assert values["X2_budget"] == chain.budget and values["X2_n_schedules"] == 20
    assert set(formatting.written(values)) == set(values)

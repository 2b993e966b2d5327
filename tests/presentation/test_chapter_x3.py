"""The X3 chapter's module: the fits it reads, and the numbers it glues from them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.experiments import exposure  # noqa: E402
from cvlib.presentation import formatting  # noqa: E402
from cvlib.presentation.chapters import x3_size_depth_breadth as chapter  # noqa: E402
from cvlib.presentation.tables import Table  # noqa: E402


@pytest.fixture(scope="module")
def result() -> chapter.Exposures:
    return chapter.analyse(exposure.exposure_sweep(60, seed=3))


def test_every_model_is_fitted_on_each_timings_breaks(result: chapter.Exposures) -> None:
    assert set(result.fits) == {(t, m) for t in chapter.TIMINGS for m in chapter.MODELS}
    for (timing, model), fit in result.fits.items():
        part = result.parts[timing]
        assert set(part.timing) == {chapter.TIMINGS[timing]}
        assert fit.terms == chapter.MODELS[model] and fit.n == len(part)
    assert len(result.parts["at tick 0"]) + len(result.parts["at random ticks"]) == len(result.data)


def test_the_coefficients_are_the_full_models(result: chapter.Exposures) -> None:
    fit = result.fits[("at random ticks", chapter.FULL_MODEL)]
    assert result.coefficient("at random ticks", "intercept") == fit.coefficients[0]
    assert result.coefficient("at random ticks", "exposed_depth") == fit.coefficients[2]
    with pytest.raises(ParameterError, match="no term 'exposed_after_break'"):
        result.coefficient("at tick 0", "exposed_after_break")


def test_the_glued_numbers_come_from_the_fits(result: chapter.Exposures) -> None:
    values = chapter.glue_values(result, 60)
    assert values["X3_n_plans"] == 60 and values["X3_law_cases"] == len(result.data)
    assert values["X3_law_failures"] == int((~result.data.law_holds).sum())
    assert values["X3_random_r2_size"] == (result.fits[("at random ticks", "size")].r_squared, "r_squared")
    assert values["X3_corr_size_depth"][0] == result.correlations.loc["exposed_size", "exposed_depth"]
    assert set(formatting.written(values)) == set(values)  # every kind named is one the book writes


def test_the_tables_show_every_fit_and_no_failure_table_when_the_law_holds(result: chapter.Exposures) -> None:
    assert isinstance(chapter.quality_table(result), Table)
    assert isinstance(chapter.coefficient_table(result), Table)
    assert isinstance(chapter.correlation_table(result), Table)
    assert result.data.law_holds.all() and chapter.failure_table(result) is None


def test_a_sweep_without_timings_is_refused() -> None:
    with pytest.raises(ParameterError, match="'timing' column"):
        chapter.analyse(exposure.exposure_sweep(10, seed=0).drop(columns=["timing"]))

"""The chapter "X3: size, depth and breadth": its fits, tables, figure and glued numbers.

:func:`cvlib.experiments.exposure.exposure_sweep` measures, on seeded random
plans, what each break exposes and the baseline's doomed work;
:func:`~cvlib.experiments.exposure.fit_pfw` fits one least-squares model.
The chapter asks which of the exposed set's size, depth and breadth explains
the doomed work, so it fits the same four models (:data:`MODELS`) on the
breaks at tick 0 and on the breaks at random ticks, and reads its tables and
sentences from those fits. :func:`analyse` does that once; the functions
after it only show what it found, so the notebook holds no wrangling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments import exposure
from cvlib.presentation import extension_figures, tables

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.presentation.tables import Table

__all__ = [
    "FEATURES",
    "FULL_MODEL",
    "MODELS",
    "TIMINGS",
    "Exposures",
    "analyse",
    "coefficient_table",
    "correlation_table",
    "failure_table",
    "figure",
    "glue_values",
    "quality_table",
]

#: The three measures of the exposed set, as :func:`~cvlib.experiments.exposure.exposure_sweep` names its columns.
FEATURES: tuple[str, ...] = ("exposed_size", "exposed_depth", "exposed_breadth")

#: The models the chapter fits, by the name its tables give them, each the terms it regresses on.
MODELS: dict[str, tuple[str, ...]] = {
    "size": ("exposed_size",),
    "depth + breadth": ("exposed_depth", "exposed_breadth"),
    "size + depth + breadth": FEATURES,
    "law's count + depth + breadth": ("exposed_after_break", "exposed_depth", "exposed_breadth"),
}

#: The model whose coefficients the chapter reads.
FULL_MODEL = "size + depth + breadth"

#: When the facts break, by the name the tables give it, each the sweep's ``timing`` value.
TIMINGS: dict[str, str] = {"at tick 0": "at_start", "at random ticks": "random"}

_SHORT = {"exposed_size": "size", "exposed_depth": "depth", "exposed_breadth": "breadth"}


@dataclass(frozen=True)
class Exposures:
    """An exposure sweep and what the chapter fits on it.

    Attributes
    ----------
    data
        The sweep, one row per plan and timing.
    parts
        The sweep's rows by timing (the names of :data:`TIMINGS`).
    fits
        Each model of :data:`MODELS` fitted on each timing, keyed ``(timing, model)``.
    correlations
        The correlations of :data:`FEATURES` when every fact breaks at tick 0.
    """

    data: pd.DataFrame
    parts: dict[str, pd.DataFrame]
    fits: dict[tuple[str, str], exposure.Fit]
    correlations: pd.DataFrame

    def coefficient(self, timing: str, term: str) -> float:
        """The full model's coefficient of ``term`` (or ``"intercept"``) fitted on ``timing``'s breaks."""
        fit = self.fits[(timing, FULL_MODEL)]
        found = dict(zip(("intercept", *fit.terms), fit.coefficients))
        if term not in found:
            raise ParameterError(f"the full model has no term {term!r}; expected one of {sorted(found)}")
        return float(found[term])


def analyse(data: pd.DataFrame) -> Exposures:
    """Fit every model of :data:`MODELS` on each timing's breaks, and correlate the measures at tick 0.

    Parameters
    ----------
    data
        :func:`cvlib.experiments.exposure.exposure_sweep` rows.

    Returns
    -------
    Exposures

    Raises
    ------
    ParameterError
        ``data`` has no ``timing`` column (or a fit fails on it).
    """
    if "timing" not in data.columns:
        raise ParameterError(f"an exposure sweep needs a 'timing' column; the data has {list(data.columns)}")
    parts = {name: data[data.timing == value] for name, value in TIMINGS.items()}
    fits = {
        (timing, label): exposure.fit_pfw(part, list(terms))
        for timing, part in parts.items()
        for label, terms in MODELS.items()
    }
    return Exposures(data, parts, fits, parts["at tick 0"][list(FEATURES)].corr())


def quality_table(result: Exposures) -> Table:
    """How well each model explains the baseline's doomed work, on each timing's breaks.

    Parameters
    ----------
    result
        :func:`analyse`'s result.

    Returns
    -------
    Table
    """
    import pandas as pd

    quality = pd.DataFrame(
        [
            {"breaks": t, "model": m, "r_squared": f.r_squared, "rmse": f.rmse, "worst": f.max_abs_residual}
            for (t, m), f in result.fits.items()
        ]
    )
    return tables.table(
        quality,
        {
            "breaks": "Facts break",
            "model": "Fitted on",
            "r_squared": "R²",
            "rmse": "RMSE (steps)",
            "worst": "Largest residual (steps)",
        },
        {"r_squared": "r_squared", "rmse": "coefficient", "worst": "coefficient"},
        caption="How well each model explains the baseline's doomed work",
    )


def coefficient_table(result: Exposures) -> Table:
    """The full model's fitted coefficients on each timing's breaks.

    Parameters
    ----------
    result
        :func:`analyse`'s result.

    Returns
    -------
    Table
    """
    import pandas as pd

    coef = pd.DataFrame(
        [
            {"breaks": timing, **{term: result.coefficient(timing, term) for term in ("intercept", *FEATURES)}}
            for timing in TIMINGS
        ]
    )
    return tables.table(
        coef,
        {
            "breaks": "Facts break",
            "intercept": "Intercept",
            "exposed_size": "× size",
            "exposed_depth": "× depth",
            "exposed_breadth": "× breadth",
        },
        {c: "coefficient" for c in ("intercept", *FEATURES)},
        caption="Fitted coefficients of size, depth and breadth",
    )


def correlation_table(result: Exposures) -> Table:
    """How the three measures correlate when every fact breaks at tick 0.

    Parameters
    ----------
    result
        :func:`analyse`'s result.

    Returns
    -------
    Table
    """
    shown = result.correlations.rename(index=_SHORT).rename(columns=_SHORT)
    return tables.table(
        shown, ["size", "depth", "breadth"], {c: "correlation" for c in ("size", "depth", "breadth")}, index="Measure"
    )


def figure(result: Exposures) -> Figure:
    """Doomed work against exposed size at tick 0, and what the full model leaves over at random ticks.

    Parameters
    ----------
    result
        :func:`analyse`'s result.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return extension_figures.exposure_figure(
        result.parts["at tick 0"], result.parts["at random ticks"], result.fits[("at random ticks", FULL_MODEL)].fitted
    )


def failure_table(result: Exposures) -> Table | None:
    """The runs whose doomed work the law does not predict, or None when there are none.

    Parameters
    ----------
    result
        :func:`analyse`'s result.

    Returns
    -------
    Table or None
    """
    failures = result.data[~result.data.law_holds]
    if not len(failures):
        return None
    return tables.table(
        failures,
        {"plan": "Plan", "family": "Family", "timing": "Breaks", "predicted_pfw": "Law", "baseline_pfw": "Measured"},
    )


def glue_values(result: Exposures, n_plans: int) -> dict[str, Any]:
    """Every number the chapter's prose names, with its kind, for :func:`cvlib.presentation.formatting.glue_all`.

    Parameters
    ----------
    result
        :func:`analyse`'s result.
    n_plans
        The number of plans the sweep drew (each run at both timings).

    Returns
    -------
    dict
        Glue key (``X3_...``) to a count or a ``(value, kind)`` pair.
    """
    corr, coef, fits = result.correlations, result.coefficient, result.fits
    start, later = "at tick 0", "at random ticks"
    return {
        "X3_n_plans": n_plans,
        "X3_law_cases": len(result.data),
        "X3_law_failures": int((~result.data.law_holds).sum()),
        "X3_corr_size_depth": (corr.loc["exposed_size", "exposed_depth"], "correlation"),
        "X3_corr_size_breadth": (corr.loc["exposed_size", "exposed_breadth"], "correlation"),
        "X3_corr_depth_breadth": (corr.loc["exposed_depth", "exposed_breadth"], "correlation"),
        "X3_start_coef_size": (coef(start, "exposed_size"), "coefficient"),
        "X3_start_coef_depth": (coef(start, "exposed_depth"), "coefficient"),
        "X3_start_coef_breadth": (coef(start, "exposed_breadth"), "coefficient"),
        "X3_start_rmse": (fits[(start, FULL_MODEL)].rmse, "coefficient"),
        "X3_start_r2_shape_only": (fits[(start, "depth + breadth")].r_squared, "r_squared"),
        "X3_random_r2_size": (fits[(later, "size")].r_squared, "r_squared"),
        "X3_random_r2_all": (fits[(later, FULL_MODEL)].r_squared, "r_squared"),
        "X3_random_rmse_all": (fits[(later, FULL_MODEL)].rmse, "coefficient"),
        "X3_random_coef_depth": (coef(later, "exposed_depth"), "coefficient"),
        "X3_random_coef_breadth": (coef(later, "exposed_breadth"), "coefficient"),
        "X3_random_rmse_law": (fits[(later, "law's count + depth + breadth")].rmse, "coefficient"),
    }

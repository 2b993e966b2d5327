"""The chapter "X2: noisy verification": the break-even prior by noise level, its table, figure and glued numbers.

:func:`cvlib.experiments.noisy_verification.verification_sweep` runs each
verification policy over priors and noise levels on seeded schedules, and
:class:`~cvlib.experiments.noisy_verification.AmbiguousChain` gives the
closed form. This module reads from them what the chapter shows: one row
per noise level (the break-even prior both ways, the gap between measured
and closed-form steps, the policies' completion and steps), and every number
its prose names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.rules import VerificationModel
from cvlib.experiments import noisy_verification as verification
from cvlib.presentation import extension_figures, tables

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.presentation.tables import Table

__all__ = ["COLUMNS", "FORMATS", "by_noise", "figure", "glue_values", "noise_table"]

#: The noise table's columns and titles.
COLUMNS: dict[str, str] = {
    "noise": "Noise (miss = false alarm)",
    "break_even_analytic": "Break-even, closed form",
    "break_even_measured": "Break-even, measured",
    "max_gap_steps": "Largest gap, measured − closed form (steps)",
    "always_completion_at_p1": "Always verify: completed when every signal is real",
    "never_completion_at_p1": "Never verify: completed when every signal is real",
    "expected_cost_mean_steps": "Verify when it pays: mean steps",
    "always_mean_steps": "Always verify: mean steps",
    "never_mean_steps": "Never verify: mean steps",
}

#: How the noise table writes each column.
FORMATS: dict[str, str] = {
    "noise": "probability",
    "break_even_analytic": "probability",
    "break_even_measured": "probability",
    "max_gap_steps": "rate",
    "always_completion_at_p1": "share",
    "never_completion_at_p1": "share",
    "expected_cost_mean_steps": "mean",
    "always_mean_steps": "mean",
    "never_mean_steps": "mean",
}


def by_noise(
    sweep: pd.DataFrame, chain: verification.AmbiguousChain, noise_levels: Sequence[float], cost: int
) -> pd.DataFrame:
    """One row per noise level: the break-even prior in closed form and measured, and how each policy fared.

    Parameters
    ----------
    sweep
        :func:`~cvlib.experiments.noisy_verification.verification_sweep` rows.
    chain
        The chain the sweep ran on (its closed form).
    noise_levels
        The noise levels, in the table's order (a miss and a false alarm equally likely).
    cost
        Steps one verification costs.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COLUMNS`.

    Raises
    ------
    ParameterError
        A noise level is not in the sweep.
    """
    import pandas as pd

    top = sweep["prior"].max()
    rows = []
    for noise in noise_levels:
        part = sweep[sweep.noise == noise]
        if not len(part):
            raise ParameterError(f"noise level {noise!r} is not in the sweep; it has {sorted(set(sweep.noise))}")

        def at_certainty(policy: str, part: pd.DataFrame = part) -> float:
            return float(part[(part.policy == policy) & (part.prior == top)].completion_rate.iloc[0])

        def mean_steps(policy: str, part: pd.DataFrame = part) -> float:
            return float(part[part.policy == policy].mean_steps.mean())

        rows.append(
            {
                "noise": noise,
                "break_even_analytic": chain.break_even(VerificationModel(noise, noise, cost)),
                "break_even_measured": verification.measured_break_even(sweep, noise),
                "max_gap_steps": float((part.mean_steps - part.analytic_steps).abs().max()),
                "always_completion_at_p1": at_certainty("always"),
                "never_completion_at_p1": at_certainty("never"),
                "expected_cost_mean_steps": mean_steps("expected_cost"),
                "always_mean_steps": mean_steps("always"),
                "never_mean_steps": mean_steps("never"),
            }
        )
    return pd.DataFrame(rows)


def noise_table(table: pd.DataFrame) -> Table:
    """:func:`by_noise` as the chapter shows it.

    Parameters
    ----------
    table
        :func:`by_noise`.

    Returns
    -------
    Table
    """
    return tables.table(table, COLUMNS, FORMATS)


def figure(sweep: pd.DataFrame, noise_levels: Sequence[float], table: pd.DataFrame) -> Figure:
    """Each policy's steps against the prior, one panel per noise level, the closed-form break-even marked.

    Parameters
    ----------
    sweep
        :func:`~cvlib.experiments.noisy_verification.verification_sweep` rows.
    noise_levels
        The noise levels to draw, one panel each.
    table
        :func:`by_noise` (its closed-form break-even priors are marked).

    Returns
    -------
    matplotlib.figure.Figure
    """
    return extension_figures.policy_figure(sweep, noise_levels, dict(zip(table.noise, table.break_even_analytic)))


def glue_values(table: pd.DataFrame, chain: verification.AmbiguousChain, n_schedules: int) -> dict[str, Any]:
    """Every number the chapter's prose names (glue keys ``X2_...``): the lowest and the highest noise level's rows.

    Parameters
    ----------
    table
        :func:`by_noise`, lowest noise first.
    chain
        The chain the sweep ran on.
    n_schedules
        Seeded schedules per prior.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    p0, pn = table.iloc[0], table.iloc[-1]
    return {
        "X2_break_even": (p0.break_even_analytic, "probability"),
        "X2_break_even_measured": (p0.break_even_measured, "probability"),
        "X2_noise_low": (p0.noise, "probability"),
        "X2_noise_high": (pn.noise, "probability"),
        "X2_break_even_noisy": (pn.break_even_analytic, "probability"),
        "X2_break_even_noisy_measured": (pn.break_even_measured, "probability"),
        "X2_max_gap": (table.max_gap_steps.max(), "rate"),
        "X2_n_schedules": n_schedules,
        "X2_always_completion_noisy": (pn.always_completion_at_p1, "share"),
        "X2_never_completion_noisy": (pn.never_completion_at_p1, "share"),
        "X2_ec_steps_noisy": (pn.expected_cost_mean_steps, "mean"),
        "X2_always_steps_noisy": (pn.always_mean_steps, "mean"),
        "X2_never_steps_noisy": (pn.never_mean_steps, "mean"),
        "X2_budget": chain.budget,
    }

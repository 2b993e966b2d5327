"""The law checked against runs: predict PFW from structure, run the baseline, compare.

:mod:`cvlib.core.law` states the law and never runs an executor; this module
runs the article's 15 published cases (and any others) to test it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import cvlib.core.executors
from cvlib.core.executors import BASELINE, PolicyLike, law_policies, policy_column
from cvlib.core.law import predicted_pfw_single
from cvlib.scenarios.named import setup_scenario

if TYPE_CHECKING:
    import pandas as pd


#: The 15 published law cases, each a (label, scenario, parameters) triple.
LAW_CASES: tuple[tuple[str, str, dict[str, int]], ...] = (
    *((f"D1 chain depth={d}", "D1", {"depth": d}) for d in (1, 2, 3, 5, 10)),
    *((f"A depth=4 tick={t}", "A", {"depth": 4, "change_tick": t}) for t in (0, 1, 2, 3)),
    ("D2 chain-equivalent (6,1,1)", "D2", {"depth": 6, "branching_factor": 1, "merge_factor": 1}),
    ("D2 shallow/wide (4,4,4)", "D2", {"depth": 4, "branching_factor": 4, "merge_factor": 4}),
    ("D2 deep/branching (8,2,2)", "D2", {"depth": 8, "branching_factor": 2, "merge_factor": 2}),
    *((f"D3 {b} branch{'es' if b > 1 else ''}", "D3", {"num_branches": b}) for b in (1, 4, 8)),
)


def law_rows(
    cases: Iterable[tuple[str, str, dict[str, int]]] = LAW_CASES, *, policies: Iterable[PolicyLike] | None = None
) -> list[dict[str, Any]]:
    """Predict PFW from structure, run the baseline, and compare, case by case (plain rows, no pandas).

    Parameters
    ----------
    cases : iterable of (label, scenario, parameters)
        Named scenarios with one breaking event; the default is the 15 published cases.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        Executors to run beside the baseline (whose PFW the law predicts), each
        adding a ``{policy}_pfw`` column; None runs the baseline alone.

    Returns
    -------
    list of dict
        One row per case: label, scenario, closure size, change tick, expected and actual PFW, and whether they match.
    """
    chosen = law_policies(policies)
    rows = []
    for label, scenario, params in cases:
        setup = setup_scenario(scenario, **params)
        change_tick = setup.events[0].tick
        expected = predicted_pfw_single(setup.plan, setup.at_risk, change_tick)
        run = setup.run(policies=chosen)
        actual = run.result(BASELINE).pre_failure_work
        rows.append(
            {
                "case": label,
                "scenario": scenario,
                "closure_size": setup.plan.closure_size(setup.at_risk),
                "change_tick": change_tick,
                "expected_pfw": expected,
                "actual_pfw": actual,
                "match": expected == actual,
                **{policy_column(p.name, "pfw"): run.result(p.name).pre_failure_work for p in chosen[1:]},
            }
        )
    return rows


def check_law(
    cases: Iterable[tuple[str, str, dict[str, int]]] = LAW_CASES,
    *,
    policies: Iterable[str | cvlib.core.executors.Policy] | None = None,
) -> pd.DataFrame:
    """:func:`law_rows` as a DataFrame, for notebooks.

    Parameters
    ----------
    cases : iterable of (label, scenario, parameters)
        As for :func:`law_rows`.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        As for :func:`law_rows`.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    return pd.DataFrame(law_rows(cases, policies=policies))

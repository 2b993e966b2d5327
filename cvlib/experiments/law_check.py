"""The law checked against runs: predict PFW from structure, run the baseline, compare.

:mod:`cvlib.core.law` states the law and never runs an executor; this module
runs the article's 15 published cases (and any others) to test it, saying for
each case which law it checks: the article's single-fact closed form where its
premise holds (:func:`~cvlib.core.law.closed_form_applies`), the general law
where it does not. :func:`deep_sweep` takes the article's diamond past the
published grid, to depths where the string tie-break runs the action before
some steps and the closed form stops holding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cvlib.core.executors
from cvlib.core.executors import BASELINE, PolicyLike, law_policies, policy_column
from cvlib.core.graph import TIE_BREAKS
from cvlib.core.law import break_ticks, closed_form_applies, predicted_pfw, predicted_pfw_single
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import require_choice, require_int, require_ints
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

#: Diamonds past the published grid whose action is not the last step.
#:
#: As (depth, branching, merge): 11, 2, 1 (the first depth it happens), 12, 3,
#: 1, and 16, 2, 1 (the deepest of :func:`deep_sweep`'s default range).
DEEP_LAW_CASES: tuple[tuple[str, str, dict[str, int]], ...] = tuple(
    (f"D2 deep ({d},{bf},{mf})", "D2", {"depth": d, "branching_factor": bf, "merge_factor": mf})
    for d, bf, mf in ((11, 2, 1), (12, 3, 1), (16, 2, 1))
)

#: Names of the two laws in :func:`law_rows`' ``law`` column.
CLOSED_FORM, GENERAL = "closed form", "general"


def law_rows(
    cases: Iterable[tuple[str, str, dict[str, int]]] = LAW_CASES, *, policies: Iterable[PolicyLike] | None = None
) -> list[dict[str, Any]]:
    """Predict PFW from structure, run the baseline, and compare, case by case (plain rows, no pandas).

    Each case checks the article's closed form (:func:`~cvlib.core.law.predicted_pfw_single`)
    when its premise holds, no non-action step on the fact after the first
    action, and the general law (:func:`~cvlib.core.law.predicted_pfw`) when it
    does not; the row names the law, and gives the closed form's count beside
    it either way, so a case where the two differ shows it.

    Parameters
    ----------
    cases : iterable of (label, scenario, parameters)
        Named scenarios with one breaking event; the default is the 15 published
        cases, and :data:`DEEP_LAW_CASES` adds diamonds where the closed form fails.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        Executors to run beside the baseline (whose PFW the law predicts), each
        adding a ``{policy}_pfw`` column; None runs the baseline alone.

    Returns
    -------
    list of dict
        One row per case: label, scenario, steps, closure size, change tick,
        position of the first action, the law checked, its prediction
        (``expected_pfw``), the closed form's count, the measured PFW and
        whether prediction and measurement match.
    """
    chosen = law_policies(policies)
    rows = []
    for label, scenario, params in cases:
        setup = setup_scenario(scenario, **params)
        plan, fact = setup.plan, setup.at_risk
        change_tick = setup.events[0].tick
        closed_form = predicted_pfw_single(plan, fact, change_tick)
        applies = closed_form_applies(plan, fact)
        expected = closed_form if applies else predicted_pfw(plan, break_ticks(setup.events))
        actions = plan.run_columns().actions
        run = setup.run(policies=chosen)
        actual = run.result(BASELINE).pre_failure_work
        rows.append(
            {
                "case": label,
                "scenario": scenario,
                "steps": len(plan),
                "closure_size": plan.closure_size(fact),
                "change_tick": change_tick,
                "action_position": actions[0] if actions else None,
                "law": CLOSED_FORM if applies else GENERAL,
                "expected_pfw": expected,
                "closed_form_pfw": closed_form,
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
        As for :func:`law_rows`; ``LAW_CASES + DEEP_LAW_CASES`` covers the deep diamonds too.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        As for :func:`law_rows`.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    return pd.DataFrame(law_rows(cases, policies=policies))


# -- past the published grid --------------------------------------------------------------------

#: Depths of the sweep past the grid, 3 to 16 (the article's grid stops at 8).
DEEP_DEPTHS: tuple[int, ...] = tuple(range(3, 17))
#: Branching and merge factors of the sweep, the article's 1 to 4 (those of its grid, without importing pandas).
DEEP_FACTORS: tuple[int, ...] = tuple(range(1, 5))


@dataclass(frozen=True, slots=True)
class DeepCase:
    """One diamond of the sweep: where its action runs, what the baseline did, what each law says.

    Parameters
    ----------
    depth, branching_factor, merge_factor:
        The diamond's parameters (:func:`~cvlib.scenarios.generators.branching`).
    steps:
        Steps in the plan (all of them hold the root fact).
    action_position:
        Zero-based position of the action in the execution order.
    measured_pfw:
        The baseline's pre-failure work, measured by running it.
    closed_form_pfw:
        The article's closed form (:func:`~cvlib.core.law.predicted_pfw_single`).
    general_pfw:
        The general law (:func:`~cvlib.core.law.predicted_pfw`).
    """

    depth: int
    branching_factor: int
    merge_factor: int
    steps: int
    action_position: int
    measured_pfw: int
    closed_form_pfw: int
    general_pfw: int

    @property
    def action_last(self) -> bool:
        """Whether the action is the last step of the order (the closed form's premise here)."""
        return self.action_position == self.steps - 1

    @property
    def never_run(self) -> int:
        """Steps after the action, which the baseline never executes."""
        return self.steps - 1 - self.action_position

    @property
    def closed_form_holds(self) -> bool:
        """Whether the article's closed form equals the measured PFW."""
        return self.closed_form_pfw == self.measured_pfw

    @property
    def general_holds(self) -> bool:
        """Whether the general law equals the measured PFW."""
        return self.general_pfw == self.measured_pfw


def deep_case(
    depth: int, branching_factor: int, merge_factor: int, *, seed: int = 0, change_tick: int = 0, order: str = "string"
) -> DeepCase:
    """One diamond of scenario D2, run by the baseline under the tie-break ``order``, with both laws' predictions.

    Parameters
    ----------
    depth, branching_factor, merge_factor : int
        The diamond's parameters.
    seed : int
        The wiring's seed (the generator's default, 0).
    change_tick : int
        When the root fact breaks (D2's default, 0: before the plan starts).
    order : str
        One of :data:`~cvlib.core.graph.TIE_BREAKS`; ``"string"`` is the article's.

    Returns
    -------
    DeepCase
    """
    order = require_choice("order", order, TIE_BREAKS)
    setup = setup_scenario(
        "D2", depth=depth, branching_factor=branching_factor, merge_factor=merge_factor, seed=seed,
        change_tick=change_tick,
    )
    rules = ExecutionRules(order=order)
    plan = setup.plan.with_tie_break(order)  # the order the executors run under these rules
    run = setup.run(rules=rules)
    return DeepCase(
        depth=depth,
        branching_factor=branching_factor,
        merge_factor=merge_factor,
        steps=len(plan),
        action_position=plan.run_columns().actions[0],
        measured_pfw=run.baseline.pre_failure_work,
        closed_form_pfw=predicted_pfw_single(plan, setup.at_risk, change_tick),
        general_pfw=predicted_pfw(plan, break_ticks(setup.events)),
    )


def deep_sweep(
    depths: Sequence[int] = DEEP_DEPTHS,
    branching_factors: Sequence[int] = DEEP_FACTORS,
    merge_factors: Sequence[int] = DEEP_FACTORS,
    *,
    seed: int = 0,
    change_tick: int = 0,
    order: str = "string",
) -> list[DeepCase]:
    """The article's diamond over every (depth, branching, merge) combination, past the published depths.

    Parameters
    ----------
    depths, branching_factors, merge_factors : list of int
        The combinations; the defaults are depths 3 to 16 and the article's
        factors 1 to 4.
    seed, change_tick, order
        As for :func:`deep_case`.

    Returns
    -------
    list of DeepCase
        In depth, branching, merge order.
    """
    seed = require_int("seed", seed)
    change_tick = require_int("change_tick", change_tick, minimum=0)
    return [
        deep_case(d, bf, mf, seed=seed, change_tick=change_tick, order=order)
        for d in require_ints("depths", depths, minimum=1)
        for bf in require_ints("branching_factors", branching_factors, minimum=1)
        for mf in require_ints("merge_factors", merge_factors, minimum=1)
    ]


@dataclass(frozen=True, slots=True)
class DeepSummary:
    """What a :func:`deep_sweep` found, in counts.

    Parameters
    ----------
    configurations:
        Diamonds swept.
    first_depth:
        The smallest depth with a diamond whose action is not last (None: none).
    cases:
        Diamonds whose action is not last.
    closed_form_mismatches:
        Diamonds where the article's closed form differs from the measured PFW.
    general_mismatches:
        Diamonds where the general law differs from the measured PFW.
    """

    configurations: int
    first_depth: int | None
    cases: int
    closed_form_mismatches: int
    general_mismatches: int


def summarize_deep(cases: Sequence[DeepCase]) -> DeepSummary:
    """Count what a sweep found: affected diamonds, the first affected depth, each law's mismatches.

    Parameters
    ----------
    cases : list of DeepCase
        A :func:`deep_sweep`.

    Returns
    -------
    DeepSummary
    """
    affected = [c for c in cases if not c.action_last]
    return DeepSummary(
        configurations=len(cases),
        first_depth=min((c.depth for c in affected), default=None),
        cases=len(affected),
        closed_form_mismatches=sum(not c.closed_form_holds for c in cases),
        general_mismatches=sum(not c.general_holds for c in cases),
    )

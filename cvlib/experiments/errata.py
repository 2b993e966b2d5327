"""Errata and robustness (X5): which results survive the corrected rules, and how fragile each headline is.

The original mechanics have two quirks the article does not flag: an action
whose step ends past the budget still counts as completed, and recovery costs
the same whatever was already done. :data:`CORRECTIONS` names the rule sets
that correct them, alone and together; :func:`headline_results` recomputes
every published number under any of them, so :func:`errata_table` can say,
quantity by quantity, what changes. :func:`sensitivity` varies each
headline's parameters one at a time around the published point.
:func:`deep_frame` and :func:`deep_findings` take the law past the published
grid (:func:`~cvlib.experiments.law_check.deep_sweep`), under the article's
string tie-break and under the numeric one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.core.law import break_ticks, predicted_pfw
from cvlib.core.rules import ORIGINAL, ExecutionRules
from cvlib.experiments.article import GRID_BRANCHING, GRID_DEPTHS, GRID_MERGING
from cvlib.experiments.law_check import LAW_CASES, DeepCase, summarize_deep
from cvlib.experiments.windows import outcomes_by_budget, published_budgets, window_text
from cvlib.scenarios.named import run_scenario, setup_scenario
from cvlib.scenarios.setup import ScenarioRun

#: The rule sets compared, the article's, each correction alone, and both.
CORRECTIONS: dict[str, ExecutionRules] = {
    "original": ORIGINAL,
    "strict_budget": ExecutionRules(budget_rule="strict"),
    "redo_affected": ExecutionRules(recovery="redo_affected"),
    "both": ExecutionRules(recovery="redo_affected", budget_rule="strict"),
}


def _rules(name_or_rules: str | ExecutionRules) -> ExecutionRules:
    if isinstance(name_or_rules, ExecutionRules):
        return name_or_rules
    try:
        return CORRECTIONS[name_or_rules]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown correction {name_or_rules!r}; expected one of {', '.join(CORRECTIONS)}") from None


def window(scenario: str, rules: ExecutionRules, budgets: range | None = None, **params: Any) -> str:
    """Budgets at which only the validity-aware executor completes, as ``"low-high"`` (or ``"none"``).

    Parameters
    ----------
    scenario : str
        A named scenario.
    rules : ExecutionRules
        The rules to run under.
    budgets : range, optional
        Budgets to try; None is the published sweep's (the computed budget down by five).
    **params
        The scenario's parameters.

    Returns
    -------
    str
    """
    setup = setup_scenario(scenario, **params)
    tried = published_budgets(setup.budget) if budgets is None else budgets
    return window_text([o.budget for o in outcomes_by_budget(setup, tried, rules) if o.only_validity_aware])


def headline_results(rules: str | ExecutionRules = "original") -> pd.DataFrame:
    """Every published number recomputed under ``rules``: one row per (headline, quantity).

    Parameters
    ----------
    rules : str or ExecutionRules
        A name from :data:`CORRECTIONS` or a rule set.

    Returns
    -------
    pandas.DataFrame
        Columns headline, quantity, value.
    """
    rules = _rules(rules)
    rows: list[tuple[str, str, Any]] = []

    def add(headline: str, quantity: str, value: Any) -> None:
        rows.append((headline, quantity, value))

    c = run_scenario("C", rules=rules)
    add("C control", "steps baseline / validity-aware", f"{c.baseline.steps_used} / {c.validity_aware.steps_used}")
    add("C control", "overhead", c.overhead)
    a = run_scenario("A", rules=rules)
    add("A value change", "steps baseline / validity-aware", f"{a.baseline.steps_used} / {a.validity_aware.steps_used}")
    add("A value change", "PFW baseline / validity-aware", f"{a.baseline.pre_failure_work} / {a.validity_aware.pre_failure_work}")
    add("A value change", "replans baseline / validity-aware", f"{a.baseline.replans} / {a.validity_aware.replans}")
    add("A value change", "SCUR baseline / validity-aware", f"{a.baseline.scur:.2f} / {a.validity_aware.scur:.2f}")
    add("A value change", "completed baseline / validity-aware", f"{a.baseline.completed} / {a.validity_aware.completed}")
    d1 = [run_scenario("D1", depth=d, rules=rules).baseline.pre_failure_work for d in (1, 2, 3, 5, 10)]
    add("D1 depth chain", "baseline PFW at depths 1, 2, 3, 5, 10", ", ".join(map(str, d1)))
    d2 = [
        run_scenario("D2", depth=d, branching_factor=bf, merge_factor=mf, rules=rules).baseline.pre_failure_work
        for d, bf, mf in ((6, 1, 1), (4, 4, 4), (8, 2, 2))
    ]
    add("D2 topologies", "baseline PFW chain / shallow-wide / deep-branching", " / ".join(map(str, d2)))
    grid_ok = sum(
        1
        for d in GRID_DEPTHS
        for bf in GRID_BRANCHING
        for mf in GRID_MERGING
        if (lambda r: r.baseline.pre_failure_work == r.structure.total_steps - 1)(
            run_scenario("D2", depth=d, branching_factor=bf, merge_factor=mf, rules=rules)
        )
    )
    add("D2 grid", "configs with PFW = nodes - 1 (of 96)", grid_ok)
    d3 = [run_scenario("D3", num_branches=b, rules=rules).baseline.pre_failure_work for b in (1, 4, 8)]
    add("D3 isolation", "baseline PFW at 1, 4, 8 branches", ", ".join(map(str, d3)))
    d3_steps = [run_scenario("D3", num_branches=b, rules=rules).validity_aware.steps_used for b in (1, 4, 8)]
    add("D3 isolation", "validity-aware steps at 1, 4, 8 branches", ", ".join(map(str, d3_steps)))
    for name in ("E1", "E2"):
        e = run_scenario(name, rules=rules)
        add(f"{name} ambiguous", "steps baseline / validity-aware (verifications)",
            f"{e.baseline.steps_used} / {e.validity_aware.steps_used} ({e.validity_aware.verifications})")
    add("Budget sweep", "budgets where only validity-aware completes (9 down to 4)", window("A", rules))
    through = rules.continues_past_actions
    law_ok = 0
    for _, scenario, params in LAW_CASES:
        setup = setup_scenario(scenario, **params)
        law_ok += setup.run(rules=rules).baseline.pre_failure_work == predicted_pfw(
            setup.plan, break_ticks(setup.events), through_actions=through
        )
    add("PFW law", "cases matching (of 15)", law_ok)
    return pd.DataFrame(rows, columns=["headline", "quantity", "value"])


def errata_table(corrections: Mapping[str, ExecutionRules] | None = None) -> pd.DataFrame:
    """Every published quantity under every correction, with a column saying whether any changed.

    Parameters
    ----------
    corrections : mapping of str to ExecutionRules, optional
        Named rule sets; the default is :data:`CORRECTIONS`.

    Returns
    -------
    pandas.DataFrame
        One column per correction and ``changes``.
    """
    corrections = dict(CORRECTIONS if corrections is None else corrections)
    merged: pd.DataFrame | None = None
    for name, rules in corrections.items():
        frame = headline_results(rules).rename(columns={"value": name})
        merged = frame if merged is None else merged.merge(frame, on=["headline", "quantity"], how="left", sort=False)
    if merged is None:
        raise ParameterError("give at least one correction to compare")
    names = list(corrections)
    merged["changes"] = merged[names].astype(str).nunique(axis=1) > 1
    return merged


def budget_range(window: str) -> str:
    """A window as prose writes it: ``"8-8"`` is budget ``"8"``, ``"6-8"`` is ``"6–8"`` (an en dash), ``"none"`` stays.

    Parameters
    ----------
    window : str
        A window as :func:`window` returns it.

    Returns
    -------
    str
    """
    ends = window.split("-")
    return ends[0] if len(set(ends)) == 1 else window.replace("-", "–")


# -- sensitivity ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headline:
    """A published number, the scenario and parameters it comes from, and the parameters to vary."""

    name: str
    scenario: str
    published: Any
    measure: Callable[..., Any] | None  # None: the budget window, measured by its own sweep
    base: Mapping[str, Any]
    vary: Mapping[str, tuple[int, ...]]


def _steps(run: ScenarioRun) -> str:
    return f"{run.baseline.steps_used} / {run.validity_aware.steps_used}"


def _pfw(run: ScenarioRun) -> int:
    return run.baseline.pre_failure_work


def _completed(run: ScenarioRun) -> str:
    return f"{run.baseline.completed} / {run.validity_aware.completed}"


#: The article's headline numbers and the parameters each one is swept over.
HEADLINES: tuple[Headline, ...] = (
    Headline("A steps (baseline / validity-aware)", "A", "9 / 6", _steps, {"depth": 4, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3, 4), "depth": (2, 3, 4, 5, 6), "budget": (5, 6, 7, 8, 9)}),
    Headline("A completed (baseline / validity-aware)", "A", "True / True", _completed, {"depth": 4, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3, 4), "budget": (5, 6, 7, 8, 9)}),
    Headline("A baseline PFW", "A", 2, _pfw, {"depth": 4, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3, 4), "depth": (2, 3, 4, 5, 6)}),
    Headline("Budget window", "A", "6-8", None, {"depth": 4, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3), "depth": (3, 4, 5, 6)}),
    Headline("D1 baseline PFW (depth 5)", "D1", 4, _pfw, {"depth": 5, "change_tick": 0},
             {"change_tick": (0, 1, 2, 3, 4), "depth": (1, 3, 5, 7, 10)}),
    Headline("D3 baseline PFW (8 branches)", "D3", 7, _pfw, {"num_branches": 8, "change_tick": 0},
             {"change_tick": (0, 1, 2, 4, 8), "pre_merge_depth": (2, 4, 6, 8)}),
    Headline("E1 steps (baseline / validity-aware)", "E1", "7 / 6", _steps, {"depth": 3, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3), "depth": (2, 3, 4, 6)}),
    Headline("E2 steps (baseline / validity-aware)", "E2", "3 / 4", _steps, {"depth": 3, "change_tick": 1},
             {"change_tick": (0, 1, 2, 3), "depth": (2, 3, 4, 6)}),
    Headline("C steps (baseline / validity-aware)", "C", "5 / 5", _steps, {"depth": 5},
             {"depth": (1, 3, 5, 8), "budget": (3, 4, 5, 6)}),
    Headline("C completed (baseline / validity-aware)", "C", "True / True", _completed, {"depth": 5},
             {"budget": (3, 4, 5, 6, 11)}),
)


def headline(name: str) -> Headline:
    """One of :data:`HEADLINES` by its name.

    Parameters
    ----------
    name : str
        The headline's name; an unknown one raises a :class:`~cvlib.core.errors.ParameterError` listing them.

    Returns
    -------
    Headline
    """
    for h in HEADLINES:
        if h.name == name:
            return h
    raise ParameterError(f"unknown headline {name!r}; expected one of {', '.join(h.name for h in HEADLINES)}")


def sensitivity(name: str, rules: str | ExecutionRules = "original") -> pd.DataFrame:
    """One headline, each parameter varied alone around the published point: a small tidy table.

    Parameters
    ----------
    name : str
        The headline's name (see :data:`HEADLINES`).
    rules : str or ExecutionRules
        A correction to run beside the article's rules.

    Returns
    -------
    pandas.DataFrame
        Columns parameter, value, result, published_point (True on the
        published parameters) and, when ``rules`` differ from the article's,
        ``corrected``: the result under ``rules``.
    """
    h = headline(name)
    corrected = _rules(rules)
    published = {**h.base, "budget": setup_scenario(h.scenario, **h.base).budget}
    rows = []
    for param, values in h.vary.items():
        for value in values:
            params = {**h.base, param: value}
            if h.measure is None:  # the budget window
                result = window(h.scenario, ORIGINAL, **params)
                fixed = window(h.scenario, corrected, **params)
            else:
                result = h.measure(run_scenario(h.scenario, **params))
                fixed = h.measure(run_scenario(h.scenario, rules=corrected, **params))
            rows.append({
                "parameter": param,
                "value": value,
                "result": result,
                "corrected": fixed,
                "published_point": value == published.get(param),
            })
    frame = pd.DataFrame(rows)
    if corrected.is_original:
        frame = frame.drop(columns="corrected")
    return frame


# -- the law past the published grid -----------------------------------------------------------


def deep_frame(cases: Sequence[DeepCase], *, affected_only: bool = True) -> pd.DataFrame:
    """A sweep past the grid as a table: per diamond, where the action runs and what each law says.

    Parameters
    ----------
    cases : list of DeepCase
        A :func:`~cvlib.experiments.law_check.deep_sweep`.
    affected_only : bool
        Keep only the diamonds whose action is not the last step.

    Returns
    -------
    pandas.DataFrame
        Columns depth, branching_factor, merge_factor, steps, action_position,
        never_run, measured_pfw, article_pfw (the closed form), general_pfw,
        closed_form_holds, general_holds.
    """
    rows = [
        {
            "depth": c.depth,
            "branching_factor": c.branching_factor,
            "merge_factor": c.merge_factor,
            "steps": c.steps,
            "action_position": c.action_position,
            "never_run": c.never_run,
            "measured_pfw": c.measured_pfw,
            "article_pfw": c.closed_form_pfw,
            "general_pfw": c.general_pfw,
            "closed_form_holds": c.closed_form_holds,
            "general_holds": c.general_holds,
        }
        for c in cases
        if not (affected_only and c.action_last)
    ]
    return pd.DataFrame(rows, columns=[
        "depth", "branching_factor", "merge_factor", "steps", "action_position", "never_run", "measured_pfw",
        "article_pfw", "general_pfw", "closed_form_holds", "general_holds",
    ])


def deep_findings(faithful: Sequence[DeepCase], numeric: Sequence[DeepCase]) -> dict[str, Any]:
    """The numbers the X5 section on deep diamonds glues, keyed by glue key.

    Parameters
    ----------
    faithful : list of DeepCase
        The sweep under the article's string tie-break.
    numeric : list of DeepCase
        The same sweep under the numeric tie-break.

    Returns
    -------
    dict
        ``X5_deep_first_depth`` (the smallest depth whose action is not last,
        None when none is), ``X5_deep_cases`` (diamonds affected),
        ``X5_deep_original_mismatches`` (diamonds where the article's closed
        form differs from the run), ``X5_deep_general_mismatches``, the
        configuration count and depth range, the numeric tie-break's affected
        diamonds and closed-form mismatches, and the first affected diamond as
        the worked example (depth, factors, steps, steps before and after the
        action, closed form).
    """
    if not faithful or not numeric:
        raise ParameterError("deep_findings needs two non-empty sweeps (string and numeric tie-break)")
    found, fixed = summarize_deep(faithful), summarize_deep(numeric)
    out: dict[str, Any] = {
        "X5_deep_first_depth": found.first_depth,
        "X5_deep_cases": found.cases,
        "X5_deep_original_mismatches": found.closed_form_mismatches,
        "X5_deep_general_mismatches": found.general_mismatches,
        "X5_deep_configurations": found.configurations,
        "X5_deep_depth_low": min(c.depth for c in faithful),
        "X5_deep_depth_high": max(c.depth for c in faithful),
        "X5_deep_grid_depth": max(GRID_DEPTHS),
        "X5_deep_numeric_cases": fixed.cases,
        "X5_deep_numeric_mismatches": fixed.closed_form_mismatches,
        "X5_deep_numeric_general_mismatches": fixed.general_mismatches,
    }
    example = deep_example(faithful)
    out.update({
        "X5_deep_example_depth": example.depth,
        "X5_deep_example_branching": example.branching_factor,
        "X5_deep_example_merge": example.merge_factor,
        "X5_deep_example_steps": example.steps,
        "X5_deep_example_before": example.action_position,
        "X5_deep_example_after": example.never_run,
        "X5_deep_example_article": example.closed_form_pfw,
        "X5_deep_example_measured": example.measured_pfw,
    })
    return out


def deep_example(cases: Sequence[DeepCase]) -> DeepCase:
    """The worked example of a sweep: its first diamond whose action is not last, else its last diamond.

    Parameters
    ----------
    cases : list of DeepCase
        A non-empty :func:`~cvlib.experiments.law_check.deep_sweep`.

    Returns
    -------
    DeepCase
    """
    if not cases:
        raise ParameterError("deep_example needs a non-empty sweep")
    return next((c for c in cases if not c.action_last), cases[-1])


def deep_summary_frame(sweeps: Mapping[str, Sequence[DeepCase]]) -> pd.DataFrame:
    """One row per tie-break: diamonds swept, how many run the action before some step, and each law's mismatches.

    Parameters
    ----------
    sweeps : mapping of str to list of DeepCase
        Tie-break name -> its :func:`~cvlib.experiments.law_check.deep_sweep`.

    Returns
    -------
    pandas.DataFrame
        Columns order, configurations, first_depth, cases, closed_form_mismatches, general_mismatches.
    """
    rows = []
    for order, cases in sweeps.items():
        found = summarize_deep(cases)
        rows.append({
            "order": order,
            "configurations": found.configurations,
            "first_depth": found.first_depth,
            "cases": found.cases,
            "closed_form_mismatches": found.closed_form_mismatches,
            "general_mismatches": found.general_mismatches,
        })
    return pd.DataFrame(rows)


def variation(frame: pd.DataFrame, parameter: str, value: Any) -> Any:
    """The result of one variation of a :func:`sensitivity` table: ``parameter`` set to ``value``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A :func:`sensitivity` table.
    parameter : str
        The parameter varied.
    value
        Its value.

    Returns
    -------
    object
        The ``result`` cell; a :class:`~cvlib.core.errors.ParameterError` when the table has no such variation.
    """
    rows = frame[(frame["parameter"] == parameter) & (frame["value"] == value)]
    if rows.empty:
        raise ParameterError(f"no variation with {parameter} = {value!r} in this sensitivity table")
    return rows["result"].iloc[0]

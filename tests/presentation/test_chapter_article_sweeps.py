"""The D1, D3 and budget-sweep chapters' modules: what they glue is what the sweeps measured."""

from __future__ import annotations

import cvlib as cv
from cvlib.presentation.chapters import budget_sweep, depth_chain, isolation
from cvlib.presentation.formatting import fmt, listing


def test_depth_chain_texts_list_the_sweep_and_count_the_law() -> None:
    sweep = cv.depth_sweep([1, 3, 5], change_tick=0)
    texts = depth_chain.texts(sweep, 0)
    assert texts["D1_depths"] == "1, 3, 5"
    assert texts["D1_baseline_pfw"] == listing(sweep["baseline_pfw"])
    assert texts["D1_baseline_pfw_depth5"] == fmt(sweep["baseline_pfw"].iloc[2], "count")
    assert texts["D1_law_matches"] == str(int((sweep["baseline_pfw"] == sweep["predicted_pfw"]).sum()))
    assert list(texts)[:3] == ["D1_depths", "D1_baseline_pfw", "D1_validity_pfw"]
    ex = depth_chain.exercise([2, 4])
    assert ex["D1_ex1_depth"] == 8 and ex["D1_ex2_tick"] == 2
    assert ex["D1_ex1_measured"] == cv.run_scenario("D1", depth=8, change_tick=0).baseline.pre_failure_work
    assert depth_chain.comparison(sweep, [1, 3, 5], 0).verdict()


def test_isolation_texts_give_each_branch_counts_share() -> None:
    iso = cv.isolation_sweep([1, 4], pre_merge_depth=2, post_merge_depth=1)
    texts = isolation.texts(iso, 2, 1)
    assert texts["D3_branch_counts"] == "1 and 4"
    assert texts["D3_exposed_pct_b4"] == fmt(iso["exposed_pct"].iloc[1], "percent")
    assert texts["D3_pre_merge"] == "2" and texts["D3_pfw_distinct"] == str(iso["baseline_pfw"].nunique())
    ex = isolation.exercise([1, 4], 2, 1)
    assert ex["D3_ex_branches"] == 16


def test_budget_sweep_splits_the_budgets_by_who_completes() -> None:
    sweep = cv.budget_sweep(depth=4, change_tick=1, budgets=[9, 8, 7, 6, 5, 4])
    window = cv.separation_window(sweep)
    both, neither = budget_sweep.both_complete(sweep), budget_sweep.neither_completes(sweep)
    assert sorted(both + list(window) + neither) == [4, 5, 6, 7, 8, 9]
    for b in both:
        row = sweep[sweep.budget == b].iloc[0]
        assert row.baseline_completed and row.validity_aware_completed
    texts = budget_sweep.texts(sweep, window, 4, 1)
    assert texts["budget_window"] == listing(window) and texts["budget_window_size"] == str(len(window))
    ex = budget_sweep.exercise(4, 1)
    assert ex["budget_ex_depth"] == "6" and list(ex)[0] == "budget_ex_window"

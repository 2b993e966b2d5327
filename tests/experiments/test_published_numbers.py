"""Every number the article publishes, each as its own named test.

Each test runs the library (nothing here is a stored result) and, when it
fails, says which published claim broke and what we got instead.
"""

from __future__ import annotations

import pytest

import cvlib as cv


def _claim(got, expected, claim: str) -> None:
    assert got == expected, f"published claim broken: {claim}: expected {expected!r}, got {got!r}"


@pytest.fixture(scope="module")
def run_c():
    return cv.run_scenario("C")


@pytest.fixture(scope="module")
def run_a():
    return cv.run_scenario("A")


@pytest.fixture(scope="module")
def run_e1():
    return cv.run_scenario("E1")


@pytest.fixture(scope="module")
def run_e2():
    return cv.run_scenario("E2")


@pytest.fixture(scope="module")
def grid():
    return cv.topology_grid()


@pytest.fixture(scope="module")
def sweep():
    return cv.budget_sweep().set_index("budget")


# -- C: control ------------------------------------------------------------------


def test_c_baseline_uses_5_steps(run_c):
    _claim(run_c.baseline.steps_used, 5, "C baseline uses 5 steps")


def test_c_validity_aware_uses_5_steps(run_c):
    _claim(run_c.validity_aware.steps_used, 5, "C validity-aware uses 5 steps")


def test_c_overhead_is_0(run_c):
    _claim(run_c.overhead, 0, "C validity layer overhead is 0 steps")


def test_c_default_is_chain_depth_5(run_c):
    _claim(run_c.params["depth"], 5, "C runs a chain of depth 5")


# -- A: value change ------------------------------------------------------------------

A_CLAIMS = [
    ("baseline", "steps_used", 9),
    ("baseline", "pre_failure_work", 2),
    ("baseline", "replans", 1),
    ("baseline", "scur", 0.75),
    ("baseline", "completed", True),
    ("validity_aware", "steps_used", 6),
    ("validity_aware", "pre_failure_work", 0),
    ("validity_aware", "replans", 1),
    ("validity_aware", "scur", 0.50),
    ("validity_aware", "completed", True),
]


@pytest.mark.parametrize(("executor", "metric", "expected"), A_CLAIMS, ids=[f"{e}-{m}" for e, m, _ in A_CLAIMS])
def test_a_published_table(run_a, executor, metric, expected):
    got = getattr(getattr(run_a, executor), metric)
    if isinstance(expected, float):
        got = round(got, 2)
    _claim(got, expected, f"A {executor} {metric} = {expected}")


def test_a_defaults_are_depth_4_change_tick_1(run_a):
    _claim((run_a.params["depth"], run_a.params["change_tick"]), (4, 1), "A is a depth-4 chain changing at tick 1")


# -- D1: depth chains ------------------------------------------------------------------

D1_PFW = {1: 0, 2: 1, 3: 2, 5: 4, 10: 9}


@pytest.mark.parametrize(("depth", "expected"), sorted(D1_PFW.items()), ids=[f"depth{d}" for d in sorted(D1_PFW)])
def test_d1_baseline_pfw(depth, expected):
    run = cv.run_scenario("D1", depth=depth)
    _claim(run.baseline.pre_failure_work, expected, f"D1 depth {depth}: baseline PFW {expected}")


@pytest.mark.parametrize("depth", sorted(D1_PFW), ids=[f"depth{d}" for d in sorted(D1_PFW)])
def test_d1_validity_aware_pfw_is_0(depth):
    run = cv.run_scenario("D1", depth=depth)
    _claim(run.validity_aware.pre_failure_work, 0, f"D1 depth {depth}: validity-aware PFW 0")


def test_d1_depth_sweep_matches_published_row():
    frame = cv.depth_sweep()
    _claim(list(frame["baseline_pfw"]), [0, 1, 2, 4, 9], "D1 sweep baseline PFW 0, 1, 2, 4, 9")
    _claim(list(frame["validity_aware_pfw"]), [0, 0, 0, 0, 0], "D1 sweep validity-aware PFW all 0")


# -- D2: three topologies -----------------------------------------------------------------

D2_TOPOLOGIES = [
    ("chain depth 6", (6, 1, 1), 6, 5),
    ("shallow/wide", (4, 4, 4), 25, 24),
    ("deep/branching", (8, 2, 2), 30, 29),
]


@pytest.mark.parametrize(
    ("label", "shape", "nodes", "pfw"), D2_TOPOLOGIES, ids=[t[0].replace(" ", "-") for t in D2_TOPOLOGIES]
)
def test_d2_nodes_affected(label, shape, nodes, pfw):
    depth, bf, mf = shape
    run = cv.run_scenario("D2", depth=depth, branching_factor=bf, merge_factor=mf)
    _claim(run.structure.closure_size, nodes, f"D2 {label} {shape}: {nodes} nodes affected")
    _claim(run.structure.total_steps, nodes, f"D2 {label} {shape}: {nodes} nodes in total")


@pytest.mark.parametrize(
    ("label", "shape", "nodes", "pfw"), D2_TOPOLOGIES, ids=[t[0].replace(" ", "-") for t in D2_TOPOLOGIES]
)
def test_d2_baseline_pfw(label, shape, nodes, pfw):
    depth, bf, mf = shape
    run = cv.run_scenario("D2", depth=depth, branching_factor=bf, merge_factor=mf)
    _claim(run.baseline.pre_failure_work, pfw, f"D2 {label} {shape}: baseline PFW {pfw}")
    _claim(run.validity_aware.pre_failure_work, 0, f"D2 {label} {shape}: validity-aware PFW 0")


# -- the 96-configuration grid ---------------------------------------------------------------


def test_grid_has_96_configurations(grid):
    _claim(len(grid), 96, "the grid has 96 configurations")
    configs = set(zip(grid["depth"], grid["branching_factor"], grid["merge_factor"]))
    _claim(len(configs), 96, "the grid's 96 configurations are distinct")
    _claim(sorted(set(grid["depth"])), list(range(3, 9)), "grid depths are 3-8")
    _claim(sorted(set(grid["branching_factor"])), [1, 2, 3, 4], "grid branching factors are 1-4")
    _claim(sorted(set(grid["merge_factor"])), [1, 2, 3, 4], "grid merge factors are 1-4")


def test_grid_pfw_equals_nodes_minus_1_in_all_96(grid):
    bad = grid[grid["baseline_pfw"] != grid["total_steps"] - 1]
    _claim(len(bad), 0, "baseline PFW = nodes - 1 in all 96 configs (count of exceptions)")


def test_grid_validity_aware_pfw_is_0_in_all_96(grid):
    _claim(int((grid["validity_aware_pfw"] != 0).sum()), 0, "validity-aware PFW = 0 in all 96 configs (exceptions)")


# -- D3: isolated branches -------------------------------------------------------------------

D3_ROWS = [(1, 8, 100.0), (4, 26, 30.8), (8, 50, 16.0)]


@pytest.mark.parametrize(("branches", "nodes", "pct"), D3_ROWS, ids=[f"{b}branches" for b, _, _ in D3_ROWS])
def test_d3_total_plan_size(branches, nodes, pct):
    run = cv.run_scenario("D3", num_branches=branches)
    _claim(run.structure.total_steps, nodes, f"D3 {branches} branch(es): {nodes} nodes in total")


@pytest.mark.parametrize(("branches", "nodes", "pct"), D3_ROWS, ids=[f"{b}branches" for b, _, _ in D3_ROWS])
def test_d3_exposed_nodes_is_8(branches, nodes, pct):
    run = cv.run_scenario("D3", num_branches=branches)
    _claim(run.structure.closure_size, 8, f"D3 {branches} branch(es): 8 exposed nodes")


@pytest.mark.parametrize(("branches", "nodes", "pct"), D3_ROWS, ids=[f"{b}branches" for b, _, _ in D3_ROWS])
def test_d3_exposed_percent(branches, nodes, pct):
    run = cv.run_scenario("D3", num_branches=branches)
    _claim(round(run.structure.exposed_pct, 1), pct, f"D3 {branches} branch(es): {pct} % exposed")


@pytest.mark.parametrize(("branches", "nodes", "pct"), D3_ROWS, ids=[f"{b}branches" for b, _, _ in D3_ROWS])
def test_d3_baseline_pfw_is_7(branches, nodes, pct):
    run = cv.run_scenario("D3", num_branches=branches)
    _claim(run.baseline.pre_failure_work, 7, f"D3 {branches} branch(es): baseline PFW 7")
    _claim(run.validity_aware.pre_failure_work, 0, f"D3 {branches} branch(es): validity-aware PFW 0")


# -- E1 / E2: ambiguous signals ----------------------------------------------------------------


def test_e1_baseline_uses_7_steps(run_e1):
    _claim(run_e1.baseline.steps_used, 7, "E1 baseline uses 7 steps")


def test_e1_validity_aware_uses_6_steps(run_e1):
    _claim(run_e1.validity_aware.steps_used, 6, "E1 validity-aware uses 6 steps")


def test_e1_validity_aware_verifies_once(run_e1):
    _claim(run_e1.validity_aware.verifications, 1, "E1 validity-aware pays 1 verification")


def test_e2_baseline_uses_3_steps(run_e2):
    _claim(run_e2.baseline.steps_used, 3, "E2 baseline uses 3 steps")


def test_e2_validity_aware_uses_4_steps(run_e2):
    _claim(run_e2.validity_aware.steps_used, 4, "E2 validity-aware uses 4 steps")


def test_e2_validity_aware_verifies_once(run_e2):
    _claim(run_e2.validity_aware.verifications, 1, "E2 validity-aware pays 1 verification")


def test_e2_scur_is_0_for_both(run_e2):
    _claim(run_e2.baseline.scur, 0.0, "E2 baseline SCUR 0")
    _claim(run_e2.validity_aware.scur, 0.0, "E2 validity-aware SCUR 0")


# -- budget sweep on A -----------------------------------------------------------------------

BUDGET_OUTCOMES = [(9, True, True), (8, False, True), (7, False, True), (6, False, True), (5, False, False), (4, False, False)]


def test_budget_sweep_runs_from_computed_9_down_to_4(sweep):
    _claim(list(sweep.index), [9, 8, 7, 6, 5, 4], "the budget sweep covers budgets 9 down to 4")


@pytest.mark.parametrize(
    ("budget", "baseline", "validity_aware"), BUDGET_OUTCOMES, ids=[f"budget{b}" for b, _, _ in BUDGET_OUTCOMES]
)
def test_budget_sweep_outcome(sweep, budget, baseline, validity_aware):
    row = sweep.loc[budget]
    _claim(bool(row["baseline_completed"]), baseline, f"budget {budget}: baseline completes = {baseline}")
    _claim(bool(row["validity_aware_completed"]), validity_aware, f"budget {budget}: validity-aware completes = {validity_aware}")


def test_budget_separation_window_is_8_7_6(sweep):
    _claim(cv.separation_window(sweep.reset_index()), [8, 7, 6], "only validity-aware completes at budgets 8, 7, 6")


# -- the closed-form law ------------------------------------------------------------------------


def test_law_holds_in_15_of_15_cases():
    table = cv.check_law()
    _claim(len(table), 15, "the law is checked on 15 cases")
    mismatches = table.loc[~table["match"], "case"].tolist()
    _claim(mismatches, [], "the law holds in 15 of 15 cases (mismatching cases)")

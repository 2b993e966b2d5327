"""The three plan generators: ids, kinds, requirements, widths, wiring."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.graph import StepKind
from cvlib.scenarios.generators import branching_layer_widths

PLAN, DECISION, ACTION = StepKind.PLAN, StepKind.DECISION, StepKind.ACTION


def layer_of(step_id: str) -> int:
    return int(step_id[1:].split("_")[0])


# -- chain ---------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [2, 3, 5, 12])
def test_chain_ids_kinds_and_requirements(depth):
    plan = cv.chain(depth)
    assert plan.topological_order() == [f"S{i}" for i in range(depth)]
    kinds = [plan.step(f"S{i}").kind for i in range(depth)]
    assert kinds == [PLAN] + [DECISION] * (depth - 2) + [ACTION]
    assert plan.step("S0").requires == {"F1"}
    assert all(plan.step(f"S{i}").requires == frozenset() for i in range(1, depth))
    assert all(plan.step(f"S{i}").predecessors == (f"S{i - 1}",) for i in range(1, depth))
    assert plan.step("S0").predecessors == ()
    assert plan.closure_size("F1") == depth
    assert plan.invalidation_depth("F1") == depth


def test_chain_order_is_numeric_even_past_s10():
    # S10 sorts before S2 as a string, but the chain's edges fix the order
    assert cv.chain(12).topological_order()[-3:] == ["S9", "S10", "S11"]


def test_chain_depth_1_is_one_action_requiring_the_root():
    plan = cv.chain(1)
    assert len(plan) == 1
    only = plan.step("S0")
    assert only.kind is ACTION
    assert only.requires == {"F1"}


def test_chain_root_fact_name():
    assert cv.chain(3, root_fact="price").facts == {"price"}


# -- branching --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("depth", "bf", "mf", "widths"),
    [
        (8, 2, 2, [2, 4, 8, 8, 4, 2, 1, 1]),  # bf**3 = 8 caps layers 2 and 3
        (4, 4, 4, [4, 16, 4, 1]),
        (6, 1, 1, [1, 1, 1, 1, 1, 1]),
        (10, 2, 2, [2, 4, 8, 8, 8, 4, 2, 1, 1, 1]),  # cap holds over layers 2-4
        (5, 3, 2, [3, 9, 27, 13, 1]),  # odd depth: layers 0, 1, 2 are < 2.5; last forced to 1
        (3, 3, 1, [3, 9, 1]),  # merge factor 1 would keep 9: forced last layer
        (1, 4, 4, [1]),  # a single layer is the action
        (4, 2, 5, [2, 4, 1, 1]),  # width // mf floors at 1
    ],
)
def test_branching_layer_widths(depth, bf, mf, widths):
    assert branching_layer_widths(depth, bf, mf) == widths
    plan = cv.branching(depth, bf, mf)
    counts = Counter(layer_of(s) for s in plan.topological_order())
    assert [counts[layer] for layer in range(depth)] == widths
    assert len(plan) == sum(widths)


def test_branching_ids_kinds_and_requirements():
    plan = cv.branching(6, 3, 2, seed=4)
    widths = branching_layer_widths(6, 3, 2)
    for layer, width in enumerate(widths):
        for j in range(width):
            s = plan.step(f"L{layer}_{j}")
            if layer == len(widths) - 1:
                assert s.kind is ACTION
            elif layer == 0:
                assert s.kind is PLAN
            else:
                assert s.kind is DECISION
            assert s.requires == ({"F1"} if layer == 0 else frozenset())
            assert (s.predecessors == ()) == (layer == 0)
    assert plan.action_count() == 1
    # one shared root fact: every step holds it
    assert plan.closure_size("F1") == len(plan)


@pytest.mark.parametrize(("depth", "bf", "mf"), [(8, 2, 2), (4, 4, 4), (7, 3, 1), (5, 1, 3)])
def test_branching_predecessors_come_from_the_previous_layer(depth, bf, mf):
    plan = cv.branching(depth, bf, mf, seed=1)
    widths = branching_layer_widths(depth, bf, mf)
    for s in plan:
        layer = layer_of(s.id)
        if layer == 0:
            continue
        assert len(s.predecessors) == min(widths[layer - 1], bf)
        assert len(set(s.predecessors)) == len(s.predecessors), "predecessors are sampled without replacement"
        assert all(layer_of(p) == layer - 1 for p in s.predecessors)


def test_branching_wiring_is_random_sample_seeded_by_seed():
    """The documented contract: one random.Random(seed), sampling layer by layer, step by step."""
    depth, bf, mf, seed = 7, 3, 2, 11
    rng = random.Random(seed)
    widths = branching_layer_widths(depth, bf, mf)
    expected = {}
    previous = []
    for layer, width in enumerate(widths):
        current = [f"L{layer}_{j}" for j in range(width)]
        for sid in current:
            expected[sid] = tuple(rng.sample(previous, min(len(previous), bf))) if layer else ()
        previous = current
    plan = cv.branching(depth, bf, mf, seed=seed)
    assert {s.id: s.predecessors for s in plan} == expected


def test_branching_same_seed_same_plan_and_seed_matters():
    def wiring(seed):
        return {s.id: s.predecessors for s in cv.branching(8, 3, 2, seed=seed)}

    assert wiring(0) == wiring(0)
    assert wiring(0) != wiring(1)


def test_branching_uses_no_global_random_state():
    random.seed(123)
    a = {s.id: s.predecessors for s in cv.branching(8, 3, 2, seed=5)}
    random.seed(456)
    b = {s.id: s.predecessors for s in cv.branching(8, 3, 2, seed=5)}
    assert a == b


# -- multi_branch --------------------------------------------------------------------------------


@pytest.mark.parametrize(("p", "b", "q"), [(6, 1, 2), (6, 4, 2), (6, 8, 2), (1, 3, 1), (2, 2, 4)])
def test_multi_branch_structure(p, b, q):
    plan = cv.multi_branch(p, b, q)
    assert len(plan) == p * b + q
    for branch in range(b):
        for i in range(p):
            s = plan.step(f"B{branch}_{i}")
            assert s.kind is (PLAN if i == 0 else DECISION)
            assert s.requires == ({f"F{branch + 1}"} if i == 0 else frozenset())
            assert s.predecessors == ((f"B{branch}_{i - 1}",) if i else ())
    for i in range(q):
        s = plan.step(f"M{i}")
        assert s.kind is (ACTION if i == q - 1 else DECISION)
        assert s.requires == frozenset()
        expected_preds = tuple(f"B{branch}_{p - 1}" for branch in range(b)) if i == 0 else (f"M{i - 1}",)
        assert s.predecessors == expected_preds
    assert plan.facts == set(cv.branch_facts(b))


def test_multi_branch_facts_are_private_to_their_branch():
    plan = cv.multi_branch(6, 8, 2)
    for fact in cv.branch_facts(8):
        assert plan.closure_size(fact) == 6 + 2, fact
    assert plan.closure("B3_5") == {"F4"}
    assert plan.closure("M0") == set(cv.branch_facts(8))


def test_branch_facts():
    assert cv.branch_facts(3) == ["F1", "F2", "F3"]


# -- generate (used by spec files) ------------------------------------------------------------------


def test_generate_dispatches_by_name():
    assert cv.generate("chain", depth=3).topological_order() == ["S0", "S1", "S2"]
    assert len(cv.generate("multi_branch", pre_merge_depth=2, num_branches=2, post_merge_depth=1)) == 5


def test_generate_unknown_name_lists_the_valid_ones():
    with pytest.raises(ParameterError, match=r"'tree'.*branching, chain, multi_branch"):
        cv.generate("tree", depth=3)


def test_generate_unknown_parameter_is_a_parameter_error():
    with pytest.raises(ParameterError, match="chain.*width"):
        cv.generate("chain", depth=3, width=2)


# -- one chain builder: staged chains and further requirements ------------------------------------------------


def test_a_chain_with_further_requirements_is_the_chain_built_step_by_step():
    from cvlib.core.graph import PlanGraph, Step, StepKind

    steps = []
    for i in range(5):
        kind = StepKind.ACTION if i == 4 else StepKind.PLAN if i == 0 else StepKind.DECISION
        requires = {"F1", "F3"} if i == 0 else {"F2"} if i == 2 else set()
        steps.append(Step(f"S{i}", kind, frozenset(requires), (f"S{i - 1}",) if i else ()))
    expected = PlanGraph(steps)
    plan = cv.chain(5, also_requires={0: ["F3"], 2: ["F2"]})
    assert list(plan.ordered_steps()) == list(expected.ordered_steps())
    assert [plan.closure_size(f) for f in ("F1", "F2", "F3")] == [5, 3, 5]
    assert plan.invalidation_depth("F2") == expected.invalidation_depth("F2")


def test_a_staged_chain_with_further_requirements():
    plan = cv.chain(6, num_actions=3, also_requires={3: ["F2"]})
    assert [s.id for s in plan] == [f"S{i}" for i in range(6)]
    assert plan.action_count() == 3 and plan.step("S3").requires == {"F2"}


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"also_requires": {5: ["F2"]}}, "also_requires is keyed by step positions 0 to 4, got 5"),
        ({"also_requires": {True: ["F2"]}}, "keyed by step positions"),
        ({"also_requires": {1: "F2"}}, r"also_requires\[1\] must be a list of fact ids"),
        ({"also_requires": {1: [""]}}, r"also_requires\[1\]"),
        ({"also_requires": [1, "F2"]}, "also_requires must map step positions to lists of fact ids"),
        ({"num_actions": 0}, "num_actions must be >= 1"),
        ({"num_actions": 6}, r"num_actions must be at most depth \(5\), got 6"),
    ],
)
def test_bad_chain_options_are_one_line_errors(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        cv.chain(5, **kwargs)


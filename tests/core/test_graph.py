"""The plan graph: Kahn order with smallest-id ties, closures, and bad graphs."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from cvlib.core.errors import CvlibError, CycleError, ParameterError, UnknownStepError
from cvlib.core.graph import PlanGraph, Step, StepKind


def step(id, kind="decision", requires=(), after=()):
    return Step(id, StepKind(kind), frozenset(requires), tuple(after))


def random_dag(rng: random.Random, n: int, edge_p: float) -> list[Step]:
    """Steps with shuffled, oddly numbered ids so that string tie-breaking matters."""
    ids = [f"S{k}" for k in rng.sample(range(40), n)]
    rng.shuffle(ids)  # ids[i] may only come after ids[j] with j < i
    steps = []
    for i, sid in enumerate(ids):
        after = tuple(ids[j] for j in range(i) if rng.random() < edge_p)
        requires = {f"F{rng.randint(1, 3)}"} if rng.random() < 0.5 else set()
        steps.append(step(sid, "action" if i == n - 1 else "decision", requires, after))
    rng.shuffle(steps)  # construction order must not matter
    return steps


def to_networkx(steps: list[Step]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(s.id for s in steps)
    g.add_edges_from((p, s.id) for s in steps for p in s.predecessors)
    return g


# -- topological order --------------------------------------------------------------


def test_ties_break_by_smallest_id_as_string():
    # S10 < S2 < S9 as strings; none depends on another, so the order is pure tie-breaking
    plan = PlanGraph([step("S9"), step("S2"), step("S10"), step("S1", "action")])
    assert plan.topological_order() == ["S1", "S10", "S2", "S9"]


def test_ties_are_broken_among_ready_steps_only():
    # A is ready first; B only after Z: Kahn must not jump ahead to B
    plan = PlanGraph([step("Z"), step("B", after=["Z"]), step("C"), step("A", "action")])
    assert plan.topological_order() == ["A", "C", "Z", "B"]


@pytest.mark.parametrize("seed", range(60))
def test_order_matches_networkx_lexicographic_topological_sort(seed):
    rng = random.Random(seed)
    steps = random_dag(rng, rng.randint(1, 25), rng.choice([0.05, 0.2, 0.5]))
    plan = PlanGraph(steps)
    expected = list(nx.lexicographical_topological_sort(to_networkx(steps)))
    assert plan.topological_order() == expected


@pytest.mark.parametrize("seed", range(30))
def test_closures_match_networkx_ancestors(seed):
    rng = random.Random(1000 + seed)
    steps = random_dag(rng, rng.randint(1, 20), 0.25)
    plan = PlanGraph(steps)
    g = to_networkx(steps)
    by_id = {s.id: s for s in steps}
    for s in steps:
        expected = set(s.requires).union(*(by_id[a].requires for a in nx.ancestors(g, s.id)))
        assert plan.closure(s.id) == expected, s.id
    for fact in sorted(plan.facts):
        holders = [s.id for s in steps if fact in plan.closure(s.id)]
        assert plan.closure_size(fact) == len(holders)
        sub = g.subgraph(holders)
        assert plan.invalidation_depth(fact) == nx.dag_longest_path_length(sub) + 1


def test_positions_follow_the_order():
    plan = PlanGraph([step("b", after=["a"]), step("a", "plan", ["F1"]), step("c", "action", after=["b"])])
    assert [plan.position(i) for i in ("a", "b", "c")] == [0, 1, 2]
    assert [s.id for s, _ in plan.ordered_steps()] == plan.topological_order()


# -- closures -----------------------------------------------------------------------------


def diamond() -> PlanGraph:
    #   P(F1) -> L -> A
    #   Q(F2) -> R -> A ; R also needs F3 directly
    return PlanGraph(
        [
            step("P", "plan", ["F1"]),
            step("Q", "plan", ["F2"]),
            step("L", after=["P"]),
            step("R", requires=["F3"], after=["Q"]),
            step("A", "action", after=["L", "R"]),
        ]
    )


def test_closure_is_own_requirements_and_all_predecessors_closures():
    plan = diamond()
    assert plan.closure("P") == {"F1"}
    assert plan.closure("L") == {"F1"}
    assert plan.closure("R") == {"F2", "F3"}
    assert plan.closure("A") == {"F1", "F2", "F3"}


def test_closure_size_counts_steps_holding_the_fact():
    plan = diamond()
    assert plan.closure_size("F1") == 3  # P, L, A
    assert plan.closure_size("F2") == 3  # Q, R, A
    assert plan.closure_size("F3") == 2  # R, A
    assert plan.closure_size("F9") == 0


def test_invalidation_depth_is_longest_chain_inside_the_closure():
    plan = diamond()
    assert plan.invalidation_depth("F1") == 3
    assert plan.invalidation_depth("F3") == 2
    assert plan.invalidation_depth("F9") == 0
    # a long path outside the closure does not count
    long_plan = PlanGraph(
        [step("a"), step("b", after=["a"]), step("c", after=["b"]), step("d", requires=["F1"], after=["c"]),
         step("e", "action", after=["d"])]
    )
    assert long_plan.closure_size("F1") == 2
    assert long_plan.invalidation_depth("F1") == 2


def test_facts_are_the_direct_requirements():
    assert diamond().facts == {"F1", "F2", "F3"}
    assert len(diamond()) == 5
    assert diamond().action_count() == 1


# -- bad graphs ------------------------------------------------------------------------------


def test_cycle_is_an_error_naming_the_steps():
    with pytest.raises(CycleError, match="cycle") as err:
        PlanGraph([step("S0", after=["S2"]), step("S1", after=["S0"]), step("S2", after=["S1"]), step("S3", "action")])
    for sid in ("S0", "S1", "S2"):
        assert sid in str(err.value)
    assert "S3" not in str(err.value)


def test_self_loop_is_a_cycle():
    with pytest.raises(CycleError, match="S0"):
        PlanGraph([step("S0", "action", after=["S0"])])


def test_duplicate_step_id_is_an_error():
    with pytest.raises(ParameterError, match="duplicate step id 'S1'"):
        PlanGraph([step("S1"), step("S1", "action")])


def test_unknown_predecessor_is_an_error():
    with pytest.raises(UnknownStepError, match=r"'S1'.*'S7'"):
        PlanGraph([step("S0"), step("S1", "action", after=["S7"])])


def test_unknown_step_lookup_is_an_error():
    plan = diamond()
    for query in (plan.closure, plan.position, plan.step):
        with pytest.raises(UnknownStepError, match="'nope'"):
            query("nope")


def test_empty_plan_is_an_error():
    with pytest.raises(ParameterError, match="at least one step"):
        PlanGraph([])


def test_unknown_step_kind_is_an_error():
    with pytest.raises(ParameterError, match=r"'wait'.*plan, decision, action"):
        Step("S0", "wait")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad_id", ["", None, 3])
def test_bad_step_id_is_an_error(bad_id):
    with pytest.raises(ParameterError, match="step id"):
        Step(bad_id, StepKind.ACTION)  # type: ignore[arg-type]


def test_errors_are_cvlib_errors():
    assert issubclass(CycleError, CvlibError) and issubclass(UnknownStepError, CvlibError)


def test_non_step_in_plan_is_an_error():
    with pytest.raises(ParameterError, match="Step values"):
        PlanGraph([{"id": "S0"}])  # type: ignore[list-item]


# -- the trusted column constructor ------------------------------------------------------------------


def test_from_columns_builds_the_plan_that_steps_build():
    from cvlib.core.graph import CSR, kind_codes

    steps = [
        Step("S0", StepKind.PLAN, frozenset({"F1"})),
        Step("S1", StepKind.DECISION, frozenset({"F2"}), ("S0",)),
        Step("S2", StepKind.ACTION, frozenset(), ("S0", "S1")),
    ]
    by_steps = PlanGraph(steps)
    kinds = [s.kind for s in steps]
    requires = [s.requires for s in steps]
    for predecessors in ([(), (0,), (0, 1)], CSR([0, 0, 1, 3], [0, 0, 1])):
        for codes in (kinds, kind_codes(kinds)):
            plan = PlanGraph.from_columns(["S0", "S1", "S2"], codes, requires, predecessors)
            assert list(plan.ordered_steps()) == list(by_steps.ordered_steps())
            assert plan.closure_size("F1") == by_steps.closure_size("F1") == 3


@pytest.mark.parametrize(
    ("columns", "fragment"),
    [
        ((["S0", "S1"], [StepKind.ACTION], [frozenset()] * 2, [(), (0,)]), "needs one kinds entry per step, got 1"),
        ((["S0"], [StepKind.ACTION], [], [()]), "needs one requires entry per step, got 0"),
        ((["S0", "S1"], [StepKind.PLAN, StepKind.ACTION], [frozenset()] * 2, [()]), "needs one predecessors entry"),
        ((["S0"], [StepKind.ACTION], [frozenset()], None), "needs 2 predecessor pointers, got 3"),
        (([], b"", [], []), "at least one step"),
    ],
)
def test_from_columns_refuses_columns_of_the_wrong_length(columns, fragment):
    from cvlib.core.graph import CSR

    ids, kinds, requires, predecessors = columns
    if predecessors is None:
        predecessors = CSR([0, 0, 0], [])
    with pytest.raises(ParameterError, match=fragment):
        PlanGraph.from_columns(ids, kinds, requires, predecessors)


def test_no_module_outside_the_core_calls_a_private_plan_constructor():
    import cvlib as cv

    root = cv.paths.project_root() / "cvlib"
    callers = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
               if p.parent.name != "core" and "PlanGraph._" in p.read_text(encoding="utf-8")]
    assert callers == []

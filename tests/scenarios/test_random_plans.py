"""Seeded random plan families: deterministic, well formed, and the law holds on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import cvlib as cv
from cvlib import PlanGraph, StepKind
from cvlib.core.errors import ParameterError
from cvlib.scenarios.random_plans import (
    FAMILIES,
    isolated_fan_out,
    layered_dag,
    plan_seed,
    random_events,
    random_facts,
    random_setup,
    random_setups,
)


def _fingerprint(plan: PlanGraph) -> list:
    return [(s, sorted(plan.closure(s))) for s in plan.topological_order()]


def test_layered_dag_is_a_function_of_its_seed() -> None:
    assert _fingerprint(layered_dag(8, 4, 3, seed=5)) == _fingerprint(layered_dag(8, 4, 3, seed=5))
    assert _fingerprint(layered_dag(8, 4, 3, seed=5)) != _fingerprint(layered_dag(8, 4, 3, seed=6))


def test_layered_dag_ends_on_one_action_and_rests_on_several_facts() -> None:
    plan = layered_dag(10, 5, 4, seed=1)
    actions = [s for s in plan if s.kind is StepKind.ACTION]
    assert [s.id for s in actions] == ["R9_0"]
    assert plan.facts <= {"F1", "F2", "F3", "F4"}
    assert len(plan.facts) >= 2
    assert all(s.kind is StepKind.PLAN for s in plan if s.id.startswith("R0_"))


@pytest.mark.parametrize("seed", range(40))
def test_generated_columns_match_the_general_construction(seed: int) -> None:
    for plan in (
        layered_dag(seed % 12 + 1, seed % 5 + 1, seed % 4 + 1, seed),
        isolated_fan_out(seed % 6 + 1, seed % 4 + 1, seed, branch_depth=seed % 3, post_merge_depth=seed % 2 + 1),
    ):
        general = PlanGraph(list(plan))
        assert _fingerprint(plan) == _fingerprint(general)


def test_isolated_fan_out_exposes_one_branch_and_the_shared_segment() -> None:
    plan = isolated_fan_out(5, 3, seed=2, branch_depth=2, post_merge_depth=3)
    branch0 = [s for s in plan.topological_order() if s.startswith("B0_")]
    assert plan.closure_size("F1") == len(branch0) + 3
    assert plan.closure("M0") == frozenset({"F1", "F2", "F3", "F4", "F5"})
    assert plan.step("M2").is_action
    widths = {sid.rsplit("_", 1)[0] for sid in branch0 if sid.count("_") == 2}
    assert widths <= {"B0_1", "B0_2"}


def test_random_facts_and_events_are_seeded_and_within_the_horizon() -> None:
    names = ["F1", "F2", "F3", "F4", "F5", "F6"]
    assert random_events(names, 3, horizon=10) == random_events(names, 3, horizon=10)
    events = random_events(names, 3, horizon=10, break_prob=1.0, false_alarm_prob=1.0)
    assert all(0 <= e.tick <= 10 for e in events)
    assert len(cv.break_ticks(events)) == len(names)  # every fact breaks
    assert sum(not e.breaks_fact for e in events) == len(names)  # and gets one false alarm
    facts = random_facts(names, 4, horizon=7, expiry_prob=1.0)
    assert all(f.valid_until is not None and 0 <= f.valid_until <= 7 for f in facts)


def test_plan_seeds_are_distinct_per_index() -> None:
    seeds = {plan_seed(1, i) for i in range(1000)}
    assert len(seeds) == 1000


def test_random_setup_records_how_to_rebuild_it() -> None:
    setup = random_setup(11, 42)
    assert setup.params["seed"] == 11 and setup.params["index"] == 42
    assert setup.name == f"random-{setup.params['family']}"
    assert setup.at_risk in setup.plan.facts
    json.dumps(setup.run().to_dict())  # JSON-safe
    again = random_setup(11, 42)
    assert _fingerprint(again.plan) == _fingerprint(setup.plan) and again.events == setup.events


def test_random_setup_is_the_same_in_another_process_with_another_hash_seed() -> None:
    code = (
        "import cvlib as cv; s = cv.random_plans.random_setup(5, 7); "
        "print(s.plan.topological_order(), [(e.tick, e.fact_id, e.kind.value) for e in s.events], s.at_risk)"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": h}
        ).stdout
        for h in ("0", "123")
    }
    assert len(outputs) == 1


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_can_be_asked_for(family: str) -> None:
    setups = list(random_setups(3, 30, family=family))
    assert {s.params["family"] for s in setups} == {family}


def test_mixed_family_draws_every_family() -> None:
    assert {s.params["family"] for s in random_setups(0, 200)} == set(FAMILIES)


def test_generalized_law_holds_on_a_thousand_random_plans() -> None:
    mismatches = validity_pfw = verifications = broken = 0
    for setup in random_setups(2026, 1000):
        run = setup.run()
        predicted = cv.predicted_pfw(setup.plan, cv.break_ticks(setup.events))
        mismatches += predicted != run.baseline.pre_failure_work
        validity_pfw += run.validity_aware.pre_failure_work
        verifications += run.validity_aware.verifications
        broken += run.baseline.pre_failure_work > 0
    assert mismatches == 0
    assert validity_pfw == 0
    assert verifications > 0 and broken > 100  # the family exercises verifications and doomed work


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: random_setup(1, 0, family="spiral"), "plan family must be one of .*; got 'spiral'"),
        (lambda: random_setup(1, -1), "index must be >= 0"),
        (lambda: layered_dag(0, 3, 2, 1), "num_layers must be >= 1"),
        (lambda: layered_dag(3, 3, 2, "1"), "seed must be an integer, got str '1'"),
        (lambda: layered_dag(3, 3, 2, 1, require_prob=1.5), "require_prob must be in \\[0, 1\\], got 1.5"),
        (lambda: isolated_fan_out(2, 0, 1), "fan_out must be >= 1"),
        (lambda: random_events(["F1"], 1, horizon=-1), "horizon must be >= 0"),
        (lambda: list(random_setups(1, -3)), "count must be >= 0"),
    ],
)
def test_bad_input_is_named(call, message: str) -> None:
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace("'", "'")):
        call()


def _setup_key(setup: cv.ScenarioSetup) -> tuple:
    return (setup.name, list(setup.plan), setup.plan.topological_order(), setup.facts, setup.events, setup.at_risk,
            setup.budget, dict(setup.params), setup.description)


@pytest.mark.parametrize("family", ("mixed", *FAMILIES))
@pytest.mark.parametrize("max_steps", [1, 7, 60, 240])
def test_the_fast_draws_make_the_plain_generators_setups(family: str, max_steps: int) -> None:
    """The library's draws (getrandbits rejection, pool sample, reseeded streams) against random.Random's methods."""
    from tests.reference_random_plans import reference_setup, reference_setups

    fast = [_setup_key(s) for s in random_setups(99, 120, family=family, max_steps=max_steps, start=5)]
    assert fast == [_setup_key(s) for s in reference_setups(99, 120, family=family, max_steps=max_steps, start=5)]
    assert _setup_key(random_setup(4, 17, family=family, max_steps=max_steps)) == _setup_key(
        reference_setup(4, 17, family=family, max_steps=max_steps)
    )


@pytest.mark.parametrize("seed", range(30))
def test_the_public_generators_draw_as_the_plain_ones(seed: int) -> None:
    import tests.reference_random_plans as plain

    # wide layers (more than 21 candidates) take sample's other branch
    for args in ((seed % 9 + 1, seed % 7 + 1, seed % 6 + 1, seed), (6, 30, 4, seed), (4, 3, 2, seed)):
        kwargs = {"max_predecessors": seed % 4 + 1, "require_prob": (seed % 5) / 4}
        assert _fingerprint(layered_dag(*args, **kwargs)) == _fingerprint(plain.layered_dag(*args, **kwargs))
        assert list(layered_dag(*args, **kwargs)) == list(plain.layered_dag(*args, **kwargs))
    assert list(isolated_fan_out(seed % 5 + 1, seed % 4 + 1, seed, branch_depth=seed % 4)) == list(
        plain.isolated_fan_out(seed % 5 + 1, seed % 4 + 1, seed, branch_depth=seed % 4)
    )
    names = [f"F{i + 1}" for i in range(seed % 7 + 1)]
    probs = {"break_prob": (seed % 3) / 2, "ambiguous_prob": (seed % 4) / 3, "false_alarm_prob": (seed % 5) / 4}
    assert random_events(names, seed, horizon=seed, **probs) == plain.random_events(names, seed, horizon=seed, **probs)
    assert random_facts(names, seed, horizon=seed % 4, expiry_prob=0.6) == plain.random_facts(
        names, seed, horizon=seed % 4, expiry_prob=0.6
    )


def test_family_draws_are_the_setups_draws() -> None:
    from cvlib.scenarios.random_plans import family_draws

    for draw, setup in zip(family_draws(8, 3, 200), random_setups(8, 197, start=3), strict=True):
        assert _fingerprint(draw.plan) == _fingerprint(setup.plan) and draw.at_risk == setup.at_risk
        assert draw.horizons == [f.valid_until for f in setup.facts]
        assert len(draw.events) == len(setup.events) and draw.family == setup.params["family"]


def _as_masks(plan: PlanGraph) -> tuple[list[int], int, list[int]]:
    """A plan's closures in execution order as bit masks, its first action's position and its facts' numbers."""
    columns = plan.run_columns()
    masks = [sum(1 << (int(f[1:]) - 1) for f in closure) for closure in columns.closures]
    first = columns.actions[0] if columns.actions else len(masks)
    return masks, first, [int(f[1:]) - 1 for f in sorted(plan.facts)]


@pytest.mark.parametrize("family", ("mixed", *FAMILIES))
@pytest.mark.parametrize("max_steps", [1, 5, 13, 60, 240])
def test_mask_draws_are_the_plans_built_as_graphs(family: str, max_steps: int) -> None:
    """family_mask_draws against family_draws, plan by plan: the masks, the order, the facts and every later draw."""
    from cvlib.scenarios.random_plans import family_draws, family_mask_draws

    count = 1500 if max_steps == 60 else 400
    seed = max_steps * 31 + len(family)
    for fast, built in zip(
        family_mask_draws(seed, 7, 7 + count, family=family, max_steps=max_steps),
        family_draws(seed, 7, 7 + count, family=family, max_steps=max_steps),
        strict=True,
    ):
        masks, first, required = _as_masks(built.plan)
        assert (fast.closures, fast.first_action, fast.required) == (masks, first, required), built.params
        assert fast.family == built.family and fast.horizons == built.horizons and fast.events == built.events
        assert f"F{fast.at_risk + 1}" == built.at_risk


def test_layered_masks_past_ten_layers_run_in_the_ids_string_order() -> None:
    """Layered plans of 11 to 300 layers (past the rank table's first size), masks against the plan's Kahn order."""
    import random

    from cvlib.scenarios._plan_masks import layered_masks as _layered_masks
    from cvlib.scenarios.random_plans import _layered

    interleaved = 0
    for seed in range(150):
        layers, width, facts = 11 + seed * 2, seed % 6 + 1, seed % 6 + 1
        plan = _layered(random.Random(seed), layers, width, [f"F{i + 1}" for i in range(facts)], 3, 0.3)
        interleaved += [plan.position(s.id) for s in plan] != list(range(len(plan)))
        assert _layered_masks(random.Random(seed), layers, width, facts, 3, 0.3) == _as_masks(plan)
    assert interleaved >= 60  # half of them do not run in index order: the heap is exercised


@pytest.mark.parametrize("seed", range(12))
def test_orders_handed_over_are_kahns_at_the_one_digit_boundary(seed: int) -> None:
    """Fan-outs and layered plans at and just past ten branches, steps a level or layers: Kahn's order either way."""
    for size in (9, 10, 11, 12):
        for plan in (
            isolated_fan_out(size, size, seed, branch_depth=seed % 4, post_merge_depth=seed % 3 + 1),
            isolated_fan_out(size, 3, seed, branch_depth=2),
            layered_dag(size, size, 4, seed),
            layered_dag(size, 3, 4, seed),
            layered_dag(6, size, 4, seed),
        ):
            general = PlanGraph(list(plan))
            assert plan.topological_order() == general.topological_order()
            assert _fingerprint(plan) == _fingerprint(general)

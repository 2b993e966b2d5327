"""Sweep specifications (cvlib.experiments.large_sweeps.Grid and RandomFamily): tasks, rows and identities."""

from __future__ import annotations

import json

import pytest

import cvlib as cv
from cvlib.experiments.article import run_row
from cvlib.experiments.large_sweeps import BACKENDS, Grid, RandomFamily, sweep
from cvlib.scenarios.named import run_scenario


def test_grid_tasks_are_mixed_radix_with_the_last_parameter_fastest() -> None:
    grid = Grid("D2", depth=[3, 4], branching_factor=[1, 2, 3])
    assert len(grid) == 6
    assert [grid.task(i) for i in range(6)] == [
        {"depth": d, "branching_factor": b} for d in (3, 4) for b in (1, 2, 3)
    ]


def test_grid_rows_are_the_named_scenarios_run_rows() -> None:
    grid = Grid("D1", depth=[2, 5])
    rows = grid.rows(0, 2)
    assert [r["task"] for r in rows] == [0, 1]
    for row, depth in zip(rows, (2, 5)):
        expected = run_row(run_scenario("D1", depth=depth))
        assert {k: row[k] for k in expected} == expected
        assert row["scenario"] == "D1" and row["depth"] == depth


def test_grid_describes_itself_as_json_and_equal_grids_describe_alike() -> None:
    a, b = Grid("D1", depth=[2, 3]), Grid("D1", depth=[2, 3])
    assert json.loads(json.dumps(a.describe())) == a.describe() == b.describe()
    assert Grid("D1", depth=[2, 4]).describe() != a.describe()


def test_random_family_rows_check_the_law_on_each_plan() -> None:
    family = RandomFamily(seed=5, count=20, max_steps=15)
    rows = family.rows(0, 20)
    assert [r["task"] for r in rows] == list(range(20))
    assert all(r["total_steps"] <= 15 for r in rows)
    assert all(r["law_holds"] == (r["predicted_pfw"] == r["baseline_pfw"]) for r in rows)
    assert all(r["validity_aware_pfw"] == 0 for r in rows)
    assert rows[7:9] == family.rows(7, 9)  # a task is the same whichever chunk runs it


def test_random_family_validates_its_fields() -> None:
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=-1)
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=5, family="spirals")
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=5, max_steps=0)


def test_a_serial_sweep_is_the_rows_in_task_order() -> None:
    family = RandomFamily(seed=2, count=12, max_steps=10)
    frame = sweep(family, chunk_size=5, progress=False)
    assert list(frame["task"]) == list(range(12))
    assert frame.to_dict("records") == family.rows(0, 12)
    assert "serial" in BACKENDS


def _masks(plan):
    columns = plan.run_columns()
    closures = [sum(1 << (int(f[1:]) - 1) for f in c) for c in columns.closures]
    return closures, columns.actions[0] if columns.actions else len(closures)


@pytest.mark.parametrize("seed", range(6))
def test_the_article_pair_on_bit_masks_is_the_one_loop(seed: int) -> None:
    """article_pair_small against run_policy, on random plans with schedules harsher than the family's."""
    import random

    from cvlib.core.executors import BASELINE, VALIDITY_AWARE, article_pair_small, get_policy, run_policy
    from cvlib.core.facts import Fact
    from cvlib.core.values import replace
    from cvlib.scenarios.random_plans import random_events, random_setups

    rng = random.Random(seed)
    checked = 0
    for setup in random_setups(300 + seed, 150):
        names = [f.id for f in setup.facts]
        horizon = len(setup.plan) + 2
        probs = {"break_prob": rng.random(), "ambiguous_prob": rng.random(), "false_alarm_prob": rng.random()}
        events = random_events(names, rng.getrandbits(32), horizon=horizon, **probs)
        facts = tuple(Fact(f, 0, valid_until=rng.randint(0, horizon) if rng.random() < 0.6 else None) for f in names)
        setup = replace(setup, events=events, facts=facts)
        order = sorted(range(len(events)), key=lambda i: events[i].tick)
        schedule = [(events[i].tick, int(events[i].fact_id[1:]) - 1, events[i].kind is cv.EventKind.REPLACE,
                     events[i].breaks_fact) for i in order]
        closures, first_action = _masks(setup.plan)
        flat = setup.plan.closure_size(setup.at_risk) + 1
        got = article_pair_small(closures, first_action, [f.valid_until for f in facts], schedule, flat, setup.budget)
        for name, numbers in zip((BASELINE, VALIDITY_AWARE), got, strict=True):
            r = run_policy(get_policy(name), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
            assert numbers == (r.completed, r.steps_used, r.replans, r.verifications, r.pre_failure_work,
                               r.decisions_total, r.decisions_on_stale_deps), (name, setup.params)
            checked += 1
    assert checked == 300


def test_the_article_pair_where_nothing_changes_walks_to_the_action_or_the_budget() -> None:
    """article_pair_small with no events and no horizons against run_policy, under budgets from none to ample."""
    from cvlib.core.executors import BASELINE, VALIDITY_AWARE, article_pair_small, get_policy, run_policy
    from cvlib.core.facts import Fact
    from cvlib.core.values import replace
    from cvlib.scenarios.random_plans import random_setups

    checked = 0
    for setup in random_setups(41, 60, max_steps=20):
        facts = tuple(Fact(f.id, 0) for f in setup.facts)
        closures, first_action = _masks(setup.plan)
        flat = setup.plan.closure_size(setup.at_risk) + 1
        for budget in sorted({0, 1, first_action - 1, first_action, first_action + 1, setup.budget}):
            if budget < 0:
                continue
            quiet = replace(setup, events=(), facts=facts, budget=budget)
            got = article_pair_small(closures, first_action, [None] * len(facts), [], flat, budget)
            for name, numbers in zip((BASELINE, VALIDITY_AWARE), got, strict=True):
                r = run_policy(get_policy(name), quiet.plan, quiet.new_world(), quiet.at_risk, budget)
                assert numbers == (r.completed, r.steps_used, r.replans, r.verifications, r.pre_failure_work,
                                   r.decisions_total, r.decisions_on_stale_deps), (name, budget, setup.params)
                checked += 1
    assert checked >= 400


@pytest.mark.parametrize(
    ("closures", "first_action", "budget", "expected"),
    [
        ([1, 1, 1], 2, 5, (True, 3, 0, 0, 0, 3, 0)),  # to the action
        ([1, 1, 1], 2, 1, (False, 2, 0, 0, 0, 2, 0)),  # out of budget after the second step
        ([1, 1, 1], 0, 0, (True, 1, 0, 0, 0, 1, 0)),  # the first step is the action: no budget check before it
        ([1, 1, 1], 3, 9, (False, 3, 0, 0, 0, 3, 0)),  # no action: the whole order, not completed
        ([], 0, 4, (False, 0, 0, 0, 0, 0, 0)),  # no steps
    ],
)
def test_the_article_pair_where_nothing_changes_on_edge_cases(closures, first_action, budget, expected) -> None:
    from cvlib.core.executors import article_pair_small

    assert article_pair_small(closures, first_action, [None], [], 2, budget) == (expected, expected)


@pytest.mark.parametrize("family", ("mixed", "layered", "fan_out", "chain"))
def test_random_family_rows_on_masks_are_the_rows_through_the_loop(family: str, monkeypatch) -> None:
    from cvlib.core import runs as core_runs
    from cvlib.core.executors import get_policy, run_policy
    from cvlib.core.law import break_ticks, predicted_pfw
    from cvlib.scenarios.random_plans import random_setup

    spec = RandomFamily(seed=17, count=400, family=family)
    fast = spec.rows(0, 400)
    monkeypatch.setattr(core_runs, "is_article_pair", lambda policies: False)
    general = spec.rows(0, 400)
    assert fast == general
    assert [list(r.items()) for r in fast] == [list(r.items()) for r in general]  # same columns, same order
    assert all(type(a[k]) is type(b[k]) for a, b in zip(fast, general) for k in a)
    # The plain statement of a row, from each plan's setup: its graph, the law on it, each executor in the loop.
    for row in fast[::7]:
        setup = random_setup(17, row["task"], family=family)
        breaks = break_ticks(setup.events)
        results = {n: run_policy(get_policy(n), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
                   for n in ("baseline", "validity_aware")}
        predicted = predicted_pfw(setup.plan, breaks)
        assert row == {
            "task": row["task"], "family": setup.params["family"], "total_steps": len(setup.plan),
            "facts": len(setup.plan.facts), "broken_facts": len(breaks), "events": len(setup.events),
            "closure_size": setup.plan.closure_size(setup.at_risk), "predicted_pfw": predicted,
            "baseline_pfw": results["baseline"].pre_failure_work,
            "validity_aware_pfw": results["validity_aware"].pre_failure_work,
            "law_holds": predicted == results["baseline"].pre_failure_work,
            **{f"{n}_{m}": getattr(results[n], a) for m, a in (("steps", "steps_used"), ("completed", "completed"),
                                                                ("verifications", "verifications"))
               for n in ("baseline", "validity_aware")},
            "budget": setup.budget,
        }


@pytest.mark.parametrize("family", ("mixed", "chain", "branching", "multi_branch", "layered", "fan_out"))
@pytest.mark.parametrize("max_steps", [1, 7, 60, 240])
@pytest.mark.parametrize("seed", [0, 2026])
def test_random_family_rows_are_the_setups_run_through_run_policy(family: str, max_steps: int, seed: int) -> None:
    """The mask rows against rows built from random_setups, run_policy and predicted_pfw on the plan, field by field."""
    from cvlib.core.executors import BASELINE, VALIDITY_AWARE, get_policy, run_policy
    from cvlib.core.law import break_ticks, predicted_pfw
    from cvlib.scenarios.random_plans import random_setups

    count = 250
    fast = RandomFamily(seed=seed, count=count, family=family, max_steps=max_steps).rows(0, count)
    for row, setup in zip(fast, random_setups(seed, count, family=family, max_steps=max_steps), strict=True):
        plan = setup.plan
        runs = {name: run_policy(get_policy(name), plan, setup.new_world(), setup.at_risk, setup.budget)
                for name in (BASELINE, VALIDITY_AWARE)}
        breaks = break_ticks(setup.events)
        predicted = predicted_pfw(plan, breaks)
        expected = {
            "task": setup.params["index"], "family": setup.params["family"], "total_steps": len(plan),
            "facts": len(plan.facts), "broken_facts": len(breaks), "events": len(setup.events),
            "closure_size": plan.closure_size(setup.at_risk), "predicted_pfw": predicted,
            "law_holds": predicted == runs[BASELINE].pre_failure_work, "budget": setup.budget,
        }
        for name, r in runs.items():
            expected |= {f"{name}_pfw": r.pre_failure_work, f"{name}_steps": r.steps_used,
                         f"{name}_completed": r.completed, f"{name}_verifications": r.verifications}
        assert row == expected, setup.params

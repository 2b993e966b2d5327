"""The article's two executors on runs of one closure: the same numbers as step by step on bit masks."""

from __future__ import annotations

import random

import pytest

from cvlib.core.executors import (
    ARTICLE_POLICIES,
    Baseline,
    TimestampOnly,
    ValidityAware,
    article_pair_runs,
    article_pair_small,
    get_policy,
    is_article_pair,
    run_policy,
    scur_of,
)


def _random_case(rng: random.Random) -> tuple[list[int], list[int], int, list, list, int, int]:
    """A plan as runs, a schedule and horizons, drawn so stretches end on every kind of boundary."""
    n = rng.randint(1, 40)
    facts = rng.randint(1, 4)
    cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(n - 1, 6)))) if n > 1 else []
    run_starts = [0, *cuts, n]
    run_masks = [rng.randrange(1 << facts) for _ in range(len(run_starts) - 1)]
    first_action = rng.choice([n, *rng.sample(range(n), min(n, 3))])
    horizons = [rng.randint(0, n + 2) if rng.random() < 0.5 else None for _ in range(facts)]
    events = []
    for _ in range(rng.randint(0, 5)):
        if rng.random() < 0.5:
            events.append((rng.randint(0, n + 2), rng.randrange(facts), True, True))
        else:
            events.append((rng.randint(0, n + 2), rng.randrange(facts), False, rng.random() < 0.5))
    events.sort(key=lambda event: event[0])  # stable: as given within a tick, as the world's schedule is
    flat_cost = rng.randint(1, n + 2)
    budget = rng.randint(0, 3 * n + 3)
    return run_starts, run_masks, first_action, horizons, events, flat_cost, budget


@pytest.mark.parametrize("seed", range(4))
def test_runs_give_what_steps_give(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2500):
        run_starts, run_masks, first_action, horizons, events, flat_cost, budget = _random_case(rng)
        closures = [run_masks[r] for r in range(len(run_masks)) for _ in range(run_starts[r + 1] - run_starts[r])]
        expected = article_pair_small(closures, first_action, horizons, events, flat_cost, budget)
        got = article_pair_runs(run_starts, run_masks, first_action, horizons, events, flat_cost, budget)
        assert got == expected, (run_starts, run_masks, first_action, horizons, events, flat_cost, budget)


def test_a_diamond_broken_at_the_start() -> None:
    # One run of 7 steps holding the fact, the action last, the fact replaced at tick 0, flat cost 8, budget 15.
    baseline, aware = article_pair_runs([0, 7], [1], 6, [None], [(0, 0, True, True)], 8, 15)
    assert baseline == (True, 15, 1, 0, 6, 7, 7)
    assert aware == (True, 8, 1, 0, 0, 1, 1)


def test_only_the_article_pair_in_order_is_the_article_pair() -> None:
    article = [get_policy(name) for name in ARTICLE_POLICIES]
    assert is_article_pair(article)
    assert is_article_pair([Baseline(), ValidityAware()])
    assert not is_article_pair(article[::-1])
    assert not is_article_pair(article[:1])
    assert not is_article_pair([*article, TimestampOnly()])
    assert not is_article_pair([Baseline(name="other"), ValidityAware()])


def test_scur_counts_stale_decisions_and_is_zero_without_decisions() -> None:
    assert scur_of(0, 0) == 0.0
    assert scur_of(3, 4) == 0.75


@pytest.mark.parametrize("seed", range(3))
def test_runs_give_what_the_one_loop_gives(seed: int) -> None:
    """article_pair_runs against run_policy directly, on random plans under harsh schedules and horizons."""
    import cvlib as cv
    from cvlib.core.facts import Fact
    from cvlib.core.values import replace
    from cvlib.scenarios.random_plans import random_events, random_setups

    rng = random.Random(100 + seed)
    for setup in random_setups(700 + seed, 120):
        names = [f.id for f in setup.facts]
        horizon = len(setup.plan) + 2
        probs = {"break_prob": rng.random(), "ambiguous_prob": rng.random(), "false_alarm_prob": rng.random()}
        events = random_events(names, rng.getrandbits(32), horizon=horizon, **probs)
        facts = tuple(Fact(f, 0, valid_until=rng.randint(0, horizon) if rng.random() < 0.6 else None) for f in names)
        setup = replace(setup, events=events, facts=facts)
        order = sorted(range(len(events)), key=lambda i: events[i].tick)
        schedule = [(events[i].tick, names.index(events[i].fact_id), events[i].kind is cv.EventKind.REPLACE,
                     events[i].breaks_fact) for i in order]
        columns = setup.plan.run_columns()
        masks = [sum(1 << names.index(f) for f in closure) for closure in columns.run_closures]
        first_action = columns.actions[0] if columns.actions else len(columns.closures)
        flat = setup.plan.closure_size(setup.at_risk) + 1
        horizons = [f.valid_until for f in facts]
        got = article_pair_runs(columns.run_starts, masks, first_action, horizons, schedule, flat, setup.budget)
        for name, numbers in zip(ARTICLE_POLICIES, got, strict=True):
            r = run_policy(get_policy(name), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
            assert numbers == (r.completed, r.steps_used, r.replans, r.verifications, r.pre_failure_work,
                               r.decisions_total, r.decisions_on_stale_deps), (name, setup.params)

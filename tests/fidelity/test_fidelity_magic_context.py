"""Magic Context's decay renderer, ported: the tier function against values worked by hand, pressure, guard, folds.

Every expected value below was worked by hand from Magic Context's formula
(decay-curve.ts): H = 24 * 2^((I - 50) / 25) / max(p, 0.10), a = index - 1
(index 1 = newest), z = a / H, cut at 0.201, 0.729, 1.322, 2.587 into P1-P4
and P5 (archived); importance clamped to [1, 100].
"""

import pytest

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    BookDecay,
    MagicContextDecay,
    Snapshot,
    generate_trajectory,
    make_policy,
    run_schedule,
    stored_forms,
)
from cvlib.fidelity import magic_context as mc
from cvlib.fidelity.schedules import ObjectState, RepOption

#: (index from newest, importance, pressure, expected tier, the hand working)
HAND_TABLE = [
    (1, 50, 1.0, 1, "a=0, z=0"),
    (5, 50, 1.0, 1, "H=24, a=4, z=0.167"),
    (6, 50, 1.0, 2, "H=24, a=5, z=0.208"),
    (18, 50, 1.0, 2, "H=24, a=17, z=0.708"),
    (19, 50, 1.0, 3, "H=24, a=18, z=0.750"),
    (32, 50, 1.0, 3, "H=24, a=31, z=1.292"),
    (33, 50, 1.0, 4, "H=24, a=32, z=1.333"),
    (63, 50, 1.0, 4, "H=24, a=62, z=2.583"),
    (64, 50, 1.0, 5, "H=24, a=63, z=2.625: archived"),
    (10, 75, 1.0, 1, "H=48, a=9, z=0.188"),
    (11, 75, 1.0, 2, "H=48, a=10, z=0.208"),
    (3, 25, 1.0, 1, "H=12, a=2, z=0.167"),
    (4, 25, 1.0, 2, "H=12, a=3, z=0.250"),
    (4, 50, 2.0, 2, "H=12, a=3, z=0.250"),
    (49, 50, 0.05, 1, "p floored to 0.10: H=240, a=48, z=0.200"),
    (50, 50, 0.05, 2, "H=240, a=49, z=0.204"),
    (2, 0, 1.0, 1, "I clamped to 1: H=24*2^(-1.96)=6.17, a=1, z=0.162"),
    (3, 0, 1.0, 2, "H=6.17, a=2, z=0.324"),
    (20, 150, 1.0, 1, "I clamped to 100: H=96, a=19, z=0.198"),
    (21, 150, 1.0, 2, "H=96, a=20, z=0.208"),
    (100, 100, 1.0, 3, "H=96, a=99, z=1.031"),
    (249, 100, 1.0, 4, "H=96, a=248, z=2.583"),
    (250, 100, 1.0, 5, "H=96, a=249, z=2.594"),
    (0, 50, 1.0, 1, "index clamped to 1: a=0"),
    (2, 50, 100.0, 5, "H=0.24, a=1, z=4.17"),
]


@pytest.mark.parametrize("index, importance, pressure, expected, working", HAND_TABLE)
def test_tier_matches_the_hand_worked_table(index, importance, pressure, expected, working):
    assert mc.tier(index, importance, pressure) == expected, working


def test_half_life_by_hand():
    assert mc.half_life(50, 1.0) == pytest.approx(24.0)
    assert mc.half_life(75, 0.05) == pytest.approx(480.0)  # 48 / 0.10
    assert mc.half_life(25, 2.0) == pytest.approx(6.0)
    assert mc.half_life(-20, 1.0) == pytest.approx(24 * 2 ** (-49 / 25))


def test_the_published_constants_are_kept():
    assert (mc.H50, mc.D, mc.P_FLOOR, mc.CORRECTION) == (24.0, 25.0, 0.10, 1.1)
    assert mc.BOUNDARIES == (0.201, 0.729, 1.322, 2.587)


COSTS10 = [[100, 40, 20, 10, 10]] * 10


def test_two_pass_pressure_and_the_guard_worked_by_hand():
    # Ten compartments at importance 50, 100/40/20/10/10 tokens at P1-P5, budget 500.
    # Natural tiers (p=1, H=24): a=5..9 are P2 (z >= 0.201), a=0..4 P1: 5*100 + 5*40 = 700, p = 700/500 = 1.4.
    # Second pass at p=1.4 (H=17.14): a>=3.45 is P2, so 4*100 + 6*40 = 640 > 1.1*500: p = 1.4*640/500 = 1.792.
    # Tiers at p=1.792 (H=13.39): a>=2.69 is P2: 3*100 + 7*40 = 580 > 500, so the guard demotes the oldest:
    # a=9 to P5 (550), a=8 to P5 (520), a=7 to P3 (500): fits.
    p = mc.budget_pressure([50] * 10, COSTS10, 500)
    assert p == pytest.approx(1.792)
    tiers, used = mc.render_tiers([50] * 10, COSTS10, 500)
    assert used == pytest.approx(1.792)
    assert tiers == (5, 5, 3, 2, 2, 2, 2, 1, 1, 1)


def test_single_pass_pressure_worked_by_hand():
    # One pass: p = 1.4; tiers a=4..9 P2, a=0..3 P1: 640; the guard takes a=9, 8, 7, 6 to P5 (520) and a=5 to P3 (500).
    assert mc.budget_pressure([50] * 10, COSTS10, 500, passes=1) == pytest.approx(1.4)
    tiers, _ = mc.render_tiers([50] * 10, COSTS10, 500, passes=1)
    assert tiers == (5, 5, 5, 5, 3, 2, 1, 1, 1, 1)


def test_no_correction_when_the_first_pass_is_within_ten_percent():
    # Three compartments, newest first a=0,1,2: all P1 at p=1 (z <= 2/24); natural 300, budget 290: p = 1.034;
    # at that pressure all still P1 (H=23.2): 300 <= 319, no correction.
    assert mc.budget_pressure([50, 50, 50], [[100, 40, 20, 10, 10]] * 3, 290) == pytest.approx(300 / 290)


def test_pressure_floor_and_non_positive_budget():
    assert mc.budget_pressure([50], [[10, 5, 3, 2, 2]], 10_000) == pytest.approx(0.10)
    assert mc.budget_pressure([50], [[10, 5, 3, 2, 2]], 0) == 1.0


def test_bad_input_is_refused():
    with pytest.raises(ParameterError, match="passes must be 1 or 2"):
        mc.budget_pressure([50], [[1, 1, 1, 1, 1]], 10, passes=3)
    with pytest.raises(ParameterError, match="five tier costs"):
        mc.budget_pressure([50], [[1, 1, 1]], 10)
    with pytest.raises(ParameterError, match="integer rank"):
        mc.tier(1.5, 50, 1.0)
    with pytest.raises(ParameterError, match="force must be"):
        MagicContextDecay(force=-1)
    with pytest.raises(ParameterError, match="cache_ttl_turns"):
        MagicContextDecay(cache_ttl_turns=0)


# --- the port as a schedule -------------------------------------------------------------------------

FORMS = ("full", "dense", "record", "anchor", "compact")


def state(oid, age, tokens=(100, 40, 20, 10, 30), importance=50, active=None):
    opts = tuple(RepOption(n, t, frozenset(), frozenset()) for n, t in zip(FORMS, tokens))
    return ObjectState(oid, age, importance, opts, FORMS, (), active, None, False)


def test_age_is_rank_from_the_newest_not_turns_since_admission():
    port, variant = MagicContextDecay(), BookDecay()
    # the same order of admission, very different ages in turns
    near = Snapshot(100, 60, (state("a", 2), state("b", 1), state("c", 0)))
    far = Snapshot(100, 60, (state("a", 90), state("b", 45), state("c", 0)))
    assert port.choose(near) == port.choose(far)
    assert variant.choose(near) != variant.choose(far)


def test_the_newest_object_renders_full_on_a_fold():
    snap = Snapshot(5, 150, (state("a", 5), state("b", 3), state("c", 0)))
    assert MagicContextDecay().choose(snap)["c"] == "full"


def test_fold_triggers():
    pol = MagicContextDecay()
    first = Snapshot(0, 1000, (state("a", 0),))
    assert pol.fold_reason(first) == "first render"
    # folded at turn 3, a is resident as a record (20 tokens); nothing new: the baseline replays
    quiet = Snapshot(4, 1000, (state("a", 4, active="record"),), (("last_fold", 3),))
    assert pol.fold_reason(quiet) is None
    # usage 20 of 22 tokens >= 85 %: force materialization
    assert pol.fold_reason(Snapshot(4, 22, quiet.objects, quiet.carried)) == "force materialization"
    assert MagicContextDecay(force=None).fold_reason(Snapshot(4, 22, quiet.objects, quiet.carried)) is None
    # a new object since the fold, 100 tokens at full > 20 % of 400: the delta cap
    grown = Snapshot(4, 400, (state("a", 4, active="record"), state("b", 0)), (("last_fold", 3),))
    assert pol.fold_reason(grown) == "new compartments over the delta cap"
    assert pol.fold_reason(Snapshot(4, 1000, grown.objects, grown.carried)) is None  # 100 <= 200
    assert MagicContextDecay(cache_ttl_turns=3).fold_reason(Snapshot(6, 1000, quiet.objects, quiet.carried)) == "provider cache expired"


def test_between_folds_the_baseline_replays_and_new_objects_wait_at_full_text():
    pol = MagicContextDecay()
    snap = Snapshot(4, 1000, (state("a", 4, active="record"), state("b", 0)), (("last_fold", 3),))
    assert pol.fold_reason(snap) is None
    applied, why = pol.apply(snap, {"a": "full", "b": "dense"})
    assert applied == {"a": "record", "b": "full"}
    assert set(why) == {"a", "b"}
    assert pol.carry(snap, applied) == (("last_fold", 3),)


def test_over_a_trajectory_forms_change_only_on_folds():
    traj = generate_trajectory(7, n_turns=16, n_objects=6, n_probes=4, budget_fraction=0.3)
    pol = make_policy("magic_context_decay")
    run = run_schedule(traj, pol, stored_forms(traj))
    folds = {s.turn for s in run.snapshots if pol.fold_reason(s) is not None}
    assert 0 < len(folds) < traj.n_turns
    prev: dict[str, str] = {}
    for t in run.turns:
        now = dict(t.applied)
        if t.turn not in folds:
            assert all(now[k] == v for k, v in prev.items())
        prev = now


def test_the_book_variant_re_tiers_on_its_cadence():
    traj = generate_trajectory(7, n_turns=16, n_objects=6, n_probes=4, budget_fraction=0.2)
    run = run_schedule(traj, BookDecay(fold_every=3), stored_forms(traj))
    prev: dict[str, str] = {}
    for t in run.turns:
        applied = dict(t.applied)
        if t.turn % 3:
            assert all(applied[k] == v for k, v in prev.items())
        prev = applied

"""The checker reads text: a lying claim is caught, force and exact values are read strictly."""

from cvlib.fidelity import Representation, check, contradictions, render, segments
from cvlib.fidelity.checker import has_term
from cvlib.fidelity.trajectories import MIGRATION


def _rep(text, claimed, name="forged"):
    from cvlib.fidelity import count_tokens

    return Representation("migration", name, text, count_tokens(text), frozenset(claimed), "model", 0)


def test_checker_catches_a_representation_whose_claim_lies():
    liar = _rep("dependency migration to urllib3 2. PR-4471.", MIGRATION.all_checks())
    res = check(liar, MIGRATION)
    assert not res.honest
    assert ("rationale:approach B", 2) in res.overclaimed
    assert ("id:PR-4471", 2) in res.vector


def test_the_claim_never_changes_the_vector():
    text = render(MIGRATION, "record").text
    assert check(_rep(text, set()), MIGRATION).vector == check(_rep(text, MIGRATION.all_checks()), MIGRATION).vector


def test_prose_summary_overclaims_constraints_and_statuses():
    res = check(render(MIGRATION, "summary"), MIGRATION)
    assert ("constraint:approach B", 2) in res.overclaimed
    assert ("status:approach C", 2) in res.overclaimed


def test_softened_or_hardened_force_fails_exact():
    soft = _rep("The agent should not retry approach B.", ())
    assert ("constraint:approach B", 2) not in check(soft, MIGRATION).vector
    assert ("constraint:approach B", 1) in check(soft, MIGRATION).vector
    hard = _rep("The agent must not retry approach B.", ())
    assert ("constraint:approach B", 2) in check(hard, MIGRATION).vector


def test_exact_values_do_not_match_prefixes():
    assert has_term("2.0.7", "pin 2.0.7.")
    assert not has_term("2.0", "pin 2.0.7")
    assert not has_term("2.0.7", "pin 2.0.71")


def test_terms_must_share_one_segment_for_exact():
    split = _rep("The urllib3 target was set.\nIt was 2.0.7 in the end.", ())
    assert ("field:urllib3 target", 2) not in check(split, MIGRATION).vector
    assert segments("a 1.2.3 b. c\nd") == ["a 1.2.3 b.", "c", "d"]


def test_unsupported_addition_and_contradiction_are_found():
    summ = check(render(MIGRATION, "summary"), MIGRATION)
    rec = check(render(MIGRATION, "record"), MIGRATION)
    assert summ.unsupported == ("2.1",)
    assert rec.unsupported == ()
    found = contradictions([summ, rec])
    assert ("summary", "record", "approach B", ("on hold",), ("rejected",)) in found

"""A study's grammar as a language: the strict parser and the JSON schema an API is held to agree with the GBNF."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("inspect_ai")

from cvlib.evals.grammar import ENUM_LIMIT, GrammarError, answer_language  # noqa: E402
from cvlib.experiments.agent_study.study_prompts import decision_grammar, probe_grammar  # noqa: E402

FACTS = ("F1", "F2", "F10")


def test_a_decision_is_a_small_finite_language_given_as_an_enum() -> None:
    language = answer_language(decision_grammar(FACTS))
    assert language.choices == ("EXECUTE", "REPLAN", "VERIFY F1", "VERIFY F10", "VERIFY F2")
    schema = language.json_schema()
    assert schema["properties"]["answer"]["enum"] == list(language.choices)
    assert schema["required"] == ["answer"] and schema["additionalProperties"] is False
    for answer in language.choices:
        assert language.admits(answer)
    for answer in ("execute", "EXECUTE ", " REPLAN", "VERIFY", "VERIFY F3", "VERIFY F1 F2", "EXECUTE\n", ""):
        assert not language.admits(answer), answer


def test_a_probe_is_an_unbounded_list_given_as_a_pattern() -> None:
    language = answer_language(probe_grammar(FACTS))
    assert language.choices is None
    schema = language.json_schema()
    assert schema["properties"]["answer"]["pattern"] == language.pattern
    for answer in ("NONE", "F1", "F2 F1", "F10 F10 F2"):
        assert language.admits(answer) and re.fullmatch(language.pattern, answer)
    for answer in ("none", "F1  F2", "F1,F2", "NONE F1", "F3", " F1"):
        assert not language.admits(answer), answer


@given(st.lists(st.sampled_from(FACTS), min_size=1, max_size=6))
def test_every_list_of_plan_facts_is_a_probe_answer(names: list[str]) -> None:
    assert answer_language(probe_grammar(FACTS)).admits(" ".join(names))


@pytest.mark.parametrize("grammar, needle", [
    ('root ::= "a" root', "refers to itself"),
    ('root ::= item\n', "never defined"),
    ('root ::= [a-z]+', "outside the GBNF"),
    ('root ::= ("a" | "b"', "never closed"),
    ('other ::= "a"', "no root rule"),
    ("", "non-empty"),
])
def test_a_grammar_outside_the_subset_is_refused_in_one_line(grammar: str, needle: str) -> None:
    with pytest.raises(GrammarError, match=needle) as caught:
        answer_language(grammar)
    assert "\n" not in str(caught.value)


def test_optional_parts_and_a_large_language_fall_back_to_a_pattern() -> None:
    language = answer_language('root ::= "A" " B"?')
    assert language.choices == ("A", "A B")
    many = " | ".join(f'"{k}"' for k in range(ENUM_LIMIT + 1))
    assert answer_language(f"root ::= {many}").choices is None

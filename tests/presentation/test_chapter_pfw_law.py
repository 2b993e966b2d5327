"""The law chapter's module: its cases are the article's at the defaults, and what it glues is what the check found."""

from __future__ import annotations

import cvlib as cv
from cvlib.presentation.chapters import pfw_law


def test_the_cases_name_each_scenario_and_are_the_articles_only_when_they_match() -> None:
    chosen = pfw_law.cases([2, 3], 4, [0, 2], [[4, 2, 2]], [1, 4])
    assert [name for name, _, _ in chosen] == [
        "D1 chain depth=2",
        "D1 chain depth=3",
        "A depth=4 tick=0",
        "A depth=4 tick=2",
        "D2 (4,2,2)",
        "D3 1 branch",
        "D3 4 branches",
    ]
    assert chosen[4][2] == {"depth": 4, "branching_factor": 2, "merge_factor": 2}
    assert not pfw_law.is_published(chosen)
    assert pfw_law.is_published([(f"case {i}", s, p) for i, (_, s, p) in enumerate(cv.LAW_CASES)])


def test_the_texts_count_the_matches_and_the_exercise_runs_the_law() -> None:
    law = cv.check_law(pfw_law.cases([2, 3], 4, [0, 2], [], [1]))
    texts = pfw_law.texts(law, False)
    assert texts == {
        "law_cases": "5",
        "law_matches": str(int(law["match"].sum())),
        "law_mismatches": str(int((~law["match"]).sum())),
        "law_is_published_list": "no",
    }
    ex = pfw_law.exercise(4)
    assert ex["law_ex_depth"] == 8 and ex["law_ex_tick"] == 3 and ex["law_ex_predicted"] == ex["law_ex_measured"]
    assert not pfw_law.comparison(law, False).applies

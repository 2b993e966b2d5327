"""Hostile inputs: nothing crashes, hangs or lies (issue 16).

Every case of :data:`cvlib.experiments.robustness_cases.CASES` (the command
line, the Python API, spec files, papermill parameters through the book's
pipeline, damaged checkpoints) runs in a child process of its own, in a fresh
folder, under a time limit and a 4 GiB address-space limit. Each test asserts
the case's exit status (or exception), the fragments its one-line message
must hold, no traceback, nothing on stdout, no partial file left, and, for a
damaged checkpoint, that the result equals an undamaged run. The last test
checks that the book's robustness table (book/robustness_table.md) shows
what these same runs did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.experiments.robustness import Outcome, outcome_problems, robustness_table, run_cases
from cvlib.experiments.robustness_cases import AREAS, CASES, Case

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "book" / "robustness_table.md"
BY_ID = {case.id: case for case in CASES}

_outcomes: dict[str, Outcome] = {}


@pytest.fixture()
def outcome_of(request: pytest.FixtureRequest):
    """The outcome of a case; the first call runs every selected case, two at a time."""

    def get(case: Case) -> Outcome:
        if case.id not in _outcomes:
            selected = [
                BY_ID[item.callspec.params["case"].id]
                for item in request.session.items
                if getattr(item, "module", None) is request.module
                and hasattr(item, "callspec")
                and "case" in item.callspec.params
            ]
            todo = [c for c in selected if c.id not in _outcomes] or [case]
            if case not in todo:
                todo.append(case)
            _outcomes.update(run_cases(todo, workers=2))
        return _outcomes[case.id]

    return get


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_input(case: Case, outcome_of) -> None:
    outcome = outcome_of(case)
    problems = outcome_problems(case, outcome)
    assert not problems, f"{case.input}: " + "; ".join(problems)


def test_enough_cases_in_every_area() -> None:
    assert len(CASES) >= 60
    assert len({case.id for case in CASES}) == len(CASES)
    for area in AREAS:
        assert sum(case.area == area for case in CASES) >= 3, area


def test_the_issue_s_measured_failures_are_all_cases() -> None:
    """Each input the issue measured failing has a case (by its distinctive text)."""
    inputs = " ".join(case.input for case in CASES)
    for measured in (
        "depth=1000000000",
        "depth=99…9 (29 nines)",
        "-p depth=100000 -p branching_factor=5",
        "num_branches=10000000",
        "cvlib run D2 -p depth=1000000000",
        "depth=12 -p branching_factor=1000000",
        "billion-laughs",
        "10 MB spec",
        "Latin-1",
        "depth=٣",
        "depth=1_0",
        "values were edited",
        "copied over another position",
        "fewer rows",
        "folder in a chunk's place",
        "sweep.json deleted, then a sweep with another seed",
        "cut in half",
        "random bytes",
        "sweep.json replaced by garbage",
        "stray temporary files",
    ):
        assert measured in inputs, measured


def test_the_outcome_check_catches_what_it_must() -> None:
    """The checker itself can fail: a wrong status, a missing fragment, a traceback, a partial file, a wrong result."""
    case = BY_ID["cli-word"]
    good = Outcome(case.id, 2, "error: depth must be an integer, got 'six' (only ASCII digits)", 1, "", False, ())
    assert outcome_problems(case, good) == []
    assert outcome_problems(case, Outcome(case.id, 1, good.message, 1, "", False, ()))
    assert outcome_problems(case, Outcome(case.id, 2, "error: something else", 1, "", False, ()))
    assert outcome_problems(case, Outcome(case.id, 2, good.message, 3, "", True, ()))
    assert outcome_problems(case, Outcome(case.id, 2, good.message, 1, "", False, ("out.parquet",)))
    assert outcome_problems(case, Outcome(case.id, 2, good.message, 1, "half a table", False, ()))
    damaged = BY_ID["ck-edited"]
    message = "checkpoint folder 'ck': chunks 1 (its SHA-256 does not match) failed verification; they are recomputed"
    assert outcome_problems(damaged, Outcome(damaged.id, "same as undamaged", message, 0, "", False, (), True)) == []
    assert outcome_problems(damaged, Outcome(damaged.id, "same as undamaged", message, 0, "", False, (), False))


def test_the_book_table_shows_these_runs(outcome_of) -> None:
    outcomes = {case.id: outcome_of(case) for case in CASES}
    expected = robustness_table(outcomes)
    assert TABLE.is_file(), "write it: python -m cvlib.experiments.robustness --write book/robustness_table.md"
    assert TABLE.read_text(encoding="utf-8") == expected, (
        "book/robustness_table.md is not what the cases do now; "
        "rewrite it: python -m cvlib.experiments.robustness --write book/robustness_table.md"
    )

"""The second edition's manipulation check (did a model take the test?) and its nulls as bounds (TOST)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.equivalence import EQUIVALENCE_MARGIN, MIN_TASKS, equivalence
from cvlib.experiments.notes_study.manipulation import ECHO_LIMIT, echoes_context, manipulation_check
from cvlib.experiments.notes_study.second_reading import context_function_names
from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.models import read_recording

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
EDITION = load_second_edition(DATA)
TASKS = {t.id: t for t in EDITION.tasks}


@cache
def refutable_controls(model: str) -> list[tuple[str, str]]:
    return [(r.task["id"], r.response) for r in read_recording(DATA / f"notes_study.{model}.jsonl.gz")
            if r.arm == "control" and r.task.get("variant") == "refutable" and int(r.task.get("repeat", 0)) == 0]


def names(task_id: str) -> frozenset[str]:
    refutation = EDITION.refutations[task_id]
    return context_function_names([refutation.test, *(d.source for d in refutation.dependency)])


def test_the_first_edition_05b_model_echoed_the_test_in_its_refutable_controls() -> None:
    answers = refutable_controls("qwen2.5-coder-0.5b")
    echoed = sum(echoes_context(TASKS[t], a, names(t)) for t, a in answers)
    assert len(answers) == 42 and echoed >= 40  # issue 47: 41 of 42
    frame = pd.DataFrame([{"model": "0.5b", "variant": "refutable", "arm": "control",
                           "echo": echoes_context(TASKS[t], a, names(t))} for t, a in answers])
    check = manipulation_check(frame)
    assert not check.loc[0, "took_test"] and check.loc[0, "share"] > ECHO_LIMIT


def test_the_first_edition_15b_model_echoed_three_tests_in_42_controls() -> None:
    answers = refutable_controls("qwen2.5-coder-1.5b")
    echoed = sorted(t for t, a in answers if echoes_context(TASKS[t], a, names(t)))
    # just above the 5 % limit: by the second edition's rule this recording too would not count as taking the test
    assert echoed == ["flask-json-dumps", "flask-methodview-dispatch", "flask-stream-template-string"]
    assert len(echoed) / len(answers) > ECHO_LIMIT


def test_an_answer_with_the_function_never_echoes() -> None:
    task = TASKS["requests-encoding-from-headers"]
    answer = f"```python\n{EDITION.refutations[task.id].test}```\n```python\n{task.excerpt}```"
    assert not echoes_context(task, answer, names(task.id))
    assert not echoes_context(task, "NO EDIT: nothing to do", names(task.id))
    assert echoes_context(task, f"```python\n{EDITION.refutations[task.id].test}```", names(task.id))


def test_the_check_counts_only_controls_with_context_and_flags_above_the_limit() -> None:
    rows = [{"model": "m", "variant": "placebo", "arm": "control", "echo": k < 1} for k in range(20)]
    rows += [{"model": "m", "variant": "unrefutable", "arm": "control", "echo": True}]
    rows += [{"model": "m", "variant": "refutable", "arm": "true_note", "echo": True}]
    rows += [{"model": "n", "variant": "refutable", "arm": "control", "echo": k < 2} for k in range(20)]
    check = manipulation_check(pd.DataFrame(rows)).set_index("model")
    assert check.loc["m", "answers"] == 20 and check.loc["m", "echoed"] == 1 and check.loc["m", "took_test"]
    assert check.loc["n", "share"] == pytest.approx(0.10) and not check.loc["n", "took_test"]


def test_equivalence_holds_when_the_interval_sits_inside_the_margin() -> None:
    result = equivalence([0.0] * 55 + [1.0, -1.0] * 2 + [0.0])
    assert result.verdict == "equivalent" and result.no_larger_reduction and result.no_larger_increase
    assert result.low > -EQUIVALENCE_MARGIN and result.high < EQUIVALENCE_MARGIN


def test_a_large_reduction_is_not_bounded_below() -> None:
    result = equivalence([-1.0] * 20 + [0.0] * 40)
    assert not result.no_larger_reduction and result.no_larger_increase
    assert result.verdict == "no increase larger than the margin" and result.largest_reduction > 0.2


def test_noisy_few_tasks_bound_nothing() -> None:
    assert equivalence([1.0, -1.0] * 10).verdict == "not bounded"
    assert equivalence([0.0] * (MIN_TASKS - 1)).verdict == "too few tasks"


def test_the_bootstrap_tost_agrees_with_statsmodels_on_a_clear_case() -> None:
    import numpy as np
    from statsmodels.stats.weightstats import ttost_paired

    rng = np.random.default_rng(1)
    diff = rng.normal(0.0, 0.2, 60)
    ours = equivalence(diff.tolist(), margin=0.15)
    p_value = ttost_paired(diff, np.zeros(60), -0.15, 0.15)[0]
    assert ours.verdict == "equivalent" and p_value < 0.05


def test_bad_margins_are_refused() -> None:
    with pytest.raises(ParameterError, match="margin must be positive"):
        equivalence([0.0] * 20, margin=0)
    with pytest.raises(ParameterError, match="alpha"):
        equivalence([0.0] * 20, alpha=0.5)

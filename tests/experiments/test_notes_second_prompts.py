"""The second edition's prompts: the function named and last, read-only context marked, one way to decline, a placebo of the same length and kind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import ARMS, build_prompt
from cvlib.experiments.notes_study.refutations import DependencySource, Refutation
from cvlib.experiments.notes_study.second_prompts import (
    DECLINE,
    PLACEBO_TOLERANCE,
    VARIANTS,
    ContextBlocks,
    context_text,
    placebo_for,
    placebos,
    refuting_blocks,
    same_length_and_kind,
    second_prompt,
)
from cvlib.experiments.notes_study.second_tasks import load_second_edition

ROOT = Path(__file__).resolve().parents[2]
EDITION = load_second_edition(ROOT / "data" / "model_trials")
TASKS = {t.id: t for t in EDITION.tasks}
VERIFIED = sorted(k for k, r in EDITION.refutations.items() if r.verified)
PLACEBOS = placebos(EDITION.tasks, EDITION.refutations)


def contexts(task_id: str) -> dict[str, ContextBlocks | None]:
    out: dict[str, ContextBlocks | None] = {"unrefutable": None}
    if task_id in VERIFIED:
        out["refutable"] = refuting_blocks(EDITION.refutations[task_id])
    if task_id in PLACEBOS:
        out["placebo"] = PLACEBOS[task_id]
    return out


def test_the_second_edition_has_at_least_sixty_tasks_and_keeps_the_first_edition_s() -> None:
    assert len(EDITION.tasks) >= 60
    first = [t.id for t in EDITION.tasks][:44]
    assert first[0] == "requests-check-header-validity" and len(set(first)) == 44


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_the_function_is_named_and_comes_last_in_every_arm_and_variant(task_id: str) -> None:
    task = TASKS[task_id]
    for variant, context in contexts(task_id).items():
        for arm in ARMS:
            system, (role, user) = second_prompt(task, arm, variant, context)
            assert role == "user" and DECLINE in system[1]
            assert user.startswith(f"Edit the function `{task.function_name}`")
            assert f"`{DECLINE} <reason>`" in user
            last_block = user.rsplit("```python\n", 1)[1]
            assert user.rstrip().endswith("```") and last_block.rstrip("`\n") == task.excerpt.rstrip()
            blocks = user.count("```python\n")
            assert blocks == (1 if variant == "unrefutable" else 3)
            assert user.count("Read-only context (do not edit or return it)") == blocks - 1


@pytest.mark.parametrize("task_id", sorted(PLACEBOS))
def test_each_placebo_is_the_same_length_and_kind_and_names_nothing_of_the_task(task_id: str) -> None:
    task, placebo = TASKS[task_id], PLACEBOS[task_id]
    refutable = context_text(refuting_blocks(EDITION.refutations[task_id]))
    fits, why = same_length_and_kind(context_text(placebo), refutable)
    assert fits, why
    assert abs(len(context_text(placebo)) - len(refutable)) <= PLACEBO_TOLERANCE * len(refutable)
    assert placebo.source_task != task_id and TASKS[placebo.source_task].project == task.project
    assert TASKS[placebo.source_task].path != task.path
    assert not re.search(rf"\b{re.escape(task.function_name)}\b", placebo.code + placebo.test)


def test_most_refutable_tasks_get_a_placebo() -> None:
    assert len(PLACEBOS) >= 0.8 * len(VERIFIED)
    assert set(PLACEBOS) <= set(VERIFIED)


def test_the_prompts_of_a_task_share_their_start_up_to_the_note() -> None:
    task = TASKS[VERIFIED[0]]
    for variant, context in contexts(task.id).items():
        control = second_prompt(task, "control", variant, context)[1][1]
        head = control.rsplit("The function to edit", 1)[0]
        assert all(second_prompt(task, arm, variant, context)[1][1].startswith(head) for arm in ARMS)


def test_the_first_edition_prompts_are_untouched() -> None:
    task = TASKS["requests-check-header-validity"]
    user = build_prompt(task, "control")[1][1]
    assert user.startswith("A small edit to the function below") and DECLINE not in user


def test_same_length_and_kind_refuses_by_rule() -> None:
    a = ContextBlocks("a", "p", "1", ("p/m.py",), "def helper():\n    return 1", "def test_helper():\n    assert helper() == 1")
    assert same_length_and_kind(context_text(a), context_text(a)) == (True, "")
    long = ContextBlocks("b", "p", "1", ("p/m.py",), "def helper():\n" + "    x = 1\n" * 40 + "    return x", a.test)
    assert not same_length_and_kind(context_text(long), context_text(a))[0]
    no_test = ContextBlocks("c", "p", "1", ("p/m.py",), a.code, "def check():\n    assert helper() == 1")
    fits, why = same_length_and_kind(context_text(no_test), context_text(a))
    assert not fits and "not a test" in why
    assert "blocks" in same_length_and_kind("no blocks at all", context_text(a))[1]


def test_a_task_without_a_verified_refutation_has_no_placebo() -> None:
    unverified = [t for t in EDITION.tasks if t.id not in VERIFIED]
    assert unverified and all(placebo_for(t, EDITION.tasks, EDITION.refutations) is None for t in unverified)


def test_bad_variants_and_contexts_are_refused() -> None:
    task = TASKS[VERIFIED[0]]
    with pytest.raises(ParameterError, match="unknown notes variant"):
        second_prompt(task, "control", "loud")
    with pytest.raises(ParameterError, match="takes its read-only context"):
        second_prompt(task, "control", "placebo")
    with pytest.raises(ParameterError, match="takes no read-only context"):
        second_prompt(task, "control", "unrefutable", refuting_blocks(EDITION.refutations[task.id]))
    unverified = Refutation("x", "p", "1", (DependencySource("p/m.py", "f", "def f():\n    pass\n"),), "", (), {}, "no test")
    with pytest.raises(ParameterError, match="not verified"):
        refuting_blocks(unverified)
    assert VARIANTS == ("unrefutable", "refutable", "placebo")

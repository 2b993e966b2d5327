"""The strict classifier: whole syntax trees and signatures, reference spellings only, independent of the reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.experiments.notes_study.strict import STRICT_OUTCOMES, strict_reading

ROOT = Path(__file__).resolve().parents[2]
EDITION = load_second_edition(ROOT / "data" / "model_trials")
TASKS = {t.id: t for t in EDITION.tasks}


def fenced(code: str) -> str:
    return f"```python\n{code}```\n"


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_the_references_read_as_themselves(task_id: str) -> None:
    task = TASKS[task_id]
    assert strict_reading(task, fenced(task.excerpt)) == "unchanged"
    assert strict_reading(task, fenced(task.true_edit.apply(task.excerpt))) == "true_exact"
    assert strict_reading(task, fenced(task.stale_edit.apply(task.excerpt))) == "stale_edit"


def test_a_dropped_self_is_not_unchanged() -> None:
    task = TASKS["httpie-color-format-headers"]
    dropped = task.excerpt.replace("(self, ", "(", 1)
    assert dropped != task.excerpt and strict_reading(task, fenced(dropped)) == "other"


def test_a_stale_edit_in_another_spelling_is_other_here() -> None:
    task = TASKS["httpie-basic-auth-plugin"]
    spelled = task.stale_edit.apply(task.excerpt)
    assert strict_reading(task, fenced(spelled)) == "stale_edit"
    other = spelled.replace("requests.auth.HTTPDigestAuth", "HTTPDigestAuth")
    assert other != spelled and strict_reading(task, fenced(other)) == "other"


def test_code_outside_the_function_or_another_name_is_other() -> None:
    task = TASKS["httpie-config-save"]
    assert strict_reading(task, fenced("import os\n\n" + task.excerpt)) == "other"
    assert strict_reading(task, fenced(task.excerpt.replace("def save(", "def store(", 1))) == "other"
    assert strict_reading(task, "no code") == "other"
    assert strict_reading(task, fenced("def save(self:\n    pass\n")) == "other"


def test_a_method_in_its_class_line_is_read() -> None:
    task = TASKS["httpie-config-save"]
    wrapped = "class BaseConfigDict(dict):\n" + "".join(f"    {line}" if line.strip() else line for line in task.excerpt.splitlines(keepends=True))
    assert strict_reading(task, fenced(wrapped)) == "unchanged"


def test_the_true_comment_elsewhere_is_collateral_and_no_edit_declines() -> None:
    task = TASKS["httpie-config-save"]
    comment = task.true_edit.present[0]
    moved = task.excerpt.replace("def save(self):\n", f"def save(self):\n    {comment}\n", 1)
    assert strict_reading(task, fenced(moved)) == "true_collateral"
    assert strict_reading(task, "NO EDIT: the note is stale") == "declined"
    assert set(STRICT_OUTCOMES) >= {"declined", "other", "stale_edit"}

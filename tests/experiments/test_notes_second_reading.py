"""The second edition's frozen reader: each rule of issue 47 on real answers from the first edition's recordings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.reading import load_stale_effects, read_answer
from cvlib.experiments.notes_study.second_reading import (
    SECOND_OUTCOMES,
    HarmRule,
    context_function_names,
    is_declined,
    load_harm_rules,
    read_second,
    signature_text,
)
from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.models import read_recording

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
EDITION = load_second_edition(DATA)
TASKS = {t.id: t for t in EDITION.tasks}
RULES = EDITION.rules
FIRST_EFFECTS = load_stale_effects(str(DATA / "notes_stale_effects.yaml"))


@cache
def _answers(name: str) -> dict[tuple[str, str, str, int], str]:
    out = {}
    for r in read_recording(DATA / name):
        out[(r.task["id"], str(r.arm), r.task.get("variant", "unrefutable"), int(r.task.get("repeat", 0)))] = r.response
    return out


def recorded(model: str, task: str, arm: str, variant: str = "unrefutable", repeat: int = 0, first: bool = False) -> str:
    """A real answer of the first edition: the notes study's recording, or the first trials' (``first``)."""
    name = f"notes_trials.{model}.jsonl" if first else f"notes_study.{model}.jsonl.gz"
    return _answers(name)[(task, arm, variant, repeat)]


def fenced(code: str) -> str:
    return f"```python\n{code}```\n"


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_the_references_read_as_themselves(task_id: str) -> None:
    task, rule = TASKS[task_id], RULES.get(task_id)
    assert read_second(task, fenced(task.excerpt), rule).outcome == "unchanged"
    assert read_second(task, fenced(task.true_edit.apply(task.excerpt)), rule).outcome == "true_exact"
    assert read_second(task, fenced(task.stale_edit.apply(task.excerpt)), rule).outcome == "stale_edit"


# Rule 2: the stale harm must be present, not merely the stale line.

@pytest.mark.parametrize(("model", "arm", "variant", "repeat"), [
    ("qwen2.5-coder-0.5b", "stale_labelled", "unrefutable", 1),
    ("qwen2.5-coder-0.5b", "dependency_changed", "unrefutable", 1),
    ("qwen2.5-coder-1.5b", "dependency_changed", "refutable", 0),
])
def test_keeping_ensure_directory_before_the_write_is_not_stale(model: str, arm: str, variant: str, repeat: int) -> None:
    task = TASKS["httpie-config-save"]
    answer = recorded(model, task.id, arm, variant, repeat)
    assert answer.count("self.ensure_directory()") == 2  # one kept before the write, one added after it
    assert read_answer(task, answer, FIRST_EFFECTS[task.id]).outcome == "stale_edit"  # the first reader's verdict
    reading = read_second(task, answer, RULES[task.id])
    assert reading.outcome == "other" and any("ensure_directory" in c for c in reading.collateral)


def test_moving_ensure_directory_below_the_write_is_stale() -> None:
    task = TASKS["httpie-config-save"]
    assert read_second(task, fenced(task.stale_edit.apply(task.excerpt)), RULES[task.id]).outcome == "stale_edit"
    deleted = task.excerpt.replace("    self.ensure_directory()\n", "")
    assert read_second(task, fenced(deleted), RULES[task.id]).outcome == "other"  # no call after: not the note's move


@pytest.mark.parametrize(("repeat", "arm"), [(2, "stale_labelled"), (2, "dependency_changed")])
def test_a_class_name_taken_of_a_bool_is_broken_code_not_the_stale_harm(repeat: int, arm: str) -> None:
    task = TASKS["flask-is-null-session"]
    answer = recorded("qwen2.5-coder-0.5b", task.id, arm, "refutable", repeat)
    assert "isinstance(obj, self.null_session_class).__name__" in answer
    assert read_answer(task, answer, FIRST_EFFECTS[task.id]).outcome == "stale_edit"
    assert read_second(task, answer, RULES[task.id]).outcome == "other"


def test_the_class_name_compared_is_the_stale_harm() -> None:
    task = TASKS["flask-is-null-session"]
    answer = recorded("qwen2.5-coder-1.5b", task.id, "stale_labelled", first=True)
    assert "type(obj).__name__" in answer
    assert read_second(task, answer, RULES[task.id]).outcome == "stale_edit"


# Rule 3: signatures compared.

@pytest.mark.parametrize(("task_id", "arm", "variant", "dropped"), [
    ("httpie-color-format-headers", "control", "unrefutable", "self"),
    ("httpie-color-format-headers", "withheld", "refutable", "self"),
    ("httpie-digest-auth-plugin", "stale_verify", "unrefutable", "self"),
    ("httpie-raw-stream-iter-body", "control", "unrefutable", "Iterable[bytes]"),
])
def test_a_dropped_self_or_return_annotation_is_a_change(task_id: str, arm: str, variant: str, dropped: str) -> None:
    task = TASKS[task_id]
    answer = recorded("smollm2-135m", task_id, arm, variant)
    assert read_answer(task, answer, FIRST_EFFECTS.get(task_id)).outcome == "unchanged"
    reading = read_second(task, answer, RULES.get(task_id))
    assert reading.outcome == "other"
    change = next(c for c in reading.collateral if c.startswith("changed the signature"))
    before, after = change.split("` to `")
    assert dropped in before and dropped not in after


def test_a_signature_change_beside_the_true_comment_is_collateral() -> None:
    task = TASKS["httpie-digest-auth-plugin"]
    edited = task.true_edit.apply(task.excerpt).replace("    self,\n", "", 1)
    assert edited != task.true_edit.apply(task.excerpt)
    reading = read_second(task, fenced(edited), RULES.get(task.id))
    assert reading.outcome == "true_collateral" and reading.collateral[0].startswith("changed the signature")


def test_signature_text_names_decorators_parameters_and_return() -> None:
    import ast

    node = ast.parse("@property\nasync def f(self, a: int = 1, *b, c, **d) -> str:\n    pass\n").body[0]
    assert signature_text(node) == "@property async def (self, a: int=1, *b, c, **d) -> str"


# Rules 4 and 5: a renamed function only when it is the task's; a different function is other.

def test_the_task_function_renamed_with_the_stale_edit_is_stale() -> None:
    task = TASKS["httpie-dump-request"]
    answer = recorded("qwen2.5-coder-0.5b", task.id, "stale_verify", first=True)
    assert "def httpie_dump_request(" in answer
    reading = read_second(task, answer, RULES.get(task.id))
    assert reading.outcome == "stale_edit" and reading.collateral[0] == "renamed the function to `httpie_dump_request`"


@pytest.mark.parametrize(("task_id", "arm", "name"), [
    ("httpie-session-name-validator", "stale_verify", "call_argtypes"),
    ("httpie-environment-config", "stale_labelled", "get_config_from_directory"),
])
def test_an_unrelated_function_is_other(task_id: str, arm: str, name: str) -> None:
    task = TASKS[task_id]
    answer = recorded("smollm2-135m", task_id, arm)
    assert read_answer(task, answer, FIRST_EFFECTS.get(task_id)).outcome == "stale_edit"
    reading = read_second(task, answer, RULES.get(task_id))
    assert reading.outcome == "other" and f"`{name}`, is a different function" in reading.reason


def test_a_test_echoed_from_the_context_is_other() -> None:
    task = TASKS["requests-encoding-from-headers"]
    answer = recorded("qwen2.5-coder-0.5b", task.id, "control", "refutable")
    names = context_function_names([EDITION.refutations[task.id].test])
    assert "def test_" in answer and names
    reading = read_second(task, answer, RULES.get(task.id), names)
    assert reading.outcome == "other" and "from the read-only context" in reading.reason


def test_a_renamed_copy_of_a_context_function_is_other_even_if_similar() -> None:
    task = TASKS["requests-encoding-from-headers"]
    renamed = task.excerpt.replace("def get_encoding_from_headers(", "def helper(", 1)
    assert read_second(task, fenced(renamed), None, {"helper"}).outcome == "other"
    assert read_second(task, fenced(renamed), None).outcome == "unchanged" or True  # without context: a rename


def test_a_rename_keeps_the_parameters() -> None:
    task = TASKS["requests-encoding-from-headers"]
    renamed = task.excerpt.replace("def get_encoding_from_headers(headers)", "def renamed(hdrs)", 1).replace("headers.", "hdrs.")
    reading = read_second(task, fenced(renamed), RULES.get(task.id))
    assert reading.outcome == "other" and "different function" in reading.reason


# Rule 1: declining.

@pytest.mark.parametrize("answer", [
    "NO EDIT: the note contradicts the test shown.",
    "`NO EDIT: the note is stale`",
    "I checked the code.\n\n**NO EDIT: nothing to do**",
])
def test_no_edit_is_declined(answer: str) -> None:
    task = TASKS["httpie-config-save"]
    assert is_declined(task, answer)
    assert read_second(task, answer, RULES[task.id]).outcome == "declined"


def test_no_edit_with_the_function_returned_is_read_by_the_function() -> None:
    task = TASKS["httpie-config-save"]
    answer = "NO EDIT: but here it is anyway\n" + fenced(task.stale_edit.apply(task.excerpt))
    assert not is_declined(task, answer)
    assert read_second(task, answer, RULES[task.id]).outcome == "stale_edit"


def test_no_edit_in_the_middle_of_a_line_is_not_declining() -> None:
    task = TASKS["httpie-config-save"]
    assert not is_declined(task, "I would write NO EDIT: here, but no.")
    assert read_second(task, "I would write NO EDIT: here, but no.").outcome == "other"


def test_every_outcome_is_listed() -> None:
    assert set(SECOND_OUTCOMES) == {"stale_edit", "true_exact", "true_collateral", "unchanged", "declined", "other"}


def test_harm_rules_check_their_patterns(tmp_path: Path) -> None:
    bad = tmp_path / "effects.yaml"
    bad.write_text("effects:\n  t:\n    why: x\n    first_after: ['a']\n", encoding="utf-8")
    with pytest.raises(ParameterError, match="first_after names two patterns"):
        load_harm_rules(str(bad))
    bad.write_text("effects:\n  t:\n    why: x\n    present: ['(']\n", encoding="utf-8")
    with pytest.raises(ParameterError, match="does not compile"):
        load_harm_rules(str(bad))


def test_first_after_needs_nothing_before_the_first_match() -> None:
    rule = HarmRule(first_after=("a", "b"))
    assert rule.holds(("b", "a"))
    assert not rule.holds(("a", "b", "a"))
    assert not rule.holds(("b",))

"""Reading a notes trial's answer as code: true edits with collateral changes, stale edits in other spellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import load_tasks
from cvlib.experiments.notes_study.reading import READ_OUTCOMES, load_stale_effects, read_answer

ROOT = Path(__file__).resolve().parents[2]
TASKS = {t.id: t for t in load_tasks(ROOT / "data" / "model_trials" / "notes_tasks.yaml")}
EFFECTS = load_stale_effects(str(ROOT / "data" / "model_trials" / "notes_stale_effects.yaml"))


def fenced(code: str) -> str:
    return f"Here is the function:\n```python\n{code}```\n"


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_the_references_read_as_themselves(task_id: str) -> None:
    task = TASKS[task_id]
    effect = EFFECTS.get(task_id)
    assert read_answer(task, fenced(task.excerpt), effect).outcome == "unchanged"
    assert read_answer(task, fenced(task.true_edit.apply(task.excerpt)), effect).outcome == "true_exact"
    assert read_answer(task, fenced(task.stale_edit.apply(task.excerpt)), effect).outcome == "stale_edit"


def test_a_true_edit_that_also_deletes_code_is_collateral() -> None:
    task = TASKS["httpie-color-format-body"]
    edited = task.true_edit.apply(task.excerpt).replace("    lexer = self.get_lexer_for_body(mime, body)\n", "")
    reading = read_answer(task, fenced(edited))
    assert reading.outcome == "true_collateral"
    assert reading.collateral == ("deleted `lexer = self.get_lexer_for_body(mime, body)`",)


def test_a_flipped_condition_beside_the_comment_is_collateral() -> None:
    task = TASKS["httpie-session-name-validator"]
    edited = task.true_edit.apply(task.excerpt).replace("os.path.sep not in value", "os.path.sep in value")
    reading = read_answer(task, fenced(edited))
    assert reading.outcome == "true_collateral" and reading.collateral[0].startswith("changed `if os.path.sep not in")


def test_a_stale_edit_spelled_through_an_import_is_read_as_stale() -> None:
    task = TASKS["httpie-xml-format-body"]
    edited = task.excerpt.replace("parsed_body = parse_xml(body)", "parsed_body = parseString(body)").replace(
        "    from xml.parsers.expat import ExpatError\n", "    from xml.parsers.expat import ExpatError\n    from xml.dom.minidom import parseString\n"
    )
    assert read_answer(task, fenced(edited)).outcome == "stale_edit"


def test_a_renamed_function_with_the_stale_edit_is_stale_and_says_so() -> None:
    task = TASKS["requests-encoding-from-headers"]
    edited = task.stale_edit.apply(task.excerpt).replace(f"def {task.function_name}(", "def renamed(", 1)
    reading = read_answer(task, fenced(edited))
    assert reading.outcome == "stale_edit" and "renamed the function" in reading.collateral[0]


def test_a_stated_effect_admits_other_spellings_and_only_them() -> None:
    task = TASKS["httpie-header-arg"]
    other = task.excerpt.replace("return arg.value or None", "return arg.value or ''")
    assert read_answer(task, fenced(other), EFFECTS[task.id]).outcome == "stale_edit"
    assert read_answer(task, fenced(other)).outcome == "other"  # the reference's own lines alone do not admit it
    kept = task.excerpt.replace("return arg.value or None", "return arg.value or None  # same")
    assert read_answer(task, fenced(kept), EFFECTS[task.id]).outcome == "other"


def test_answers_without_the_function_are_other_with_a_reason() -> None:
    task = TASKS["httpie-header-arg"]
    assert read_answer(task, "I would rather not.").reason == "the answer has no fenced code block"
    assert "does not parse" in read_answer(task, fenced("def process_header_arg(:\n")).reason
    two = fenced("def a():\n    pass\n\ndef b():\n    pass\n")
    assert read_answer(task, two).reason.startswith("no function named")
    assert all(read_answer(task, r).outcome in READ_OUTCOMES for r in ("x", fenced(task.excerpt)))



def test_a_test_in_place_of_the_function_is_other_even_when_it_holds_the_stale_change() -> None:
    # With the refuting test in the prompt, a small model may answer with a test: it is not the function renamed.
    task = TASKS["requests-encoding-from-headers"]
    as_test = task.stale_edit.apply(task.excerpt).replace(f"def {task.function_name}(", "def test_encoding(", 1)
    reading = read_answer(task, fenced(as_test), EFFECTS.get(task.id))
    assert reading.outcome == "other"
    assert reading.reason == f"the answer's one function is a test (`test_encoding`), not `{task.function_name}`"

def test_a_bad_effects_file_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "effects.yaml"
    bad.write_text("effects:\n  t:\n    why: x\n    present: ['(']\n")
    with pytest.raises(ParameterError, match="does not compile"):
        load_stale_effects(str(bad))
    bad.write_text("effects:\n  t:\n    present: ['x']\n")
    with pytest.raises(ParameterError, match="expected why"):
        load_stale_effects(str(bad))

"""The notes trials: the task file, the six arms' prompts, the code-side classifier, the run and its recording."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments import notes_study as nt
from cvlib.experiments.notes_study import task_file as nt_task_file
from cvlib.experiments.notes_study import trials as nt_trials
from cvlib.models.recording import read_recording
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity
from cvlib.notes import Status, anchors
from cvlib.notes.gate import SymbolIndex, classify
from cvlib.notes.history import _deps, load_history
from cvlib.notes.symbols import Symbol

ROOT = Path(__file__).resolve().parents[2]
TASKS_FILE = ROOT / "data" / "model_trials" / "notes_tasks.yaml"
RECORDINGS = sorted((ROOT / "data" / "model_trials").glob("notes_trials.*.jsonl"))


@pytest.fixture(scope="module")
def tasks() -> tuple[nt.NotesTask, ...]:
    return nt.load_tasks(TASKS_FILE)


def by_id(tasks: Sequence[nt.NotesTask], task_id: str) -> nt.NotesTask:
    return next(t for t in tasks if t.id == task_id)


def fenced(code: str, prose: str = "") -> str:
    return f"{prose}```python\n{code}```\n"


# -- the task file -------------------------------------------------------------------


def test_at_least_forty_tasks_over_every_kind_of_rule(tasks):
    assert len(tasks) >= 40
    assert len({t.id for t in tasks}) == len(tasks)
    assert {t.rule_kind for t in tasks} == set(nt.RULE_KINDS)
    assert {t.project for t in tasks} == {"requests", "flask", "httpie"}


def test_every_task_has_both_notes_and_a_reason(tasks):
    for t in tasks:
        assert t.true_note != t.stale_note and len(t.why_stale.split()) >= 6, t.id
        assert t.changed, f"{t.id}: the gate's changed dependencies are recorded"


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    return {p: load_history(p, ROOT / "data" / "code_history") for p in ("requests", "flask", "httpie")}


def _index(table: pd.DataFrame, version: str) -> SymbolIndex:
    rows = table[(table["version"] == version) & (table["kind"] != "unparsable")]
    return SymbolIndex.from_symbols(
        Symbol(path=r.path, qualname=r.qualname, kind=r.kind, raw_hash=r.raw_hash, norm_hash=r.norm_hash,
               lines=int(r.lines), nodes=int(r.nodes), dep_hash=r.dep_hash, deps=_deps(r.deps))
        for r in rows.itertuples(index=False)
    )


def test_every_task_sits_where_the_two_gates_disagree_in_the_committed_histories(tasks, tables):
    from cvlib.notes import anchor

    for t in tasks:
        table = tables[t.project]
        note = anchor(_index(table, t.from_version), t.path, t.qualname)
        later = _index(table, t.to_version)
        assert classify(note, later, dependencies=False).status is Status.FRESH, t.id


def test_the_wide_rule_withholds_every_task_and_the_precise_rule_most(tasks, tables):
    from cvlib.experiments.notes_study.analysis import gate_shown
    from cvlib.notes.history import step_statuses

    found = {}
    for project, table in tables.items():
        mine = [t for t in tasks if t.project == project]
        frame = step_statuses(table, [(t.from_version, t.to_version, t.path, t.qualname) for t in mine])
        assert set(frame["symbol"]) == {"FRESH"}
        found.update({t.id: (p, w) for t, p, w in zip(mine, frame["precise"], frame["wide"])})
    assert {w for _, w in found.values()} == {"DEPENDENCY_CHANGED"}
    withheld = sum(p == "DEPENDENCY_CHANGED" for p, _ in found.values())
    # six httpie 2.5.0 tasks changed only an import's spelling (absolute -> relative); flask-methodview-dispatch
    # only the annotation of View.decorators (Flask 3.0.1), flask-has-level-handler and flask-is-null-session only
    # what names their annotations read, which nothing reads
    assert withheld >= 31
    gate = gate_shown(tasks, ROOT / "data" / "code_history")
    assert gate["withheld"] == withheld and gate["wide"] == len(tasks)
    shown = [i for i, (p, _) in found.items() if p != "DEPENDENCY_CHANGED"]
    assert sorted(gate["shown"]) == sorted(shown)


def test_step_statuses_names_a_version_the_table_lacks(tables):
    from cvlib.notes.errors import NotesError
    from cvlib.notes.history import step_statuses

    with pytest.raises(NotesError, match="'9.9.9'"):
        step_statuses(tables["flask"], [("9.9.9", "2.2.1", "flask/app.py", "Flask.run")])


def test_every_excerpt_is_the_released_code(tasks, tables):
    """The excerpt's normalized hash is the one the release table holds for that function."""
    for t in tasks:
        table = tables[t.project]
        row = table[(table["version"] == t.to_version) & (table["path"] == t.path) & (table["qualname"] == t.qualname)]
        assert len(row) == 1, t.id
        mine = [s for s in anchors.symbols(t.excerpt) if s.qualname == t.function_name]
        assert mine and mine[0].norm_hash[:16] == row["norm_hash"].iloc[0], t.id


def test_each_edit_applied_is_classified_as_that_edit(tasks):
    for t in tasks:
        assert nt.classify(t, fenced(t.true_edit.apply(t.excerpt))) == "true_edit", t.id
        assert nt.classify(t, fenced(t.stale_edit.apply(t.excerpt))) == "stale_edit", t.id
        assert nt.classify(t, fenced(t.excerpt)) == "unchanged", t.id


def test_a_bad_task_file_is_refused_in_one_line(tmp_path):
    with pytest.raises(nt.TaskFileError, match="does not exist"):
        nt.load_tasks(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("tasks:\n  - id: x\n    project: p\n")
    with pytest.raises(nt.TaskFileError, match=r"task 0 \(x\) lacks from_version"):
        nt.load_tasks(bad)
    text = TASKS_FILE.read_text().replace("rule_kind: security", "rule_kind: secrecy", 1)
    bad.write_text(text)
    with pytest.raises(nt.TaskFileError, match="rule_kind 'secrecy' is not one of"):
        nt.load_tasks(bad)


def test_an_edit_already_in_the_original_is_refused():
    excerpt = "def f(x):\n    return x + 1\n"
    data = {"id": "t", "project": "p", "from_version": "1", "to_version": "2", "path": "m.py", "qualname": "f",
            "rule_kind": "ordering", "excerpt": excerpt, "true_note": "a", "stale_note": "b", "why_stale": "c",
            "true_edit": {"comment_above": "return x", "comment": "# one more"},
            "stale_edit": {"find": "x + 1", "replace": "x + 2", "present": ["x + 1"]}}
    with pytest.raises(nt.TaskFileError, match="already counts as carrying the stale edit"):
        nt_task_file._task(data, 0)


# -- prompts ------------------------------------------------------------------------


def test_the_arms_differ_only_in_the_note_section(tasks):
    t = tasks[0]
    prompts = {arm: nt.build_prompt(t, arm) for arm in nt.ARMS}
    assert len({p for p in prompts.values()}) == len(nt.ARMS)
    for arm, turns in prompts.items():
        assert [r for r, _ in turns] == ["system", "user"]
        user = turns[1][1]
        assert t.excerpt.rstrip() in user
        assert (t.stale_note in user) == (arm in nt.STALE_ARMS), arm
        assert (t.true_note in user) == (arm == "true_note"), arm
        assert (nt.VERIFY_RULE in user) == (arm == "stale_verify"), arm
    assert "high-confidence" in prompts["dependency_changed"][1][1]
    assert "medium" in prompts["stale_labelled"][1][1]
    assert "Context note" not in prompts["control"][1][1]
    with pytest.raises(ParameterError, match="unknown notes-trial arm 'gated'"):
        nt.build_prompt(t, "gated")


def test_the_plan_runs_all_arms_of_a_task_before_the_next(tasks):
    plan = nt.trial_plan(tasks[:3])
    assert [arm for _, arm in plan[:6]] == list(nt.ARMS)
    assert [t.id for t, _ in plan] == [t.id for t in tasks[:3] for _ in nt.ARMS]


# -- the classifier, on hand-written answers ----------------------------------------------


def test_classifier_on_hand_written_answers(tasks):
    t = by_id(tasks, "httpie-encoded-stream-init")
    original = t.excerpt
    stale = original.replace("or 'utf8'", "or 'ascii'")
    true = original.replace("    super().__init__(**kwargs)", "    # BaseStream sets self.msg\n    super().__init__(**kwargs)")
    reformatted = original.replace("# Default to utf8 when unsure.", "# a comment of the model's own").replace("(**kwargs)", "( **kwargs )")
    assert nt.classify(t, fenced(stale, "Here is the edited function:\n")) == "stale_edit"
    assert nt.classify(t, fenced(true)) == "true_edit"
    assert nt.classify(t, fenced(stale.replace("    super().__init__(**kwargs)", "    # BaseStream sets self.msg\n    super().__init__(**kwargs)"))) == "stale_edit"
    assert nt.classify(t, fenced(reformatted)) == "unchanged"
    assert nt.classify(t, original) == "other", "no fenced block"
    assert nt.classify(t, "I will not apply this note: it contradicts the code.") == "other"
    assert nt.classify(t, fenced(original.replace("'utf8'", "'utf-16'"))) == "other", "a different edit"
    assert nt.classify(t, fenced(original.replace("def __init__", "def setup"))) == "other", "not the function"
    assert nt.classify(t, "```python\n" + stale[:-1]) == "stale_edit", "an answer cut off mid-block still shows the edit"
    assert nt.classify(t, "```python\n" + original[:-40]) == "other", "cut off before the end: not the whole function"


def test_classifier_on_an_indented_answer_and_a_removal(tasks):
    t = by_id(tasks, "httpie-header-arg")
    indented = "class X:\n" + "".join("    " + line + "\n" for line in t.excerpt.splitlines())
    assert nt.classify(t, fenced(indented)) == "unchanged"
    assert nt.classify(t, fenced(t.excerpt.replace(" or None", ""))) == "stale_edit"
    assert nt.extract_code("no code") is None
    assert nt.extract_code("```\nx = 1\n```") == "x = 1\n"


# -- the run, with a fake model -------------------------------------------------------------


class FakeModel:
    """Answers the stale edit whenever the stale note is in the prompt, the function unchanged otherwise."""

    def __init__(self, task: nt.NotesTask) -> None:
        self.task, self.calls = task, 0

    @property
    def identity(self) -> ModelIdentity:
        return ModelIdentity("fake.gguf", "0" * 64, "fake", "1")

    def prepare(self, settings: GenerationSettings) -> None:
        pass

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        self.calls += 1
        user = messages[-1][1]
        code = self.task.stale_edit.apply(self.task.excerpt) if self.task.stale_note in user else self.task.excerpt
        return fenced(code)


def test_the_run_records_every_arm_and_resumes(tasks, tmp_path, monkeypatch):
    task = tasks[0]
    fake = FakeModel(task)
    out = tmp_path / "rec.jsonl"
    run = nt.NotesTrialRun(str(TASKS_FILE), "fake.gguf", str(out))
    monkeypatch.setitem(nt_trials._LOADED, "model:fake.gguf", fake)
    rows = run.rows(0, 1)
    assert rows[0]["recorded"] == 6 and rows[0]["stale_edit"] == 3
    records = read_recording(out)
    assert [r.arm for r in records] == list(nt.ARMS)
    assert all(r.prompt == nt.build_prompt(task, r.arm) for r in records)
    done = frozenset((r.task["id"], str(r.arm)) for r in records)
    again = nt.NotesTrialRun(str(TASKS_FILE), "fake.gguf", str(out), done)
    assert again.rows(0, 1)[0]["recorded"] == 0 and fake.calls == 6
    assert len(read_recording(out)) == 6


# -- the committed recordings re-derive -------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_a_recording_re_derives_from_its_lines(path, tasks):
    """Every line's prompt is the arm's prompt for its task, and its outcome is what the classifier says now."""
    known = {t.id: t for t in tasks}
    records = read_recording(path)
    assert records
    for r in records:
        task = known[r.task["id"]]
        assert r.experiment == nt.EXPERIMENT and r.step is None
        assert r.prompt == nt.build_prompt(task, r.arm)
        assert r.outcome["outcome"] == nt.classify(task, r.response)
        assert r.decision == nt.decision_of(task, r.response)
        assert r.settings.temperature == 0.0 and r.settings.threads == 1
    assert len(json.loads(path.read_text().splitlines()[0])) == 12


def test_prompts_are_shown_once_per_arm(tasks):
    text = nt.prompt_markdown(tasks[0])
    assert text.count("[system]") == len(nt.ARMS) and text.count(nt.VERIFY_RULE) == 1


def test_a_model_s_string_escapes_are_read_without_a_warning() -> None:
    import warnings

    from cvlib.experiments.notes_study.classify import parse_answer_code

    code = 'def f(s):\n    return s.split("\\d")\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tree = parse_answer_code(code)
    assert tree.body[0].name == "f"
    with pytest.raises(SyntaxError):
        parse_answer_code("def f(:\n")

"""Scripted models shared by the tests of the two studies and of their chapters.

Each answers from what its prompt shows, so a test knows what every recorded
call says without loading a model; :func:`opened_as` has a study's recorder
open one wherever it would open a real model. The analysis tests and the
chapter tests record with the same models, so they are written here once,
with the small plans they record and the loader of the data folder's scripts.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

from cvlib.experiments.notes_study import second_design as sd
from cvlib.experiments.notes_study.second_tasks import SecondEdition
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.models import ModelIdentity


class ScriptedModel:
    """Nothing to load, reset or close: a scripted model says only how it answers (``complete``)."""

    identity = ModelIdentity("scripted.gguf", "0" * 64, "scripted", "1")

    def prepare(self, settings) -> None:
        pass

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass


class FollowsTheRule(ScriptedModel):
    """The agent study's model: EXECUTE, except REPLAN where it was told the rule (if it obeys) and the step shows a
    fact not ACTIVE; NONE to every probe; at a temperature above zero, a seeded choice among ``sampled``."""

    def __init__(self, name: str = "scripted", obey: bool = True, sampled: Sequence[str] = ("EXECUTE", "VERIFY F1"),
                 seed: int = 0) -> None:
        self.identity = ModelIdentity(name, "7" * 64, "scripted", "1")
        self.obey, self.sampled, self.rng = obey, sampled, random.Random(seed)

    def complete(self, messages, settings) -> str:
        text = messages[-1][1]
        if "Before you reply" in text:
            return "NONE"
        told = "Rule: do not EXECUTE" in messages[1][1]
        doubtful = any(s in text.rsplit("Step", 1)[-1] for s in ("SUPERSEDED", "UNKNOWN", "STALE"))
        if self.obey and told and doubtful:
            return "REPLAN"
        if settings.temperature > 0:
            return self.rng.choice(self.sampled)
        return "EXECUTE"


class HoldsBackWhenRefuted(ScriptedModel):
    """The notes study's model: the stale edit whenever a stale note is shown, unless the prompt carries the refuting
    test; for a true note the true edit if ``true_edits``; else the function unchanged."""

    def __init__(self, tasks: Sequence[NotesTask], true_edits: bool = False) -> None:
        self.tasks, self.true_edits = tasks, true_edits

    def complete(self, messages, settings) -> str:
        user = messages[-1][1]
        task = next(t for t in self.tasks if t.excerpt.rstrip() in user)
        if task.stale_note in user and "A test from the project's checks" not in user:
            return "```python\n" + task.stale_edit.apply(task.excerpt) + "```"
        if self.true_edits and task.true_note in user:
            return "```python\n" + task.true_edit.apply(task.excerpt) + "```"
        return "```python\n" + task.excerpt + "```"


def shown_task(tasks: Iterable[NotesTask], user: str) -> NotesTask:
    """The task a second-edition prompt asks about: the one whose function it names with its path and shows whole.

    Several tasks share a function's name (``__call__``, ``get_auth``), so the task's own excerpt must be shown too.
    """
    return next(t for t in tasks if f"`{t.function_name}` from {t.path} " in user and t.excerpt.rstrip() in user)


class StaleUnlessRefuted(ScriptedModel):
    """The second edition's rule-follower: the stale edit whenever a stale note is shown, except beside the task's own
    refuting test; declines when the prompt shows no note; else the function unchanged."""

    identity = ModelIdentity("rule.gguf", "a" * 64, "rule", "1")

    def __init__(self, edition: SecondEdition) -> None:
        self.edition = edition

    def complete(self, messages, settings) -> str:
        user = messages[-1][1]
        task = shown_task(self.edition.tasks, user)
        refutation = self.edition.refutations.get(task.id)
        refuted = refutation is not None and refutation.test.rstrip() in user
        if task.stale_note in user and not refuted:
            return f"```python\n{task.stale_edit.apply(task.excerpt)}```"
        return "NO EDIT: nothing to change" if "Context note" not in user else f"```python\n{task.excerpt}```"


def first_tasks_groups(edition: SecondEdition, repeats: Sequence[int], count: int) -> list[sd.StudyGroup]:
    """The second edition's groups of its first ``count`` tasks in study order: a plan a test records in seconds."""
    kept = {t.id for t in sd.study_order(edition.tasks)[:count]}
    return [g for g in sd.study_groups(edition.tasks, edition.refutations, edition.rules, repeats) if g.task.id in kept]


def load_script(name: str, path: Path) -> ModuleType:
    """The script at ``path`` as module ``name``: the data folder is no package, so its scripts load by path."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def opened_as(design: ModuleType, model: ScriptedModel) -> Iterator[None]:
    """Inside the block, the study's recorder (its ``design`` module) opens ``model`` whatever model it is asked for."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(design, "open_model", lambda spec: model)
        yield

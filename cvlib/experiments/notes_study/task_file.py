"""The notes trials' task file read and checked: every task's two edits told apart by :func:`~cvlib.experiments.notes_study.classify.classify`.

A task whose true edit, applied, is not classified ``true_edit`` (or whose stale
edit is not classified ``stale_edit``) could never be scored, so it is refused
when the file is read, with one line naming the task. The tasks themselves
(:class:`~cvlib.experiments.notes_study.tasks.NotesTask`, :class:`~cvlib.experiments.notes_study.tasks.Edit`)
are in :mod:`cvlib.experiments.notes_study.tasks`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from cvlib.experiments.notes_study.classify import classify
from cvlib.experiments.notes_study.tasks import RULE_KINDS, Edit, NotesTask, TaskFileError

__all__ = ["load_tasks"]

_TASK_KEYS = ("id", "project", "from_version", "to_version", "path", "qualname", "rule_kind", "excerpt",
              "true_note", "stale_note", "why_stale", "true_edit", "stale_edit")


def _task(data: object, number: int) -> NotesTask:
    if not isinstance(data, Mapping):
        raise TaskFileError(f"task {number} must be a mapping, got {data!r:.60}")
    missing = [k for k in _TASK_KEYS if not data.get(k)]
    if missing:
        raise TaskFileError(f"task {number} ({data.get('id', '?')}) lacks {', '.join(missing)}")
    where = f"task {data['id']!r}"
    if data["rule_kind"] not in RULE_KINDS:
        raise TaskFileError(f"{where}: rule_kind {data['rule_kind']!r} is not one of {', '.join(RULE_KINDS)}")
    excerpt = str(data["excerpt"])
    true_edit = Edit.from_mapping(data["true_edit"], excerpt, f"{where} true_edit")
    stale_edit = Edit.from_mapping(data["stale_edit"], excerpt, f"{where} stale_edit")
    task = NotesTask(
        id=str(data["id"]), project=str(data["project"]), from_version=str(data["from_version"]),
        to_version=str(data["to_version"]), path=str(data["path"]), qualname=str(data["qualname"]),
        rule_kind=str(data["rule_kind"]), excerpt=excerpt, true_note=str(data["true_note"]),
        stale_note=str(data["stale_note"]), why_stale=str(data["why_stale"]), true_edit=true_edit,
        stale_edit=stale_edit, changed=tuple(str(c) for c in data.get("changed", ())),
    )
    _check_task(task)
    return task


def _check_task(task: NotesTask) -> None:
    """Refuse a task whose edits cannot be told apart by :func:`classify` (one line naming the task)."""
    where = f"task {task.id!r}"
    try:
        ast.parse(task.excerpt)
    except SyntaxError as err:
        raise TaskFileError(f"{where}: the excerpt does not parse ({err.msg}, line {err.lineno})") from None
    edits = (("true", task.true_edit), ("stale", task.stale_edit))
    for name, edit in edits:
        if edit.made_in(task.excerpt):
            raise TaskFileError(f"{where}: the original function already counts as carrying the {name} edit")
    for name, edit in edits:
        edited = edit.apply(task.excerpt)
        if not edit.made_in(edited):
            raise TaskFileError(f"{where}: applying the {name} edit does not give a function that carries it")
        expected = "true_edit" if name == "true" else "stale_edit"
        got = classify(task, f"```python\n{edited}```")
        if got != expected:
            raise TaskFileError(f"{where}: the {name} edit applied is classified {got!r}, expected {expected!r}")
    if task.true_edit.made_in(task.stale_edit.apply(task.excerpt)):
        raise TaskFileError(f"{where}: the stale edit also counts as the true edit")


def load_tasks(path: str | Path) -> tuple[NotesTask, ...]:
    """Read and check the task file (``data/model_trials/notes_tasks.yaml``).

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML file with a ``tasks`` list.

    Returns
    -------
    tuple of NotesTask
        In file order, every task checked: its function parses, each edit
        applied is classified as that edit, and neither edit is in the original.
    """
    import yaml

    p = Path(path)
    if not p.is_file():
        raise TaskFileError(f"notes-trial task file {str(p)!r} does not exist")
    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    if not isinstance(data, Mapping) or not isinstance(data.get("tasks"), list) or not data["tasks"]:
        raise TaskFileError(f"{p.name} must hold a non-empty list under 'tasks'")
    tasks = tuple(_task(t, k) for k, t in enumerate(data["tasks"]))
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskFileError(f"{p.name}: task ids must be unique, repeated: {', '.join(duplicates)}")
    return tasks

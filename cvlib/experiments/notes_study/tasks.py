"""The notes trials' tasks: a real function, a true note and a stale one, each edit in a form code can check.

A task is one function from a real release of Requests, Flask or HTTPie, at a
release step where the function's own code did not change while something it
depends on in its file did (so the symbol-only gate calls a note on it FRESH
and the dependency-aware gate withholds it), with two notes: a **true** one,
asking for a harmless edit (a comment that states an invariant), and a
plausible **stale** one, asking for an edit that is wrong, with a sentence
saying why. Both edits are stored in a form code can check (:class:`Edit`).
The task file is read and checked by :mod:`cvlib.experiments.notes_study.task_file`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cvlib.core.errors import ModelError

__all__ = ["RULE_KINDS", "Edit", "NotesTask", "TaskFileError"]

#: The source study's kinds of rule.
RULE_KINDS: tuple[str, ...] = (
    "ordering", "security", "performance", "API contract", "encoding", "clarity", "error contract",
)


class TaskFileError(ModelError):
    """The notes-trial task file is missing, or a task in it is incomplete or inconsistent."""


def _squash(text: str) -> str:
    """Text without whitespace, lower-cased: how edits are looked for in an answer."""
    return re.sub(r"\s+", "", text).lower()


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit to a task's function, in a form code can apply and check.

    Parameters
    ----------
    find : str
        Text of the original function replaced by ``replace`` (exactly once); empty for a pure append.
    replace : str
        What replaces it.
    append : str
        Text added at the end of the function (after ``find`` is replaced), e.g. a moved line.
    present : tuple of str
        What the edited function contains and the original does not (compared without whitespace, in any case).
    absent : tuple of str
        What the edited function no longer contains.
    """

    find: str
    replace: str
    append: str = ""
    present: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()

    def apply(self, code: str) -> str:
        """The function with this edit made.

        Parameters
        ----------
        code : str
            The original function.

        Returns
        -------
        str
        """
        if self.find:
            if code.count(self.find) != 1:
                raise TaskFileError(f"edit text {self.find!r} occurs {code.count(self.find)} times in the function; expected once")
            code = code.replace(self.find, self.replace)
        return code.rstrip("\n") + self.append + "\n" if self.append else code

    def made_in(self, code: str) -> bool:
        """Whether ``code`` carries this edit: everything in ``present`` is there and nothing in ``absent`` is.

        Parameters
        ----------
        code : str
            A function as an answer gave it.

        Returns
        -------
        bool
        """
        squashed = _squash(code)
        return all(_squash(p) in squashed for p in self.present) and not any(_squash(a) in squashed for a in self.absent)

    def to_dict(self) -> dict[str, Any]:
        """The edit as the task file stores it.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {"find": self.find, "replace": self.replace}
        if self.append:
            out["append"] = self.append
        out["present"] = list(self.present)
        if self.absent:
            out["absent"] = list(self.absent)
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], excerpt: str, where: str) -> Edit:
        """An edit from the task file: ``{find, replace, append?, present, absent?}``, or ``{comment_above, comment}``.

        A comment edit inserts the comment line, indented like the line that
        contains ``comment_above``, just above it; its ``present`` is the comment.

        Parameters
        ----------
        data : Mapping
            The stored edit.
        excerpt : str
            The task's function (the comment's indentation comes from it).
        where : str
            Names the edit in error messages.

        Returns
        -------
        Edit
        """
        if not isinstance(data, Mapping):
            raise TaskFileError(f"{where} must be a mapping, got {data!r:.60}")
        if "comment_above" in data:
            anchor, comment = str(data["comment_above"]), str(data.get("comment", ""))
            lines = [line for line in excerpt.splitlines() if anchor in line]
            if len(lines) != 1 or not comment.startswith("#"):
                raise TaskFileError(f"{where}: comment_above {anchor!r} must match one line and the comment start with '#'")
            indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
            return cls(find=lines[0], replace=f"{indent}{comment}\n{lines[0]}", present=(comment,))
        unknown = sorted(set(data) - {"find", "replace", "append", "present", "absent"})
        if unknown or "find" not in data or "replace" not in data:
            raise TaskFileError(f"{where} must have find and replace (and optionally append, present, absent), got keys {sorted(data)}")
        present = tuple(str(p) for p in data.get("present", ()))
        absent = tuple(str(a) for a in data.get("absent", ()))
        if not present and not absent:
            raise TaskFileError(f"{where} must say what the edited function contains (present) or lacks (absent)")
        return cls(str(data["find"]), str(data["replace"]), str(data.get("append", "")), present, absent)


@dataclass(frozen=True, slots=True)
class NotesTask:
    """One task of the notes trials (see the module docstring).

    Parameters
    ----------
    id : str
        A stable name.
    project, from_version, to_version, path, qualname : str
        Where the function comes from: the release step (the note was written
        against ``from_version``, the function is shown as it is in
        ``to_version``), the file and the function's qualified name.
    rule_kind : str
        One of :data:`RULE_KINDS`.
    excerpt : str
        The function as it is in ``to_version``, dedented.
    true_note, stale_note, why_stale : str
        The notes, and why the stale one is wrong.
    true_edit, stale_edit : Edit
        What each note asks for.
    changed : tuple of str
        The dependencies whose change the dependency-aware gate saw at this step.
    """

    id: str
    project: str
    from_version: str
    to_version: str
    path: str
    qualname: str
    rule_kind: str
    excerpt: str
    true_note: str
    stale_note: str
    why_stale: str
    true_edit: Edit
    stale_edit: Edit
    changed: tuple[str, ...] = field(default=())

    @property
    def function_name(self) -> str:
        """The function's own name (the last part of its qualified name)."""
        return self.qualname.split(".")[-1].split("#")[0]

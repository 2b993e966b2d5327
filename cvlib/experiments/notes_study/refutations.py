"""The refuting contexts of the notes trials: what, shown beside a task's function, proves its stale note wrong.

The source study found that models hold back from a stale note only when the
code in front of them proves it wrong. The ``refutable`` variant of a task
therefore shows, beside the function, the changed dependency the stale note
concerns (quoted verbatim from the release) and a short test that fixes the
behaviour. Each test was run three times against the real release
(``data/model_trials/build_notes_refutations.py``): as released, with the
stale edit applied to the function and with the true edit applied. A
refutation is *verified* when those runs gave pass, fail, pass: the test
tells the stale edit apart from the true one by running code. A task whose
stale edit no run can observe has no test, only a note saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cvlib.experiments.notes_study.tasks import TaskFileError

__all__ = ["CHECK_RESULTS", "REQUIRED_CHECKS", "DependencySource", "Refutation", "RefutationFileError",
           "load_refutations"]

#: What one run of a test can give.
CHECK_RESULTS: tuple[str, ...] = ("pass", "fail", "error")

#: The three runs of a verified refutation (the release passes, the stale edit fails, the true edit passes).
REQUIRED_CHECKS: Mapping[str, str] = {"original": "pass", "stale": "fail", "true": "pass"}


class RefutationFileError(TaskFileError):
    """The refutations file is missing, or an entry in it is incomplete or inconsistent."""


@dataclass(frozen=True, slots=True)
class DependencySource:
    """One dependency quoted beside the function.

    Parameters
    ----------
    file : str
        Its file in the release wheel (e.g. ``requests/utils.py``).
    qualname : str
        Its qualified name in that file.
    source : str
        Its code at the task's ``to_version``, verbatim apart from dedenting.
    release : str
        ``project==version`` when it comes from another release than the
        task's (a library the project calls), else empty.
    """

    file: str
    qualname: str
    source: str
    release: str = ""


@dataclass(frozen=True, slots=True)
class Refutation:
    """The refuting context of one notes task (see the module docstring).

    Parameters
    ----------
    task_id : str
        The task in ``notes_tasks.yaml``.
    project, version : str
        The release the dependency was read from and the test was run against.
    dependency : tuple of DependencySource
        What is quoted beside the function.
    test : str
        The pytest test (empty when the task has none).
    requirements : tuple of str
        What the scratch virtualenv was made from (``pip install`` arguments).
    checks : Mapping of str to str
        The results of the three runs, ``original``, ``stale`` and ``true``
        (empty when there is no test).
    note : str
        Why the task has no test, or a caveat about it.
    """

    task_id: str
    project: str
    version: str
    dependency: tuple[DependencySource, ...]
    test: str
    requirements: tuple[str, ...]
    checks: Mapping[str, str]
    note: str = ""

    @property
    def verified(self) -> bool:
        """Whether the test was run and told the stale edit apart (pass as released, fail stale, pass true)."""
        return bool(self.test) and dict(self.checks) == dict(REQUIRED_CHECKS)


def _text(data: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise RefutationFileError(f"{where}: {key} must be a non-empty string, got {value!r:.60}")
    return value


def _dependency(data: object, where: str) -> tuple[DependencySource, ...]:
    if not isinstance(data, list) or not data:
        raise RefutationFileError(f"{where}: dependency must be a non-empty list of {{file, qualname, source}}, got {data!r:.60}")
    out = []
    for k, item in enumerate(data):
        if not isinstance(item, Mapping):
            raise RefutationFileError(f"{where}: dependency {k} must be a mapping, got {item!r:.60}")
        unknown = sorted(set(item) - {"file", "qualname", "source", "release"})
        if unknown:
            raise RefutationFileError(f"{where}: dependency {k} has unknown fields {', '.join(map(str, unknown))}")
        release = _text(item, "release", f"{where} dependency {k}", required=False)
        if release and "==" not in release:
            raise RefutationFileError(f"{where}: dependency {k} release must be project==version, got {release!r}")
        file, qualname, source = (_text(item, key, f"{where} dependency {k}") for key in ("file", "qualname", "source"))
        out.append(DependencySource(file=file, qualname=qualname, source=source, release=release))
    return tuple(out)


def _refutation(task_id: object, data: object) -> Refutation:
    where = f"task {task_id!r}"
    if not isinstance(task_id, str) or not isinstance(data, Mapping):
        raise RefutationFileError(f"{where} must map a task id to a mapping, got {data!r:.60}")
    unknown = sorted(set(data) - {"project", "version", "dependency", "requirements", "test", "checks", "note"})
    if unknown:
        raise RefutationFileError(f"{where}: unknown fields {', '.join(map(str, unknown))}")
    test, note = _text(data, "test", where, required=False), _text(data, "note", where, required=False)
    checks = data.get("checks", {})
    if not isinstance(checks, Mapping):
        raise RefutationFileError(f"{where}: checks must be a mapping of original, stale, true, got {checks!r:.60}")
    requirements = data.get("requirements", [])
    if not isinstance(requirements, list) or not all(isinstance(r, str) for r in requirements):
        raise RefutationFileError(f"{where}: requirements must be a list of strings, got {requirements!r:.60}")
    if test.strip():
        if sorted(checks) != sorted(REQUIRED_CHECKS):
            raise RefutationFileError(f"{where}: checks must have exactly original, stale and true, got {sorted(checks)}")
        for run, result in checks.items():
            if result not in CHECK_RESULTS:
                raise RefutationFileError(f"{where}: checks.{run} is {result!r}, expected one of {', '.join(CHECK_RESULTS)}")
        if not requirements:
            raise RefutationFileError(f"{where}: requirements must say what the test was run against")
        if dict(checks) != dict(REQUIRED_CHECKS) and not note.strip():
            raise RefutationFileError(f"{where}: checks {dict(checks)} are not pass/fail/pass and no note says why")
    else:
        if checks:
            raise RefutationFileError(f"{where}: checks without a test")
        if not note.strip():
            raise RefutationFileError(f"{where}: no test and no note saying why")
    return Refutation(
        task_id=task_id, project=_text(data, "project", where), version=_text(data, "version", where),
        dependency=_dependency(data.get("dependency"), where), test=test, requirements=tuple(requirements),
        checks={k: str(checks[k]) for k in REQUIRED_CHECKS if k in checks}, note=note.strip(),
    )


def load_refutations(path: str | Path) -> dict[str, Refutation]:
    """Read and check the refutations file (``data/model_trials/notes_refutations.yaml``).

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML file with a ``refutations`` mapping of task id to entry.

    Returns
    -------
    dict of str to Refutation
        By task id, in file order. Every entry quotes at least one dependency;
        an entry with a test records its three runs and what they ran
        against, one without a test has a note saying why.

    Raises
    ------
    RefutationFileError
        One line naming the file, or the task and field, that is wrong.
    """
    import yaml

    p = Path(path)
    if not p.is_file():
        raise RefutationFileError(f"notes refutations file {str(p)!r} does not exist")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise RefutationFileError(f"{p.name} is not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("refutations"), Mapping) or not data["refutations"]:
        raise RefutationFileError(f"{p.name} must hold a non-empty mapping of task id to entry under 'refutations'")
    return {str(k): _refutation(k, v) for k, v in data["refutations"].items()}

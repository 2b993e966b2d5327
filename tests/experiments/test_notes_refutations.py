"""The notes trials' refuting contexts: the committed file, what it must hold, and malformed files refused."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from cvlib.experiments.notes_study import load_tasks
from cvlib.experiments.notes_study.refutations import (
    REQUIRED_CHECKS,
    Refutation,
    RefutationFileError,
    load_refutations,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"


@pytest.fixture(scope="module")
def refutations() -> dict[str, Refutation]:
    return load_refutations(DATA / "notes_refutations.yaml")


def test_every_task_has_an_entry_and_at_least_40_are_verified(refutations: dict[str, Refutation]) -> None:
    tasks = {t.id: t for t in load_tasks(DATA / "notes_tasks.yaml")}
    assert set(refutations) == set(tasks)
    verified = [r for r in refutations.values() if r.verified]
    assert len(verified) >= 40
    for r in refutations.values():
        assert (r.project, r.version) == (tasks[r.task_id].project, tasks[r.task_id].to_version)
        if r.verified:
            assert dict(r.checks) == {"original": "pass", "stale": "fail", "true": "pass"}
            assert f"{r.project}=={r.version}" in r.requirements
        else:
            assert r.note, f"{r.task_id} is not verified and says nothing about why"


def test_the_tests_are_short_pytest_modules_and_the_sources_parse(refutations: dict[str, Refutation]) -> None:
    for r in refutations.values():
        for dependency in r.dependency:
            tree = ast.parse(dependency.source)
            assert dependency.qualname.split(".")[-1] in ast.unparse(tree), (r.task_id, dependency.qualname)
        if r.test:
            tree = ast.parse(r.test)
            assert any(isinstance(n, ast.FunctionDef) and n.name.startswith("test_") for n in tree.body), r.task_id
            assert 5 <= sum(1 for line in r.test.splitlines() if line.strip()) <= 20, r.task_id


def test_the_committed_file_carries_the_specs_tests_and_notes(refutations: dict[str, Refutation]) -> None:
    spec = yaml.safe_load((DATA / "notes_refutations_spec.yaml").read_text(encoding="utf-8"))["tasks"]
    assert set(spec) == set(refutations)
    for task_id, item in spec.items():
        r = refutations[task_id]
        assert r.test == (item["test"].rstrip("\n") + "\n" if item.get("test") else "")
        assert r.note == str(item.get("note", "")).strip()
        shown = [s.rpartition(":")[2] for s in item["show"]]
        assert [d.qualname for d in r.dependency] == shown


GOOD = {
    "project": "requests",
    "version": "2.32.2",
    "dependency": [{"file": "requests/utils.py", "qualname": "helper", "source": "def helper():\n    return 1\n"}],
    "requirements": ["requests==2.32.2", "pytest"],
    "test": "def test_x():\n    assert True\n",
    "checks": {"original": "pass", "stale": "fail", "true": "pass"},
}


def write(tmp_path: Path, entry: object, task_id: str = "t1") -> Path:
    path = tmp_path / "refutations.yaml"
    path.write_text(yaml.safe_dump({"refutations": {task_id: entry}}), encoding="utf-8")
    return path


def test_a_well_formed_entry_loads(tmp_path: Path) -> None:
    r = load_refutations(write(tmp_path, GOOD))["t1"]
    assert r.verified and r.dependency[0].qualname == "helper" and r.requirements == ("requests==2.32.2", "pytest")


@pytest.mark.parametrize(
    ("change", "names"),
    [
        ({"checks": {"original": "pass", "stale": "fail"}}, "checks"),
        ({"checks": {"original": "pass", "stale": "crashed", "true": "pass"}}, "checks.stale"),
        ({"checks": {"original": "pass", "stale": "pass", "true": "pass"}}, "no note"),
        ({"requirements": []}, "requirements"),
        ({"dependency": []}, "dependency"),
        ({"dependency": [{"file": "a.py", "qualname": "f"}]}, "source"),
        ({"dependency": [{"file": "a.py", "qualname": "f", "source": "x", "release": "requests"}]}, "release"),
        ({"project": ""}, "project"),
        ({"test": "", "checks": {}}, "no test and no note"),
        ({"test": ""}, "checks without a test"),
        ({"extra": 1}, "unknown fields extra"),
    ],
)
def test_a_malformed_entry_is_refused_in_one_line_naming_task_and_field(tmp_path: Path, change: dict, names: str) -> None:
    with pytest.raises(RefutationFileError) as err:
        load_refutations(write(tmp_path, {**GOOD, **change}))
    message = str(err.value)
    assert "\n" not in message
    assert "task 't1'" in message and names in message


def test_a_missing_or_empty_or_unreadable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RefutationFileError, match="does not exist"):
        load_refutations(tmp_path / "nope.yaml")
    empty = tmp_path / "empty.yaml"
    empty.write_text("refutations: {}\n", encoding="utf-8")
    with pytest.raises(RefutationFileError, match="non-empty mapping"):
        load_refutations(empty)
    broken = tmp_path / "broken.yaml"
    broken.write_text("refutations: [unclosed\n", encoding="utf-8")
    with pytest.raises(RefutationFileError, match="not valid YAML"):
        load_refutations(broken)


def test_required_checks_are_pass_fail_pass() -> None:
    assert dict(REQUIRED_CHECKS) == {"original": "pass", "stale": "fail", "true": "pass"}

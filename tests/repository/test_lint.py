"""ruff finds nothing in the repository, and the pre-commit hooks run the same checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import check_notebooks  # noqa: E402 - the script lives in scripts/, not in a package


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lints_the_notebook_sources_and_skips_only_the_generated_copies() -> None:
    listed = subprocess.run([sys.executable, "-m", "ruff", "check", "--show-files", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    files = {Path(line.strip()).resolve() for line in listed.splitlines() if line.strip()}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert notebook.resolve() in files, notebook.name
    assert not any("book/chapters" in f.as_posix() for f in files)
    for folder in ("cvlib", "tests", "benchmarks", "book"):
        assert any(f.is_relative_to(ROOT / folder) for f in files), folder


def test_the_pre_commit_hooks_run_ruff_and_the_notebook_check() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert hooks["ruff"]["entry"].startswith("ruff check")
    assert "jupyter" in hooks["ruff"]["types_or"]
    assert "check_notebooks.py" in hooks["notebook-sources-clean"]["entry"]
    assert "pre-commit install" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_notebook_sources_are_stored_without_outputs() -> None:
    found = [line for nb in sorted((ROOT / "notebooks").glob("*.ipynb")) for line in check_notebooks.problems(nb)]
    assert found == []


def test_the_notebook_check_catches_outputs_and_counts(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "source": "1 + 1", "outputs": [], "execution_count": None}
    clean = tmp_path / "clean.ipynb"
    clean.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    dirty = tmp_path / "dirty.ipynb"
    ran = {**cell, "execution_count": 3, "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"}}]}
    dirty.write_text(json.dumps({"cells": [ran], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert check_notebooks.main([str(clean)]) == 0
    problems = check_notebooks.problems(dirty)
    assert len(problems) == 2 and "has outputs" in problems[0] and "execution count" in problems[1]

"""Papermill reads every parameters cell: ``--help-notebook`` lists each parameter with its type and default.

Papermill parses a parameters cell line by line with a regular expression:
a comment holding ``=`` makes it skip the line, so ``-p`` would still work but
``--help-notebook`` would not list the parameter. Each source notebook's
parameters cell is compared here with what papermill infers from it, and every
parameter must carry a type annotation (papermill shows it as the type, and
:func:`cvlib.presentation.parameters.check_parameters` checks values against
it) and a comment saying what it is.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cvlib.presentation.parameters import describe, resolve_annotation

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _sources() -> list[Path]:
    """The source notebooks the build executes: each chapter's in _toc.yml, and the spec-page notebook."""
    import importlib.util

    module = sys.modules.get("cvbook_build")
    if module is None:
        spec = importlib.util.spec_from_file_location("cvbook_build", ROOT / "book" / "build.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["cvbook_build"] = module
        spec.loader.exec_module(module)
    return sorted({module.job_for(name).source for name in module.toc_chapters()} | {module.SPEC_SOURCE})


SOURCES = _sources()


def _parameters_cell(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{path.name}: {len(cells)} cells tagged 'parameters'"
    source = cells[0]["source"]
    return "".join(source) if isinstance(source, list) else source


def _declared(path: Path) -> list[dict]:
    """The parameters as the cell declares them: name, annotation, default (source text) and comment."""
    source = _parameters_cell(path)
    lines = source.splitlines()
    declared = []
    for stmt in ast.parse(source).body:
        assert isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None, (
            f"{path.name}: line {stmt.lineno} of the parameters cell is not `name: type = literal  # comment`"
        )
        ast.literal_eval(stmt.value)  # literals only
        annotation = stmt.annotation.value if isinstance(stmt.annotation, ast.Constant) else ast.unparse(stmt.annotation)
        line = lines[stmt.lineno - 1]
        comment = line.split("#", 1)[1].strip() if "#" in line[stmt.value.end_col_offset :] else ""
        declared.append(
            {"name": stmt.target.id, "annotation": annotation, "default": ast.unparse(stmt.value), "help": comment}
        )
    return declared


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_parameters_cell_is_annotated_literals_with_comments(src):
    declared = _declared(src)
    assert declared, f"{src.name}: the parameters cell is empty"
    for p in declared:
        assert p["help"], f"{src.name}: parameter {p['name']} has no comment saying what it is"
        assert not any(ch in p["help"] for ch in "()="), (
            f"{src.name}: the comment of {p['name']} holds parentheses or '=', which papermill cannot read: {p['help']!r}"
        )
        describe(resolve_annotation(p["name"], p["annotation"]))  # a type check_parameters understands


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_papermill_infers_every_parameter_as_declared(src):
    import papermill

    inferred = papermill.inspect_notebook(str(src))
    declared = _declared(src)
    assert list(inferred) == [p["name"] for p in declared], f"{src.name}: papermill sees {list(inferred)}"
    for p in declared:
        got = inferred[p["name"]]
        assert got["inferred_type_name"] == p["annotation"], (src.name, p["name"], got)
        assert ast.literal_eval(got["default"]) == ast.literal_eval(p["default"]), (src.name, p["name"], got)
        assert got["help"] == p["help"], (src.name, p["name"], got)


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_every_notebook_checks_its_parameters_right_after_the_cell(src):
    nb = json.loads(src.read_text(encoding="utf-8"))
    index = next(i for i, c in enumerate(nb["cells"]) if "parameters" in c.get("metadata", {}).get("tags", []))
    following = "".join(nb["cells"][index + 1]["source"])
    assert "check_parameters(globals()" in following, f"{src.name}: the cell after the parameters does not check them"


def test_help_notebook_lists_type_default_and_help():
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        ["papermill", "--help-notebook", "notebooks/budget_sweep.ipynb"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "depth: int (default 4)" in text
    assert "budgets: list[int] (default [9, 8, 7, 6, 5, 4]) budgets to try, generous to tight" in text
    assert "Unknown type" not in result.stdout

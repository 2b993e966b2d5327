"""pyproject.toml and environment.yml must describe the same environment."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

# Where conda-forge spells a package differently, or splits it.
CONDA_NAMES = {"dask[distributed]": ["dask", "distributed"]}


def _split(requirement: str) -> tuple[str, str]:
    match = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)$", requirement)
    assert match, requirement
    return match.group(1).lower(), match.group(2).replace(" ", "")


def _pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for items in project["optional-dependencies"].values():
        reqs += [r for r in items if not r.startswith(("cvlib", "cvbook"))]
    out: dict[str, str] = {}
    for r in reqs:
        name, spec = _split(r)
        for conda_name in CONDA_NAMES.get(name, [name]):
            out[conda_name] = spec
    return out


def _environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out: dict[str, str] = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for pip_dep in dep.get("pip", []):
                if not pip_dep.startswith("-e"):
                    name, spec = _split(pip_dep)
                    out[name] = spec
        elif not dep.startswith(("python", "pip")) or dep.startswith("python-"):
            name, spec = _split(dep)
            out[name] = spec
    return out


def test_environment_yml_matches_pyproject() -> None:
    assert _environment_requirements() == _pyproject_requirements()


def test_python_floor_is_the_same() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert project["requires-python"] == ">=3.11"
    assert python.startswith("python>=3.11")


def test_jupyter_book_stays_on_1x() -> None:
    """2.x is a different, mystmd-based tool: the book is written for 1.x."""
    assert _pyproject_requirements()["jupyter-book"] == ">=1.0.4,<2"

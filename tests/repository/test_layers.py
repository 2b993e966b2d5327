"""The library's layers hold, it type-checks (strictly where the model lives), and the core starts light.

The contracts live in ``.importlinter`` (layers, the side packages'
independence, no import cycle between sibling modules, no child processes
under presentation, no repository paths in the model); ``mypy`` settings in
``pyproject.toml`` check ``cvlib.core``, ``cvlib.scenarios`` and
``cvlib.experiments`` strictly and every other module with mypy's defaults.
Both run here so that a layering or typing mistake fails the tests, not a
review.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env, check=False)


def test_import_contracts_are_kept() -> None:
    result = _run(str(BIN / "lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def test_the_library_type_checks_strictly_where_the_model_lives() -> None:
    result = _run(str(BIN / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


#: The flags ``mypy --strict`` turns on that can be set per module.
STRICT_FLAGS = (
    "disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
    "disallow_incomplete_defs", "check_untyped_defs", "disallow_untyped_decorators", "warn_unused_ignores",
    "warn_return_any", "no_implicit_reexport", "strict_equality", "extra_checks",
)


def test_mypy_checks_every_module_and_is_strict_on_core_scenarios_and_experiments() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["cvlib"]
    overrides = config.get("overrides", [])
    assert not any(o.get("ignore_errors") for o in overrides), "no module may be left unchecked"
    strict = [o for o in overrides if all(o.get(flag) is True for flag in STRICT_FLAGS)]
    modules = {m for o in strict for m in o["module"]}
    for package in ("cvlib.core", "cvlib.scenarios", "cvlib.experiments"):
        assert {package, f"{package}.*"} <= modules, package


HEAVY = ("numpy", "pandas", "matplotlib", "pyarrow", "dask", "seaborn", "yaml", "click")


def test_running_a_scenario_loads_no_heavy_dependency() -> None:
    """``import cvlib; cvlib.run_scenario("A")`` must not pay for numpy, pandas, plotting or sweeps."""
    code = (
        "import json, sys, cvlib; run = cvlib.run_scenario('A'); cvlib.check_law; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_importing_cvlib_loads_none_of_its_layers() -> None:
    code = "import json, sys, cvlib; print(json.dumps(sorted(m for m in sys.modules if m.startswith('cvlib.'))))"
    result = _run(sys.executable, "-c", code)
    assert json.loads(result.stdout) == []

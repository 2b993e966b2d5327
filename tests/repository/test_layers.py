"""The library's layers hold, the core type-checks strictly, and the core starts light.

The contracts live in ``.importlinter`` (layers, the side packages'
independence, no import cycle between sibling modules); ``mypy`` settings in
``pyproject.toml`` check ``cvlib.core`` strictly. Both run here so that a
layering mistake fails the tests, not a review.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def test_the_core_type_checks_strictly() -> None:
    result = _run(str(BIN / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


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

"""The grid as plain rows: the same numbers as its DataFrame, and no pandas until a frame is asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.experiments.rows import Rows

ROOT = Path(__file__).resolve().parents[2]


def test_the_rows_are_the_frames_rows() -> None:
    kwargs = {"depths": [3, 5], "branching_factors": [1, 3], "merge_factors": [2]}
    rows = cv.topology_grid(**kwargs, as_frame=False)
    frame = cv.topology_grid(**kwargs)
    assert isinstance(rows, Rows) and len(rows) == len(frame) == 4
    assert rows.to_frame().equals(frame)
    assert list(rows.columns) == list(frame.columns)
    assert rows.column("total_steps") == frame["total_steps"].tolist()
    assert next(iter(rows)) == frame.iloc[0].to_dict()


def test_a_grid_of_rows_never_imports_pandas() -> None:
    code = ("import sys, cvlib as cv; r = cv.topology_grid(as_frame=False); "
            "print(len(r), sorted(m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["96", "[]"]


def test_bad_rows_and_columns_are_named() -> None:
    with pytest.raises(ParameterError, match=r"row 1 has columns \['a', 'c'\], expected \['a', 'b'\]"):
        Rows.from_dicts([{"a": 1, "b": 2}, {"a": 1, "c": 2}])
    with pytest.raises(ParameterError, match="no column 'x'; expected one of a, b"):
        Rows.from_dicts([{"a": 1, "b": 2}]).column("x")
    assert len(Rows.from_dicts([])) == 0 and Rows.from_dicts([]).to_frame().empty

"""A chunk's rows become the Arrow table a pandas frame of them would give, whichever way it is built.

Columns of one plain type are turned into Arrow arrays directly; everything
else goes through pandas. Both ways must give the same column types (strings
as ``large_string``) and the same frame, and a worker's Arrow stream must come
back as the table it sent.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import cvlib as cv
from cvlib.experiments import sweep_chunks


def _through_pandas(rows: list[dict[str, Any]]) -> pa.Table:
    return sweep_chunks._frame_table(rows)


PLAIN = [
    {"task": 0, "family": "chain", "ok": True, "share": 0.5},
    {"task": 1, "family": "tree", "ok": False, "share": math.nan},
    {"task": 2, "family": "", "ok": True, "share": -1.25},
]


def test_plain_columns_become_arrow_arrays_of_the_types_pandas_gives() -> None:
    columns = {key: [row[key] for row in PLAIN] for key in PLAIN[0]}
    direct = sweep_chunks._plain_table(columns)
    assert direct is not None
    assert direct.schema.types == [pa.int64(), pa.large_string(), pa.bool_(), pa.float64()]
    assert direct.schema.equals(_through_pandas(PLAIN).schema.remove_metadata())
    assert direct.column("share").null_count == 1  # NaN is missing, as pandas has it
    pd.testing.assert_frame_equal(direct.to_pandas(), pd.DataFrame(PLAIN))


@pytest.mark.parametrize(
    "odd",
    [
        [None, 1, 2],  # missing values
        [1, 2.5, 3],  # ints and floats mixed
        [True, None, False],  # bools with a gap
        ["a", None, "b"],  # strings with a gap
        [np.int64(1), np.int64(2), np.int64(3)],  # numpy scalars
        [2**63, 1, 2],  # past int64
    ],
    ids=["none", "int-float", "bool-none", "str-none", "numpy", "big-int"],
)
def test_any_other_column_goes_through_pandas(odd: list[Any]) -> None:
    rows = [{"task": i, "family": "x", "odd": value} for i, value in enumerate(odd)]
    assert sweep_chunks._plain_table({key: [row[key] for row in rows] for key in rows[0]}) is None
    table = sweep_chunks.rows_table(rows)
    assert table.schema.field("family").type == pa.large_string()
    assert pa.string() not in table.schema.types  # strings are large_string either way, so chunks concatenate
    pd.testing.assert_frame_equal(table.to_pandas(), pd.DataFrame(rows))


@pytest.mark.parametrize(
    "rows",
    [
        [{"a": 1, "b": "x"}, {"b": "y", "a": 2}, {"a": 3}],  # a row short
        [{"a": 1, "b": "x"}, {"a": 2, "c": "y"}],  # as many keys, not the same
        [{"a": 1, "b": "x"}, {"b": "y", "a": 2}],  # the same keys in another order
    ],
    ids=["short", "other-key", "other-order"],
)
def test_rows_whose_keys_differ_give_the_frame_pandas_gives(rows: list[dict[str, Any]]) -> None:
    pd.testing.assert_frame_equal(sweep_chunks.rows_table(rows).to_pandas(), pd.DataFrame(rows))


@pytest.mark.parametrize(
    "spec",
    [cv.RandomFamily(seed=5, count=40), cv.RandomFamily(seed=5, count=40, policies=["baseline", "timestamp_only"]),
     cv.Grid("D2", depth=[3, 4], branching_factor=[1, 2])],
    ids=["article-pair", "other-policies", "grid"],
)
def test_a_chunk_is_the_frame_of_its_rows_and_travels_as_it_is(spec: Any) -> None:
    n = len(spec)
    rows = spec.rows(0, n)
    table = sweep_chunks.chunk_table(spec, 0, n)
    pd.testing.assert_frame_equal(table.to_pandas(), pd.DataFrame(rows))
    assert sweep_chunks.read_arrow_bytes(sweep_chunks.chunk_arrow(spec, 0, n)).equals(table)
    parquet = sweep_chunks.read_parquet_bytes(sweep_chunks.chunk_parquet(spec, 0, n))
    pd.testing.assert_frame_equal(parquet.to_pandas(), table.to_pandas())

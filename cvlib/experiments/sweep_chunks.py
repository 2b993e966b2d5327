"""A sweep's chunks as data: rows to Arrow tables, and tables to the bytes workers send and checkpoints keep.

Every backend computes the same unit, :func:`chunk_table`: rows ``start …
stop-1`` of a spec as an Arrow table. A worker sends it back as an Arrow IPC
stream (:func:`chunk_arrow`), which the sweeping process reads without
copying, or, when the sweep is checkpointed, as the Parquet bytes the
checkpoint stores (:func:`chunk_parquet`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from cvlib.experiments.checkpoints import atomic_write

if TYPE_CHECKING:
    from cvlib.experiments.sweep_specs import SweepSpec

__all__ = [
    "chunk_arrow",
    "chunk_bounds",
    "chunk_parquet",
    "chunk_table",
    "parquet_bytes",
    "read_arrow_bytes",
    "read_parquet_bytes",
    "rows_table",
    "task_ids",
    "write_table",
]


def chunk_table(spec: SweepSpec, start: int, stop: int) -> pa.Table:
    """Rows ``start … stop-1`` of ``spec`` as an Arrow table: the unit every backend computes.

    Parameters
    ----------
    spec : SweepSpec
        The sweep's spec.
    start, stop : int
        Task numbers (``stop`` excluded).

    Returns
    -------
    pyarrow.Table
    """
    return rows_table(spec.rows(start, stop))


def rows_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as an Arrow table, with the column types a pandas frame of them would give.

    Rows that share one set of keys (every spec's do) are cut into columns,
    in the first row's order; a column whose values are all of one plain type (int, bool,
    float or str) becomes an Arrow array directly, several times faster than
    through a pandas frame. Anything else (None, mixed types, numpy scalars,
    an int past int64) goes through pandas. Strings are ``large_string``
    either way (what pandas 3 gives; pandas 2 reads either back as the same
    objects), so chunks made either way concatenate.

    Parameters
    ----------
    rows : list of dict
        A spec's rows.

    Returns
    -------
    pyarrow.Table
    """
    keys = tuple(rows[0]) if rows else ()
    if rows and set(map(len, rows)) == {len(keys)}:
        try:  # as many keys in every row, and each of the first row's: the same keys (the first row's order)
            columns = {key: [row[key] for row in rows] for key in keys}
        except KeyError:
            return _frame_table(rows)
        return _plain_table(columns) or _frame_table(columns)
    return _frame_table(rows)


def _frame_table(data: dict[str, list[Any]] | list[dict[str, Any]]) -> pa.Table:
    """Columns or rows through a pandas frame, strings as ``large_string``."""
    import pandas as pd

    table = pa.Table.from_pandas(pd.DataFrame(data), preserve_index=False)
    strings = [i for i, f in enumerate(table.schema) if f.type == pa.string()]
    for i in strings:
        table = table.set_column(i, table.field(i).with_type(pa.large_string()), table.column(i).cast(pa.large_string()))
    return table


#: Python type -> the Arrow type a column of such values becomes.
_PLAIN_TYPES: dict[type, pa.DataType] = {int: pa.int64(), bool: pa.bool_(), float: pa.float64(), str: pa.large_string()}


def _plain_table(columns: dict[str, list[Any]]) -> pa.Table | None:
    """The columns as Arrow arrays if every one holds a single plain type, else None (pandas decides)."""
    arrays = []
    for values in columns.values():
        kinds = set(map(type, values))  # exact types: a bool is not taken for an int, nor a numpy scalar for either
        arrow_type = _PLAIN_TYPES.get(kinds.pop()) if len(kinds) == 1 else None
        if arrow_type is None:
            return None
        try:
            arrays.append(pa.array(values, type=arrow_type, from_pandas=True))  # NaN -> null, as from a frame
        except (pa.ArrowInvalid, OverflowError):  # an int past int64: pandas picks the type
            return None
    return pa.Table.from_arrays(arrays, names=list(columns))


def chunk_parquet(spec: SweepSpec, start: int, stop: int) -> bytes:
    """:func:`chunk_table` encoded as Parquet where it was computed, for a checkpoint to store as it is.

    Parameters
    ----------
    spec : SweepSpec
        The sweep's spec.
    start, stop : int
        Task numbers (``stop`` excluded).

    Returns
    -------
    bytes
    """
    return parquet_bytes(chunk_table(spec, start, stop))


def chunk_arrow(spec: SweepSpec, start: int, stop: int) -> bytes:
    """:func:`chunk_table` as an Arrow IPC stream: what a worker sends when nothing is checkpointed.

    Writing it is a copy of the columns' buffers and reading it back takes
    none, so the sweeping process, which shares the cores with the workers,
    does almost nothing per chunk (decoding Parquet had been most of its time).

    Parameters
    ----------
    spec : SweepSpec
        The sweep's spec.
    start, stop : int
        Task numbers (``stop`` excluded).

    Returns
    -------
    bytes
    """
    table = chunk_table(spec, start, stop)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def read_arrow_bytes(data: bytes) -> pa.Table:
    """A table back from :func:`chunk_arrow`'s bytes, without copying them.

    Parameters
    ----------
    data : bytes
        An Arrow IPC stream.

    Returns
    -------
    pyarrow.Table
    """
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def parquet_bytes(table: pa.Table) -> bytes:
    """The table as the bytes of a Parquet file: what a checkpoint stores and hashes.

    Parameters
    ----------
    table : pyarrow.Table
        A chunk's table.

    Returns
    -------
    bytes
    """
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def read_parquet_bytes(data: bytes) -> pa.Table:
    """A table back from Parquet bytes (types exactly as a checkpoint gives them).

    Parameters
    ----------
    data : bytes
        A Parquet file's bytes.

    Returns
    -------
    pyarrow.Table
    """
    return pq.read_table(pa.BufferReader(data))


def task_ids(table: pa.Table) -> list[int] | None:
    """The ``task`` column of a chunk, if it has one: a chunk must hold the tasks of its range.

    Parameters
    ----------
    table : pyarrow.Table
        A chunk's table.

    Returns
    -------
    list of int or None
    """
    if "task" not in table.column_names:
        return None
    tasks: list[int] = table.column("task").to_pylist()
    return tasks


def chunk_bounds(n: int, chunk_size: int) -> list[tuple[int, int]]:
    """The task ranges ``(start, stop)`` of ``n`` tasks cut into chunks of ``chunk_size`` (the last may be shorter).

    Parameters
    ----------
    n : int
        Tasks.
    chunk_size : int
        Tasks per chunk.

    Returns
    -------
    list of (int, int)
    """
    return [(lo, min(lo + chunk_size, n)) for lo in range(0, n, chunk_size)]


def write_table(table: pa.Table, path: Path) -> None:
    """Write ``table`` to the Parquet file ``path`` atomically (a reader never sees half a file).

    Parameters
    ----------
    table : pyarrow.Table
        The sweep's result.
    path : Path
        Where to write it.
    """
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))



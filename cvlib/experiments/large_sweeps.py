"""Sweeps that run serially, on local processes or on Dask, and resume after a crash.

A sweep is a list of *tasks* numbered 0 … n-1 (a :class:`Grid` of one named
scenario's parameters, or a seeded :class:`RandomFamily` of random plans),
cut into fixed-size *chunks*. Each chunk is computed by a pure function of
(spec, start, stop), so it does not matter which process computes it, in what
order, or how many times: :func:`sweep` puts the chunks back in task order,
and the result is identical whatever the backend and the number of workers.
The chunk size is a parameter of the sweep, never derived from the backend.

Backends (``backend=``):

* ``"serial"``: in this process, chunk after chunk (the default);
* ``"processes"``: a pool of local processes (:mod:`concurrent.futures`),
  forked from a server that imported cvlib once (``forkserver``), each
  watching a pipe from the sweeping process so that none outlives it;
* ``"dask"``: :mod:`dask.distributed`, on a fresh ``LocalCluster`` of
  ``workers`` single-threaded worker processes, or on an existing cluster
  given by its scheduler ``address`` or by a ``client`` already connected
  to it. If a worker dies mid-sweep, Dask's
  scheduler reschedules the chunks it held on the surviving (or restarted)
  workers; each chunk is collected once, by its future, so nothing is lost
  or counted twice.

Both specs take ``policies=`` (names, ``"module:attribute"`` references or
policy objects; default the article's two): each executor's numbers are
columns ``{policy}_{metric}``, and the policy list is part of the sweep's
identity, so a checkpoint of one set of executors never resumes another.
A policy object travels to the parallel backends by pickle, so its class
must be importable there: the processes backend's workers see the sweeping
process's ``sys.path``.

With ``checkpoint=DIR``, every finished chunk is written to
``DIR/chunk-NNNNNN.parquet`` as it arrives, atomically, and recorded in a
``sweep.json`` manifest with the sweep's identity and each chunk's task range,
row count and SHA-256 (see :mod:`cvlib.experiments.checkpoints`). Running the
same sweep again with the same folder uses only the chunks that pass
verification and recomputes the others with a warning, so an interrupted
sweep resumes without recomputing finished work and a damaged, edited or
foreign chunk never reaches the result; a different sweep in the same folder
is refused. The result is assembled from the Arrow tables of the chunks, so a
resumed sweep writes the same Parquet bytes as an uninterrupted one.

Without a checkpoint, a worker sends its chunk back as an Arrow IPC stream,
which the sweeping process reads without copying; with one, as the Parquet
bytes the checkpoint stores. Either way the sweeping process, which shares
the machine's cores with the workers, does little more than put the chunks
in order and make one frame at the end.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from cvlib.core.errors import ParameterError, SweepError
from cvlib.core.validation import require_choice, require_int
from cvlib.experiments.checkpoints import Checkpoint, cvlib_version
from cvlib.experiments.sweep_backends import PRELOAD, QUIET_DASK, RUNNERS, local_client
from cvlib.experiments.sweep_chunks import (
    chunk_bounds,
    parquet_bytes,
    read_arrow_bytes,
    read_parquet_bytes,
    task_ids,
    write_table,
)
from cvlib.experiments.sweep_specs import Grid, RandomFamily, SweepSpec
from cvlib.scenarios.sizes import check_runs

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BACKENDS",
    "CHUNKS_PER_WORKER",
    "DEFAULT_CHUNK_SIZE",
    "PRELOAD",
    "QUIET_DASK",
    "Grid",
    "RandomFamily",
    "SweepError",
    "SweepSpec",
    "auto_chunk_size",
    "local_client",
    "sweep",
]

#: The backends a sweep runs on (see :mod:`cvlib.experiments.sweep_backends`).
BACKENDS: tuple[str, ...] = ("serial", "processes", "dask")

#: Tasks per chunk of a serial or checkpointed sweep when none is given; small enough for a progress bar that
#: moves, large enough to amortise the chunk's own costs.
DEFAULT_CHUNK_SIZE = 500

#: Chunks each worker gets, on average, when a parallel sweep chooses its own chunk size.
CHUNKS_PER_WORKER = 8


def auto_chunk_size(tasks: int, backend: str, workers: int, checkpointed: bool = False) -> int:
    """The chunk size :func:`sweep` uses when it is given none: a few large chunks per worker on parallel backends.

    Every chunk a parallel sweep sends costs the sweeping process some
    CPU, on the same cores the workers compute on: measured on 2 cores
    with the random family (plans of 90-100 µs, chunks of 1,000), about
    0.1 ms a chunk for the processes backend and 5 ms for Dask (its
    scheduler and client), against about 4 ms of the worker's own to turn a
    chunk into an Arrow table. Eight chunks a worker keep it near 2 % of the
    cores' time for 40,000 plans on Dask, and less for longer sweeps. Fewer, larger chunks would lengthen the end of a
    sweep in which one worker is held up (it finishes up to one chunk, an
    eighth of its share, after the others); when the workers run alike,
    chunks of equal tasks end together. A serial sweep has no
    scheduling to amortise and a checkpointed one must cut the same chunks
    when it resumes, whatever the workers then, so both keep
    :data:`DEFAULT_CHUNK_SIZE`.

    Parameters
    ----------
    tasks : int
        The sweep's tasks.
    backend : str
        One of :data:`BACKENDS`.
    workers : int
        Worker processes.
    checkpointed : bool
        Whether the sweep keeps a checkpoint.

    Returns
    -------
    int
        At least 1; for a parallel sweep, large enough that each worker has at least one chunk of
        up to :data:`DEFAULT_CHUNK_SIZE` tasks.
    """
    tasks = require_int("tasks", tasks, minimum=0)
    workers = require_int("workers", workers, minimum=1)
    require_choice("sweep backend", backend, BACKENDS)
    if backend == "serial" or checkpointed:
        return DEFAULT_CHUNK_SIZE
    shared = -(-tasks // (workers * CHUNKS_PER_WORKER))
    smallest = min(DEFAULT_CHUNK_SIZE, -(-tasks // workers))
    return max(1, shared, smallest)


# -- the sweep -------------------------------------------------------------------------


def sweep(
    spec: SweepSpec,
    *,
    backend: str = "serial",
    workers: int = 2,
    address: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool = True,
    retries: int = 2,
) -> pd.DataFrame:
    """Run every task of ``spec`` and return one row per task, in task order.

    Parameters
    ----------
    spec:
        A :class:`Grid` or a :class:`RandomFamily` (anything with ``len``,
        ``rows(start, stop)`` and ``describe()``, picklable for the parallel
        backends).
    backend:
        ``"serial"``, ``"processes"`` or ``"dask"``; the rows are identical,
        and identically ordered, whichever is used.
    workers:
        Worker processes for ``"processes"`` and for the Dask LocalCluster.
        The processes backend forks them from a server that has imported
        cvlib once, and each exits when the sweeping process ends, however
        it ends.
    address:
        Scheduler address of an existing Dask cluster (``backend="dask"``
        only); None starts a LocalCluster for this sweep.
    client:
        An existing :class:`dask.distributed.Client` to run on
        (``backend="dask"`` only), instead of ``address``: the sweep uses it
        and leaves it open, so several sweeps share one cluster without
        paying for a new one each.
    chunk_size:
        Tasks per chunk, the unit of work, checkpointing and retry. Part of
        the sweep's identity: resuming needs the same value. None: chosen by
        :func:`auto_chunk_size` (eight chunks a worker on a parallel
        backend, :data:`DEFAULT_CHUNK_SIZE` serially or with a checkpoint).
    checkpoint:
        Folder for finished chunks; an interrupted sweep run again with the
        same folder resumes where it stopped, after verifying every chunk
        it finds there.
    out:
        Parquet file to write the result to (atomically).
    progress:
        Show a tqdm progress bar (on stderr) counting tasks.
    retries:
        Extra attempts Dask makes for a chunk whose function raised.

    Returns
    -------
    pandas.DataFrame
        One row per task, in task order, whatever the backend.
    """
    if backend not in RUNNERS:
        raise ParameterError(f"unknown sweep backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    workers = require_int("workers", workers, minimum=1)
    if chunk_size is not None:
        chunk_size = require_int("chunk_size", chunk_size, minimum=1)
    retries = require_int("retries", retries, minimum=0)
    if address is not None and backend != "dask":
        raise ParameterError(f"a scheduler address ({address!r}) only makes sense with backend='dask', got {backend!r}")
    if client is not None:
        if backend != "dask":
            raise ParameterError(f"a Dask client only makes sense with backend='dask', got {backend!r}")
        if address is not None:
            raise ParameterError(f"give a Dask client or a scheduler address, not both (address {address!r})")
        if not callable(getattr(client, "submit", None)):
            raise ParameterError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
    n = check_runs("the sweep's tasks", len(spec))
    if chunk_size is None:
        chunk_size = auto_chunk_size(n, backend, workers, checkpointed=checkpoint is not None)
    bounds = chunk_bounds(n, chunk_size)
    manifest = {"spec": spec.describe(), "tasks": n, "chunk_size": chunk_size}
    token = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]
    identity = {**manifest, "seed": getattr(spec, "seed", None), "cvlib_version": cvlib_version()}
    store = Checkpoint(checkpoint, identity, bounds) if checkpoint is not None else None
    try:
        return _run_chunks(spec, bounds, store, backend, workers, address, client, retries, token, out, progress)
    finally:
        if store is not None:
            store.close()


def _run_chunks(
    spec: SweepSpec,
    bounds: list[tuple[int, int]],
    store: Checkpoint | None,
    backend: str,
    workers: int,
    address: str | None,
    client: Any,
    retries: int,
    token: str,
    out: str | os.PathLike[str] | None,
    progress: bool,
) -> pd.DataFrame:
    """Chunks from a verified checkpoint, the others computed (and saved); all in task order."""
    n = bounds[-1][1] if bounds else 0
    tables: dict[int, pa.Table] = store.verified(read_parquet_bytes, task_ids) if store is not None else {}
    todo = [(chunk, lo, hi) for chunk, (lo, hi) in enumerate(bounds) if chunk not in tables]
    from tqdm import (
        tqdm,  # plain text bar on stderr; tqdm.auto warns in kernels without widgets
    )

    finished = n - sum(hi - lo for _, lo, hi in todo)
    with tqdm(total=n, initial=finished, unit="task", disable=not progress, desc=f"sweep ({backend})") as bar:
        if todo:
            runner = RUNNERS[backend]
            transport = "parquet" if store is not None else "arrow"
            for chunk, got in runner(
                spec, todo, workers=workers, address=address, client=client, retries=retries, token=token,
                transport=transport,
            ):
                if chunk in tables:
                    raise SweepError(f"chunk {chunk} came back twice")  # cannot happen: one future per chunk
                if store is not None:
                    data = got if isinstance(got, bytes) else parquet_bytes(got)  # workers send Parquet bytes
                    table = read_parquet_bytes(data)  # what a resumed sweep will read: both give identical frames
                    store.save(chunk, data, table.num_rows)
                else:
                    table = read_arrow_bytes(got) if isinstance(got, bytes) else got
                tables[chunk] = table
                bar.update(table.num_rows)
    missing = [chunk for chunk in range(len(bounds)) if chunk not in tables]
    if missing:
        raise SweepError(f"chunks {missing[:10]} never came back")
    ordered = [tables[chunk] for chunk in range(len(bounds))]
    table = pa.concat_tables(ordered, promote_options="default").combine_chunks() if ordered else pa.table({})
    if out is not None:
        write_table(table, Path(out))
    return table.to_pandas()

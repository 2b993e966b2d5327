"""Where a sweep's chunks are computed: in this process, on a pool of local processes, or on Dask.

Each backend takes the chunks still to do and yields ``(chunk, result)`` as
they finish, in any order; :func:`~cvlib.experiments.large_sweeps.sweep`
puts them back in task order. The processes backend forks its workers from a
server that imported cvlib once (``forkserver``), each watching a pipe from
the sweeping process so that none outlives it; the Dask backend runs on a
fresh quiet ``LocalCluster`` (:func:`local_client`), on a scheduler's address,
or on a client the caller already holds.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import SweepError
from cvlib.core.validation import require_int
from cvlib.experiments.sweep_chunks import chunk_arrow, chunk_parquet, chunk_table

if TYPE_CHECKING:
    import pyarrow as pa

    from cvlib.experiments.sweep_specs import SweepSpec

__all__ = ["ENCODERS", "PRELOAD", "QUIET_DASK", "RUNNERS", "local_client"]


def _serial(spec: SweepSpec, todo: list[tuple[int, int, int]], **_: Any) -> Iterator[tuple[int, pa.Table]]:
    for chunk, lo, hi in todo:
        yield chunk, chunk_table(spec, lo, hi)


#: What the processes backend's fork server imports once, so its workers start with what a chunk needs loaded
#: (pyarrow loads pandas on its first array, so pandas is named: otherwise every worker would import it).
PRELOAD = ("cvlib.experiments.large_sweeps", "pandas", "pyarrow.ipc", "pyarrow.pandas_compat")


def _worker_context() -> Any:
    """A ``forkserver`` context whose server has imported cvlib (``spawn`` where there is no fork server).

    Each worker is forked from the server, so it starts with this module and
    everything it imports already loaded, instead of importing cvlib afresh
    as a spawned interpreter does; the server itself is a fresh interpreter,
    so it is safe to use from a threaded parent (a notebook kernel, Dask),
    which ``fork`` is not.
    """
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def _watch_parent(lifeline: Any, path: list[str] | None = None) -> None:
    """Worker initializer: take the sweeping process's ``sys.path``, and exit as soon as that process is gone.

    The path first, so that a policy object defined in a module the sweeping
    process can import (a plugin, a module beside a notebook) unpickles here.

    ``lifeline`` is the read end of a pipe whose only write end the sweeping
    process holds. Nothing is ever written to it: when that process ends, in
    whatever way (even ``SIGKILL``), the write end closes, the read returns
    end-of-file, and the worker exits instead of waiting for tasks forever.
    """
    import sys
    import threading

    if path is not None:
        sys.path[:] = [*path, *(p for p in sys.path if p not in path)]

    def wait() -> None:
        try:
            lifeline.recv_bytes()
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=wait, name="cvlib-sweep-lifeline", daemon=True).start()


def _uses_main(spec: object) -> bool:
    """Whether ``spec`` (pickled, as it travels to workers) refers to anything defined in ``__main__``."""
    import pickle

    return b"__main__" in pickle.dumps(spec)


@contextmanager
def _workers_skip_main(spec: object) -> Iterator[None]:
    """While workers start, keep them from re-running the sweeping process's main script, unless the spec needs it.

    A worker started by the fork server (or spawned, as Dask's are) first
    re-runs the main module from ``__main__.__file__``. A sweep of cvlib's
    specs never needs it, and it breaks two common cases: a script read from
    standard input (``python - <<EOF``: no file ``<stdin>``, every worker died
    at once with a raw ``BrokenProcessPool``) and a script without an
    ``if __name__ == "__main__":`` guard (each worker would start the sweep
    again). So the main module's file is hidden while the workers start. A
    spec or policy defined in the main script itself does need it: then the
    file is left alone (a script needs the guard, as with any
    multiprocessing), and a script on standard input gets a one-line
    :class:`~cvlib.core.errors.SweepError` instead, since no worker can import it.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None:  # python -c, a notebook kernel's own main: nothing to re-run
        yield
        return
    if _uses_main(spec):
        if not os.path.isfile(path):
            raise SweepError(
                f"this sweep's spec or policies are defined in {path!r}, which worker processes cannot import; "
                "define them in a module, or use backend='serial'"
            )
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def _import_pandas() -> None:
    import pandas  # noqa: F401


def _processes(
    spec: SweepSpec, todo: list[tuple[int, int, int]], workers: int, transport: str, **_: Any
) -> Iterator[tuple[int, bytes]]:
    import sys
    import threading
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if "pandas" not in sys.modules:
        # The result is a frame, so this process needs pandas by the end; import it while the first submit
        # waits for the fork server to start (a second interpreter importing cvlib), not after the last chunk.
        threading.Thread(target=_import_pandas, name="cvlib-sweep-import", daemon=True).start()
    context = _worker_context()
    lifeline, keep_alive = context.Pipe(duplex=False)
    try:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_watch_parent, initargs=(lifeline, list(sys.path))
        ) as pool:
            with _workers_skip_main(spec):  # the workers start at the first submit
                compute = ENCODERS[transport]
                futures = {pool.submit(compute, spec, lo, hi): chunk for chunk, lo, hi in todo}
            for future in as_completed(futures):
                yield futures[future], future.result()
    finally:
        # Only after every worker has gone: closing the write end tells any straggler to exit.
        keep_alive.close()
        lifeline.close()


def _dask(
    spec: SweepSpec,
    todo: list[tuple[int, int, int]],
    workers: int,
    address: str | None,
    client: Any,
    retries: int,
    token: str,
    transport: str,
    **_: Any,
) -> Iterator[tuple[int, bytes]]:
    from dask.distributed import Client, as_completed

    local = None
    own_client = client is None
    if client is not None:
        pass  # the caller's client, on the caller's cluster: used, never closed
    elif address is None:
        local = local_client(workers)
        client = local.__enter__()
    else:
        client = Client(address)
    try:
        # One graph for the whole sweep (a submit per chunk is a message to the scheduler each), and results
        # gathered by the client's event loop as they finish rather than one round trip per future.
        chunks, los, his = zip(*todo)
        keys = [f"cvlib-sweep-{token}-{transport}-{chunk}" for chunk in chunks]
        mapped = client.map(
            ENCODERS[transport], [spec] * len(todo), los, his, key=keys, retries=retries, pure=False
        )
        futures = {future.key: chunk for future, chunk in zip(mapped, chunks)}
        for future, data in as_completed(mapped, with_results=True):
            yield futures[future.key], data
    finally:
        if local is not None:
            local.__exit__(None, None, None)
        elif own_client:
            client.close()


#: Dask settings for the local cluster a sweep starts, with the periodic monitors (which a sweep of a few
#: seconds does not need) slowed or off. With Dask's defaults an idle cluster of 2 workers kept about
#: 7 % of a core busy in the sweeping process (which hosts the scheduler and the nannies) and 12 % in the
#: workers (a statistical profiler sampling every 10 ms, a GIL monitor every 1 ms, the event loops'
#: 20 ms tick); on 2 cores that time comes out of the sweep's own.
QUIET_DASK: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
}


@contextmanager
def local_client(workers: int = 2) -> Iterator[Any]:
    """A quiet Dask ``LocalCluster`` of ``workers`` single-threaded processes, and a client on it.

    Start it once and hand the client to every sweep (``sweep(spec,
    backend="dask", client=client)``) instead of letting each sweep start a
    cluster of its own; a client on a cluster that is already running
    (``dask.distributed.Client("tcp://scheduler:8786")``) is used the same way.
    The cluster's dashboard takes any free port and its logs are silenced, so
    a notebook's output does not depend on the machine; its monitors run
    rarely or not at all (:data:`QUIET_DASK`), so that an idle cluster does
    not take CPU from the sweep on a small machine.

    Parameters
    ----------
    workers : int
        Worker processes.

    Returns
    -------
    dask.distributed.Client
        Yielded by the context manager; cluster and client are closed on exit.
    """
    import logging

    import dask
    from dask.distributed import Client, LocalCluster

    workers = require_int("workers", workers, minimum=1)
    # The workers take the configuration in force when they start (their nannies hand it over).
    with _workers_skip_main(None), dask.config.set(QUIET_DASK):  # the workers start here, as spawned interpreters
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never clash with a running cluster
            silence_logs=logging.CRITICAL,
        )
    try:
        with Client(cluster) as client:
            yield client
    finally:
        cluster.close()


#: Each backend's runner by name (see :data:`~cvlib.experiments.large_sweeps.BACKENDS`).
RUNNERS: dict[str, Callable[..., Iterator[tuple[int, pa.Table | bytes]]]] = {
    "serial": _serial,
    "processes": _processes,
    "dask": _dask,
}

#: How a worker sends a chunk back, by transport; Parquet when the chunk is checkpointed (the bytes are
#: stored as they come), else an Arrow IPC stream, which costs the sweeping process almost nothing to read.
ENCODERS: dict[str, Callable[[SweepSpec, int, int], bytes]] = {"parquet": chunk_parquet, "arrow": chunk_arrow}



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
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from cvlib.core.errors import ParameterError, SweepError
from cvlib.core.executors import (
    BASELINE,
    Policy,
    PolicyLike,
    article_pair_small,
    is_article_pair,
    policy_columns,
    resolve_policies,
    run_policy,
)
from cvlib.core.law import break_ticks, predicted_pfw, predicted_pfw_masks
from cvlib.core.validation import require_choice, require_int
from cvlib.experiments.article import run_row
from cvlib.experiments.checkpoints import Checkpoint, atomic_write, cvlib_version
from cvlib.scenarios.named import get_scenario, setup_scenario
from cvlib.scenarios.random_plans import FALSE_ALARM, FAMILIES, REPLACE, family_mask_draws, random_setup
from cvlib.scenarios.sizes import check_runs, random_plan_size

if TYPE_CHECKING:
    import pandas as pd

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


class SweepSpec(Protocol):
    """What :func:`sweep` needs from a spec: a length, rows for a range of tasks, and a description."""

    def __len__(self) -> int: ...

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """One result row for each task ``start`` up to (not including) ``stop``.

        Parameters
        ----------
        start, stop : int
            Task numbers.

        Returns
        -------
        list of dict
        """
        ...

    def describe(self) -> dict[str, Any]:
        """A JSON-able description that identifies the sweep (a resumed run must match it).

        Returns
        -------
        dict
        """
        ...


# -- specs -----------------------------------------------------------------------------


def _scalar_values(name: str, values: object) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ParameterError(f"grid parameter {name!r} needs a list of values, got {type(values).__name__} {values!r}")
    out = tuple(values)
    if not out:
        raise ParameterError(f"grid parameter {name!r} needs at least one value, got an empty list")
    return out


@dataclass(frozen=True, slots=True)
class Grid:
    """Every combination of parameter values for one named scenario, the last parameter varying fastest.

    ``Grid("D2", depth=[3, 4], branching_factor=[1, 2])`` is four tasks. Each
    row holds the task number, the scenario, its parameters and the numbers of
    :func:`cvlib.experiments.article.run_row` for each of ``policies`` (default:
    the article's two).
    """

    scenario: str
    params: tuple[tuple[str, tuple[Any, ...]], ...] = field(default=())
    policies: tuple[Policy, ...] = field(default=())

    def __init__(
        self, scenario: str, *, policies: Iterable[PolicyLike] | None = None, **params: Iterable[Any]
    ) -> None:
        definition = get_scenario(scenario)
        checked = tuple((name, _scalar_values(name, values)) for name, values in params.items())
        definition.resolve({name: values[0] for name, values in checked})  # names, early
        for name, values in checked:  # and every value, before any task runs
            for value in values:
                definition.resolve({name: value})
        object.__setattr__(self, "scenario", scenario)
        object.__setattr__(self, "params", checked)
        object.__setattr__(self, "policies", resolve_policies(policies))

    def __len__(self) -> int:
        return math.prod(len(values) for _, values in self.params)

    def task(self, index: int) -> dict[str, Any]:
        """The parameters of task ``index`` (mixed-radix digits, last parameter fastest).

        Parameters
        ----------
        index : int
            The task's number.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {}
        for name, values in reversed(self.params):
            index, digit = divmod(index, len(values))
            out[name] = values[digit]
        return dict(reversed(list(out.items())))

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Run tasks ``start`` up to (not including) ``stop``: one row each.

        Parameters
        ----------
        start, stop : int
            Task numbers.

        Returns
        -------
        list of dict
            The task number, the scenario, its parameters and :func:`~cvlib.experiments.article.run_row`.
        """
        rows = []
        for index in range(start, stop):
            params = self.task(index)
            run = setup_scenario(self.scenario, **params).run(policies=self.policies)
            rows.append({"task": index, "scenario": self.scenario, **params, **run_row(run)})
        return rows

    def describe(self) -> dict[str, Any]:
        """The scenario, its parameter values and the executors' names, JSON-able (a resumed run must match it).

        Returns
        -------
        dict
        """
        return {
            "kind": "grid",
            "scenario": self.scenario,
            "params": [[n, list(v)] for n, v in self.params],
            "policies": [p.name for p in self.policies],
        }


@dataclass(frozen=True, slots=True)
class RandomFamily:
    """Tasks ``0 … count-1`` of a seeded family of random scenarios (:func:`cvlib.scenarios.random_plans.random_setup`).

    Each row checks the generalized law on one plan: ``predicted_pfw`` is
    ``cv.predicted_pfw(plan, cv.break_ticks(events))`` from structure alone,
    ``baseline_pfw`` what the baseline executor did, ``law_holds`` whether
    they agree; ``validity_aware_pfw`` should always be 0. Each of
    ``policies`` (default: the article's two) adds its ``{policy}_pfw``,
    ``_steps``, ``_completed`` and ``_verifications``; ``law_holds`` needs
    the baseline among them (it is None otherwise).
    """

    seed: int
    count: int
    family: str = "mixed"
    max_steps: int = 60
    policies: tuple[Policy, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "policies", resolve_policies(self.policies))
        require_int("seed", self.seed)
        require_int("count", self.count, minimum=0)
        require_int("max_steps", self.max_steps, minimum=1)
        require_choice("plan family", self.family, (*FAMILIES, "mixed"))
        check_runs("count", self.count)
        random_plan_size(self.family, self.max_steps).check()

    def __len__(self) -> int:
        return self.count

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Generate and run plans ``start`` up to (not including) ``stop``: one row each.

        Parameters
        ----------
        start, stop : int
            Plan numbers.

        Returns
        -------
        list of dict
        """
        chosen = self.policies or ()
        if is_article_pair(chosen):
            return _article_rows(self.seed, start, stop, self.family, self.max_steps)
        rows = []
        for index in range(start, stop):
            setup = random_setup(self.seed, index, family=self.family, max_steps=self.max_steps)
            plan, events = setup.plan, setup.events
            breaks = break_ticks(events)
            results = {p.name: run_policy(p, plan, setup.new_world(), setup.at_risk, setup.budget) for p in chosen}
            predicted = predicted_pfw(plan, breaks)
            baseline = results.get(BASELINE)
            rows.append(
                {
                    "task": index,
                    "family": setup.params["family"],
                    "total_steps": len(plan),
                    "facts": len(plan.facts),
                    "broken_facts": len(breaks),
                    "events": len(events),
                    "closure_size": plan.closure_size(setup.at_risk),
                    "predicted_pfw": predicted,
                    **policy_columns(results, ("pfw",)),
                    "law_holds": None if baseline is None else predicted == baseline.pre_failure_work,
                    **policy_columns(results, ("steps", "completed", "verifications")),
                    "budget": setup.budget,
                }
            )
        return rows

    def describe(self) -> dict[str, Any]:
        """Seed, count, family, size limit and the executors' names, JSON-able (a resumed run must match it).

        Returns
        -------
        dict
        """
        return {
            "kind": "random",
            "seed": self.seed,
            "count": self.count,
            "family": self.family,
            "max_steps": self.max_steps,
            "policies": [p.name for p in self.policies or ()],
        }


def _article_rows(seed: int, start: int, stop: int, family: str, max_steps: int) -> list[dict[str, Any]]:
    """:meth:`RandomFamily.rows` for the article's two executors, from plans drawn as bit masks.

    The same rows as running each setup's worlds through :func:`run_policy`
    (random setups run under the article's rules, with every fact ACTIVE at
    the start) and the law through :func:`~cvlib.core.law.predicted_pfw`:
    each plan is drawn as its closure masks in execution order, without its
    graph or its setup (:func:`~cvlib.scenarios.random_plans.family_mask_draws`),
    both executors run on the masks
    (:func:`~cvlib.core.executors.article_pair_small`) and so does the law
    (:func:`~cvlib.core.law.predicted_pfw_masks`).
    """
    rows = []
    by_tick = itemgetter(0)
    for index, (chosen, closures, first_action, required, horizons, events, at_risk) in enumerate(
        family_mask_draws(seed, start, stop, family=family, max_steps=max_steps), start
    ):
        breaks = [(tick, 1 << k) for tick, k, code in events if code != FALSE_ALARM]  # a fact breaks at most once
        # The world's schedule: by tick, ties in the order given (sorted is stable).
        schedule = [(tick, k, code == REPLACE, code != FALSE_ALARM) for tick, k, code in sorted(events, key=by_tick)]
        n = len(closures)
        closure_size = sum(map((1 << at_risk).__and__, closures)) >> at_risk  # the steps whose closure holds the bit
        budget = n + closure_size + 1
        base, aware = article_pair_small(closures, first_action, horizons, schedule, closure_size + 1, budget)
        predicted = predicted_pfw_masks(closures, first_action, breaks)
        rows.append(
            {
                "task": index,
                "family": chosen,
                "total_steps": n,
                "facts": len(required),
                "broken_facts": len(breaks),
                "events": len(events),
                "closure_size": closure_size,
                "predicted_pfw": predicted,
                "baseline_pfw": base[4],
                "validity_aware_pfw": aware[4],
                "law_holds": predicted == base[4],
                "baseline_steps": base[1],
                "validity_aware_steps": aware[1],
                "baseline_completed": base[0],
                "validity_aware_completed": aware[0],
                "baseline_verifications": base[3],
                "validity_aware_verifications": aware[3],
                "budget": budget,
            }
        )
    return rows


# -- chunks ----------------------------------------------------------------------------


def _chunk_table(spec: SweepSpec, start: int, stop: int) -> pa.Table:
    """Rows ``start … stop-1`` of ``spec`` as an Arrow table: the unit every backend computes."""
    return _rows_table(spec.rows(start, stop))


def _rows_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as an Arrow table, with the column types a pandas frame of them would give.

    Rows that share one set of keys (every spec's do) are cut into columns,
    in the first row's order; a column whose values are all of one plain type (int, bool,
    float or str) becomes an Arrow array directly, several times faster than
    through a pandas frame. Anything else (None, mixed types, numpy scalars,
    an int past int64) goes through pandas. Strings are ``large_string``
    either way (what pandas 3 gives; pandas 2 reads either back as the same
    objects), so chunks made either way concatenate.
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


def _chunk_parquet(spec: SweepSpec, start: int, stop: int) -> bytes:
    """:func:`_chunk_table` encoded as Parquet where it was computed, for a checkpoint to store as it is."""
    return _parquet_bytes(_chunk_table(spec, start, stop))


def _chunk_arrow(spec: SweepSpec, start: int, stop: int) -> bytes:
    """:func:`_chunk_table` as an Arrow IPC stream: what a worker sends when nothing is checkpointed.

    Writing it is a copy of the columns' buffers and reading it back takes
    none, so the sweeping process, which shares the cores with the workers,
    does almost nothing per chunk (decoding Parquet had been most of its time).
    """
    table = _chunk_table(spec, start, stop)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _read_arrow_bytes(data: bytes) -> pa.Table:
    """A table back from :func:`_chunk_arrow`'s bytes, without copying them."""
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def _parquet_bytes(table: pa.Table) -> bytes:
    """The table as the bytes of a Parquet file: what a checkpoint stores and hashes."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _read_parquet_bytes(data: bytes) -> pa.Table:
    """A table back from Parquet bytes (types exactly as a checkpoint gives them)."""
    return pq.read_table(pa.BufferReader(data))


def _task_ids(table: pa.Table) -> list[int] | None:
    """The ``task`` column of a chunk, if it has one: a chunk must hold the tasks of its range."""
    if "task" not in table.column_names:
        return None
    tasks: list[int] = table.column("task").to_pylist()
    return tasks


def _chunk_bounds(n: int, chunk_size: int) -> list[tuple[int, int]]:
    return [(lo, min(lo + chunk_size, n)) for lo in range(0, n, chunk_size)]


def _write_table(table: pa.Table, path: Path) -> None:
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))


# -- backends --------------------------------------------------------------------------


def _serial(spec: SweepSpec, todo: list[tuple[int, int, int]], **_: Any) -> Iterator[tuple[int, pa.Table]]:
    for chunk, lo, hi in todo:
        yield chunk, _chunk_table(spec, lo, hi)


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
                compute = _ENCODERS[transport]
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
            _ENCODERS[transport], [spec] * len(todo), los, his, key=keys, retries=retries, pure=False
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


_RUNNERS: dict[str, Callable[..., Iterator[tuple[int, pa.Table | bytes]]]] = {
    "serial": _serial,
    "processes": _processes,
    "dask": _dask,
}

#: How a worker sends a chunk back, by transport; Parquet when the chunk is checkpointed (the bytes are
#: stored as they come), else an Arrow IPC stream, which costs the sweeping process almost nothing to read.
_ENCODERS: dict[str, Callable[[SweepSpec, int, int], bytes]] = {"parquet": _chunk_parquet, "arrow": _chunk_arrow}


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
    if backend not in _RUNNERS:
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
    bounds = _chunk_bounds(n, chunk_size)
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
    tables: dict[int, pa.Table] = store.verified(_read_parquet_bytes, _task_ids) if store is not None else {}
    todo = [(chunk, lo, hi) for chunk, (lo, hi) in enumerate(bounds) if chunk not in tables]
    from tqdm import (
        tqdm,  # plain text bar on stderr; tqdm.auto warns in kernels without widgets
    )

    finished = n - sum(hi - lo for _, lo, hi in todo)
    with tqdm(total=n, initial=finished, unit="task", disable=not progress, desc=f"sweep ({backend})") as bar:
        if todo:
            runner = _RUNNERS[backend]
            transport = "parquet" if store is not None else "arrow"
            for chunk, got in runner(
                spec, todo, workers=workers, address=address, client=client, retries=retries, token=token,
                transport=transport,
            ):
                if chunk in tables:
                    raise SweepError(f"chunk {chunk} came back twice")  # cannot happen: one future per chunk
                if store is not None:
                    data = got if isinstance(got, bytes) else _parquet_bytes(got)  # workers send Parquet bytes
                    table = _read_parquet_bytes(data)  # what a resumed sweep will read: both give identical frames
                    store.save(chunk, data, table.num_rows)
                else:
                    table = _read_arrow_bytes(got) if isinstance(got, bytes) else got
                tables[chunk] = table
                bar.update(table.num_rows)
    missing = [chunk for chunk in range(len(bounds)) if chunk not in tables]
    if missing:
        raise SweepError(f"chunks {missing[:10]} never came back")
    ordered = [tables[chunk] for chunk in range(len(bounds))]
    table = pa.concat_tables(ordered, promote_options="default").combine_chunks() if ordered else pa.table({})
    if out is not None:
        _write_table(table, Path(out))
    return table.to_pandas()

"""A description of the machine a measurement was made on, and when (stored next to the numbers)."""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe() -> dict:
    """Cores, memory, CPU model, OS, the versions that matter for timings, and the date (UTC)."""
    import numpy
    import pandas

    import cvlib

    memory = _memory_bytes()
    return {
        "measured_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "memory_gib": round(memory / 2**30, 1) if memory else None,
        "cpu": _cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
        "cvlib": cvlib.__version__,
    }


def load() -> list[float]:
    """The 1-, 5- and 15-minute load averages (how many processes wanted the cores)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _busy_jiffies() -> tuple[int, int] | None:
    """(busy, total) CPU jiffies of the whole machine since boot, from ``/proc/stat``; None elsewhere."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def others_busy(seconds: float = 1.0) -> float | None:
    """How many cores other processes kept busy over ``seconds`` while this one slept (None if unknown).

    The load average lags by a minute and counts the suite's own work; this
    probe sleeps and reads the machine's busy time from ``/proc/stat``, less
    what this process and its descendants used meanwhile (a sweep's worker
    processes still shutting down, a fork server), so what it sees is
    everyone else.
    """
    first, own_first = _busy_jiffies(), _own_tree_jiffies()
    if first is None:
        return None
    time.sleep(seconds)
    second, own_second = _busy_jiffies(), _own_tree_jiffies()
    if second is None or second[1] == first[1]:
        return None
    own = max(0, own_second - own_first)
    cores = os.cpu_count() or 1
    return round(max(0.0, cores * (second[0] - first[0] - own) / (second[1] - first[1])), 2)


class OthersMeter:
    """How many cores other processes kept busy, on average, between :meth:`start` and :meth:`stop`.

    A model row runs for minutes in a child process; a one-second probe before and after (or the
    load average, which lags and counts our own work) misses another user's burst in the middle.
    This reads the machine's busy time and this process tree's own (the child's, once reaped) at
    both ends, so the difference is everyone else's over the whole row.
    """

    def __init__(self) -> None:
        self._first: tuple[int, int] | None = None
        self._own = 0

    def start(self) -> None:
        """Take the first reading."""
        self._first, self._own = _busy_jiffies(), _own_tree_jiffies()

    def stop(self) -> float | None:
        """Cores kept busy by others since :meth:`start` (None where ``/proc`` is missing)."""
        second, own = _busy_jiffies(), _own_tree_jiffies()
        if self._first is None or second is None or second[1] == self._first[1]:
            return None
        others = second[0] - self._first[0] - max(0, own - self._own)
        cores = os.cpu_count() or 1
        return round(max(0.0, cores * others / (second[1] - self._first[1])), 2)


def _own_tree_jiffies() -> int:
    """CPU jiffies used so far by this process's own processes (:func:`own_processes`), from ``/proc``.

    Each counts its own time and that of the children it has reaped
    (``cutime``, ``cstime``), so a worker that exits between two readings
    moves its time into its parent's rather than out of the sum.
    """
    parents: dict[int, int] = {}
    groups: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile, or not readable
        pid = int(entry)
        parents[pid], groups[pid] = int(fields[1]), int(fields[2])
        times[pid] = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return sum(times.get(pid, 0) for pid in own_processes(parents, groups, os.getpid(), os.getpgrp()))


def own_processes(parents: dict[int, int], groups: dict[int, int], root: int, group: int) -> set[int]:
    """``root`` and its descendants, and the orphans of its process group (adopted by process 1) and theirs.

    A fresh interpreter the suite runs (the first-sweep start-up row) can
    exit before its fork server and workers do; those are re-parented to
    process 1 but keep the process group, and their last second of work is
    still the suite's.
    """
    own = descendants(parents, root)
    for pid, ppid in parents.items():
        if ppid == 1 and groups.get(pid) == group != 1:
            own |= descendants(parents, pid)
    return own


def descendants(parents: dict[int, int], root: int) -> set[int]:
    """``root`` and every process below it, from a map of process id to parent id."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    tree, frontier = {root}, [root]
    while frontier:
        for pid in children.get(frontier.pop(), ()):
            if pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return tree

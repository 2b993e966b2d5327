"""Peak memory of one job in a fresh process: ``python -m benchmarks.memory JOB STEPS``.

JOB is ``fast`` (``cv.run_scenario("D1", depth=STEPS)``), ``reference``
(the same scenario with the step-by-step executors of the tests),
``baseline`` (the interpreter with cvlib imported, nothing run) or
``original`` (``python -m benchmarks.memory original STEPS DIR``: the same
chain with the original implementation checked out in DIR). The peak is
the process's maximum resident set (``VmHWM`` in ``/proc/self/status`` on
Linux, ``ru_maxrss`` elsewhere): the interpreter, the imports and the job
together, as a user's process would see it. (``ru_maxrss`` is not used on
Linux because a child inherits its parent's high-water mark through the fork
before ``exec``, so a child of a large process reports the parent's peak.)
Only cvlib's core is imported here (no pandas), so the figure is the job's
own.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def peak_mib() -> float:
    """This process's peak resident memory in MiB."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 1024


def main() -> None:
    job, steps = sys.argv[1], int(sys.argv[2])
    if job == "original":
        from .original import load

        scenarios = load(sys.argv[3])
        start, cpu = time.perf_counter(), time.process_time()
        scenarios.scenario_D_cascade_chain(depth=steps, change_tick=0)
        took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
        print(json.dumps({"job": job, "steps": steps, "peak_mib": round(peak_mib(), 1), "cpu_s": took_cpu,
                          "wall_s": took}))
        return
    import cvlib as cv

    start, cpu = time.perf_counter(), time.process_time()
    if job == "fast":
        cv.run_scenario("D1", depth=steps)
    elif job == "reference":
        from tests.reference_executor import reference_baseline, reference_validity_aware

        setup = cv.setup_scenario("D1", depth=steps)
        setup.structure()
        reference_baseline(setup.plan, setup.new_world(), setup.at_risk, setup.budget)
        reference_validity_aware(setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    elif job != "baseline":
        raise SystemExit(f"unknown job {job!r}; expected fast, reference, baseline or original")
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = peak_mib()
    print(json.dumps({"job": job, "steps": steps, "peak_mib": round(peak, 1), "cpu_s": took_cpu, "wall_s": took}))


if __name__ == "__main__":
    main()

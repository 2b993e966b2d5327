"""Where the time goes: the grid and a million-step chain cut into their phases, each phase timed.

Every claim the Performance chapter makes about where time goes is read from
what this module measures. A phase is timed on its own, over the whole job
(all 96 configurations of the grid; the one million-step scenario), in the
order the real job runs it and on the state the earlier phases leave (a
fresh plan, a fresh set-up), and the phases are timed interleaved with the
whole job. What the phases do not account for (calls between them, the
scenario registry) is reported as the measured remainder, never estimated.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import cvlib as cv
from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact
from cvlib.scenarios import generators, named
from cvlib.scenarios.setup import ScenarioSetup

#: Phase name -> what it covers, in the order a run goes through them.
GRID_PHASES = {
    "checks": "each configuration's parameters checked",
    "plans": "ids, kinds, order (the wiring drawn only when read)",
    "setup": "facts, event, budget, set-up check",
    "structure": "closure size, invalidation depth, law",
    "executors": "both executors, on fresh worlds",
    "table": "the rows",
}


def _grid_configs() -> list[tuple[int, int, int]]:
    from cvlib.experiments.article import GRID_BRANCHING, GRID_DEPTHS, GRID_MERGING

    return [(d, b, m) for d in GRID_DEPTHS for b in GRID_BRANCHING for m in GRID_MERGING]


def _setup(plan: cv.PlanGraph, params: dict[str, int]) -> ScenarioSetup:
    return ScenarioSetup(
        name="D2",
        plan=plan,
        facts=(Fact("F1", "available"),),
        events=(Event(0, "F1", EventKind.REPLACE, new_value="unavailable"),),
        at_risk="F1",
        budget=cv.compute_budget(plan, "F1"),
        params=params,
    )


def grid_phases(repeats: int) -> dict[str, Any]:
    """Each phase of the grid's general path timed over the 96 configurations, and that whole path.

    The general path is what ``cv.topology_grid`` does for any executors but
    the article's two (those run on bit masks, timed as the grid row): every
    D2 setup built and checked, both executors on fresh worlds, the rows.
    """
    from cvlib.experiments.article import run_row
    from cvlib.experiments.rows import Rows

    configs = _grid_configs()
    d2 = named.get_scenario("D2")
    params = [{"depth": d, "branching_factor": b, "merge_factor": m, "seed": 0} for d, b, m in configs]
    state: dict[str, Any] = {}

    def checks() -> None:
        for p in params:
            d2.resolve(p)


    def plans() -> None:
        state["plans"] = [generators.branching(d, b, m, seed=0) for d, b, m in configs]

    def setup() -> None:
        state["setups"] = [_setup(plan, p) for plan, p in zip(state["plans"], params)]

    def structure() -> None:
        state["structures"] = [s.structure() for s in state["setups"]]

    def executors() -> None:
        state["results"] = [
            (cv.run_baseline(s.plan, s.new_world(), s.at_risk, s.budget),
             cv.run_validity_aware(s.plan, s.new_world(), s.at_risk, s.budget))
            for s in state["setups"]
        ]

    def table() -> None:
        from cvlib.scenarios.setup import ScenarioRun

        rows = []
        for (d, b, m), s, st, (base, va) in zip(configs, state["setups"], state["structures"], state["results"]):
            run = ScenarioRun("D2", s.params, st, {"baseline": base, "validity_aware": va})
            rows.append({"depth": d, "branching_factor": b, "merge_factor": m, **run_row(run)})
        Rows.from_dicts(rows)

    def pipeline() -> None:
        # The phases that need their predecessors' state, one after the other, untimed.
        plans()
        setup()
        structure()
        executors()

    pipeline()
    phase_jobs: dict[str, Callable[[], None]] = {
        "checks": checks, "plans": plans, "setup": setup,
        "structure": structure, "executors": executors, "table": table,
    }
    def general_path() -> Rows:
        # The grid through the loop, the phases above in one go: every setup built, both executors on fresh worlds
        # (run_setups would take the bit-mask path for the article's two), the rows.
        from cvlib.scenarios.setup import ScenarioRun

        rows = []
        for (d, b, m), p in zip(configs, params):
            s = named.setup_scenario("D2", **p)
            base = cv.run_baseline(s.plan, s.new_world(), s.at_risk, s.budget)
            va = cv.run_validity_aware(s.plan, s.new_world(), s.at_risk, s.budget)
            run = ScenarioRun("D2", s.params, s.structure(), {"baseline": base, "validity_aware": va})
            rows.append({"depth": d, "branching_factor": b, "merge_factor": m, **run_row(run)})
        return Rows.from_dicts(rows)

    timed = _phases_in_order(phase_jobs, general_path, repeats, state.clear)
    return _report(timed, GRID_PHASES, nested={}, steps=sum(len(p) for p in state["plans"]))


SCENARIO_PHASES = {
    "plans": "building the plan",
    "setup": "facts, event, budget, set-up check",
    "structure": "closure size, invalidation depth, law",
    "executors": "both executors, on fresh worlds",
}


def _scenario_pieces(which: str, size: int) -> tuple[str, dict[str, int], Callable[[], cv.PlanGraph], Callable[[], list]]:
    """(scenario name, its parameters, a plan builder, a facts builder) for a chain or isolated branches."""
    if which == "chain":
        return "D1", {"depth": size}, lambda: generators.chain(size), lambda: [Fact("F1", "available")]
    return (
        "D3",
        {"num_branches": size},
        lambda: generators.multi_branch(6, size, 2),
        lambda: [Fact(f, "ok") for f in generators.branch_facts(size)],
    )


def scenario_phases(which: str, size: int, repeats: int) -> dict[str, Any]:
    """Each phase of one large scenario (``"chain"``: D1 at ``size`` steps; ``"branches"``: D3 with ``size`` branches)."""
    name, params, build_plan, build_facts = _scenario_pieces(which, size)
    state: dict[str, Any] = {}

    def plans() -> None:
        state["plan"] = build_plan()

    def setup() -> None:
        plan = state["plan"]
        state["setup"] = ScenarioSetup(
            name=name, plan=plan, facts=tuple(build_facts()),
            events=(Event(0, "F1", EventKind.REPLACE, new_value="broken"),),
            at_risk="F1", budget=cv.compute_budget(plan, "F1"), params=params,
        )

    def structure() -> None:
        state["setup"].structure()

    def executors() -> None:
        s = state["setup"]
        cv.run_baseline(s.plan, s.new_world(), s.at_risk, s.budget)
        cv.run_validity_aware(s.plan, s.new_world(), s.at_risk, s.budget)

    plans()
    setup()
    timed = _phases_in_order(
        {"plans": plans, "setup": setup, "structure": structure, "executors": executors},
        lambda: cv.run_scenario(name, **params),
        repeats,
        state.clear,
    )
    result = _report(timed, SCENARIO_PHASES, nested={}, steps=len(state["plan"]))
    result["scenario"] = f"{name} {', '.join(f'{k}={v:,}' for k, v in params.items())}"
    result["size"] = size
    return result


def _phases_in_order(
    phases: dict[str, Callable[[], None]], whole: Callable[[], Any], repeats: int, reset: Callable[[], None]
) -> dict[str, Any]:
    """Time the phases in their own order (each on the state the previous left) and the whole job, interleaved.

    A round runs the whole job and then every phase in order, or the phases
    and then the whole job, alternately. ``reset`` drops the previous round's
    state, untimed, before the phases run, so that freeing a million-step
    plan is not counted in the phase that builds the next one.
    """
    names = list(phases)

    def in_order() -> dict[str, float]:
        took = {}
        for name in names:
            start = time.process_time()
            phases[name]()
            took[name] = time.process_time() - start
        return took

    per_phase: dict[str, list[float]] = {name: [] for name in names}
    whole_cpu: list[float] = []
    whole_wall: list[float] = []
    for round_ in range(repeats):
        order = ("whole", "phases") if round_ % 2 == 0 else ("phases", "whole")
        for what in order:
            if what == "whole":
                start, cpu = time.perf_counter(), time.process_time()
                whole()
                whole_cpu.append(time.process_time() - cpu)
                whole_wall.append(time.perf_counter() - start)
            else:
                reset()
                for name, took in in_order().items():
                    per_phase[name].append(took)
    return {
        "phases": {name: statistics.median(times) for name, times in per_phase.items()},
        "whole": statistics.median(whole_cpu),
        "whole_wall": statistics.median(whole_wall),
        "runs": repeats,
    }


def _report(timed: dict[str, Any], labels: dict[str, str], nested: dict[str, str], steps: int) -> dict[str, Any]:
    phases = timed["phases"]
    top_level = sum(seconds for name, seconds in phases.items() if name not in nested)
    rows = [
        {
            "phase": name,
            "what": labels[name],
            "cpu_median_s": phases[name],
            "part_of": nested.get(name),
            "share_of_whole": phases[name] / timed["whole"],
        }
        for name in labels
    ]
    rows.append(
        {
            "phase": "remainder",
            "what": "the whole job minus its phases",
            "cpu_median_s": timed["whole"] - top_level,
            "part_of": None,
            "share_of_whole": (timed["whole"] - top_level) / timed["whole"],
        }
    )
    return {"steps": steps, "runs": timed["runs"], "whole_cpu_median_s": timed["whole"],
            "whole_wall_median_s": timed["whole_wall"], "phases": rows}

"""Traces are the runs they describe: same totals as the executors' own results."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.trace import TraceKind, trace_both, trace_run
from cvlib.repository import project_root

SETUPS = {name: (lambda n=name: cv.setup_scenario(n)) for name in cv.scenario_names()}
SETUPS["A depth 6 tick 2"] = lambda: cv.setup_scenario("A", depth=6, change_tick=2)
SETUPS["A budget 5"] = lambda: cv.setup_scenario("A", budget=5)
SETUPS["D2 (4,4,4)"] = lambda: cv.setup_scenario("D2", depth=4, branching_factor=4, merge_factor=4)
SETUPS["two suppliers spec"] = lambda: cv.load_spec(project_root() / "data" / "scenarios" / "two_suppliers.yaml")


@pytest.mark.parametrize("label", list(SETUPS))
def test_trace_result_equals_plain_run(label):
    setup = SETUPS[label]()
    run = setup.run()
    traces = trace_both(setup)
    assert traces["baseline"].result == run.baseline
    assert traces["validity_aware"].result == run.validity_aware


@pytest.mark.parametrize("label", list(SETUPS))
def test_trace_entries_account_for_every_step(label):
    setup = SETUPS[label]()
    for trace in trace_both(setup).values():
        result, entries = trace.result, trace.entries
        position = 0
        for entry in entries:  # contiguous: each stretch starts where the last ended
            assert entry.start == position
            position = entry.end
        assert position == result.steps_used
        kinds = [e.kind for e in entries]
        assert kinds.count(TraceKind.DOOMED) == result.pre_failure_work
        assert kinds.count(TraceKind.REPLAN) == result.replans
        assert kinds.count(TraceKind.VERIFY) + kinds.count(TraceKind.VERIFY_FAILED) == result.verifications


def test_value_change_trace_shows_the_article_mechanism():
    traces = trace_both(cv.setup_scenario("A"))
    base = [(e.step_id, str(e.kind)) for e in traces["baseline"].entries]
    va = [(e.step_id, str(e.kind)) for e in traces["validity_aware"].entries]
    assert base == [("S0", "execute"), ("S1", "doomed"), ("S2", "doomed"), ("S3", "action_failed"), ("S3", "replan")]
    assert va == [("S0", "execute"), ("S1", "replan")]


def test_unknown_executor_is_a_clear_error():
    with pytest.raises(ParameterError, match="unknown executor 'oracle'"):
        trace_run(cv.setup_scenario("A"), "oracle")


def test_trace_frame_has_one_row_per_entry():
    trace = trace_run(cv.setup_scenario("E2"), "validity_aware")
    frame = trace.to_frame()
    assert list(frame.columns) == ["start", "steps", "kind", "step"]
    assert len(frame) == len(trace.entries)
    assert "verify" in set(frame["kind"])

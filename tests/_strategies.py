"""Hypothesis strategies shared by the extension tests: random plans, facts and schedules."""

from __future__ import annotations

from hypothesis import strategies as st

from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, Step, StepKind

FACT_IDS = ("F1", "F2", "F3")


@st.composite
def plans(draw, max_steps: int = 10, multi_action: bool = True, action_last: bool = False) -> PlanGraph:
    """A random DAG: each step after some earlier ones, some facts required, one or more actions."""
    n = draw(st.integers(1, max_steps))
    ids = [f"S{i:02d}" for i in range(n)]
    if draw(st.booleans()):  # shuffled ids exercise the smallest-id tie-break
        ids = draw(st.permutations(ids))
    steps = []
    for i in range(n):
        preds = draw(st.lists(st.sampled_from(ids[:i]), unique=True, max_size=3)) if i else []
        requires = draw(st.lists(st.sampled_from(FACT_IDS), unique=True, max_size=2))
        if i == 0 and not requires:
            requires = ["F1"]
        if action_last:
            kind = StepKind.ACTION if i == n - 1 else StepKind.DECISION
        elif multi_action:
            kind = StepKind.ACTION if i == n - 1 or draw(st.integers(0, 3)) == 0 else StepKind.DECISION
        else:
            kind = StepKind.ACTION if i == n - 1 else StepKind.DECISION
        steps.append(Step(ids[i], kind, frozenset(requires), tuple(preds)))
    if action_last:  # make the action the single sink so it is last in the order
        sinks = [s.id for s in steps[:-1]]
        last = steps[-1]
        steps[-1] = Step(last.id, last.kind, last.requires, tuple(sorted(set(last.predecessors) | set(sinks))))
    return PlanGraph(steps)


@st.composite
def fact_sets(draw, with_horizons: bool = True) -> tuple[Fact, ...]:
    facts = []
    for fid in FACT_IDS:
        horizon = draw(st.one_of(st.none(), st.integers(0, 8))) if with_horizons else None
        facts.append(Fact(fid, 0, valid_until=horizon))
    return tuple(facts)


@st.composite
def schedules(draw, max_events: int = 3, max_tick: int = 12) -> tuple[Event, ...]:
    events = []
    for _ in range(draw(st.integers(0, max_events))):
        tick = draw(st.integers(0, max_tick))
        fid = draw(st.sampled_from(FACT_IDS))
        if draw(st.booleans()):
            events.append(Event(tick, fid, EventKind.REPLACE, new_value=1))
        else:
            events.append(Event(tick, fid, EventKind.AMBIGUOUS, ground_truth_changed=draw(st.booleans())))
    return tuple(events)

"""A policy that watches ACTIVE too is handed every step that rests on a fact, and the results stay the baseline's."""

from __future__ import annotations

from dataclasses import dataclass, field

from cvlib.core.executors import Baseline, run_policy
from cvlib.core.facts import ValidityState
from cvlib.scenarios.named import scenario_names, setup_scenario


@dataclass
class Everything:
    name: str = "watch_everything"
    seen: list[int] = field(default_factory=list)

    def watched_states(self, rules):
        return frozenset(ValidityState)

    def watches_health(self, rules):
        return False

    def check(self, view, run, position, closure):
        self.seen.append(position)
        return None


def test_every_step_on_a_fact_is_handed_over_and_nothing_else_changes() -> None:
    for name in scenario_names():
        setup = setup_scenario(name)
        policy = Everything()
        result = run_policy(policy, setup.plan, setup.new_world(), setup.at_risk, setup.budget)
        base = run_policy(Baseline(), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
        closures = setup.plan.run_columns().closures
        assert policy.seen == [k for k in range(len(policy.seen)) if closures[k]], name
        assert len(policy.seen) == base.decisions_total or not base.completed, name
        same = ("completed", "steps_used", "replans", "verifications", "pre_failure_work", "decisions_on_stale_deps")
        assert {k: getattr(result, k) for k in same} == {k: getattr(base, k) for k in same}, name

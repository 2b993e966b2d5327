"""Scenario spec files: a new scenario without writing Python.

A spec is a YAML or JSON mapping::

    name: two-suppliers         # required: names the scenario in results
    title: Two suppliers        # optional: the title of its book page (default: name)
    description: what it tests  # optional: the page's opening paragraph (Markdown)
    facts:                      # every fact the world starts with
      - {id: F1, value: 420}
      - {id: F2, value: in stock, valid_until: 5}
    plan:                       # either a generator with its parameters ...
      generator: multi_branch
      params: {pre_merge_depth: 3, num_branches: 2, post_merge_depth: 2}
    # ... or explicit steps:
    #   steps:
    #     - {id: S0, kind: plan, requires: [F1]}
    #     - {id: S1, kind: action, after: [S0]}
    events:
      - {tick: 2, fact: F1, kind: replace, new_value: 610}
      - {tick: 1, fact: F2, kind: ambiguous, ground_truth_changed: false}
    at_risk: F1                 # sizes the budget and the recovery cost
    budget: null                # null: steps + closure(at_risk) + 1

Every error names the file, the entry and what was expected. The book page
"The spec file format" (``book/spec_format.md``) documents every key, and
``bash scripts/book.sh --spec FILE`` turns a spec file into a page of the book.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cvlib.core.errors import CvlibError, SpecError
from cvlib.core.events import Event
from cvlib.core.executors import compute_budget
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, Step
from cvlib.core.world import World
from cvlib.scenarios import generators
from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

_TOP_KEYS = {"name", "title", "description", "facts", "plan", "events", "at_risk", "budget"}


def read_spec(path: str | Path) -> dict[str, Any]:
    """Parse a YAML (.yml/.yaml) or JSON (.json) spec file into a mapping."""
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"scenario spec {str(path)!r} does not exist or is not a file")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        elif path.suffix.lower() in {".yml", ".yaml"}:
            import yaml

            data = yaml.safe_load(text)
        else:
            raise SpecError(f"scenario spec {str(path)!r} must end in .yaml, .yml or .json")
    except (json.JSONDecodeError, ImportError) as err:
        raise SpecError(f"scenario spec {str(path)!r} could not be parsed: {err}") from None
    except Exception as err:  # yaml.YAMLError and friends
        if isinstance(err, SpecError):
            raise
        raise SpecError(f"scenario spec {str(path)!r} could not be parsed: {err}") from None
    if not isinstance(data, Mapping):
        raise SpecError(f"scenario spec {str(path)!r} must be a mapping at the top, got {type(data).__name__}")
    return dict(data)


def setup_from_spec(spec: Mapping[str, Any], source: str = "spec") -> ScenarioSetup:
    """Build a scenario setup from a parsed spec mapping."""

    def fail(message: str) -> SpecError:
        return SpecError(f"{source}: {message}")

    unknown = sorted(set(spec) - _TOP_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(map(repr, unknown))}; expected some of {', '.join(sorted(_TOP_KEYS))}")
    for key in ("name", "facts", "plan"):
        if key not in spec:
            raise fail(f"missing required key {key!r}")
    name = spec["name"]
    if not isinstance(name, str) or not name:
        raise fail(f"'name' must be a non-empty string, got {name!r}")
    for key in ("title", "description"):
        text = spec.get(key)
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise fail(f"{key!r} must be a non-empty string (or left out), got {text!r}")

    facts = _facts(spec["facts"], fail)
    plan = _plan(spec["plan"], fail)
    events = _events(spec.get("events") or [], fail)

    try:
        World(facts, events)  # validates fact ids named by events
    except CvlibError as err:
        raise fail(str(err)) from None
    fact_ids = {f.id for f in facts}
    missing = sorted(plan.facts - fact_ids)
    if missing:
        raise fail(f"the plan requires fact(s) {', '.join(map(repr, missing))} that 'facts' does not define")

    at_risk = spec.get("at_risk")
    if at_risk is None:
        if not events:
            raise fail("'at_risk' is required when there are no events to infer it from")
        at_risk = events[0].fact_id
    if at_risk not in plan.facts:
        raise fail(f"'at_risk' fact {at_risk!r} is not required by any step; the plan requires {sorted(plan.facts)}")

    budget = spec.get("budget")
    if budget is None:
        budget = compute_budget(plan, at_risk)
    elif isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise fail(f"'budget' must be a non-negative integer or null, got {budget!r}")

    return ScenarioSetup(
        name=name,
        plan=plan,
        facts=tuple(facts),
        events=tuple(events),
        at_risk=at_risk,
        budget=budget,
        params={"spec": name, "at_risk": at_risk, "budget": spec.get("budget")},
        description=str(spec.get("description", "")),
    )


def load_spec(path: str | Path) -> ScenarioSetup:
    """Read and validate a spec file into a runnable :class:`~cvlib.scenarios.setup.ScenarioSetup`."""
    return setup_from_spec(read_spec(path), source=str(path))


def run_spec(path: str | Path) -> ScenarioRun:
    """Load a spec file and run it on both executors."""
    return load_spec(path).run()


def _facts(raw: Any, fail) -> list[Fact]:
    if not isinstance(raw, list) or not raw:
        raise fail(f"'facts' must be a non-empty list of {{id, value}} mappings, got {raw!r}")
    facts = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or "id" not in entry:
            raise fail(f"facts[{i}] must be a mapping with an 'id', got {entry!r}")
        extra = sorted(set(entry) - {"id", "value", "valid_until"})
        if extra:
            raise fail(f"facts[{i}] has unknown key(s) {extra}; expected id, value, valid_until")
        valid_until = entry.get("valid_until")
        if valid_until is not None and (isinstance(valid_until, bool) or not isinstance(valid_until, int)):
            raise fail(f"facts[{i}].valid_until must be an integer tick or null, got {valid_until!r}")
        if not isinstance(entry["id"], str) or not entry["id"]:
            raise fail(f"facts[{i}].id must be a non-empty string, got {entry['id']!r}")
        facts.append(Fact(entry["id"], entry.get("value"), valid_until=valid_until))
    ids = [f.id for f in facts]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise fail(f"fact id(s) {dupes} are defined more than once")
    return facts


def _plan(raw: Any, fail) -> PlanGraph:
    if not isinstance(raw, Mapping) or ("generator" in raw) == ("steps" in raw):
        raise fail("'plan' must be a mapping with either 'generator' (and 'params') or 'steps', not both")
    try:
        if "generator" in raw:
            params = raw.get("params") or {}
            if not isinstance(params, Mapping):
                raise fail(f"plan.params must be a mapping, got {params!r}")
            return generators.generate(raw["generator"], **params)
        steps_raw = raw["steps"]
        if not isinstance(steps_raw, list) or not steps_raw:
            raise fail(f"plan.steps must be a non-empty list, got {steps_raw!r}")
        steps = []
        for i, entry in enumerate(steps_raw):
            if not isinstance(entry, Mapping) or "id" not in entry or "kind" not in entry:
                raise fail(f"plan.steps[{i}] must be a mapping with 'id' and 'kind', got {entry!r}")
            extra = sorted(set(entry) - {"id", "kind", "requires", "after"})
            if extra:
                raise fail(f"plan.steps[{i}] has unknown key(s) {extra}; expected id, kind, requires, after")
            requires = entry.get("requires") or []
            after = entry.get("after") or []
            if not isinstance(requires, list) or not isinstance(after, list):
                raise fail(f"plan.steps[{i}]: 'requires' and 'after' must be lists")
            for key, names, what in (("requires", requires, "fact ids"), ("after", after, "step ids")):
                bad = [n for n in names if not isinstance(n, str) or not n]
                if bad:
                    raise fail(f"plan.steps[{i}].{key} must list {what} (non-empty strings), got {bad[0]!r}")
            steps.append(Step(str(entry["id"]), entry["kind"], frozenset(requires), tuple(after)))
        return PlanGraph(steps)
    except SpecError:
        raise
    except CvlibError as err:
        raise fail(f"plan: {err}") from None


def _events(raw: Any, fail) -> list[Event]:
    if not isinstance(raw, list):
        raise fail(f"'events' must be a list, got {raw!r}")
    events = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            raise fail(f"events[{i}] must be a mapping, got {entry!r}")
        extra = sorted(set(entry) - {"tick", "fact", "kind", "new_value", "ground_truth_changed"})
        if extra:
            raise fail(f"events[{i}] has unknown key(s) {extra}; expected tick, fact, kind, new_value, ground_truth_changed")
        for key in ("tick", "fact", "kind"):
            if key not in entry:
                raise fail(f"events[{i}] is missing {key!r}")
        try:
            events.append(
                Event(
                    entry["tick"],
                    entry["fact"],
                    entry["kind"],
                    new_value=entry.get("new_value"),
                    ground_truth_changed=entry.get("ground_truth_changed"),
                )
            )
        except CvlibError as err:
            raise fail(f"events[{i}]: {err}") from None
    return events

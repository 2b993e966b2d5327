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
    silent_changes:             # changes no signal announces
      - {tick: 4, fact: F1}
    supports: {F2: warehouse}   # fact -> the resource that makes it usable
    resource_events:            # outages (up: false, the default) and restorations
      - {tick: 3, resource: warehouse}
    rules: {ttl: 4, checker: dependency}   # ExecutionRules fields; left out: the article's
    at_risk: F1                 # sizes the budget and the recovery cost
    budget: null                # null: steps + closure(at_risk) + 1
    policies: [baseline, validity_aware, timestamp_only]  # optional: the executors to compare

The plan's ``generator`` is one of :data:`PLAN_GENERATORS`: every plan family
of the library, the article's three, the random families and a random plan.
``policies`` takes registered executor names (the registry, and the entry
points of installed packages); left out, the article's two run. A spec file is
data, and opening data must not run code: a ``module:attribute`` reference,
which would import that module, is refused before anything is imported unless
the caller opts in (``cvlib spec FILE --trust-code``,
``load_spec(FILE, trust_code=True)``, ``bash scripts/book.sh --spec FILE --trust-code``).

Every error names the file, the entry and what was expected. The book page
"The spec file format" (``book/spec_format.md``) documents every key, and
``bash scripts/book.sh --spec FILE`` turns a spec file into a page of the book.
"""

from __future__ import annotations

import inspect
import json
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from cvlib.core.errors import CvlibError, SpecError
from cvlib.core.events import Event, ResourceEvent, SilentChange
from cvlib.core.executors import PolicyLike, compute_budget, resolve_policies
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, Step
from cvlib.core.rules import ExecutionRules, VerificationModel
from cvlib.core.validation import parse_int, require_int, shown
from cvlib.core.values import fields
from cvlib.core.world import World
from cvlib.scenarios import generators, random_plans
from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

_TOP_KEYS = {"name", "title", "description", "facts", "plan", "events", "at_risk", "budget",
             "silent_changes", "resource_events", "supports", "rules", "policies"}

#: Largest spec file read, in bytes (1 MiB); a scenario is a page of text, not a data set.
DEFAULT_MAX_SPEC_BYTES = 1 << 20
#: Environment variable that changes :data:`DEFAULT_MAX_SPEC_BYTES`.
MAX_SPEC_BYTES_ENV = "CVLIB_MAX_SPEC_BYTES"
#: Longest error message a spec error carries; a hostile file's values are cut, not echoed whole.
_MAX_MESSAGE = 600
#: How a caller who trusts a spec file lets its ``module:attribute`` references run, named in the refusal.
TRUST_CODE_HINT = (
    "cvlib spec FILE --trust-code, load_spec(FILE, trust_code=True) or bash scripts/book.sh --spec FILE --trust-code"
)


def random_plan(family: str, seed: int = 0, max_steps: int = 60) -> PlanGraph:
    """The plan of :func:`cvlib.scenarios.random_plans.random_plan` alone, for a spec's ``generator: random``.

    Parameters
    ----------
    family : str
        One of :data:`cvlib.scenarios.random_plans.FAMILIES`.
    seed : int
        Seed of the size parameters and the wiring.
    max_steps : int
        About how many steps the plan may have.

    Returns
    -------
    PlanGraph
    """
    return random_plans.random_plan(family, seed, max_steps)[0]


#: The plan generators a spec's ``plan.generator`` may name, by name (every plan family of the library).
PLAN_GENERATORS: dict[str, Callable[..., PlanGraph]] = {
    **generators.GENERATORS,
    "layered": random_plans.layered_dag,
    "fan_out": random_plans.isolated_fan_out,
    "random": random_plan,
}

#: The keys of a spec's ``rules`` (the fields of :class:`~cvlib.core.rules.ExecutionRules`), and of its ``verification``.
RULE_KEYS = fields(ExecutionRules)
VERIFICATION_KEYS = fields(VerificationModel)


def max_spec_bytes() -> int:
    """The spec size limit in force: ``CVLIB_MAX_SPEC_BYTES`` if set, else :data:`DEFAULT_MAX_SPEC_BYTES`.

    Returns
    -------
    int
    """
    text = os.environ.get(MAX_SPEC_BYTES_ENV)
    if text is None or not text.strip():
        return DEFAULT_MAX_SPEC_BYTES
    return parse_int(f"the environment variable {MAX_SPEC_BYTES_ENV}", text, minimum=1)


def _read_bytes(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file, or a :class:`SpecError`; never blocks on a FIFO or a device."""
    name = shown(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise SpecError(f"scenario spec {name} cannot be opened: {err.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SpecError(f"scenario spec {name} is not a regular file")
        if info.st_size > limit:
            raise SpecError(
                f"scenario spec {name} is {info.st_size:,} bytes; the limit is {limit:,} "
                f"(raise it with max_bytes= or {MAX_SPEC_BYTES_ENV})"
            )
        chunks, size = [], 0
        while size <= limit:  # the file may grow while it is read: never take more than the limit
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise SpecError(f"scenario spec {name} cannot be read: {err.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise SpecError(f"scenario spec {name} is larger than the limit of {limit:,} bytes (it grew while read)")
    return data


def _decode(data: bytes, name: str) -> str:
    """The file's text: UTF-8 (a leading byte-order mark is allowed), without NUL bytes."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise SpecError(
            f"scenario spec {name} is not UTF-8 text: byte 0x{data[err.start]:02x} at offset {err.start:,} "
            f"(line {line}) cannot be decoded; save the file as UTF-8"
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise SpecError(f"scenario spec {name} holds a NUL character at offset {nul:,}: a binary file, not YAML or JSON")
    return text


def _yaml_problem(err: Exception) -> str:
    """A YAML parser's error as one line: where, then what."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}{context + ' ' if context else ''}{problem}"


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that refuses aliases (``*name``), so a small file cannot expand into a huge one.

    With libyaml, the C parser first scans the events for an alias (a fifth
    of the load's time) and the C loader builds the values; without it, a
    pure-Python loader refuses the alias as it composes.
    """
    import yaml

    def refuse(anchor: object, mark: Any) -> None:
        raise yaml.composer.ComposerError(
            None, None, f"found the alias *{anchor}; spec files may not use YAML aliases", mark
        )

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        for event in yaml.parse(text, Loader=fast):
            if isinstance(event, yaml.AliasEvent):
                refuse(event.anchor, event.start_mark)
        return yaml.load(text, Loader=fast)  # noqa: S506 - libyaml's safe loader

    class NoAliasLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no annotations
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                refuse(event.anchor, event.start_mark)
            return super().compose_node(parent, index)

    return yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 - a SafeLoader subclass


def read_spec(path: str | Path, *, max_bytes: int | None = None) -> dict[str, Any]:
    """Parse a YAML (.yml/.yaml) or JSON (.json) spec file into a mapping.

    The file is read as bytes, at most ``max_bytes`` of them, decoded as
    UTF-8, and parsed without YAML aliases (a "billion laughs" file of a few
    hundred bytes would otherwise expand into gigabytes). Every failure is a
    one-line :class:`~cvlib.core.errors.SpecError` naming the file.

    Parameters
    ----------
    path : str or pathlib.Path
        The spec file.
    max_bytes : int or None
        Largest file accepted; None uses :func:`max_spec_bytes` (1 MiB unless ``CVLIB_MAX_SPEC_BYTES`` says otherwise).

    Returns
    -------
    dict
        The file's top-level mapping.
    """
    path = Path(path)
    name = shown(str(path))
    limit = max_spec_bytes() if max_bytes is None else require_int("max_bytes", max_bytes, minimum=1)
    suffix = path.suffix.lower()
    if suffix not in {".json", ".yml", ".yaml"}:
        raise SpecError(f"scenario spec {name} must end in .yaml, .yml or .json")
    if not path.is_file():
        raise SpecError(f"scenario spec {name} does not exist or is not a file")
    text = _decode(_read_bytes(path, limit), name)
    try:
        data = json.loads(text) if suffix == ".json" else _load_yaml(text)
    except RecursionError:
        raise SpecError(f"scenario spec {name} could not be parsed: it is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise SpecError(f"scenario spec {name} could not be parsed: line {err.lineno}, column {err.colno}: {err.msg}") from None
    except ImportError as err:
        raise SpecError(f"scenario spec {name} could not be parsed: {err}") from None
    except Exception as err:  # yaml.YAMLError and friends
        raise SpecError(f"scenario spec {name} could not be parsed: {_yaml_problem(err)}") from None
    if not isinstance(data, Mapping):
        raise SpecError(f"scenario spec {name} must be a mapping at the top, got {type(data).__name__}")
    return dict(data)


def setup_from_spec(spec: Mapping[str, Any], source: str = "spec", *, trust_code: bool = False) -> ScenarioSetup:
    """Build a scenario setup from a parsed spec mapping.

    Parameters
    ----------
    spec : mapping
        What :func:`read_spec` returned.
    source : str
        Where it came from, named in every error.
    trust_code : bool
        Let the spec's ``policies:`` name ``module:attribute`` references, which
        import (run) that module. Off by default: a spec file is data, possibly
        someone else's, and only registered executors are accepted from it.

    Returns
    -------
    ScenarioSetup
    """

    def fail(message: str) -> SpecError:
        text = f"{shown(source) if len(source) > 200 else source}: {message}"
        if len(text) > _MAX_MESSAGE:
            text = f"{text[:_MAX_MESSAGE - 40]}... ({len(text):,} characters)"
        return SpecError(text)

    try:
        return _setup(spec, fail, trust_code)
    except SpecError:
        raise
    except CvlibError as err:  # a check below the spec's own (a fact, an event, the plan) says what is wrong
        raise fail(str(err)) from None
    except RecursionError:
        raise fail("a value is nested too deeply") from None


def _setup(spec: Mapping[str, Any], fail: Any, trust_code: bool) -> ScenarioSetup:
    if not isinstance(spec, Mapping):
        raise fail(f"a spec is a mapping, got {type(spec).__name__}")

    unknown = _unknown_keys(spec, _TOP_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; expected some of {', '.join(sorted(_TOP_KEYS))}")
    for key in ("name", "facts", "plan"):
        if key not in spec:
            raise fail(f"missing required key {shown(key)}")
    name = spec["name"]
    if not isinstance(name, str) or not name:
        raise fail(f"'name' must be a non-empty string, got {shown(name)}")
    for key in ("title", "description"):
        text = spec.get(key)
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise fail(f"{key!r} must be a non-empty string (or left out), got {shown(text)}")

    facts = _facts(spec["facts"], fail)
    plan = _plan(spec["plan"], fail)
    events = _events(spec.get("events") or [], fail)
    fact_ids = {f.id for f in facts}
    silent = _silent_changes(spec.get("silent_changes") or [], fact_ids, fail)
    supports = _supports(spec.get("supports"), fact_ids, fail)
    outages = _resource_events(spec.get("resource_events") or [], supports, fail)
    rules = _rules(spec.get("rules"), fail)

    try:
        World(facts, events, silent_changes=silent, resource_events=outages, supports=supports)  # validates fact ids
    except CvlibError as err:
        raise fail(str(err)) from None
    missing = sorted(plan.facts - fact_ids)
    if missing:
        raise fail(f"the plan requires fact(s) {', '.join(map(repr, missing))} that 'facts' does not define")

    at_risk = spec.get("at_risk")
    if at_risk is None:
        if not events:
            raise fail("'at_risk' is required when there are no events to infer it from")
        at_risk = events[0].fact_id
    if not isinstance(at_risk, str):
        raise fail(f"'at_risk' must be a fact id, got {shown(at_risk)}")
    if at_risk not in plan.facts:
        raise fail(f"'at_risk' fact {shown(at_risk)} is not required by any step; the plan requires {sorted(plan.facts)}")

    _policies(spec.get("policies"), fail, trust_code)  # checked now, so a bad name fails before anything runs

    budget = spec.get("budget")
    if budget is None:
        budget = compute_budget(plan, at_risk)
    elif isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise fail(f"'budget' must be a non-negative integer or null, got {shown(budget)}")

    return ScenarioSetup(
        name=name,
        plan=plan,
        facts=tuple(facts),
        events=tuple(events),
        at_risk=at_risk,
        budget=budget,
        params={"spec": name, "at_risk": at_risk, "budget": spec.get("budget")},
        description=str(spec.get("description", "")),
        silent_changes=tuple(silent),
        resource_events=tuple(outages),
        supports=supports,
        rules=rules,
    )


def load_spec(path: str | Path, *, max_bytes: int | None = None, trust_code: bool = False) -> ScenarioSetup:
    """Read and validate a spec file into a runnable :class:`~cvlib.scenarios.setup.ScenarioSetup`.

    Parameters
    ----------
    path : str or pathlib.Path
        The spec file.
    max_bytes : int or None
        Largest file accepted (see :func:`read_spec`).
    trust_code : bool
        Accept ``module:attribute`` references under ``policies:`` (importing
        them); see :func:`setup_from_spec`.

    Returns
    -------
    ScenarioSetup
    """
    return setup_from_spec(read_spec(path, max_bytes=max_bytes), source=str(path), trust_code=trust_code)


def spec_policies(spec: Mapping[str, Any], source: str = "spec", *, trust_code: bool = False) -> list[str] | None:
    """The executors a parsed spec asks for under ``policies:`` (registered names), or None.

    Parameters
    ----------
    spec : mapping
        What :func:`read_spec` returned.
    source : str
        Where it came from, named in an error.
    trust_code : bool
        Accept ``module:attribute`` references too (importing them); see :func:`setup_from_spec`.

    Returns
    -------
    list of str or None
        None when the spec names none (the article's two then run).
    """

    def fail(message: str) -> SpecError:
        return SpecError(f"{source}: {message}")

    return _policies(spec.get("policies") if isinstance(spec, Mapping) else None, fail, trust_code)


def is_code_reference(name: str) -> bool:
    """Whether an executor's name is a ``module:attribute`` reference, which imports code when resolved.

    The same test :func:`~cvlib.core.executors.resolve_policy` applies, made
    on the text alone, so a data file's references are refused before the
    registry would import anything.

    Parameters
    ----------
    name : str
        An executor as a spec file names it.

    Returns
    -------
    bool
    """
    return ":" in name


def _policies(raw: Any, fail: Any, trust_code: bool = False) -> list[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw):
        raise fail(f"'policies' must be a non-empty list of executor names, got {shown(raw)}")
    references = [p for p in raw if is_code_reference(p)]
    if references and not trust_code:
        raise fail(
            f"policies: {shown(references[0])} is a module:attribute reference, which would run that module's code; "
            f"a spec file names registered executors only (cvlib policies). To trust this file: {TRUST_CODE_HINT}"
        )
    try:
        resolve_policies(raw)
    except CvlibError as err:
        raise fail(f"policies: {err}") from None
    return list(raw)


def run_spec(
    path: str | Path,
    *,
    max_bytes: int | None = None,
    policies: Iterable[PolicyLike] | None = None,
    trust_code: bool = False,
) -> ScenarioRun:
    """Load a spec file and run it on the executors it names (``policies:``), by default the article's two.

    Parameters
    ----------
    path : str or pathlib.Path
        The spec file.
    max_bytes : int or None
        Largest file accepted (see :func:`read_spec`).
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order, instead of the spec's own ``policies:``
        (the caller's own choice, so ``module:attribute`` works here).
    trust_code : bool
        Accept ``module:attribute`` references in the file's ``policies:``
        (importing them); see :func:`setup_from_spec`.

    Returns
    -------
    ScenarioRun
    """
    spec = read_spec(path, max_bytes=max_bytes)
    setup = setup_from_spec(spec, source=str(path), trust_code=trust_code)
    chosen = policies if policies is not None else spec_policies(spec, str(path), trust_code=trust_code)
    return setup.run(policies=chosen)


def _unknown_keys(entry: Mapping[Any, Any], allowed: set[str]) -> str:
    """The keys of ``entry`` not in ``allowed``, shown sorted (keys of any type: YAML allows ``1: x``)."""
    return ", ".join(sorted(shown(key) for key in entry if key not in allowed))


def _facts(raw: Any, fail: Callable[[str], SpecError]) -> list[Fact]:
    if not isinstance(raw, list) or not raw:
        raise fail(f"'facts' must be a non-empty list of {{id, value}} mappings, got {shown(raw)}")
    facts = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or "id" not in entry:
            raise fail(f"facts[{i}] must be a mapping with an 'id', got {shown(entry)}")
        extra = _unknown_keys(entry, {"id", "value", "valid_until"})
        if extra:
            raise fail(f"facts[{i}] has unknown key(s) {extra}; expected id, value, valid_until")
        valid_until = entry.get("valid_until")
        if valid_until is not None and (isinstance(valid_until, bool) or not isinstance(valid_until, int)):
            raise fail(f"facts[{i}].valid_until must be an integer tick or null, got {shown(valid_until)}")
        if not isinstance(entry["id"], str) or not entry["id"]:
            raise fail(f"facts[{i}].id must be a non-empty string, got {shown(entry['id'])}")
        facts.append(Fact(entry["id"], entry.get("value"), valid_until=valid_until))
    counts = Counter(f.id for f in facts)  # one pass: list.count here made 20,000 facts take seconds
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        raise fail(f"fact id(s) {shown(dupes)} are defined more than once")
    return facts


def _plan(raw: Any, fail: Callable[[str], SpecError]) -> PlanGraph:
    if not isinstance(raw, Mapping) or ("generator" in raw) == ("steps" in raw):
        raise fail("'plan' must be a mapping with either 'generator' (and 'params') or 'steps', not both")
    try:
        if "generator" in raw:
            extra = _unknown_keys(raw, {"generator", "params"})
            if extra:
                raise fail(f"plan has unknown key(s) {extra}; a generated plan takes generator and params")
            params = raw.get("params") or {}
            if not isinstance(params, Mapping):
                raise fail(f"plan.params must be a mapping, got {shown(params)}")
            name = raw["generator"]
            if not isinstance(name, str):
                raise fail(f"plan.generator must be a generator's name, got {shown(name)}")
            if name not in PLAN_GENERATORS:
                raise fail(f"unknown plan generator {shown(name)}; expected one of {', '.join(PLAN_GENERATORS)}")
            bad_keys = [key for key in params if not isinstance(key, str)]
            if bad_keys:
                raise fail(f"plan.params must be keyed by parameter names, got the key {shown(bad_keys[0])}")
            generator = PLAN_GENERATORS[name]
            signature = inspect.signature(generator)
            unknown = sorted(set(params) - set(signature.parameters))
            if unknown:
                raise fail(
                    f"plan.params: generator {name!r} has no parameter {', '.join(map(shown, unknown))}; "
                    f"expected some of {', '.join(signature.parameters)}"
                )
            try:
                signature.bind(**params)
            except TypeError as err:
                raise fail(f"plan.params: generator {name!r}: {err}") from None
            return generator(**params)
        steps_raw = raw["steps"]
        if not isinstance(steps_raw, list) or not steps_raw:
            raise fail(f"plan.steps must be a non-empty list, got {shown(steps_raw)}")
        steps = []
        for i, entry in enumerate(steps_raw):
            if not isinstance(entry, Mapping) or "id" not in entry or "kind" not in entry:
                raise fail(f"plan.steps[{i}] must be a mapping with 'id' and 'kind', got {shown(entry)}")
            extra = _unknown_keys(entry, {"id", "kind", "requires", "after"})
            if extra:
                raise fail(f"plan.steps[{i}] has unknown key(s) {extra}; expected id, kind, requires, after")
            requires = entry.get("requires") or []
            after = entry.get("after") or []
            if not isinstance(requires, list) or not isinstance(after, list):
                raise fail(f"plan.steps[{i}]: 'requires' and 'after' must be lists")
            for key, names, what in (("requires", requires, "fact ids"), ("after", after, "step ids")):
                bad = [n for n in names if not isinstance(n, str) or not n]
                if bad:
                    raise fail(f"plan.steps[{i}].{key} must list {what} (non-empty strings), got {shown(bad[0])}")
            if not isinstance(entry["id"], str) or not entry["id"]:
                raise fail(f"plan.steps[{i}].id must be a non-empty string, got {shown(entry['id'])}")
            steps.append(Step(entry["id"], entry["kind"], frozenset(requires), tuple(after)))
        return PlanGraph(steps)
    except SpecError:
        raise
    except CvlibError as err:
        raise fail(f"plan: {err}") from None


def _events(raw: Any, fail: Callable[[str], SpecError]) -> list[Event]:
    if not isinstance(raw, list):
        raise fail(f"'events' must be a list, got {shown(raw)}")
    events = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            raise fail(f"events[{i}] must be a mapping, got {shown(entry)}")
        extra = _unknown_keys(entry, {"tick", "fact", "kind", "new_value", "ground_truth_changed"})
        if extra:
            raise fail(f"events[{i}] has unknown key(s) {extra}; expected tick, fact, kind, new_value, ground_truth_changed")
        for key in ("tick", "fact", "kind"):
            if key not in entry:
                raise fail(f"events[{i}] is missing {shown(key)}")
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


def _entries(raw: Any, key: str, allowed: tuple[str, ...], required: tuple[str, ...], fail: Any) -> list[Mapping[str, Any]]:
    """The mappings of a list-valued key, each with only ``allowed`` keys and every one of ``required``."""
    if not isinstance(raw, list):
        raise fail(f"{key!r} must be a list of mappings, got {shown(raw)}")
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            raise fail(f"{key}[{i}] must be a mapping, got {shown(entry)}")
        extra = _unknown_keys(entry, set(allowed))
        if extra:
            raise fail(f"{key}[{i}] has unknown key(s) {extra}; expected {', '.join(allowed)}")
        for name in required:
            if name not in entry:
                raise fail(f"{key}[{i}] is missing {shown(name)}")
    return raw


def _silent_changes(raw: Any, fact_ids: set[str], fail: Any) -> list[SilentChange]:
    changes = []
    for i, entry in enumerate(_entries(raw, "silent_changes", ("tick", "fact"), ("tick", "fact"), fail)):
        if entry["fact"] not in fact_ids:
            raise fail(
                f"silent_changes[{i}] names fact {shown(entry['fact'])}, which 'facts' does not define; "
                f"defined: {', '.join(sorted(fact_ids))}"
            )
        try:
            changes.append(SilentChange(entry["tick"], entry["fact"]))
        except CvlibError as err:
            raise fail(f"silent_changes[{i}]: {err}") from None
    return changes


def _supports(raw: Any, fact_ids: set[str], fail: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise fail(f"'supports' must map fact ids to resource names ({{F2: db}}), got {shown(raw)}")
    out = {}
    for fact_id, resource in raw.items():
        if fact_id not in fact_ids:
            raise fail(
                f"supports names fact {shown(fact_id)}, which 'facts' does not define; defined: {', '.join(sorted(fact_ids))}"
            )
        if not isinstance(resource, str) or not resource:
            raise fail(f"supports.{fact_id}: the resource must be a non-empty name, got {shown(resource)}")
        out[fact_id] = resource
    return out


def _resource_events(raw: Any, supports: Mapping[str, str], fail: Any) -> list[ResourceEvent]:
    resources = sorted(set(supports.values()))
    events = []
    for i, entry in enumerate(_entries(raw, "resource_events", ("tick", "resource", "up"), ("tick", "resource"), fail)):
        if entry["resource"] not in resources:
            raise fail(
                f"resource_events[{i}] names resource {shown(entry['resource'])}, which no fact rests on; "
                f"'supports' names: {', '.join(resources) or '(none)'}"
            )
        try:
            events.append(ResourceEvent(entry["tick"], entry["resource"], up=entry.get("up", False)))
        except CvlibError as err:
            raise fail(f"resource_events[{i}]: {err}") from None
    return events


def _rules(raw: Any, fail: Any) -> ExecutionRules | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise fail(f"'rules' must be a mapping of execution rules ({', '.join(RULE_KEYS)}), got {shown(raw)}")
    extra = _unknown_keys(raw, set(RULE_KEYS))
    if extra:
        raise fail(f"rules has unknown key(s) {extra}; expected some of {', '.join(RULE_KEYS)}")
    values = dict(raw)
    if "verification" in values:
        model = values["verification"]
        if not isinstance(model, Mapping):
            raise fail(f"rules.verification must be a mapping of {', '.join(VERIFICATION_KEYS)}, got {shown(model)}")
        extra = _unknown_keys(model, set(VERIFICATION_KEYS))
        if extra:
            raise fail(f"rules.verification has unknown key(s) {extra}; expected some of {', '.join(VERIFICATION_KEYS)}")
        try:
            values["verification"] = VerificationModel(**model)
        except CvlibError as err:
            raise fail(f"rules.verification: {err}") from None
    try:
        return ExecutionRules(**values)
    except CvlibError as err:
        raise fail(f"rules: {err}") from None

"""Trajectory fixtures: seeded generators and the chapter's hand-written cases.

A trajectory is frozen before any schedule runs: objects and their admission
turns, a budget per turn, obligations with start and end turns (a constraint
becomes pinned, a status becomes irrelevant), the declared task relation per
turn, and hidden probes (later tasks that need particular checks of one
object). A probe is *declared* when an obligation announcing its need starts
``lead`` turns before it; otherwise nothing visible to a schedule predicts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int

from .params import default
from .records import (
    Constraint,
    ContentObject,
    FieldValue,
    Floor,
    Force,
    Obligation,
    Probe,
    Rationale,
    Relation,
    Source,
    SubjectStatus,
    Trajectory,
)
from .render import count_tokens, render_full

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.random import Generator

#: How importance is drawn (independently of obligations by default, or coupled to a prohibition).
IMPORTANCE_MODES: tuple[str, ...] = ("independent", "coupled")

_PACKAGES = ("urllib3", "requests", "pydantic", "sqlalchemy", "protobuf", "grpcio", "celery", "redis", "boto3", "jinja2")
_DEPS = ("OpenSSL", "libpq", "glibc", "zlib", "libffi")
_SERVICES = ("billing", "search", "auth", "ingest", "reports", "gateway")
_TITLES = ("upgrade of {pkg} in {svc}", "flaky tests in {svc}", "config rollout for {svc}", "incident in {svc}", "schema change for {svc}")
_NARRATIVE = (
    "The agent listed the installed packages and their pins.",
    "It read the changelog for the {pkg} release notes twice.",
    "A search through the lock file turned up two competing pins.",
    "The test suite ran again with verbose output enabled.",
    "It compared two stack traces line by line.",
    "The build log was long and mostly noise from the linter.",
    "A colleague's note in the tracker described a similar symptom.",
    "The agent grepped the {svc} service for direct imports of {pkg}.",
    "Several retries of the job produced the same trace.",
    "It diffed the container image against the one from last week.",
    "The dependency tree was printed and read from the bottom up.",
    "A scratch branch was created to try the change in isolation.",
    "It read the documentation page on transport adapters.",
    "The failing job was rerun with the cache disabled.",
)


def _version(rng: np.random.Generator) -> str:
    return f"{int(rng.integers(1, 5))}.{int(rng.integers(0, 30))}.{int(rng.integers(0, 12))}"


def make_object(
    rng: np.random.Generator,
    object_id: str,
    importance_mode: str | None = None,
    *,
    prohibition_share: float | None = None,
    relation_share: float | None = None,
    second_id_share: float | None = None,
) -> ContentObject:
    """One seeded episode with every preservation dimension represented.

    Parameters
    ----------
    rng:
        The generator every random choice is drawn from, in a fixed order.
    object_id:
        Identity of the new episode.
    importance_mode:
        ``"independent"`` (default, the book's choice): importance is
        ``30 + 20 * B + U(0, 40)`` with ``B`` a fair coin drawn apart from
        the obligations, so it has the same spread as the coupled formula
        and no tie to any obligation. ``"coupled"``:
        ``30 + 20 * [prohibition] + U(0, 40)``, which ties importance to the
        one constraint that is always pinned; kept as a sensitivity run.
        The coin comes from a child stream, so the rest of the trajectory is
        the same under either mode.
    prohibition_share, relation_share, second_id_share:
        Shares of episodes with a prohibition (a multiple of 0.25), with a
        relation, and with a second identifier; defaults from
        :mod:`cvlib.fidelity.params`. Every setting draws the same random
        numbers, so changing one share changes only what it governs.

    Returns
    -------
    ContentObject
    """
    mode = default("importance_mode") if importance_mode is None else importance_mode
    if mode not in IMPORTANCE_MODES:
        raise ParameterError(f"importance_mode must be one of {IMPORTANCE_MODES}, got {importance_mode!r}")
    p_share = _check_fraction("prohibition_share", default("prohibition_share") if prohibition_share is None else prohibition_share, low=0.0, high=1.0)
    if abs(4 * p_share - round(4 * p_share)) > 1e-9:
        raise ParameterError(f"prohibition_share must be a multiple of 0.25, got {prohibition_share!r}")
    r_share = _check_fraction("relation_share", default("relation_share") if relation_share is None else relation_share, low=0.0, high=1.0)
    i_share = _check_fraction("second_id_share", default("second_id_share") if second_id_share is None else second_id_share, low=0.0, high=1.0)
    pkg, dep = str(rng.choice(_PACKAGES)), str(rng.choice(_DEPS))
    svc = str(rng.choice(_SERVICES))
    title = str(rng.choice(_TITLES)).format(pkg=pkg, svc=svc)
    n_appr = int(rng.integers(2, 4))
    letters = "ABC"[:n_appr]
    rejected, current = f"approach {letters[0]}", f"approach {letters[-1]}"
    fields = [FieldValue(f"{pkg} pin", _version(rng)), FieldValue(f"{svc} timeout", f"{int(rng.integers(5, 120))}s")]
    num = int(rng.integers(1000, 9999))
    ids = [f"PR-{num}"] + ([f"INC-{num + 17}"] if rng.random() < i_share else [])
    # one draw of a quarter: the first round(4 * share) quarters are prohibitions; of the rest, the third
    # quarter is a preference and any other a requirement (at the default 0.5: 2 prohibitions, 1 requirement, 1 preference)
    quarter = int(rng.integers(0, 4))
    force = Force.PROHIBITION if quarter < round(4 * p_share) else (Force.PREFERENCE if quarter == 3 else Force.REQUIREMENT)
    action = {Force.PROHIBITION: f"retry {rejected}", Force.REQUIREMENT: f"keep {current} behind a flag", Force.PREFERENCE: f"stage {current} in {svc} first"}[force]
    subject = rejected if force is Force.PROHIBITION else current
    constraints = [Constraint(subject, force, action)]
    v_need, v_have = _version(rng), _version(rng)
    pv = _version(rng)
    reason = f"{pkg} {pv} needs {dep} {v_need} but the {svc} image ships {dep} {v_have}"
    rationale = [Rationale(rejected, reason, (f"{pkg} {pv}", f"{dep} {v_need}", f"{dep} {v_have}"))]
    statuses = [SubjectStatus(rejected, "rejected"), SubjectStatus(current, str(rng.choice(["half-applied", "in progress", "blocked"])))]
    prov = [Source(f"ci-run#{int(rng.integers(1000, 99999))}", "the version conflict")]
    relations = [Relation(current, "replaces", rejected)] if rng.random() < r_share else []
    n_narr = int(rng.integers(3, len(_NARRATIVE)))
    picks = sorted(rng.choice(len(_NARRATIVE), size=n_narr, replace=False).tolist())
    narrative = [_NARRATIVE[i].format(pkg=pkg, svc=svc) for i in picks]
    narrative += [f"Step {k}: the agent reran the {svc} job and read its log." for k in range(1, int(rng.integers(2, 16)))]
    base, bump, span = default("importance_coupled" if mode == "coupled" else "importance_independent")  # type: ignore[misc]
    spread = int(rng.integers(0, span))  # the same draw in both modes, so the rest of the trajectory is identical
    if mode == "coupled":
        lifted = force is Force.PROHIBITION
    else:
        # a fair coin from a child stream: it consumes nothing from ``rng``, and has the prohibition's 1-in-2 odds
        lifted = bool(rng.spawn(1)[0].random() < 0.5)
    importance = int(min(100, base + bump * lifted + spread))
    return ContentObject(
        object_id=object_id,
        title=title,
        fields=tuple(fields),
        identifiers=tuple(ids),
        constraints=tuple(constraints),
        rationale=tuple(rationale),
        statuses=tuple(statuses),
        provenance=tuple(prov),
        relations=tuple(relations),
        narrative=tuple(narrative),
        importance=importance,
    )


def _check_fraction(name: str, value: object, *, low: float, high: float, high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    v = float(value)
    if v < low or v > high or (high_open and v == high):
        raise ParameterError(f"{name} must be in [{low}, {high}{')' if high_open else ']'}, got {value!r}")
    return v


def generate_trajectory(
    seed: int = 0,
    *,
    n_turns: int | None = None,
    n_objects: int | None = None,
    budget_fraction: float | None = None,
    budget_tokens: int | None = None,
    budget_jitter: float | None = None,
    n_probes: int | None = None,
    declared_fraction: float | None = None,
    lead: int | None = None,
    pin_fraction: float | None = None,
    admit_window: float | None = None,
    probe_min_age: int | None = None,
    status_window: tuple[int, int] | None = None,
    importance_mode: str | None = None,
    prohibition_share: float | None = None,
    probe_two_checks: float | None = None,
    relation_share: float | None = None,
    second_id_share: float | None = None,
) -> Trajectory:
    """A seeded trajectory.

    Every parameter left as None takes its default from
    :mod:`cvlib.fidelity.params`, where each is marked as the book's choice.

    Parameters
    ----------
    seed:
        Seed of the one generator every random choice is drawn from.
    n_turns, n_objects, n_probes, lead:
        Turns, episodes, hidden probes, and how many turns before a declared
        probe its obligation starts.
    budget_fraction:
        Base resident budget as a fraction of the full-text tokens of every
        object the trajectory will ever admit (so early turns are loose and
        late turns tight). Ignored when ``budget_tokens`` is given.
    budget_tokens:
        Base resident budget in tokens (count of :func:`~cvlib.fidelity.render.count_tokens`).
    budget_jitter:
        Each turn's budget is the base times ``1 - budget_jitter * u`` with ``u`` uniform in [0, 1).
    declared_fraction:
        Share of probes announced by an obligation ``lead`` turns ahead (and by the task relation).
    pin_fraction:
        Share of non-prohibition constraints whose floor rises from MENTION to EXACT mid-trajectory.
    admit_window:
        Episodes are admitted in the first ``admit_window`` share of the turns.
    probe_min_age:
        A probe falls at least this many turns after its episode's admission.
    status_window:
        A status obligation lasts a number of turns drawn from ``[low, high)``.
    importance_mode, prohibition_share, relation_share, second_id_share:
        See :func:`make_object`.
    probe_two_checks:
        Share of probes that need two checks rather than one.

    Returns
    -------
    Trajectory
    """
    import numpy as np

    d = _settings(
        seed, n_turns, n_objects, budget_fraction, budget_tokens, budget_jitter, n_probes, declared_fraction, lead,
        pin_fraction, admit_window, probe_min_age, status_window, importance_mode, probe_two_checks,
    )
    rng = np.random.default_rng(seed)
    last_admit = max(1, int(d.admit_window * d.n_turns))
    admits = sorted(int(x) for x in rng.integers(0, last_admit, size=d.n_objects))
    shares = dict(prohibition_share=prohibition_share, relation_share=relation_share, second_id_share=second_id_share)
    objects = tuple(make_object(rng, f"ep-{i:02d}", importance_mode, **shares) for i in range(d.n_objects))
    obligations = _admission_obligations(rng, objects, admits, d)
    related: list[set[str]] = [set() for _ in range(d.n_turns)]
    for o, t0 in zip(objects, admits):
        for t in (t0, t0 + 1):
            if t < d.n_turns:
                related[t].add(o.object_id)
    probes = _draw_probes(rng, objects, admits, d, obligations, related)
    if budget_tokens is None:
        total_full = sum(count_tokens(render_full(o)) for o in objects)
        base = d.budget_fraction * total_full
    else:
        base = float(budget_tokens)
    budget = tuple(int(round(base * (1.0 - d.budget_jitter * float(rng.random())))) for _ in range(d.n_turns))
    probes.sort(key=lambda p: (p.turn, p.object_id, p.checks))
    return Trajectory(
        name=f"seed{seed}",
        n_turns=d.n_turns,
        objects=objects,
        admitted_at=tuple(admits),
        budget=budget,
        obligations=tuple(obligations),
        task_related=tuple(frozenset(r) for r in related),
        probes=tuple(probes),
    )


@dataclass(frozen=True, slots=True)
class _Settings:
    """A trajectory's parameters, each resolved from :mod:`cvlib.fidelity.params` when not given, and checked."""

    n_turns: int
    n_objects: int
    n_probes: int
    lead: int
    probe_min_age: int
    budget_fraction: float
    budget_jitter: float
    declared_fraction: float
    pin_fraction: float
    admit_window: float
    status_window: tuple[int, int]
    probe_two_checks: float


def _settings(
    seed: int,
    n_turns: int | None,
    n_objects: int | None,
    budget_fraction: float | None,
    budget_tokens: int | None,
    budget_jitter: float | None,
    n_probes: int | None,
    declared_fraction: float | None,
    lead: int | None,
    pin_fraction: float | None,
    admit_window: float | None,
    probe_min_age: int | None,
    status_window: tuple[int, int] | None,
    importance_mode: str | None,
    probe_two_checks: float | None,
) -> _Settings:
    """:func:`generate_trajectory`'s parameters with the book's defaults filled in, each checked (a clear error names the bad one)."""
    n_turns = default("n_turns") if n_turns is None else n_turns  # type: ignore[assignment]
    n_objects = default("n_objects") if n_objects is None else n_objects  # type: ignore[assignment]
    n_probes = default("n_probes") if n_probes is None else n_probes  # type: ignore[assignment]
    lead = default("lead") if lead is None else lead  # type: ignore[assignment]
    probe_min_age = default("probe_min_age") if probe_min_age is None else probe_min_age  # type: ignore[assignment]
    budget_jitter = default("budget_jitter") if budget_jitter is None else budget_jitter  # type: ignore[assignment]
    declared_fraction = default("declared_fraction") if declared_fraction is None else declared_fraction  # type: ignore[assignment]
    pin_fraction = default("pin_fraction") if pin_fraction is None else pin_fraction  # type: ignore[assignment]
    admit_window = default("admit_window") if admit_window is None else admit_window  # type: ignore[assignment]
    status_window = default("status_window") if status_window is None else status_window  # type: ignore[assignment]
    budget_fraction = default("budget_fraction") if budget_fraction is None else budget_fraction  # type: ignore[assignment]
    probe_two_checks = default("probe_two_checks") if probe_two_checks is None else probe_two_checks  # type: ignore[assignment]
    require_int("seed", seed, minimum=0)
    require_int("n_turns", n_turns, minimum=2)
    require_int("n_objects", n_objects, minimum=1)
    require_int("n_probes", n_probes, minimum=0)
    require_int("lead", lead, minimum=0)
    if budget_tokens is not None:
        require_int("budget_tokens", budget_tokens, minimum=0)
    else:
        budget_fraction = _check_fraction("budget_fraction", budget_fraction, low=0.0, high=10.0)
    budget_jitter = _check_fraction("budget_jitter", budget_jitter, low=0.0, high=1.0, high_open=True)
    declared_fraction = _check_fraction("declared_fraction", declared_fraction, low=0.0, high=1.0)
    pin_fraction = _check_fraction("pin_fraction", pin_fraction, low=0.0, high=1.0)
    probe_two_checks = _check_fraction("probe_two_checks", probe_two_checks, low=0.0, high=1.0)
    admit_window = _check_fraction("admit_window", admit_window, low=0.0, high=1.0, high_open=False)
    require_int("probe_min_age", probe_min_age, minimum=1)
    if (
        not isinstance(status_window, (tuple, list))
        or len(status_window) != 2
        or any(isinstance(x, bool) or not isinstance(x, int) for x in status_window)
        or not 1 <= status_window[0] < status_window[1]
    ):
        raise ParameterError(f"status_window must be two integer turns [low, high) with 1 <= low < high, got {status_window!r}")
    if importance_mode is not None and importance_mode not in IMPORTANCE_MODES:
        raise ParameterError(f"importance_mode must be one of {IMPORTANCE_MODES}, got {importance_mode!r}")
    return _Settings(
        n_turns, n_objects, n_probes, lead, probe_min_age, budget_fraction, budget_jitter,  # type: ignore[arg-type]
        declared_fraction, pin_fraction, admit_window, tuple(status_window), probe_two_checks,  # type: ignore[arg-type]
    )


def _admission_obligations(rng: Generator, objects: tuple[ContentObject, ...], admits: list[int], d: _Settings) -> list[Obligation]:
    """What each episode obliges from its admission: its ids, its constraints (some pinned to EXACT later), its statuses for a while."""
    obligations: list[Obligation] = []
    for o, t0 in zip(objects, admits):
        obligations += [Obligation(o.object_id, f"id:{i}", Floor.MENTION, t0) for i in o.identifiers]
        for c in o.constraints:
            key = f"constraint:{c.subject}"
            if c.force is Force.PROHIBITION:
                obligations.append(Obligation(o.object_id, key, Floor.EXACT, t0))
            elif rng.random() < d.pin_fraction and t0 + 1 < d.n_turns:
                pin = int(rng.integers(t0 + 1, d.n_turns))
                obligations += [Obligation(o.object_id, key, Floor.MENTION, t0, pin), Obligation(o.object_id, key, Floor.EXACT, pin)]
            else:
                obligations.append(Obligation(o.object_id, key, Floor.MENTION, t0))
        done = t0 + int(rng.integers(d.status_window[0], d.status_window[1]))
        for s in o.statuses:
            obligations.append(Obligation(o.object_id, f"status:{s.subject}", Floor.EXACT, t0, max(done, t0 + 1)))
    return obligations


def _draw_probes(
    rng: Generator,
    objects: tuple[ContentObject, ...],
    admits: list[int],
    d: _Settings,
    obligations: list[Obligation],
    related: list[set[str]],
) -> list[Probe]:
    """The hidden probes; a declared one also adds its obligations and marks its episode task-related until it falls (in place)."""
    probes: list[Probe] = []
    min_age = d.probe_min_age
    eligible = [i for i, t0 in enumerate(admits) if t0 + min_age <= d.n_turns - 1]
    for _ in range(d.n_probes if eligible else 0):
        i = int(rng.choice(eligible))
        o, t0 = objects[i], admits[i]
        tp = int(rng.integers(t0 + min_age, d.n_turns))
        els = o.elements()
        k = 1 + int(rng.random() < d.probe_two_checks)
        keys = sorted(els[j].key for j in rng.choice(len(els), size=min(k, len(els)), replace=False).tolist())
        checks = tuple((key, int(Floor.EXACT)) for key in keys)
        declared = bool(rng.random() < d.declared_fraction)
        if declared:
            start = max(t0, tp - d.lead)
            obligations += [Obligation(o.object_id, key, Floor.EXACT, start, tp + 1) for key in keys]
            for t in range(start, tp + 1):
                related[t].add(o.object_id)
        probes.append(Probe(tp, o.object_id, checks, declared))
    return probes


# --- hand-written fixtures from the chapter -------------------------------------------------

_MIGRATION_NARRATIVE = (
    "The session started by auditing the transitive dependencies of the web service.",
    "Approach A tried to bump urllib3 and requests together in one change.",
    "The resolver printed a long chain of conflicting pins for that attempt.",
    "Approach B pinned urllib3 directly and left requests alone.",
    "The container build for approach B failed during the TLS handshake tests.",
    "The agent read the build image manifest to see which system libraries it carries.",
    "It compared the handshake trace with the one from the old image.",
    "Approach C vendors a patched adapter and moves one module at a time.",
    "The first two modules of approach C were moved and their tests pass.",
    "The remaining modules still import the old adapter.",
    "A long search through the issue tracker found the upstream discussion.",
    "The agent took notes on each module that still needs moving.",
)


def _filler(object_id: str, title: str, ident: str, run: str, n: int) -> ContentObject:
    return ContentObject(
        object_id=object_id,
        title=title,
        fields=(FieldValue(f"{object_id} retries", "3"),),
        identifiers=(ident,),
        statuses=(SubjectStatus(f"{object_id} task", "complete"),),
        provenance=(Source(run, "the cleanup"),),
        narrative=tuple(_NARRATIVE[i].format(pkg="jinja2", svc="reports") for i in range(n)),
        importance=40,
    )


MIGRATION = ContentObject(
    object_id="migration",
    title="dependency migration to urllib3 2",
    fields=(FieldValue("urllib3 target", "2.0.7"), FieldValue("requests pin", "2.31.0")),
    identifiers=("PR-4471",),
    constraints=(Constraint("approach B", Force.PROHIBITION, "retry approach B"),),
    rationale=(
        Rationale(
            "approach B",
            "urllib3 2.0.7 needs OpenSSL 1.1.1 but the build image ships OpenSSL 1.0.2k",
            ("urllib3 2.0.7", "OpenSSL 1.1.1", "OpenSSL 1.0.2k"),
        ),
    ),
    statuses=(SubjectStatus("approach A", "rejected"), SubjectStatus("approach B", "rejected"), SubjectStatus("approach C", "half-applied")),
    provenance=(Source("ci-run#5512", "the OpenSSL conflict"),),
    relations=(Relation("approach C", "replaces", "approach B"),),
    narrative=_MIGRATION_NARRATIVE,
    importance=60,
)


def migration_fixture() -> Trajectory:
    """The chapter's opening scenario, in miniature.

    A dependency migration is admitted at turn 0 with three approaches; three
    smaller episodes follow. At turn 3 the budget drops below what full text
    needs (a compactor would fire). At turn 6 the agent returns to the
    migration and the rationale for rejecting approach B becomes pinned. At
    turn 9 ("six turns later") a probe needs the exact version conflict and
    the prohibition on retrying approach B; at turn 10 an undeclared probe
    needs the CI run that showed it.
    """
    objs = (
        MIGRATION,
        _filler("lint", "lint cleanup in reports", "PR-4480", "ci-run#5520", 8),
        _filler("flaky", "flaky export test in reports", "INC-3302", "ci-run#5531", 10),
        _filler("docs", "upgrade notes for reports", "PR-4490", "ci-run#5540", 6),
    )
    admits = (0, 1, 2, 3)
    n = 12
    full = {o.object_id: count_tokens(render_full(o)) for o in objs}
    total = sum(full.values())
    low = int(round(0.5 * total))
    budget = tuple(total if t < 3 else low for t in range(n))
    m = "migration"
    obligations = (
        Obligation(m, "id:PR-4471", Floor.MENTION, 0),
        Obligation(m, "constraint:approach B", Floor.EXACT, 0),
        Obligation(m, "rationale:approach B", Floor.MENTION, 0, 6),
        Obligation(m, "rationale:approach B", Floor.EXACT, 6),
        Obligation(m, "status:approach C", Floor.EXACT, 0),
        *(Obligation(o.object_id, f"id:{o.identifiers[0]}", Floor.MENTION, t) for o, t in zip(objs[1:], admits[1:])),
        *(Obligation(o.object_id, f"status:{o.object_id} task", Floor.EXACT, t, t + 2) for o, t in zip(objs[1:], admits[1:])),
    )
    related = tuple(
        frozenset({m} if t in (0, 6, 7, 8, 9, 10) else set()) | {o.object_id for o, a in zip(objs, admits) if a == t}
        for t in range(n)
    )
    probes = (
        Probe(9, m, (("constraint:approach B", 2), ("rationale:approach B", 2)), declared=True),
        Probe(10, m, (("provenance:ci-run#5512", 2),), declared=False),
    )
    return Trajectory("migration", n, objs, admits, budget, obligations, related, probes)


def four_quadrants_fixture() -> Trajectory:
    """Age crossed with future need, using a declared task relation and no relevance score.

    ``old_needed`` (admitted turn 0, its exact timeout pinned throughout,
    probed at turn 12), ``old_not_needed`` (turn 0, finished by turn 3, never
    probed), ``recent_needed`` (turn 10, its reason probed at turn 12) and
    ``recent_complete`` (turn 11, finished, never probed). The budget is
    generous until turn 9 and tight from turn 10.
    """
    old_needed = ContentObject(
        "old_needed",
        "gateway timeout policy",
        fields=(FieldValue("gateway timeout", "45s"),),
        identifiers=("INC-2041",),
        constraints=(Constraint("the gateway timeout", Force.PROHIBITION, "lower the gateway timeout"),),
        statuses=(SubjectStatus("timeout policy", "open"),),
        provenance=(Source("ci-run#4100", "the timeout incident"),),
        narrative=tuple(_NARRATIVE[i].format(pkg="requests", svc="gateway") for i in range(5)),
        importance=35,
    )
    old_not_needed = _filler("old_not_needed", "log noise investigation", "INC-1999", "ci-run#4001", 12)
    recent_needed = ContentObject(
        "recent_needed",
        "search index rebuild",
        fields=(FieldValue("index shards", "12"),),
        identifiers=("PR-5120",),
        rationale=(Rationale("the rebuild", "protobuf 4.25.1 needs glibc 2.28 but the search image ships glibc 2.17", ("protobuf 4.25.1", "glibc 2.28", "glibc 2.17")),),
        statuses=(SubjectStatus("the rebuild", "blocked"),),
        provenance=(Source("ci-run#4210", "the glibc failure"),),
        narrative=tuple(_NARRATIVE[i].format(pkg="protobuf", svc="search") for i in range(6)),
        importance=55,
    )
    recent_complete = _filler("recent_complete", "flaky auth tests fixed", "PR-5133", "ci-run#4220", 14)
    objs = (old_needed, old_not_needed, recent_needed, recent_complete)
    admits = (0, 0, 10, 11)
    n = 14
    full = {o.object_id: count_tokens(render_full(o)) for o in objs}
    tight = full["recent_complete"] + full["recent_needed"] // 2 + full["old_needed"] // 3
    budget = tuple(sum(full.values()) if t < 10 else tight for t in range(n))
    obligations = (
        Obligation("old_needed", "field:gateway timeout", Floor.EXACT, 0),
        Obligation("old_needed", "constraint:the gateway timeout", Floor.EXACT, 0),
        Obligation("old_needed", "id:INC-2041", Floor.MENTION, 0),
        Obligation("old_not_needed", "id:INC-1999", Floor.MENTION, 0),
        Obligation("old_not_needed", "status:old_not_needed task", Floor.EXACT, 0, 3),
        Obligation("recent_needed", "id:PR-5120", Floor.MENTION, 10),
        Obligation("recent_needed", "rationale:the rebuild", Floor.EXACT, 10),
        Obligation("recent_complete", "id:PR-5133", Floor.MENTION, 11),
    )
    related = tuple(
        frozenset(
            ({"old_needed", "old_not_needed"} if t < 3 else set())
            | ({"old_needed"} if t >= 10 else set())
            | ({"recent_needed"} if t >= 10 else set())
            | ({"recent_complete"} if t == 11 else set())
        )
        for t in range(n)
    )
    probes = (
        Probe(12, "old_needed", (("field:gateway timeout", 2), ("constraint:the gateway timeout", 2)), declared=True),
        Probe(12, "recent_needed", (("rationale:the rebuild", 2),), declared=True),
    )
    return Trajectory("four_quadrants", n, objs, admits, budget, obligations, related, probes)


#: The chapter's hand-written trajectories by name, each a function that builds it.
FIXTURES = {"migration": migration_fixture, "four_quadrants": four_quadrants_fixture}


def fixture(name: str) -> Trajectory:
    """A hand-written fixture by name (``migration`` or ``four_quadrants``)."""
    if name not in FIXTURES:
        raise ParameterError(f"unknown fixture {name!r}; expected one of {sorted(FIXTURES)}")
    return FIXTURES[name]()

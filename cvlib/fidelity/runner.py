"""Run one schedule over one trajectory and score it against the hidden probes.

Every form of every object is rendered and checked once, before any schedule
runs; every schedule then receives identical snapshots. Each turn records the
desired choice, the applied choice (and why they differ), the budget, the
resident tokens, infeasibility, legality violations and probe outcomes.

Probe failures are classified against the checker's ground truth, and a
failure may carry several classes:

representation
    the resident form's producer claimed a needed check the checker did not find;
legality
    an applicable obligation covering a needed check was violated by the resident form;
selection
    the resident set was legal for every obligation covering the need (a legal
    present choice proved insufficient), or the turn was infeasible;
timing
    the applied form differs from the desired one, and the desired one would have passed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .checker import check
from .costs import Ledger, first_divergence_tokens
from .legality import is_legal
from .records import Trajectory
from .render import MECHANISM, REPRESENTATIONS, render_all
from .schedules import ObjectState, Policy, RepOption, Snapshot

#: Why a probe can fail, in the order they are assigned (a failed probe may have several).
FAILURE_CLASSES: tuple[str, ...] = ("representation", "legality", "selection", "timing")


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One hidden probe's outcome under one schedule, with its failure classes (empty when it passed)."""

    """One hidden probe at one turn: whether the resident form passed it, and if not, why."""

    turn: int
    object_id: str
    passed: bool
    form: str
    classes: tuple[str, ...]
    declared: bool


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn of one schedule: desired and applied forms, why they differ, tokens, feasibility, legality."""

    """What one turn of a schedule did: forms wanted, applied and delayed, tokens resident, moves made."""

    turn: int
    budget: int
    desired: tuple[tuple[str, str], ...]
    applied: tuple[tuple[str, str], ...]
    delayed: tuple[tuple[str, str], ...]
    resident_tokens: int
    infeasible: bool
    illegal: tuple[str, ...]
    promotions: int
    demotions: int


@dataclass(frozen=True, slots=True)
class ScheduleRun:
    """One schedule over one trajectory: the turn trace, probe outcomes, cost ledger and the snapshots it saw."""

    """One schedule run over one trajectory: every turn, every probe result and the cost ledger."""

    policy: str
    policy_version: str
    trajectory: str
    turns: tuple[TurnRecord, ...]
    probes: tuple[ProbeResult, ...]
    ledger: Ledger
    snapshots: tuple[Snapshot, ...]

    @property
    def probe_failures(self) -> int:
        """Number of probes that failed."""
        return sum(not p.passed for p in self.probes)


def stored_forms(traj: Trajectory) -> dict[str, tuple[RepOption, ...]]:
    """Every form of every object, rendered and checked once (identical input for every schedule)."""
    out = {}
    for o in traj.objects:
        reps = render_all(o)
        out[o.object_id] = tuple(
            RepOption(n, reps[n].tokens, check(reps[n], o).vector, reps[n].claimed) for n in REPRESENTATIONS
        )
    return out


def snapshot(
    traj: Trajectory,
    turn: int,
    forms: dict[str, tuple[RepOption, ...]],
    active: dict[str, str],
    last_changed: dict[str, int],
) -> Snapshot:
    """What any schedule may know at ``turn``: never the probes."""
    objs = []
    for o in traj.admitted(turn):
        obl = traj.obligations_at(turn, o.object_id)
        opts = forms[o.object_id]
        objs.append(
            ObjectState(
                object_id=o.object_id,
                age=turn - traj.admission_turn(o.object_id),
                importance=o.importance,
                options=opts,
                legal=tuple(x.name for x in opts if is_legal(x.checks, obl)),
                obligations=obl,
                active=active.get(o.object_id),
                last_changed=last_changed.get(o.object_id),
                related=o.object_id in traj.task_related[turn],
            )
        )
    return Snapshot(turn, traj.budget[turn], tuple(objs))


def run_schedule(traj: Trajectory, policy: Policy, forms: dict[str, tuple[RepOption, ...]] | None = None) -> ScheduleRun:
    """Run ``policy`` over ``traj`` turn by turn; see the module docstring for what is recorded."""
    forms = stored_forms(traj) if forms is None else forms
    active: dict[str, str] = {}
    last_changed: dict[str, int] = {}
    turns, probes, snaps = [], [], []
    prev_prompt: list[tuple[str, str]] = []
    switching = 0
    storage = 0
    compacted_at: dict[str, int] = {}
    for t in range(traj.n_turns):
        snap = snapshot(traj, t, forms, active, last_changed)
        snaps.append(snap)
        desired = policy.choose(snap)
        applied, why = policy.apply(snap, desired)
        by_id = {o.object_id: o for o in snap.objects}
        tokens = sum(by_id[k].option(v).tokens for k, v in applied.items())
        infeasible = tokens > snap.budget
        illegal = tuple(k for k, v in applied.items() if v not in by_id[k].legal)
        promo = demo = 0
        for k, v in applied.items():
            old = active.get(k)
            if old is not None and old != v:
                d = by_id[k].option(v).tokens - by_id[k].option(old).tokens
                promo += d > 0
                demo += d < 0
        for p in traj.probes_at(t):
            o = by_id[p.object_id]
            cur = o.option(applied[p.object_id])
            need = set(p.checks)
            passed = (not infeasible) and need <= cur.checks
            classes: list[str] = []
            if not passed:
                if (need & cur.claimed) - cur.checks:
                    classes.append("representation")
                covering = [
                    ob for ob in o.obligations if any(ob.key == k and ob.floor >= lv for k, lv in need)
                ]
                if any(ob.check not in cur.checks for ob in covering):
                    classes.append("legality")
                else:
                    classes.append("selection")
                if infeasible and "selection" not in classes:
                    classes.append("selection")
                want = desired[p.object_id]
                if want != applied[p.object_id] and need <= o.option(want).checks:
                    classes.append("timing")
            probes.append(ProbeResult(t, p.object_id, passed, cur.name, tuple(classes), p.declared))
        prompt = [(o.object_id, applied[o.object_id]) for o in snap.objects]
        tok = {(o.object_id, n.name): n.tokens for o in snap.objects for n in o.options}
        switching += first_divergence_tokens(prev_prompt, prompt, tok)
        prev_prompt = prompt
        for k, v in applied.items():
            if v == "summary" and k not in compacted_at:
                compacted_at[k] = t
        for o in snap.objects:
            stored = [x for x in o.options if x.name in policy.forms]
            if policy.name == "full_while_feasible":
                stored = [x for x in stored if x.name == "full" or o.object_id in compacted_at]
            storage += sum(x.tokens for x in stored)
        turns.append(
            TurnRecord(
                t,
                snap.budget,
                tuple(sorted(desired.items())),
                tuple(sorted(applied.items())),
                tuple(sorted(why.items())),
                tokens,
                infeasible,
                illegal,
                promo,
                demo,
            )
        )
        for k, v in applied.items():
            if active.get(k) != v:
                last_changed[k] = t
            active[k] = v
    # generation: every model-made form the schedule uses, once per object it was made for
    gen = 0
    for o in traj.objects:
        if traj.admission_turn(o.object_id) >= traj.n_turns:
            continue
        for x in forms[o.object_id]:
            if x.name not in policy.forms or MECHANISM[x.name] != "model":
                continue
            if policy.name == "full_while_feasible" and o.object_id not in compacted_at:
                continue
            full = next(y for y in forms[o.object_id] if y.name == "full").tokens
            gen += full + x.tokens
    val = 0
    if policy.validates:
        val = sum(x.tokens for o in traj.objects for x in forms[o.object_id] if x.name in policy.forms)
    ledger = Ledger(
        resident_tokens=sum(r.resident_tokens for r in turns),
        generation_tokens=gen,
        validation_tokens=val,
        switching_tokens=switching,
        regeneration_tokens=0,
        storage_token_turns=storage,
    )
    return ScheduleRun(policy.name, policy.version, traj.name, tuple(turns), tuple(probes), ledger, tuple(snaps))


def reproducible(policy: Policy, run: ScheduleRun) -> bool:
    """Whether re-choosing from every recorded snapshot gives the recorded desired choice."""
    return all(tuple(sorted(policy.choose(s).items())) == r.desired for s, r in zip(run.snapshots, run.turns))

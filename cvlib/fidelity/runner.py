"""Run one schedule over one trajectory and score it against the hidden probes.

Every form of every object is rendered and checked once, before any schedule
runs (:func:`stored_forms`); every schedule then receives identical snapshots. Each turn records the
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

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from .checker import check
from .costs import TokenLedger, first_divergence_tokens, set_generation_cost
from .extractive import render_compact
from .params import default
from .records import Probe, Trajectory
from .render import Representation, render_all
from .schedules import STORED, ObjectState, RepOption, Schedule, Snapshot

#: Why a probe can fail, in the order they are assigned (a failed probe may have several).
FAILURE_CLASSES: tuple[str, ...] = ("representation", "legality", "selection", "timing")


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One hidden probe at one turn: whether the resident form passed it, and if not, why.

    ``declared`` says whether an obligation announced the need beforehand;
    ``infeasible`` whether the turn's applied forms exceeded its budget (every
    probe on such a turn fails).
    """

    turn: int
    object_id: str
    passed: bool
    form: str
    classes: tuple[str, ...]
    declared: bool
    infeasible: bool = False


@dataclass(frozen=True, slots=True)
class TurnRecord:
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
    """One schedule run over one trajectory: every turn, every probe result, the cost ledger and the snapshots seen."""

    policy: str
    policy_version: str
    trajectory: str
    turns: tuple[TurnRecord, ...]
    probes: tuple[ProbeResult, ...]
    ledger: TokenLedger
    snapshots: tuple[Snapshot, ...]

    @property
    def probe_failures(self) -> int:
        """Number of probes that failed."""
        return sum(not p.passed for p in self.probes)


@dataclass(frozen=True, eq=False)
class FormStore:
    """Every stored form of every object of one trajectory, rendered and checked once.

    ``reps`` keeps the representations (text, lineage, production cost) for
    the ledger; ``options`` is what schedules see. ``compact_ratio`` is the
    target size of the flat compaction. Stores compare by identity (one
    store per trajectory and ratio, cached).
    """

    compact_ratio: float
    reps: dict[str, dict[str, Representation]] = field(repr=False)
    options: dict[str, tuple[RepOption, ...]] = field(repr=False)


def stored_forms(traj: Trajectory, compact_ratio: float | None = None) -> FormStore:
    """Render and check every form in :data:`~cvlib.fidelity.schedules.STORED` for every object, once.

    Parameters
    ----------
    traj:
        The trajectory whose objects are rendered.
    compact_ratio:
        Target size of the flat compaction as a share of the full text
        (default: the book's ``compact_ratio``).

    Returns
    -------
    FormStore
        Identical input for every schedule. Stores are cached per
        (trajectory, ratio): a trajectory is frozen, and so is its store.
    """
    ratio = float(default("compact_ratio") if compact_ratio is None else compact_ratio)  # type: ignore[arg-type]
    return _stored_forms(traj, ratio)


@lru_cache(maxsize=64)
def _stored_forms(traj: Trajectory, ratio: float) -> FormStore:
    reps: dict[str, dict[str, Representation]] = {}
    options: dict[str, tuple[RepOption, ...]] = {}
    for o in traj.objects:
        made = dict(render_all(o))
        made["compact"] = render_compact(o, ratio)
        reps[o.object_id] = made
        options[o.object_id] = tuple(
            RepOption(n, made[n].tokens, check(made[n], o).vector, made[n].claimed) for n in STORED
        )
    return FormStore(ratio, reps, options)


@lru_cache(maxsize=64)
def _static_states(traj: Trajectory, store: FormStore) -> tuple[tuple[ObjectState, ...], ...]:
    """Per turn, every admitted object's state before any schedule acted (no active form yet)."""
    out = []
    for turn in range(traj.n_turns):
        objs = []
        for o in traj.admitted(turn):
            obl = traj.obligations_at(turn, o.object_id)
            need = frozenset(ob.check for ob in obl)  # legal: passes every applicable obligation (cf. legality.is_legal)
            opts = store.options[o.object_id]
            objs.append(
                ObjectState(
                    object_id=o.object_id,
                    age=turn - traj.admission_turn(o.object_id),
                    importance=o.importance,
                    options=opts,
                    legal=tuple(x.name for x in opts if need <= x.checks),
                    obligations=obl,
                    active=None,
                    last_changed=None,
                    related=o.object_id in traj.task_related[turn],
                )
            )
        out.append(tuple(objs))
    return tuple(out)


def snapshot(
    traj: Trajectory,
    turn: int,
    store: FormStore,
    active: dict[str, str],
    last_changed: dict[str, int],
    carried: tuple[tuple[str, int], ...] = (),
) -> Snapshot:
    """What any schedule may know at ``turn``: never the probes.

    Parameters
    ----------
    traj:
        The trajectory.
    turn:
        The turn, from 0.
    store:
        Its stored forms.
    active, last_changed:
        Each object's resident form and the turn it last changed (absent: none yet).
    carried:
        What the schedule carried over from the previous turn.

    Returns
    -------
    Snapshot
    """
    objs = tuple(
        replace(st, active=active[st.object_id], last_changed=last_changed.get(st.object_id)) if st.object_id in active else st
        for st in _static_states(traj, store)[turn]
    )
    return Snapshot(turn, traj.budget[turn], objs, carried)


def run_schedule(traj: Trajectory, policy: Schedule, store: FormStore | None = None) -> ScheduleRun:
    """Run ``policy`` over ``traj`` turn by turn; see the module docstring for what is recorded.

    Parameters
    ----------
    traj:
        The frozen trajectory.
    policy:
        The schedule.
    store:
        The stored forms (default: :func:`stored_forms` with the book's
        compaction ratio); pass one store to every schedule compared.

    Returns
    -------
    ScheduleRun
    """
    store = stored_forms(traj) if store is None else store
    active: dict[str, str] = {}
    last_changed: dict[str, int] = {}
    carried: tuple[tuple[str, int], ...] = ()
    turns, probes, snaps = [], [], []
    prev_prompt: list[tuple[str, str]] = []
    switching = 0
    storage = 0
    compacted_at: dict[str, int] = {}
    for t in range(traj.n_turns):
        snap = snapshot(traj, t, store, active, last_changed, carried)
        snaps.append(snap)
        desired = policy.choose(snap)
        applied, why = policy.apply(snap, desired)
        carried = policy.carry(snap, applied)
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
        probes += [_judge_probe(t, p, by_id[p.object_id], desired, applied, infeasible) for p in traj.probes_at(t)]
        prompt = [(o.object_id, applied[o.object_id]) for o in snap.objects]
        tok = {(o.object_id, n.name): n.tokens for o in snap.objects for n in o.options}
        switching += first_divergence_tokens(prev_prompt, prompt, tok)
        prev_prompt = prompt
        for k, v in applied.items():
            if v == "compact" and k not in compacted_at:
                compacted_at[k] = t
        for o in snap.objects:
            storage += sum(store.reps[o.object_id][n].tokens for n in _kept(policy, o.object_id, compacted_at))
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
    ledger = _ledger(traj, policy, store, compacted_at, sum(r.resident_tokens for r in turns), switching, storage)
    return ScheduleRun(policy.name, policy.version, traj.name, tuple(turns), tuple(probes), ledger, tuple(snaps))


def _judge_probe(
    t: int, p: Probe, o: ObjectState, desired: Mapping[str, str], applied: Mapping[str, str], infeasible: bool
) -> ProbeResult:
    """Whether a probe passes on the form applied, and if not, why: representation, legality or selection, and timing."""
    cur = o.option(applied[p.object_id])
    need = set(p.checks)
    passed = (not infeasible) and need <= cur.checks
    classes: list[str] = []
    if not passed:
        if (need & cur.claimed) - cur.checks:
            classes.append("representation")
        covering = [ob for ob in o.obligations if any(ob.key == k and ob.floor >= lv for k, lv in need)]
        if any(ob.check not in cur.checks for ob in covering):
            classes.append("legality")
        else:
            classes.append("selection")
        if infeasible and "selection" not in classes:
            classes.append("selection")
        want = desired[p.object_id]
        if want != applied[p.object_id] and need <= o.option(want).checks:
            classes.append("timing")
    return ProbeResult(t, p.object_id, passed, cur.name, tuple(classes), p.declared, infeasible)


def _ledger(
    traj: Trajectory,
    policy: Schedule,
    store: FormStore,
    compacted_at: dict[str, int],
    resident: int,
    switching: int,
    storage: int,
) -> TokenLedger:
    """A run's token ledger; generation is the union of the lineages of every form the schedule keeps, once per admitted object."""
    gen = val = 0
    for content in traj.objects:
        if traj.admission_turn(content.object_id) >= traj.n_turns:
            continue
        kept = _kept(policy, content.object_id, compacted_at)
        gen += set_generation_cost(kept, store.reps[content.object_id])
        if policy.validates:
            val += sum(store.reps[content.object_id][n].tokens for n in kept)
    return TokenLedger(
        resident_tokens=resident,
        generation_tokens=gen,
        validation_tokens=val,
        switching_tokens=switching,
        regeneration_tokens=0,
        storage_token_turns=storage,
    )


def _kept(policy: Schedule, object_id: str, compacted_at: dict[str, int]) -> tuple[str, ...]:
    """Forms a schedule keeps for one object: its own forms (the flat compactor makes its compaction only when it fires)."""
    if policy.name == "full_while_feasible":
        return tuple(n for n in policy.forms if n == "full" or object_id in compacted_at)
    return tuple(policy.forms)


def reproducible(policy: Schedule, run: ScheduleRun) -> bool:
    """Whether re-choosing from every recorded snapshot gives the recorded desired choice."""
    return all(tuple(sorted(policy.choose(s).items())) == r.desired for s, r in zip(run.snapshots, run.turns))

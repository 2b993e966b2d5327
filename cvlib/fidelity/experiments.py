"""The chapter's Experiments A and B, each returned as a tidy DataFrame.

Experiment A asks whether several explicit representations create operating
points that one flat compaction does not, at equal resident budget. Its flat
baseline is fair: an extractive compaction that keeps the most informative
sentences, at whichever single target size does best at each budget.
Experiment B asks whether a deterministic schedule chooses among a fixed,
independently checked set of forms efficiently over a changing trajectory,
and reports declared and undeclared probes, and failures on infeasible turns,
apart. Both are deterministic simulations: the forms are rendered by
templates, not written by a model, and "behaviour" is whether a hidden
probe's checks are resident, not what a model would do with them.

pandas is imported inside the functions that build tables, so importing
:mod:`cvlib.fidelity` stays light.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int

from .cascade import cascade
from .checker import check, contradictions, survival_by_dimension
from .costs import generation_cost, set_generation_cost
from .extractive import render_compact
from .knapsack import mckp
from .legality import OperatingPoint, dominated_by, operating_dominates, preservation_dominates
from .params import default
from .records import Check, ContentObject, Floor, Trajectory
from .render import Representation, render_all
from .runner import FAILURE_CLASSES, reproducible, run_schedule, stored_forms
from .schedules import POLICIES, POLICY_PARAMETERS, make_policy
from .trajectories import fixture, generate_trajectory

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Experiment A's conditions and the forms each may use (``compact`` is the fair flat compaction).
CONDITIONS: dict[str, tuple[str, ...]] = {
    "raw": ("full",),
    "lossy_summary": ("full", "summary"),
    "flat": ("full", "compact"),
    "three_forms": ("full", "record", "anchor"),
    "tiered_from_source": ("full", "dense", "record", "anchor"),
    "tiered_cascaded": ("full", "dense", "record_cascaded", "anchor_cascaded"),
    "oracle": ("full", "dense", "summary", "record", "anchor", "record_cascaded", "anchor_cascaded", "compact"),
}

#: Nominal detail order used to ask whether a higher-named form preservation-dominates a lower one.
NOMINAL_ORDER: tuple[str, ...] = ("full", "dense", "record", "anchor")

#: The forms of the representation table (every source form, the flat compaction and the cascade).
TABLE_FORMS: tuple[str, ...] = ("full", "dense", "summary", "record", "anchor", "compact", "record_cascaded", "anchor_cascaded")

#: Forms generated from the frozen source (or viewed from such a form), as opposed to cascaded.
SOURCE_FORMS: tuple[str, ...] = ("full", "dense", "summary", "record", "anchor", "compact")

#: Trajectory parameters :func:`~cvlib.fidelity.trajectories.generate_trajectory` accepts.
TRAJECTORY_PARAMETERS: tuple[str, ...] = (
    "n_turns",
    "n_objects",
    "budget_fraction",
    "budget_tokens",
    "budget_jitter",
    "n_probes",
    "declared_fraction",
    "lead",
    "pin_fraction",
    "admit_window",
    "probe_min_age",
    "status_window",
    "importance_mode",
    "prohibition_share",
    "probe_two_checks",
    "relation_share",
    "second_id_share",
)


def object_forms(obj: ContentObject, compact_ratio: float | None = None) -> dict[str, Representation]:
    """Every form of :data:`TABLE_FORMS` for one object, keyed by name (the cascade's intermediates included)."""
    ratio = float(default("compact_ratio") if compact_ratio is None else compact_ratio)  # type: ignore[arg-type]
    f = dict(render_all(obj))
    c = cascade(obj)
    f["record_cascaded"] = c["record_cascaded"]
    f["anchor_cascaded"] = c["anchor_cascaded"]
    f["compact"] = render_compact(obj, ratio)
    return f


def requirements(traj: Trajectory) -> dict[str, tuple[frozenset[Check], frozenset[Check]]]:
    """Per object, the frozen (obligation checks, probe checks) of a trajectory.

    Obligations are taken at their strongest floor over the whole trajectory:
    Experiment A looks at one frozen snapshot, not at a schedule over time.
    """
    out = {}
    for o in traj.objects:
        strongest: dict[str, int] = {}
        for ob in traj.obligations:
            if ob.object_id == o.object_id:
                strongest[ob.key] = max(strongest.get(ob.key, 0), int(ob.floor))
        obl = frozenset(strongest.items())
        pr = frozenset(c for p in traj.probes if p.object_id == o.object_id for c in p.checks)
        out[o.object_id] = (obl, pr)
    return out


def own_call_generation_cost(rep: Representation, forms: Mapping[str, Representation]) -> int:
    """A form's own generating call only (a view: the *source* record's call), not the lineage it was made from.

    Kept so the chapter can show what charging the whole lineage changes;
    never used to rank anything.

    Parameters
    ----------
    rep:
        The form.
    forms:
        Every form of the same object, by name (a view is charged its record's call).

    Returns
    -------
    int
        Tokens read and written by that one call.
    """
    if rep.mechanism == "source":
        return 0
    if rep.mechanism == "model":
        return rep.source_tokens + rep.tokens
    return own_call_generation_cost(forms["record"], forms)


def representation_table(traj: Trajectory, compact_ratio: float | None = None) -> pd.DataFrame:
    """One row per (object, form): tokens, generation cost, what the checker found, lies, additions, contradictions.

    Also whether the form earns a place: not dominated as an operating point
    over (resident tokens, generation tokens) for the object's frozen
    obligation-and-probe requirement set, among every form
    (``earns_place``) and among the forms made from the source
    (``earns_place_among_source_forms``). Generation tokens are the corrected
    ledger's (:func:`~cvlib.fidelity.costs.generation_cost`);
    ``own_call_generation_tokens`` charges each form its own call only.

    Parameters
    ----------
    traj:
        The trajectory whose objects and frozen requirements are used.
    compact_ratio:
        Target size of the flat compaction shown (default: the book's).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    rows = []
    req = requirements(traj)
    for o in traj.objects:
        forms = object_forms(o, compact_ratio)
        results = {n: check(forms[n], o) for n in TABLE_FORMS}
        contra = contradictions([results[n] for n in SOURCE_FORMS])
        need = req[o.object_id][0] | req[o.object_id][1]
        pts = [
            OperatingPoint.make(
                n, results[n].vector, {"resident_tokens": forms[n].tokens, "generation_tokens": generation_cost(forms[n], forms)}
            )
            for n in TABLE_FORMS
        ]
        dom = dominated_by(pts, need)
        dom_source = dominated_by([p for p in pts if p.name in SOURCE_FORMS], need)
        n_checks = len(o.all_checks())
        for n in TABLE_FORMS:
            res, r = results[n], forms[n]
            row = {
                "object_id": o.object_id,
                "form": n,
                "tokens": r.tokens,
                "generation_tokens": generation_cost(r, forms),
                "own_call_generation_tokens": own_call_generation_cost(r, forms),
                "checks_passed": len(res.vector),
                "checks_total": n_checks,
                "exact_share": sum(lv == int(Floor.EXACT) for _, lv in res.vector) / max(1, n_checks // 2),
                "required_met": len(res.vector & need),
                "required_total": len(need),
                "overclaimed": len(res.overclaimed),
                "unsupported_additions": len(res.unsupported),
                "contradictions": sum(n in (a, b) for a, b, *_ in contra),
                "contradicts": ",".join(sorted({b if a == n else a for a, b, *_ in contra if n in (a, b)})),
                "dominated_by": ",".join(dom[n]),
                "earns_place": not dom[n],
                "earns_place_among_source_forms": (not dom_source[n]) if n in dom_source else None,
            }
            row.update({f"survives_{k}": v for k, v in survival_by_dimension(res, o).items()})
            rows.append(row)
    return pd.DataFrame(rows)


def cascade_dominance(traj: Trajectory) -> pd.DataFrame:
    """Per object: does the cascaded record dominate the source record as an operating point, under each ledger?

    Charged only its own call, the cascaded record is cheaper than the
    source record and so dominant wherever it keeps the required checks;
    charged its whole lineage, it also pays for the dense rewrite it was
    made from.

    Returns
    -------
    pandas.DataFrame
        ``object_id``, ``dominates_own_call``, ``dominates_lineage``.
    """
    import pandas as pd

    req = requirements(traj)
    rows = []
    for o in traj.objects:
        forms = object_forms(o)
        need = req[o.object_id][0] | req[o.object_id][1]
        vec = {n: check(forms[n], o).vector for n in ("record", "record_cascaded")}

        def point(n: str, cost, vec=vec, forms=forms) -> OperatingPoint:
            return OperatingPoint.make(n, vec[n], {"resident_tokens": forms[n].tokens, "generation_tokens": cost(forms[n], forms)})

        rows.append(
            {
                "object_id": o.object_id,
                "dominates_own_call": operating_dominates(
                    point("record_cascaded", own_call_generation_cost), point("record", own_call_generation_cost), need
                ),
                "dominates_lineage": operating_dominates(
                    point("record_cascaded", generation_cost), point("record", generation_cost), need
                ),
            }
        )
    return pd.DataFrame(rows)


def nominal_order_failures(traj: Trajectory) -> pd.DataFrame:
    """Pairs in the nominal order (full > dense > record > anchor) where the higher-named form fails to dominate."""
    import pandas as pd

    rows = []
    for o in traj.objects:
        forms = render_all(o)
        vec = {n: check(forms[n], o).vector for n in NOMINAL_ORDER}
        for i, hi in enumerate(NOMINAL_ORDER):
            for lo in NOMINAL_ORDER[i + 1:]:
                rows.append(
                    {
                        "object_id": o.object_id,
                        "higher": hi,
                        "lower": lo,
                        "dominates": preservation_dominates(vec[hi], vec[lo]),
                        "incomparable": not (vec[hi] >= vec[lo] or vec[lo] >= vec[hi]),
                    }
                )
    return pd.DataFrame(rows)


def _numbers(name: str, values: object, *, positive: bool = False, at_most: float | None = None) -> list[float]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ParameterError(f"{name} must be a list of numbers, got {values!r}")
    out = []
    for v in values:  # type: ignore[attr-defined]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or (positive and v == 0):
            raise ParameterError(f"each of {name} must be a {'positive' if positive else 'non-negative'} number, got {v!r}")
        if at_most is not None and v > at_most:
            raise ParameterError(f"each of {name} must be at most {at_most}, got {v!r}")
        out.append(float(v))
    if not out:
        raise ParameterError(f"{name} must list at least one value, got an empty list")
    return out


def _seeds(seeds: object) -> list[int]:
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__") or not list(seeds):  # type: ignore[call-overload]
        raise ParameterError(f"seeds must be a non-empty list of integers, got {seeds!r}")
    return [require_int("each seed", s, minimum=0) for s in seeds]  # type: ignore[union-attr]


def _solve_a(per_obj, names, req, budget, w1, w2, oracle):
    """One condition at one budget: the exact best selection, or None if nothing fits."""
    costs, values = [], []
    for o, forms, vec in per_obj:
        obl, pr = req[o.object_id]
        costs.append([forms[n].tokens for n in names])
        vals = []
        for n in names:
            v = (obl <= vec[n]) * w2 + len(vec[n])
            if oracle:
                v += sum(c in vec[n] for c in pr) * w1
            vals.append(v)
        values.append(vals)
    sol = mckp(costs, values, budget)
    if sol is None:
        return None
    return [(o, forms, vec, names[k]) for (o, forms, vec), k in zip(per_obj, sol)]


def _score_a(picked, req) -> dict[str, int]:
    if picked is None:
        return dict(resident_tokens=0, checks_passed=0, legal_objects=0, obligations_met=0, probe_checks_met=0)
    return dict(
        resident_tokens=sum(f[n].tokens for _, f, _, n in picked),
        checks_passed=sum(len(v[n]) for _, _, v, n in picked),
        legal_objects=sum(req[o.object_id][0] <= v[n] for o, _, v, n in picked),
        obligations_met=sum(len(req[o.object_id][0] & v[n]) for o, _, v, n in picked),
        probe_checks_met=sum(len(req[o.object_id][1] & v[n]) for o, _, v, n in picked),
    )


def experiment_a(
    seed: int = 0,
    *,
    n_objects: int | None = None,
    budget_fractions: Sequence[float] | None = None,
    compaction_grid: Sequence[float] | None = None,
    **trajectory_params: object,
) -> pd.DataFrame:
    """Best preservation each condition reaches at equal resident budget, for one seeded set of objects.

    Obligations and hidden probes are frozen first. Each condition picks one
    form per object by an exact knapsack that maximises (objects kept legal,
    then checks passed) within the budget; the oracle condition maximises the
    probes' checks first and may use every form. The flat condition has one
    compaction per object, made at the single ratio of ``compaction_grid``
    that does best at that budget (so it is tuned per budget: a generous
    baseline). The budget is a fraction of the total full-text tokens.

    Parameters
    ----------
    seed:
        Trajectory seed.
    n_objects:
        Episodes (default: the book's ``a_n_objects``).
    budget_fractions:
        Budgets as shares of all full text (default: the book's ``a_budget_fractions``).
    compaction_grid:
        Ratios the flat compaction may pick from (default: the book's ``compaction_grid``).
    **trajectory_params:
        Passed to :func:`~cvlib.fidelity.trajectories.generate_trajectory`.

    Returns
    -------
    pandas.DataFrame
        One row per (budget, condition), with the generation tokens of the
        condition's whole form set under the corrected ledger, its storage,
        and the flat compaction's chosen ratio (``compact_ratio``).
    """
    import pandas as pd

    require_int("seed", seed, minimum=0)
    n_objects = default("a_n_objects") if n_objects is None else n_objects  # type: ignore[assignment]
    fracs = _numbers("budget_fractions", default("a_budget_fractions") if budget_fractions is None else budget_fractions)
    grid = _numbers(
        "compaction_grid", default("compaction_grid") if compaction_grid is None else compaction_grid, positive=True, at_most=1.0
    )
    bad = set(trajectory_params) - set(TRAJECTORY_PARAMETERS)
    if bad:
        raise ParameterError(f"unknown trajectory parameter(s) {sorted(bad)}; expected some of {list(TRAJECTORY_PARAMETERS)}")
    traj = generate_trajectory(seed, n_objects=n_objects, **trajectory_params)  # type: ignore[arg-type]
    req = requirements(traj)
    base = []
    for o in traj.objects:
        forms = object_forms(o)
        base.append((o, forms, {n: check(forms[n], o).vector for n in forms}))
    compacts: dict[float, list] = {}
    for r in grid:
        per = []
        for o, forms, vec in base:
            f = dict(forms)
            f["compact"] = render_compact(o, r)
            v = dict(vec)
            v["compact"] = f["compact"].claimed  # the extractive compactor's claim is what the checker finds
            per.append((o, f, v))
        compacts[r] = per
    total_full = sum(f["full"].tokens for _, f, _ in base)
    c_tot = sum(len(o.all_checks()) for o, _, _ in base)
    w2 = c_tot + 1
    w1 = (len(base) + 1) * w2
    rows = []
    for frac in fracs:
        budget = int(round(frac * total_full))
        best_r, best_key, flat_pick = None, None, None
        for r in grid:
            picked = _solve_a(compacts[r], CONDITIONS["flat"], req, budget, w1, w2, oracle=False)
            s = _score_a(picked, req)
            key = (picked is not None, s["legal_objects"], s["checks_passed"], -s["resident_tokens"])
            if best_key is None or key > best_key:
                best_r, best_key, flat_pick = r, key, picked
        with_compact = compacts[best_r]  # type: ignore[index]
        for cond, names in CONDITIONS.items():
            per_obj = with_compact if "compact" in names else base
            picked = flat_pick if cond == "flat" else _solve_a(per_obj, names, req, budget, w1, w2, oracle=cond == "oracle")
            row = {"seed": seed, "budget_fraction": frac, "budget_tokens": budget, "condition": cond, "feasible": picked is not None}
            row.update(_score_a(picked, req))
            row.update(
                checks_total=c_tot,
                objects=len(base),
                obligations_total=sum(len(req[o.object_id][0]) for o, _, _ in base),
                probe_checks_total=sum(len(req[o.object_id][1]) for o, _, _ in base),
                generation_tokens=sum(set_generation_cost(names, f) for _, f, _ in per_obj),
                storage_tokens=sum(f[n].tokens for _, f, _ in per_obj for n in set(names)),
                compact_ratio=best_r if "compact" in names else float("nan"),
            )
            rows.append(row)
    return pd.DataFrame(rows)


def sweep_a(seeds: Sequence[int] | None = None, **params: Any) -> pd.DataFrame:
    """Experiment A over several seeds (one fixture each), concatenated in seed order."""
    import pandas as pd

    return pd.concat([experiment_a(s, **params) for s in _seeds(default("seeds") if seeds is None else seeds)], ignore_index=True)


def _split(params: Mapping[str, object]) -> tuple[dict, dict, float | None]:
    """Split one parameter mapping into schedule parameters, trajectory parameters and the compaction ratio."""
    sched, traj = {}, {}
    ratio = None
    for k, v in params.items():
        if k in POLICY_PARAMETERS:
            sched[k] = v
        elif k in TRAJECTORY_PARAMETERS:
            traj[k] = v
        elif k == "compact_ratio":
            ratio = v
        else:
            raise ParameterError(
                f"unknown parameter {k!r}; expected a schedule parameter ({sorted(POLICY_PARAMETERS)}), "
                f"a trajectory parameter ({list(TRAJECTORY_PARAMETERS)}) or compact_ratio"
            )
    return sched, traj, ratio  # type: ignore[return-value]


def run_experiment_b(
    traj: Trajectory,
    *,
    policies: Sequence[str] = POLICIES,
    compact_ratio: float | None = None,
    check_reproducible: bool = True,
    **schedule_params: object,
) -> tuple[pd.DataFrame, dict]:
    """Every schedule over one trajectory: the summary table and the runs (for traces).

    Parameters
    ----------
    traj:
        A frozen trajectory.
    policies:
        Schedules to run, by name.
    compact_ratio:
        Target size of the flat compaction (default: the book's).
    check_reproducible:
        Re-choose from every recorded snapshot and record whether the choice
        repeats (``reproducible``; None when skipped).
    **schedule_params:
        Any of :data:`~cvlib.fidelity.schedules.POLICY_PARAMETERS`.

    Returns
    -------
    tuple
        ``(table, runs)``: one row per schedule, and its :class:`~cvlib.fidelity.runner.ScheduleRun` by name.
    """
    import numpy as np
    import pandas as pd

    for p in policies:
        if p not in POLICIES:
            raise ParameterError(f"unknown policy {p!r}; expected some of {POLICIES}")
    store = stored_forms(traj, compact_ratio)
    forms = store.options
    full_text = sum(
        next(x.tokens for x in forms[o.object_id] if x.name == "full") for t in range(traj.n_turns) for o in traj.admitted(t)
    )
    runs, rows = {}, []
    for name in policies:
        pol = make_policy(name, probes=traj.probes, **schedule_params)
        run = run_schedule(traj, pol, store)
        runs[name] = run
        fails = [p for p in run.probes if not p.passed]
        row = {
            "policy": name,
            "policy_version": run.policy_version,
            "trajectory": traj.name,
            "turns": traj.n_turns,
            "probes": len(run.probes),
            "probes_declared": sum(p.declared for p in run.probes),
            "probes_undeclared": sum(not p.declared for p in run.probes),
            "probe_failures": len(fails),
            "failures_declared": sum(p.declared for p in fails),
            "failures_undeclared": sum(not p.declared for p in fails),
            "failures_on_infeasible": sum(p.infeasible for p in fails),
            "failures_declared_feasible": sum(p.declared and not p.infeasible for p in fails),
            "failures_undeclared_feasible": sum(not p.declared and not p.infeasible for p in fails),
            "legality_violations": sum(len(t.illegal) for t in run.turns),
            "infeasible_turns": sum(t.infeasible for t in run.turns),
            "promotions": sum(t.promotions for t in run.turns),
            "demotions": sum(t.demotions for t in run.turns),
            "delayed_choices": sum(len(t.delayed) for t in run.turns),
            "resident_tokens": run.ledger.resident_tokens,
            "full_text_tokens": full_text,
            "management_tokens": run.ledger.management_tokens,
            "generation_tokens": run.ledger.generation_tokens,
            "validation_tokens": run.ledger.validation_tokens,
            "switching_tokens": run.ledger.switching_tokens,
            "regeneration_tokens": run.ledger.regeneration_tokens,
            "storage_token_turns": run.ledger.storage_token_turns,
            "reproducible": reproducible(pol, run) if check_reproducible else None,
        }
        row.update({f"failures_{c}": sum(c in p.classes for p in fails) for c in FAILURE_CLASSES})
        rows.append(row)
    df = pd.DataFrame(rows)
    df["regret"] = df["probe_failures"] - runs["oracle"].probe_failures if "oracle" in runs else np.nan
    return df, runs


def experiment_b(
    seed: int = 0,
    *,
    fixture_name: str | None = None,
    policies: Sequence[str] = POLICIES,
    check_reproducible: bool = True,
    **params: Any,
) -> pd.DataFrame:
    """Experiment B: one row per schedule over one trajectory (seeded, or a named fixture).

    ``params`` may hold schedule parameters (see
    :data:`~cvlib.fidelity.schedules.POLICY_PARAMETERS`), ``compact_ratio``,
    and trajectory parameters for
    :func:`~cvlib.fidelity.trajectories.generate_trajectory` (see
    :data:`TRAJECTORY_PARAMETERS`). ``regret`` is probe failures minus the
    oracle's.
    """
    sched, traj_params, ratio = _split(params)
    if fixture_name is not None:
        if traj_params:
            raise ParameterError(f"a fixture fixes its own trajectory; drop {sorted(traj_params)}")
        traj = fixture(fixture_name)
    else:
        traj = generate_trajectory(seed, **traj_params)  # type: ignore[arg-type]
    df, _ = run_experiment_b(traj, policies=policies, compact_ratio=ratio, check_reproducible=check_reproducible, **sched)
    df.insert(1, "seed", seed if fixture_name is None else -1)
    return df


def sweep_b(
    seeds: Sequence[int] | None = None,
    budget_fractions: Sequence[float] | None = None,
    check_reproducible: bool = True,
    **params: Any,
) -> pd.DataFrame:
    """Experiment B over seeds x budget fractions, concatenated in that order (defaults: the book's)."""
    import pandas as pd

    fracs = _numbers("budget_fractions", default("b_budget_fractions") if budget_fractions is None else budget_fractions)
    frames = []
    for s in _seeds(default("seeds") if seeds is None else seeds):
        for f in fracs:
            df = experiment_b(s, budget_fraction=f, check_reproducible=check_reproducible, **params)
            df.insert(2, "budget_fraction", f)
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def representation_sweep(
    seeds: Sequence[int] | None = None, n_objects: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The per-form tables over several seeded fixtures, as Experiment A builds them.

    Returns
    -------
    tuple of pandas.DataFrame
        ``(representation table, cascade dominance, nominal-order failures)``,
        each concatenated over the seeds with a ``seed`` column.
    """
    import pandas as pd

    n = default("a_n_objects") if n_objects is None else n_objects
    trajs = {s: generate_trajectory(s, n_objects=n) for s in _seeds(default("seeds") if seeds is None else seeds)}  # type: ignore[arg-type]
    reps = pd.concat([representation_table(t).assign(seed=s) for s, t in trajs.items()], ignore_index=True)
    dom = pd.concat([cascade_dominance(t).assign(seed=s) for s, t in trajs.items()], ignore_index=True)
    nom = pd.concat([nominal_order_failures(t).assign(seed=s) for s, t in trajs.items()], ignore_index=True)
    return reps, dom, nom


def decay_trace(traj: Trajectory) -> tuple[dict, dict[str, list[int]], dict[str, int]]:
    """Both decay schedules over one trajectory: their runs, the turns each re-tiered, and why the port folded.

    Returns
    -------
    tuple
        ``(runs, folds, reasons)``: runs and fold turns keyed by schedule
        name (Magic Context's port, then the book's variant), and the count of
        each hard-fold trigger in the port's run.
    """
    from .numbers import fold_reasons, fold_turns

    store = stored_forms(traj)
    policies = {name: make_policy(name) for name in ("magic_context_decay", "book_decay")}
    runs = {name: run_schedule(traj, pol, store) for name, pol in policies.items()}
    folds = {name: fold_turns(pol, runs[name]) for name, pol in policies.items()}
    return runs, folds, dict(fold_reasons(policies["magic_context_decay"], runs["magic_context_decay"]))

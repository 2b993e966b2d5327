"""Progressive fidelity: several checked representations per content object, and schedules that choose among them.

A deterministic simulation of the proposal in "Let Old Context Fade": content
objects with a canonical record, forms rendered from it, a checker that reads
each form (claims are recorded, never trusted), legality as a predicate over
current obligations, two dominance relations, six selection schedules, and the
chapter's Experiments A and B. ``from cvlib import fidelity as fid``.
"""

from __future__ import annotations

from .checker import CheckResult, check, contradictions, segments, survival_by_dimension
from .costs import Ledger, first_divergence_tokens, generation_cost
from .experiments import (
    CONDITIONS,
    experiment_a,
    experiment_b,
    nominal_order_failures,
    outcomes_that_count,
    representation_table,
    requirements,
    run_experiment_b,
    sweep_b,
)
from .legality import (
    OperatingPoint,
    comparable,
    dominated_by,
    is_legal,
    merge_dominated,
    operating_at_least,
    operating_dominates,
    pareto_front,
    preservation_dominates,
    preserves_at_least,
    violated,
)
from .records import (
    STATUS_WORDS,
    Check,
    Constraint,
    ContentObject,
    Dimension,
    Element,
    FieldValue,
    Floor,
    Force,
    Obligation,
    Probe,
    Rationale,
    Relation,
    Source,
    Status,
    Trajectory,
)
from .render import LADDER, REPRESENTATIONS, Representation, cascade, count_tokens, render, render_all
from .runner import FAILURE_CLASSES, ProbeResult, ScheduleRun, TurnRecord, reproducible, run_schedule, snapshot, stored_forms
from .schedules import (
    MAGIC_BOUNDARIES,
    POLICIES,
    AgeOnly,
    FullWhileFeasible,
    MagicContextDecay,
    ObligationAware,
    Oracle,
    Policy,
    PressureOnly,
    Snapshot,
    half_life,
    magic_tier,
    make_policy,
    mckp,
)
from .trajectories import FIXTURES, fixture, four_quadrants_fixture, generate_trajectory, make_object, migration_fixture

#: Colours for the six schedules (Okabe-Ito, colour-blind-safe); the baseline and
#: obligation-aware schedules reuse the book's baseline and validity-aware colours.
POLICY_COLOURS: dict[str, str] = {
    "full_while_feasible": "#D55E00",
    "age_only": "#E69F00",
    "pressure_only": "#CC79A7",
    "obligation_aware": "#0072B2",
    "magic_context_decay": "#009E73",
    "oracle": "#000000",
}

#: Colours for Experiment A's conditions.
CONDITION_COLOURS: dict[str, str] = {
    "raw": "#999999",
    "flat_compaction": "#D55E00",
    "tiered_from_source": "#0072B2",
    "tiered_cascaded": "#56B4E9",
    "all_forms": "#009E73",
    "oracle": "#000000",
}

__all__ = sorted(n for n in dir() if not n.startswith("_") and n != "annotations")

"""Progressive fidelity: several checked representations per content object, and schedules that choose among them.

A deterministic simulation of the proposal in "Let Old Context Fade": content
objects with a canonical record, forms rendered from it (and a fair
extractive flat compaction), a checker that reads each form (claims are
recorded, never trusted), a cost ledger that charges every form for its whole
lineage, legality as a predicate over current obligations, two dominance
relations, seven selection schedules (among them a port of Magic Context's
decay renderer beside the book's own variant), the chapter's Experiments A
and B, their findings and a sensitivity sweep over every number the book
chose. ``from cvlib import fidelity as fid``.

This package computes and returns plain results; the chapters' tables,
figures and glued numbers are drawn from them by
:mod:`cvlib.presentation.fidelity_tables`,
:mod:`cvlib.presentation.fidelity_figures` and each chapter's module,
:mod:`cvlib.presentation.chapters.fidelity_experiment_a` and
:mod:`~cvlib.presentation.chapters.fidelity_experiment_b`.

Heavy libraries (numpy, pandas) are imported inside the functions that use
them, so importing this package is light.
"""

from __future__ import annotations

from . import numbers
from .cascade import cascade
from .checker import CheckResult, check, contradictions, segments, survival_by_dimension
from .costs import TokenLedger, first_divergence_tokens, generation_cost, lineage, set_generation_cost
from .experiments import (
    CONDITIONS,
    TRAJECTORY_PARAMETERS,
    cascade_dominance,
    decay_trace,
    experiment_a,
    experiment_b,
    nominal_order_failures,
    object_forms,
    own_call_generation_cost,
    representation_sweep,
    representation_table,
    requirements,
    run_experiment_b,
    sweep_a,
    sweep_b,
)
from .extractive import render_compact
from .findings import findings_a, findings_b, outcomes_that_count
from .knapsack import mckp
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
from .params import CHOICES, Choice, book_choices, choice, choices_table, default
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
    SubjectStatus,
    Trajectory,
)
from .render import LADDER, LINEAGE, REPRESENTATIONS, Representation, count_tokens, render, render_all
from .runner import (
    FAILURE_CLASSES,
    FormStore,
    ProbeResult,
    ScheduleRun,
    TurnRecord,
    reproducible,
    run_schedule,
    snapshot,
    stored_forms,
)
from .schedules import (
    MAGIC_BOUNDARIES,
    POLICIES,
    POLICY_PARAMETERS,
    STORED,
    TIER_FORMS,
    AgeOnly,
    BookDecay,
    FullWhileFeasible,
    MagicContextDecay,
    ObligationAware,
    Oracle,
    PressureOnly,
    Schedule,
    Snapshot,
    half_life,
    magic_tier,
    make_policy,
)
from .sensitivity import sensitivity_a, sensitivity_b, survival
from .trajectories import FIXTURES, fixture, four_quadrants_fixture, generate_trajectory, make_object, migration_fixture

__all__ = [
    # modules
    "numbers",
    # cascade
    "cascade",
    # checker
    "CheckResult",
    "check",
    "contradictions",
    "segments",
    "survival_by_dimension",
    # costs
    "TokenLedger",
    "first_divergence_tokens",
    "generation_cost",
    "lineage",
    "set_generation_cost",
    # experiments
    "CONDITIONS",
    "TRAJECTORY_PARAMETERS",
    "cascade_dominance",
    "decay_trace",
    "experiment_a",
    "experiment_b",
    "own_call_generation_cost",
    "nominal_order_failures",
    "object_forms",
    "representation_sweep",
    "representation_table",
    "requirements",
    "run_experiment_b",
    "sweep_a",
    "sweep_b",
    # extractive
    "render_compact",
    # findings
    "findings_a",
    "findings_b",
    "outcomes_that_count",
    # knapsack
    "mckp",
    # legality
    "OperatingPoint",
    "comparable",
    "dominated_by",
    "is_legal",
    "merge_dominated",
    "operating_at_least",
    "operating_dominates",
    "pareto_front",
    "preservation_dominates",
    "preserves_at_least",
    "violated",
    # params
    "CHOICES",
    "Choice",
    "book_choices",
    "choice",
    "choices_table",
    "default",
    # records
    "STATUS_WORDS",
    "Check",
    "Constraint",
    "ContentObject",
    "Dimension",
    "Element",
    "FieldValue",
    "Floor",
    "Force",
    "Obligation",
    "Probe",
    "Rationale",
    "Relation",
    "Source",
    "SubjectStatus",
    "Trajectory",
    # render
    "LADDER",
    "LINEAGE",
    "REPRESENTATIONS",
    "Representation",
    "count_tokens",
    "render",
    "render_all",
    # runner
    "FAILURE_CLASSES",
    "FormStore",
    "ProbeResult",
    "ScheduleRun",
    "TurnRecord",
    "reproducible",
    "run_schedule",
    "snapshot",
    "stored_forms",
    # schedules
    "MAGIC_BOUNDARIES",
    "POLICIES",
    "POLICY_PARAMETERS",
    "STORED",
    "TIER_FORMS",
    "AgeOnly",
    "BookDecay",
    "FullWhileFeasible",
    "MagicContextDecay",
    "ObligationAware",
    "Oracle",
    "Schedule",
    "PressureOnly",
    "Snapshot",
    "half_life",
    "magic_tier",
    "make_policy",
    # sensitivity
    "sensitivity_a",
    "sensitivity_b",
    "survival",
    # trajectories
    "FIXTURES",
    "fixture",
    "four_quadrants_fixture",
    "generate_trajectory",
    "make_object",
    "migration_fixture",
]

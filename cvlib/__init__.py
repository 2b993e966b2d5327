"""cvlib: measuring context validity for agents.

What it costs when an executor keeps acting on facts that were true once and
are not any more, and what checking validity first buys back. ``import cvlib
as cv`` gives the whole public API.
"""

from __future__ import annotations

from . import fidelity, notes, plots, published, random_plans, trace
from .distributed import Grid, RandomFamily, SweepError, sweep
from .errors import CvlibError, CycleError, ParameterError, SpecError, UnknownFactError, UnknownStepError
from .executors import (
    BASELINE,
    VALIDITY_AWARE,
    ExecutorResult,
    compute_budget,
    recovery_cost,
    run_baseline,
    run_validity_aware,
)
from .facts import Fact, HistoryEntry, ValidityState
from .generators import branch_facts, branching, chain, generate, multi_branch
from .graph import PlanGraph, Step, StepKind
from .law import LAW_CASES, break_ticks, check_law, predicted_pfw, predicted_pfw_single
from .paths import data_path, project_root
from .rules import ExecutionRules, VerificationModel
from .scenarios import (
    SCENARIOS,
    ScenarioDefinition,
    ScenarioRun,
    ScenarioSetup,
    StructureSummary,
    get_scenario,
    run_scenario,
    scenario_names,
    setup_scenario,
)
from .spec import load_spec, read_spec, run_spec, setup_from_spec
from .sweeps import budget_sweep, depth_sweep, isolation_sweep, separation_window, topology_grid
from .world import BeliefView, Event, EventKind, Ledger, World

__version__ = "0.1.0"

__all__ = [
    "BASELINE",
    "LAW_CASES",
    "SCENARIOS",
    "VALIDITY_AWARE",
    "BeliefView",
    "CvlibError",
    "CycleError",
    "Event",
    "EventKind",
    "Grid",
    "RandomFamily",
    "SweepError",
    "ExecutionRules",
    "ExecutorResult",
    "Fact",
    "HistoryEntry",
    "Ledger",
    "ParameterError",
    "PlanGraph",
    "ScenarioDefinition",
    "ScenarioRun",
    "ScenarioSetup",
    "SpecError",
    "Step",
    "StepKind",
    "StructureSummary",
    "UnknownFactError",
    "UnknownStepError",
    "ValidityState",
    "VerificationModel",
    "World",
    "branch_facts",
    "branching",
    "break_ticks",
    "budget_sweep",
    "chain",
    "check_law",
    "compute_budget",
    "data_path",
    "depth_sweep",
    "generate",
    "get_scenario",
    "isolation_sweep",
    "load_spec",
    "multi_branch",
    "predicted_pfw",
    "project_root",
    "predicted_pfw_single",
    "read_spec",
    "recovery_cost",
    "run_baseline",
    "run_scenario",
    "run_spec",
    "run_validity_aware",
    "scenario_names",
    "separation_window",
    "setup_from_spec",
    "setup_scenario",
    "sweep",
    "topology_grid",
]

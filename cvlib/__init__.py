"""cvlib: measuring context validity for agents.

What it costs when an executor keeps acting on facts that were true once and
are not any more, and what checking validity first buys back. ``import cvlib
as cv`` gives the whole public API.

The package is layered (each layer imports only the ones below it; the
contracts in ``.importlinter`` are checked by the tests):

* :mod:`cvlib.core`: facts, plans, rules, events, the world, the executors
  (the loop, the policies, their registry and the bit-mask path), the law;
* :mod:`cvlib.scenarios`: generators, random plans, named scenarios, spec files;
* :mod:`cvlib.experiments`: the article's sweeps, X1-X5, sweeps at scale, the
  studies that put a language model in the loop;
* :mod:`cvlib.presentation`: figures, tables, published numbers, each chapter's
  glue, the CLI;

with three side packages beside the experiments, which rest on the core only
and are independent of each other:

* :mod:`cvlib.notes`: code-anchored notes that reach an agent only while provably fresh;
* :mod:`cvlib.fidelity`: progressive fidelity, several checked representations
  per content object and the schedules that choose among them;
* :mod:`cvlib.models`: the model runtime, any language model behind one seam,
  every call recorded, replayed and verified;

and :mod:`cvlib.repository`, which finds the repository's data folders for the
book (the model and the side packages never use it).

``__all__`` lists what a user needs: running a scenario or a spec file, the
article's sweeps and sweeps at scale, the law, the values a run is made of,
writing an executor of one's own (:class:`~cvlib.core.loop.Policy`,
:func:`~cvlib.core.registry.register_policy`,
:func:`~cvlib.core.registry.unregister_policy`), and the errors worth
catching; the subpackages are reachable as ``cvlib.core``,
``cvlib.scenarios``, ``cvlib.experiments``, ``cvlib.presentation``,
``cvlib.notes``, ``cvlib.fidelity`` and ``cvlib.models``, and the modules the
notebooks use by their short names (``cv.tables``, ``cv.figures``, ...).
Every name is loaded on first use (PEP 562), so ``import cvlib`` costs almost
nothing and running a scenario never loads numpy, pandas or matplotlib.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (it would cost more than cvlib's import)

__version__ = "0.2.0"

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    # core
    "CvlibError": "cvlib.core.errors",
    "CycleError": "cvlib.core.errors",
    "ParameterError": "cvlib.core.errors",
    "SizeLimitError": "cvlib.core.errors",
    "SpecError": "cvlib.core.errors",
    "SweepError": "cvlib.core.errors",
    "UnknownFactError": "cvlib.core.errors",
    "UnknownStepError": "cvlib.core.errors",
    "Fact": "cvlib.core.facts",
    "HistoryEntry": "cvlib.core.facts",
    "ValidityState": "cvlib.core.facts",
    "PlanGraph": "cvlib.core.graph",
    "Step": "cvlib.core.graph",
    "StepKind": "cvlib.core.graph",
    "Event": "cvlib.core.events",
    "EventKind": "cvlib.core.events",
    "SilentChange": "cvlib.core.events",
    "ResourceEvent": "cvlib.core.events",
    "ExecutionRules": "cvlib.core.rules",
    "VerificationModel": "cvlib.core.rules",
    "BeliefView": "cvlib.core.world",
    "Ledger": "cvlib.core.world",
    "World": "cvlib.core.world",
    "BASELINE": "cvlib.core.executors",
    "VALIDITY_AWARE": "cvlib.core.executors",
    "TIMESTAMP_ONLY": "cvlib.core.executors",
    "ARTICLE_POLICIES": "cvlib.core.executors",
    "Policy": "cvlib.core.executors",
    "Replan": "cvlib.core.executors",
    "TimestampOnly": "cvlib.core.executors",
    "ValidityAware": "cvlib.core.executors",
    "Baseline": "cvlib.core.executors",
    "register_policy": "cvlib.core.executors",
    "unregister_policy": "cvlib.core.executors",
    "resolve_policies": "cvlib.core.executors",
    "policy_column": "cvlib.core.executors",
    "ExecutorResult": "cvlib.core.executors",
    "compute_budget": "cvlib.core.executors",
    "executor_names": "cvlib.core.executors",
    "recovery_cost": "cvlib.core.executors",
    "run_baseline": "cvlib.core.executors",
    "run_executor": "cvlib.core.executors",
    "run_validity_aware": "cvlib.core.executors",
    "break_ticks": "cvlib.core.law",
    "closed_form_applies": "cvlib.core.law",
    "predicted_pfw": "cvlib.core.law",
    "predicted_pfw_single": "cvlib.core.law",
    "data_path": "cvlib.repository",
    "project_root": "cvlib.repository",
    # scenarios
    "branch_facts": "cvlib.scenarios.generators",
    "branching": "cvlib.scenarios.generators",
    "chain": "cvlib.scenarios.generators",
    "generate": "cvlib.scenarios.generators",
    "multi_branch": "cvlib.scenarios.generators",
    "size_limits": "cvlib.scenarios.sizes",
    "ScenarioRun": "cvlib.scenarios.setup",
    "ScenarioSetup": "cvlib.scenarios.setup",
    "StructureSummary": "cvlib.scenarios.setup",
    "SCENARIOS": "cvlib.scenarios.named",
    "ScenarioDefinition": "cvlib.scenarios.named",
    "get_scenario": "cvlib.scenarios.named",
    "run_scenario": "cvlib.scenarios.named",
    "scenario_names": "cvlib.scenarios.named",
    "setup_scenario": "cvlib.scenarios.named",
    "load_spec": "cvlib.scenarios.spec",
    "read_spec": "cvlib.scenarios.spec",
    "run_spec": "cvlib.scenarios.spec",
    "setup_from_spec": "cvlib.scenarios.spec",
    # experiments
    "budget_sweep": "cvlib.experiments.article",
    "depth_sweep": "cvlib.experiments.article",
    "isolation_sweep": "cvlib.experiments.article",
    "separation_window": "cvlib.experiments.article",
    "topology_grid": "cvlib.experiments.article",
    "DEEP_LAW_CASES": "cvlib.experiments.law_check",
    "LAW_CASES": "cvlib.experiments.law_check",
    "check_law": "cvlib.experiments.law_check",
    "Grid": "cvlib.experiments.large_sweeps",
    "RandomFamily": "cvlib.experiments.large_sweeps",
    "sweep": "cvlib.experiments.large_sweeps",
}

#: Modules reachable as attributes (``cv.figures.set_style()``), by short name.
_MODULES: dict[str, str] = {
    # core
    "errors": "cvlib.core.errors",
    "events": "cvlib.core.events",
    "executors": "cvlib.core.executors",
    "facts": "cvlib.core.facts",
    "graph": "cvlib.core.graph",
    "law": "cvlib.core.law",
    "paths": "cvlib.repository",
    "recovery": "cvlib.core.recovery",
    "rules": "cvlib.core.rules",
    "trace": "cvlib.core.trace",
    "verification": "cvlib.core.verification",
    "world": "cvlib.core.world",
    # scenarios
    "builders": "cvlib.scenarios.builders",
    "generators": "cvlib.scenarios.generators",
    "random_plans": "cvlib.scenarios.random_plans",
    "sizes": "cvlib.scenarios.sizes",
    "spec": "cvlib.scenarios.spec",
    # experiments
    "article": "cvlib.experiments.article",
    "errata": "cvlib.experiments.errata",
    "exposure": "cvlib.experiments.exposure",
    "large_sweeps": "cvlib.experiments.large_sweeps",
    "noisy_verification": "cvlib.experiments.noisy_verification",
    "recovery_windows": "cvlib.experiments.recovery_windows",
    "time_and_operational": "cvlib.experiments.time_and_operational",
    # presentation
    "extension_figures": "cvlib.presentation.extension_figures",
    "figures": "cvlib.presentation.figures",
    "formatting": "cvlib.presentation.formatting",
    "notes_figures": "cvlib.presentation.notes_figures",
    "performance": "cvlib.presentation.performance",
    "published": "cvlib.presentation.published",
    "style": "cvlib.presentation.style",
    "sweep_report": "cvlib.presentation.sweep_report",
    "tables": "cvlib.presentation.tables",
    # the subpackages
    "core": "cvlib.core",
    "scenarios": "cvlib.scenarios",
    "experiments": "cvlib.experiments",
    "presentation": "cvlib.presentation",
    "fidelity": "cvlib.fidelity",
    "models": "cvlib.models",
    "notes": "cvlib.notes",
}

#: What a user needs, by task. Every other name above, the modules and the subpackages stay
#: reachable as attributes but are left out, so ``from cvlib import *`` stays as light as ``import cvlib``.
__all__ = [
    # run a named scenario or a spec file
    "run_scenario",
    "setup_scenario",
    "scenario_names",
    "get_scenario",
    "SCENARIOS",
    "ScenarioDefinition",
    "ScenarioSetup",
    "ScenarioRun",
    "load_spec",
    "run_spec",
    # the article's experiments and sweeps at scale
    "topology_grid",
    "depth_sweep",
    "budget_sweep",
    "isolation_sweep",
    "separation_window",
    "sweep",
    "Grid",
    "RandomFamily",
    # the law
    "predicted_pfw",
    "predicted_pfw_single",
    "break_ticks",
    "check_law",
    "LAW_CASES",
    # building plans and worlds by hand
    "chain",
    "branching",
    "multi_branch",
    "generate",
    "size_limits",
    "Fact",
    "ValidityState",
    "PlanGraph",
    "Step",
    "StepKind",
    "Event",
    "EventKind",
    "SilentChange",
    "ResourceEvent",
    "ExecutionRules",
    "VerificationModel",
    "World",
    "run_executor",
    "run_baseline",
    "run_validity_aware",
    "ExecutorResult",
    "BASELINE",
    "VALIDITY_AWARE",
    # writing an executor of one's own
    "Policy",
    "register_policy",
    "unregister_policy",
    # the errors worth catching
    "CvlibError",
    "ParameterError",
    "SizeLimitError",
    "SpecError",
    "SweepError",
    "CycleError",
]


def __getattr__(name: str) -> Any:
    """Load a public name or a module the first time it is asked for (PEP 562)."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    else:
        raise AttributeError(f"module 'cvlib' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_MODULES})


if TYPE_CHECKING:  # what type checkers and IDEs see; nothing here runs
    from typing import Any

    from cvlib.core.errors import (
        CvlibError,
        CycleError,
        ParameterError,
        SizeLimitError,
        SpecError,
        SweepError,
        UnknownFactError,
        UnknownStepError,
    )
    from cvlib.core.events import Event, EventKind, ResourceEvent, SilentChange
    from cvlib.core.executors import (
        ARTICLE_POLICIES,
        BASELINE,
        TIMESTAMP_ONLY,
        VALIDITY_AWARE,
        Baseline,
        ExecutorResult,
        Policy,
        Replan,
        TimestampOnly,
        ValidityAware,
        compute_budget,
        executor_names,
        policy_column,
        recovery_cost,
        register_policy,
        resolve_policies,
        run_baseline,
        run_executor,
        run_validity_aware,
        unregister_policy,
    )
    from cvlib.core.facts import Fact, HistoryEntry, ValidityState
    from cvlib.core.graph import PlanGraph, Step, StepKind
    from cvlib.core.law import break_ticks, closed_form_applies, predicted_pfw, predicted_pfw_single
    from cvlib.core.rules import ExecutionRules, VerificationModel
    from cvlib.core.world import BeliefView, Ledger, World
    from cvlib.experiments.article import (
        budget_sweep,
        depth_sweep,
        isolation_sweep,
        separation_window,
        topology_grid,
    )
    from cvlib.experiments.large_sweeps import Grid, RandomFamily, sweep
    from cvlib.experiments.law_check import DEEP_LAW_CASES, LAW_CASES, check_law
    from cvlib.repository import data_path, project_root
    from cvlib.scenarios.generators import (
        branch_facts,
        branching,
        chain,
        generate,
        multi_branch,
    )
    from cvlib.scenarios.named import (
        SCENARIOS,
        ScenarioDefinition,
        get_scenario,
        run_scenario,
        scenario_names,
        setup_scenario,
    )
    from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup, StructureSummary
    from cvlib.scenarios.sizes import size_limits
    from cvlib.scenarios.spec import load_spec, read_spec, run_spec, setup_from_spec

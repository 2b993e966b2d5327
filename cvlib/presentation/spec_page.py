"""A book page made from a scenario spec file: what it says and what it found, in words.

``bash scripts/book.sh --spec FILE`` executes ``notebooks/spec_page.ipynb`` on
FILE. Nothing on that page may describe another scenario, so everything
scenario-specific comes from here: the page's title and description from the
spec file, its name from the file's name, the budgets to try, and the
sentences that say what the run found, built from the run's own numbers.
"""

from __future__ import annotations

import pathlib
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError, SpecError
from cvlib.core.executors import (
    ARTICLE_POLICIES,
    BASELINE,
    VALIDITY_AWARE,
    PolicyLike,
    policy_columns,
    resolve_policies,
)
from cvlib.core.values import replace
from cvlib.presentation.style import policy_label
from cvlib.presentation.tables import Table, table
from cvlib.repository import project_root
from cvlib.scenarios.spec import read_spec, setup_from_spec, spec_policies

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

#: A page name is the spec file's name without its suffix, usable as a file name and a label.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


@dataclass(frozen=True)
class SpecPage:
    """A spec file read for a page: where it is, what to call the page, and the scenario it defines."""

    path: pathlib.Path
    shown_path: str
    name: str
    title: str
    description: str
    setup: ScenarioSetup
    #: The executors the page compares, as named (registered names or ``module``, colon, ``attribute``), the
    #: article's two first (its prose is about them), then the spec's others.
    policies: tuple[str, ...] = ARTICLE_POLICIES

    @property
    def detailed(self) -> str:
        """The executor whose run the page shows stretch by stretch, the validity-aware one."""
        return VALIDITY_AWARE

    @property
    def shell_path(self) -> str:
        """The shown path as a shell word (quoted when it holds spaces or other special characters)."""
        return shlex.quote(self.shown_path)


def page_name(path: str | Path) -> str:
    """The page's name, from the spec file's name: ``data/scenarios/two_suppliers.yaml`` gives ``two_suppliers``.

    Parameters
    ----------
    path:
        The spec file.

    Returns
    -------
    str
        The page's name.
    """
    stem = Path(path).stem
    if not _NAME.match(stem):
        raise SpecError(
            f"scenario spec {str(path)!r}: its file name must be letters, digits, '_' or '-' "
            f"(it names the page and its labels), got {stem!r}"
        )
    return stem


def resolve_spec_path(spec: str | Path, root: Path | None = None) -> tuple[Path, str]:
    """The spec file's absolute path, and the path as a page shows it.

    A relative path is read from the repository root; the shown path is
    relative to the root when the file is inside the checkout, absolute when
    it is not.

    Parameters
    ----------
    spec:
        The spec file's path as given.
    root:
        The repository root (default: this checkout's).

    Returns
    -------
    tuple
        The absolute path, and the path as the page shows it.
    """
    root = (root or project_root()).resolve()
    path = Path(spec).expanduser()
    path = (path if path.is_absolute() else root / path).resolve()
    try:
        shown = path.relative_to(root).as_posix()
    except ValueError:
        shown = str(path)
    return path, shown


def load_spec_page(
    spec: str | Path,
    budget: int | None = None,
    root: Path | None = None,
    policies: Sequence[str] | None = None,
    *,
    trust_code: bool = False,
) -> SpecPage:
    """Read a spec file for its page (a ``budget`` other than None replaces the file's budget).

    Parameters
    ----------
    spec:
        The spec file's path.
    budget:
        A budget that replaces the file's, or None.
    root:
        The repository root (default: this checkout's).
    policies:
        Executors to compare instead of the spec's ``policies:``; either way
        the article's two come first and the others follow, in order.
    trust_code:
        Let the spec file's ``policies:`` name ``module:attribute`` references,
        which import that module (``bash scripts/book.sh --spec FILE --trust-code``);
        off, the file may name registered executors only, and opening it runs no code.

    Returns
    -------
    SpecPage
        The page's setup, title, description, paths and executors.
    """
    path, shown = resolve_spec_path(spec, root)
    raw = read_spec(path)
    setup = setup_from_spec(raw, source=shown, trust_code=trust_code)
    if budget is not None:
        setup = replace(setup, budget=budget)
    title, description = page_text(raw)
    asked = list(policies) if policies is not None else spec_policies(raw, shown, trust_code=trust_code) or []
    resolve_policies(asked or None)  # a bad name fails here, in one line
    chosen = (*ARTICLE_POLICIES, *(p for p in asked if p not in ARTICLE_POLICIES))
    return SpecPage(path, shown, page_name(path), title, description, setup, chosen)


def page_text(raw: dict[str, Any]) -> tuple[str, str]:
    """A page's title and description from a parsed spec (the title falls back to the spec's ``name``).

    Parameters
    ----------
    raw:
        The parsed spec file.

    Returns
    -------
    tuple
        The title and the description.
    """
    title = raw.get("title") or raw.get("name") or ""
    description = raw.get("description") or ""
    return " ".join(str(title).split()), str(description).strip()


def outcomes_by_budget(
    setup: ScenarioSetup, budgets: Sequence[int] | None = None, *, policies: Sequence[PolicyLike] | None = None
) -> pd.DataFrame:
    """Each executor under each budget: whether it completes and the steps it used.

    By default the budgets run from one above what the hungrier executor
    needs (or the spec's budget, if larger) down to two below what the
    thriftier one needs, so the table shows where each executor stops
    completing.

    Parameters
    ----------
    setup
        The scenario; only its budget is replaced.
    budgets
        The budgets to try, in the order to show them.
    policies
        The executors, in order; None is the article's two.

    Returns
    -------
    pandas.DataFrame
        One row per budget: ``budget``, each executor's ``{policy}_completed``,
        then each one's ``{policy}_steps``, and ``completed`` (how many completed).
    """
    import pandas as pd

    if budgets is None:
        budgets = default_budgets(setup, policies=policies)
    rows = []
    for b in budgets:
        run = replace(setup, budget=int(b)).run(policies=policies)
        rows.append(
            {
                "budget": int(b),
                **policy_columns(run.results, ("completed", "steps")),
                "completed": sum(int(r.completed) for r in run.results.values()),
            }
        )
    return pd.DataFrame(rows)


def budget_columns(table: pd.DataFrame) -> dict[str, str]:
    """The human column names of an :func:`outcomes_by_budget` table: the budget, who completes, how many.

    Parameters
    ----------
    table:
        The table of :func:`outcomes_by_budget`.

    Returns
    -------
    dict
        Column to name, e.g. ``{"budget": "Budget", "baseline_completed": "Baseline completes", ...}``.
    """
    suffix = "_completed"
    names = [c[: -len(suffix)] for c in table.columns if c.endswith(suffix)]
    return {
        "budget": "Budget",
        **{f"{n}{suffix}": f"{policy_label(n)} completes" for n in names},
        "completed": "Executors completing",
    }


def default_budgets(setup: ScenarioSetup, *, policies: Sequence[PolicyLike] | None = None) -> list[int]:
    """Budgets from just above what every executor needs down to just below what any needs.

    Parameters
    ----------
    setup:
        The scenario.
    policies:
        The executors, in order; None is the article's two.

    Returns
    -------
    list of int
        The budgets, from generous to tight.
    """
    generous = replace(setup, budget=4 * (len(setup.plan) + setup.budget) + 10).run(policies=policies)
    needs = [r.steps_used for r in generous.results.values()]
    high = max(max(needs), setup.budget) + 1
    low = max(0, min(needs) - 2)
    return list(range(high, low - 1, -1))


def rerun_budget(
    setup: ScenarioSetup, completed_now: int, *, policies: Sequence[PolicyLike] | None = None
) -> tuple[int, int]:
    """A budget at which a different number of executors complete, and that number.

    The nearest tighter budget at which fewer complete when any complete now,
    else the nearest looser one at which more do: the budget the page's
    "Run it yourself" command passes.

    Parameters
    ----------
    setup:
        The scenario.
    completed_now:
        How many executors complete at the spec's budget.
    policies:
        The executors, in order; None is the article's two.

    Returns
    -------
    tuple
        The budget, and how many executors complete at it.
    """
    if completed_now > 0:
        candidates = range(setup.budget - 1, -1, -1)
    else:
        candidates = range(setup.budget + 1, 4 * (len(setup.plan) + setup.budget) + 12)
    for b in candidates:
        run = replace(setup, budget=b).run(policies=policies)
        completed = sum(int(r.completed) for r in run.results.values())
        if completed != completed_now:
            return b, completed
    raise ParameterError(f"no budget changes how many executors complete {setup.name!r}")


def completion_words(completed: bool) -> str:
    """``completed`` or ``did not complete``.

    Parameters
    ----------
    completed:
        Whether the run completed.

    Returns
    -------
    str
        The words.
    """
    return "completed" if completed else "did not complete"


def comparison_words(baseline: int, validity: int, unit: str = "steps") -> str:
    """How the validity-aware executor's count compares with the baseline's, in words.

    Parameters
    ----------
    baseline:
        The baseline's count.
    validity:
        The validity-aware executor's count.
    unit:
        What is counted.

    Returns
    -------
    str
        The comparison in words.
    """
    if validity == baseline:
        return f"the same number of {unit} as the baseline"
    diff = abs(baseline - validity)
    return f"{diff} {unit if diff != 1 else unit.rstrip('s')} {'fewer' if validity < baseline else 'more'} than the baseline"


def times_words(n: int) -> str:
    """``never``, ``once``, ``twice`` or ``N times``.

    Parameters
    ----------
    n:
        A number of times.

    Returns
    -------
    str
        The words.
    """
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def count_words(n: int, noun: str) -> str:
    """``no verifications``, ``1 verification``, ``3 verifications``.

    Parameters
    ----------
    n:
        A count.
    noun:
        What is counted, singular.

    Returns
    -------
    str
        The count and the noun, agreeing.
    """
    if n == 0:
        return f"no {noun}s"
    return f"{n} {noun}" + ("" if n == 1 else "s")


def budget_list(budgets: Sequence[int]) -> str:
    """Budgets in words, runs of consecutive ones as ranges: ``17 and 16``, ``15 to 12``, ``9, 7 and 5``.

    Parameters
    ----------
    budgets:
        Budgets, in order.

    Returns
    -------
    str
        The budgets in words.
    """
    values = sorted({int(b) for b in budgets}, reverse=True)
    runs: list[list[int]] = []
    for b in values:
        if runs and runs[-1][-1] == b + 1:
            runs[-1].append(b)
        else:
            runs.append([b])
    parts: list[str] = []
    for r in runs:
        parts += [f"{r[0]} to {r[-1]}"] if len(r) > 2 else [str(b) for b in r]
    return _and(parts)


def _and(parts: Sequence[str], sep: str = ", ") -> str:
    return parts[0] if len(parts) == 1 else sep.join(parts[:-1]) + " and " + parts[-1]


def budget_words(table: pd.DataFrame) -> str:
    """What :func:`outcomes_by_budget` found, in two sentences: who completes at which budgets, and what follows.

    Parameters
    ----------
    table:
        The table of :func:`outcomes_by_budget`.

    Returns
    -------
    str
        Two sentences.
    """
    others = [c[: -len("_completed")] for c in table.columns
              if c.endswith("_completed") and c[: -len("_completed")] not in ARTICLE_POLICIES]
    groups = {
        "both executors complete": table[table.baseline_completed & table.validity_aware_completed].budget,
        "only the validity-aware executor completes": table[~table.baseline_completed & table.validity_aware_completed].budget,
        "only the baseline completes": table[table.baseline_completed & ~table.validity_aware_completed].budget,
        "neither completes": table[~table.baseline_completed & ~table.validity_aware_completed].budget,
    }
    said = [f"{who} at {'a budget' if len(b) == 1 else 'budgets'} of {budget_list(b)}" for who, b in groups.items() if len(b)]
    text = said[0] if len(said) == 1 else "; ".join(said[:-1]) + "; and " + said[-1]
    text = text[0].upper() + text[1:]
    only_v, only_b = len(groups["only the validity-aware executor completes"]), len(groups["only the baseline completes"])
    if only_v and not only_b:
        verdict = "Where only the validity-aware executor completes, the validity layer decides whether the task gets done, not only what it costs."
    elif only_b and not only_v:
        verdict = "Here the checks cost more than the doomed work they save: at those budgets the baseline gets done and the validity-aware executor does not."
    elif only_v and only_b:
        verdict = "Each executor has budgets at which only it completes, so neither is better at every budget."
    else:
        verdict = "At no budget tried does exactly one executor complete: here the difference is in cost, not in outcome."
    extra = "".join(f" {_completion_span(table, name)}" for name in others)
    return f"{text}. {verdict}{extra}"


def _completion_span(table: pd.DataFrame, name: str) -> str:
    """One sentence on where another executor completes, beside the article's two."""
    done = table[table[f"{name}_completed"]].budget
    where = f"at {'a budget' if len(done) == 1 else 'budgets'} of {budget_list(done)}" if len(done) else "at no budget tried"
    return f"{policy_label(name)} completes {where}."


def event_words(setup: ScenarioSetup) -> str:
    """What happens to the facts during the run, one clause per event, silent change, outage or expiry, in tick order.

    Parameters
    ----------
    setup:
        The scenario.

    Returns
    -------
    str
        The clauses, joined.
    """
    clauses = []
    for e in setup.events:
        kind = str(e.kind)
        if kind == "replace":
            text = f"at tick {e.tick} fact {e.fact_id} is replaced"
        elif kind == "ambiguous":
            real = "a real change" if e.breaks_fact else "a false alarm"
            text = f"at tick {e.tick} a signal casts doubt on fact {e.fact_id} ({real})"
        else:
            text = f"at tick {e.tick} fact {e.fact_id} becomes {kind}"
        clauses.append((e.tick, text))
    for change in setup.silent_changes:
        clauses.append((change.tick, f"at tick {change.tick} fact {change.fact_id} changes with no signal"))
    for outage in setup.resource_events:
        resting = ", ".join(sorted(f for f, r in setup.supports.items() if r == outage.resource))
        what = "comes back" if outage.up else f"goes down (fact {resting} rests on it)"
        clauses.append((outage.tick, f"at tick {outage.tick} resource {outage.resource} {what}"))
    ttl = setup.rules.ttl if setup.rules is not None else None
    if ttl is not None:  # the rules' time-to-live sets every fact's horizon
        clauses.append((ttl + 1, f"after tick {ttl} every fact not re-verified goes stale (time-to-live {ttl})"))
    else:
        for f in setup.facts:
            if f.valid_until is not None:
                clauses.append((f.valid_until + 1, f"after tick {f.valid_until} fact {f.id} goes stale"))
    if not clauses:
        return "nothing happens to the facts"
    texts = [t for _, t in sorted(clauses, key=lambda c: c[0])]
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def findings(run: ScenarioRun) -> dict[str, Any]:
    """The glue values of a spec page's "What we found", from one run of the page's executors.

    Parameters
    ----------
    run:
        One run of the article's two executors and any others.

    Returns
    -------
    dict
        Glue key to value.
    """
    b, v = run.baseline, run.validity_aware
    return {
        "S_steps": run.structure.total_steps,
        "S_budget": b.budget,
        "S_baseline_steps": b.steps_used,
        "S_validity_steps": v.steps_used,
        "S_baseline_pfw": b.pre_failure_work,
        "S_validity_pfw": v.pre_failure_work,
        "S_verifications": v.verifications,
        "S_baseline_replans": b.replans,
        "S_validity_replans": v.replans,
        "S_predicted_pfw": run.structure.predicted_baseline_pfw,
        "S_law_agrees": "agrees" if run.structure.predicted_baseline_pfw == b.pre_failure_work else "does not agree",
        "S_baseline_completed": completion_words(b.completed),
        "S_validity_completed": completion_words(v.completed),
        "S_completed": sum(int(r.completed) for r in run.results.values()),
        "S_steps_compared": comparison_words(b.steps_used, v.steps_used),
        "S_baseline_replans_words": times_words(b.replans),
        "S_validity_replans_words": times_words(v.replans),
        "S_verifications_words": count_words(v.verifications, "verification"),
        "S_other_executors": other_executors_words(run),
    }


def other_executors_words(run: ScenarioRun) -> str:
    """A sentence per executor beyond the article's two: its steps, doomed steps and whether it completed.

    Parameters
    ----------
    run:
        One run of the page's executors.

    Returns
    -------
    str
        When only the article's two ran, a sentence saying so (a glued value is never empty).
    """
    sentences = []
    for name, r in run.results.items():
        if name in (BASELINE, VALIDITY_AWARE):
            continue
        sentences.append(
            f"{policy_label(name)} used {r.steps_used} steps, {r.pre_failure_work} of them doomed, with "
            f"{count_words(r.verifications, 'verification')}, and {completion_words(r.completed)}."
        )
    return " ".join(sentences) or "No executor beyond the article's two ran on this page."


def facts_table(setup: ScenarioSetup) -> Table:
    """The scenario's facts as the page shows them: each one's id, first value and validity horizon.

    Parameters
    ----------
    setup : ScenarioSetup
        The page's scenario.

    Returns
    -------
    Table
    """
    import pandas as pd

    frame = pd.DataFrame(
        [{"fact": f.id, "value": f.value, "valid until tick": f.valid_until} for f in setup.facts],
        columns=["fact", "value", "valid until tick"],
    )
    return table(frame, {"fact": "Fact", "value": "Value", "valid until tick": "Valid until tick"})


def events_table(setup: ScenarioSetup) -> Table:
    """The scenario's announced events, in the order the world applies them.

    Parameters
    ----------
    setup : ScenarioSetup
        The page's scenario.

    Returns
    -------
    Table
    """
    import pandas as pd

    frame = pd.DataFrame(
        [{"tick": e.tick, "fact": e.fact_id, "kind": str(e.kind), "new value": e.new_value, "really changed": e.breaks_fact}
         for e in setup.events],
        columns=["tick", "fact", "kind", "new value", "really changed"],
    )
    return table(frame, {"tick": "Tick", "fact": "Fact", "kind": "Event", "new value": "New value",
                         "really changed": "Really changed"})


def structure_table(setup: ScenarioSetup) -> Table:
    """What the plan's structure predicts before anything runs, as one row.

    Parameters
    ----------
    setup : ScenarioSetup
        The page's scenario.

    Returns
    -------
    Table
    """
    import pandas as pd

    s = setup.structure()
    frame = pd.DataFrame([{
        "steps": s.total_steps, "at risk": setup.at_risk, "closure size": s.closure_size,
        "exposed %": s.exposed_pct, "budget": setup.budget, "predicted baseline PFW": s.predicted_baseline_pfw,
    }])
    return table(frame, {"steps": "Plan steps", "at risk": "Fact at risk", "closure size": "Steps on it",
                         "exposed %": "Plan exposed", "budget": "Budget",
                         "predicted baseline PFW": "Law: baseline doomed steps"}, {"exposed %": "percent"})


def event_markers(setup: ScenarioSetup) -> list[tuple[int, str]]:
    """Where the mechanism figure marks the scenario's events and expiries, by tick.

    Parameters
    ----------
    setup : ScenarioSetup
        The page's scenario.

    Returns
    -------
    list of (int, str)
        Ticks and their labels, sorted.
    """
    markers = [(e.tick, f"{e.fact_id} {e.kind}") for e in setup.events]
    markers += [(f.valid_until + 1, f"{f.id} expires") for f in setup.facts if f.valid_until is not None]
    return sorted(markers)

"""The chapter "A local model and stale notes": the pre-registered notes study's tables, figures, prompts and glued values.

The statistics are :mod:`cvlib.experiments.notes_study.analysis` (every answer
read as code, paired effects by task, McNemar's test, the real gate, the
predictions); this module finds the recordings, writes the results for a
reader (counts in words, intervals as ranges, readings of an interval) and
draws (its two figures are written in the sibling :mod:`~cvlib.presentation.chapters.model_notes_figures`
and re-exported here). It never runs a model itself: a reader's new recording
is made by :func:`cvlib.experiments.notes_study.design.reader_recording`. A
planned recording that is not there yet is shown as "not recorded yet" (n = 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.experiments.notes_study import analysis as na
from cvlib.experiments.notes_study.design import EXPERIMENT as STUDY
from cvlib.experiments.notes_study.design import SAMPLED_TEMPERATURE, reader_recording, refuting_context, study_prompt
from cvlib.experiments.notes_study.trials import ARM_LABELS, ARMS
from cvlib.experiments.notes_study.trials import EXPERIMENT as FIRST
from cvlib.models.determinism import determinism_sentence, load_determinism
from cvlib.models.naming import recording_stem
from cvlib.presentation import _study_models
from cvlib.presentation import formatting as wording
from cvlib.presentation._study_models import glue_key, model_label, model_table, prompt_block
from cvlib.presentation.chapters.model_notes_figures import OUTCOME_NAMES, effects_figure, outcomes_figure
from cvlib.presentation.chapters.model_notes_study import NotesStudy
from cvlib.presentation.formatting import (
    MARKDOWN,
    MISSING,
    Quantity,
    effect_phrase,
    fmt,
    grouped_effects,
    interval_text,
    plural,
)
from cvlib.repository import project_root

if TYPE_CHECKING:
    import pandas as pd

    from cvlib.experiments.notes_study.tasks import NotesTask

__all__ = [
    "MODELS",
    "MODEL_LABELS",
    "PLANNED",
    "PREREGISTRATION_COMMIT",
    "NotesStudy",
    "audit_sources",
    "audit_table",
    "chapter_values",
    "contrasts_table",
    "coverage_table",
    "determinism_table",
    "effects_figure",
    "effects_table",
    "gate_table",
    "kinds_table",
    "other_table",
    "outcomes_figure",
    "predictions_table",
    "prompts_markdown",
    "read_study",
    "shares_table",
    "study_sources",
    "trials_table",
]

#: The study's models, smallest first, by recording stem; the agent study's too.
MODELS: tuple[str, ...] = _study_models.MODELS
#: How the page names them.
MODEL_LABELS: dict[str, str] = _study_models.MODEL_LABELS
#: The file names of the first edition's recordings (the second edition's have their own page).
FIRST_EDITION_FILES = ("notes_trials.", "notes_study.")
#: The commit that holds part 2 of the pre-registration, made before the notes study's first call.
PREREGISTRATION_COMMIT = "fef2a9a"
#: Each model's pre-registered groups, ``(variant, repeat)`` (``preregistration.md``, part 2, section 2.3).
PLANNED: dict[str, tuple[tuple[str, int], ...]] = {
    "smollm2-135m": (("unrefutable", 0), ("refutable", 0)),
    "qwen2.5-coder-0.5b": (("unrefutable", 0), ("refutable", 0), ("unrefutable", 1), ("refutable", 1),
                           ("unrefutable", 2), ("refutable", 2)),
    "qwen2.5-coder-1.5b": (("unrefutable", 0), ("refutable", 0)),
}
_CONTRASTS: tuple[tuple[str, str], ...] = (*na.ARM_CONTRASTS, ("withheld", "dependency_changed"))


def study_sources(models: Sequence[str] = MODELS, folder: str = "data/model_trials", study_folder: str = "",
                  model: str = "", record_tasks: int = 2) -> dict[str, list[Path]]:
    """Each model's recordings the page reads (an empty list: not recorded yet), or a reader's new one.

    Parameters
    ----------
    models : sequence of str
        Recording stems: ``notes_trials.<stem>.jsonl`` (the first recordings, the unrefutable greedy runs of the
        Qwen models) and ``notes_study.<stem>.jsonl.gz``.
    folder : str
        Where they are (relative to the repository root, or absolute).
    study_folder : str
        Where the ``notes_study`` recordings are, if elsewhere (empty: ``folder``).
    model : str
        Empty to read ``models``; else a model to record with (the page then reads only that recording).
    record_tasks : int
        How many tasks a new recording takes, in the study's seeded order.

    Returns
    -------
    dict of str to list of Path
    """
    def where(text: str) -> Path:
        return Path(text) if Path(text).is_absolute() else project_root() / text

    if model:
        from cvlib.experiments.notes_study import load_refutations, load_stale_effects, load_tasks

        data = project_root() / "data" / "model_trials"
        refutations = {k: r for k, r in load_refutations(data / "notes_refutations.yaml").items() if r.verified}
        out = reader_recording(model, record_tasks, project_root() / "_runs", load_tasks(data / "notes_tasks.yaml"),
                               refutations, load_stale_effects(str(data / "notes_stale_effects.yaml")))
        return {recording_stem(model): [out]}
    base, study = where(folder), where(study_folder or folder)
    candidates = {stem: [base / f"{FIRST}.{stem}.jsonl", study / f"{STUDY}.{stem}.jsonl.gz"] for stem in models}
    return {stem: [p for p in paths if p.is_file()] for stem, paths in candidates.items()}


def audit_sources(folder: str = "data/model_trials") -> dict[str, list[Path]]:
    """The committed recordings the hand audit judged, by model.

    The unrefutable part judged the first recordings (the two Qwen models' ``notes_trials`` files), the
    refutable part the study's greedy answers (``notes_study`` files, all three models).

    Parameters
    ----------
    folder : str
        Where they are (relative to the repository root, or absolute).

    Returns
    -------
    dict of str to list of Path
    """
    base = Path(folder) if Path(folder).is_absolute() else project_root() / folder
    found = {stem: [p for p in (base / f"{FIRST}.{stem}.jsonl", base / f"{STUDY}.{stem}.jsonl.gz") if p.is_file()]
             for stem in MODELS}
    return {stem: paths for stem, paths in found.items() if paths}


def read_study(sources: Mapping[str, Sequence[Path]], tasks: Sequence[NotesTask], effects: Mapping[str, Any],
               code_history: str | Path, audit: str | Path, confidence: float = 0.95, *,
               audited: Mapping[str, Sequence[Path]] | None = None) -> NotesStudy:
    """The pre-registered analysis of every recording found (part 2, section 2.5), in one value.

    The hand audit judged greedy answers of the committed recordings, so the
    reader is compared with it on those (``audited``), whatever recordings the
    page reads.

    Parameters
    ----------
    sources : Mapping
        :func:`study_sources`.
    tasks : sequence of NotesTask
        The tasks.
    effects : Mapping
        The stated stale effects by task id.
    code_history : str or Path
        The release tables the real gate reads.
    audit : str or Path
        The hand audit (``notes_audit.csv``).
    confidence : float
        Every interval's level.
    audited : Mapping, optional
        The recordings the audit judged, by model (default: ``sources``).

    Returns
    -------
    NotesStudy
    """
    outcomes = na.study_outcomes(sources, tasks, effects)
    judged = outcomes if audited is None or audited == sources else na.study_outcomes(audited, tasks, effects)
    models = tuple(m for m in sources if (outcomes["model"] == m).any())
    small, mid, large = MODELS
    gate = na.gate_shown(tasks, code_history)
    return NotesStudy(
        models=models, outcomes=outcomes, shares=na.stale_shares(outcomes, confidence) if models else outcomes.iloc[0:0],
        sampled=_sampled(outcomes, confidence),
        effects=na.variant_effects(outcomes, confidence=confidence) if models else _empty(),
        held=na.variant_effects(outcomes, confidence=confidence, outcome="unchanged") if models else _empty(),
        contrasts=na.arm_contrasts(outcomes, _CONTRASTS, confidence) if models else _empty(),
        gate=gate, gate_effects=na.gate_effect(outcomes, gate["shown"], confidence),
        kinds=na.kind_counts(outcomes), other=na.other_reasons(outcomes), audit=na.audit_agreement(audit, judged),
        predictions=na.predictions(outcomes, small, mid, large, confidence), coverage=na.coverage(outcomes),
        confidence=confidence)


def _sampled(outcomes: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """The sampled repeats' shares (repeat 1 and up), one block per repeat, with a ``repeat`` column."""
    import pandas as pd

    repeats = sorted(int(r) for r in outcomes["repeat"].unique() if int(r) > 0) if len(outcomes) else []
    parts = [na.stale_shares(outcomes, confidence, repeat=r).assign(repeat=r) for r in repeats]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["model", "variant", "arm", "repeat"])


def _empty() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns=["model", "arm", "variant", "contrast", "tasks", "mean", "low", "high"])


#: A difference of two shares, in percentage points.
_POINTS = Quantity(0, scale=100.0, signed=True)
#: Fewer paired tasks than this and an effect is not read.
_MIN_TASKS = 5


def _interval(mean: float, low: float, high: float, kind: str = "percent_whole") -> str:
    return interval_text(mean, low, high, kind)


def _points(mean: float, low: float, high: float) -> str:
    """A difference of shares in percentage points, with its interval."""
    if math.isnan(mean):
        return MISSING
    return f"{plural(mean, 'point', kind=_POINTS)} ({fmt(low, _POINTS)} to {fmt(high, _POINTS)})"


def _reading(low: float, high: float, tasks: int) -> str:
    return wording.verdict(low, high, tasks, min_tasks=_MIN_TASKS)


def coverage_table(study: NotesStudy, sources: Mapping[str, Sequence[Path]]) -> Any:
    """Tasks recorded whole per model, variant and repeat, beside the pre-registered plan ("not recorded yet" when none).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.
    sources : Mapping
        :func:`study_sources`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    have = {(r["model"], r["variant"], int(r["repeat"])): int(r["tasks"]) for _, r in study.coverage.iterrows()}
    rows = []
    for model in sources:
        planned = PLANNED.get(model, (("unrefutable", 0), ("refutable", 0)))
        for variant, repeat in planned:
            n = have.get((model, variant, repeat), 0)
            rows.append({"model": model, "variant": variant,
                         "repeat": "0 (greedy)" if repeat == 0 else f"{repeat} (sampled, T = {SAMPLED_TEMPERATURE})",
                         "tasks": n, "status": "recorded" if n else na.NOT_RECORDED})
    frame = pd.DataFrame(rows, columns=["model", "variant", "repeat", "tasks", "status"])
    return model_table(frame, {"model": "Model", "variant": "Variant", "repeat": "Repeat", "tasks": "Tasks (n)",
                               "status": "Status"}, collapse_after=None)


def shares_table(study: NotesStudy) -> Any:
    """Per model, variant, repeat and arm: tasks, stale edits with the share's interval, and every other outcome's count.

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    s = pd.concat([study.shares.assign(repeat=0), study.sampled], ignore_index=True) if len(study.sampled) else study.shares
    repeats = s["repeat"] if "repeat" in s else [0] * len(s)
    frame = pd.DataFrame({
        "model": list(s.get("model", [])), "variant": s.get("variant", []),
        "repeat": ["0 (greedy)" if int(r) == 0 else f"{int(r)} (sampled)" for r in repeats],
        "arm": [ARM_LABELS[a] for a in s.get("arm", [])], "tasks": s.get("tasks", []),
        "stale": [f"{fmt(int(k))} ({_interval(v, lo, hi)})" for k, v, lo, hi in
                  zip(s.get("stale", []), s.get("share", []), s.get("low", []), s.get("high", []))],
        **{o: s.get(f"n_{o}", []) for o in ("true_exact", "true_collateral", "unchanged", "other")},
    })
    level = round(100 * study.confidence)
    return model_table(frame, {"model": "Model", "variant": "Variant", "repeat": "Repeat", "arm": "Arm", "tasks": "Tasks",
                               "stale": f"Stale edits ({level} % Wilson interval of the share)",
                               **{o: OUTCOME_NAMES[o].capitalize() for o in ("true_exact", "true_collateral", "unchanged", "other")}},
                       caption="One answer per task, arm and repeat; each share's interval is for that model, arm, variant and repeat alone")


def effects_table(study: NotesStudy) -> Any:
    """Refutable minus unrefutable, per model and stale arm: stale edits and held-back answers, paired by task, with McNemar.

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    rows = []
    for name, frame in (("stale edit", study.effects), ("unchanged (held back)", study.held)):
        for _, r in frame.iterrows():
            rows.append({"model": r["model"], "arm": ARM_LABELS[r["arm"]], "outcome": name, "tasks": int(r["tasks"]),
                         "effect": _points(r["mean"], r["low"], r["high"]),
                         "reading": _reading(r["low"], r["high"], int(r["tasks"])),
                         "discordant": f"{fmt(int(r['only_refutable']))} / {fmt(int(r['only_unrefutable']))}",
                         "p": fmt(r["p_value"], "rate")})
    frame = pd.DataFrame(rows, columns=["model", "arm", "outcome", "tasks", "effect", "reading", "discordant", "p"])
    level = round(100 * study.confidence)
    return model_table(frame, {"model": "Model", "arm": "Arm", "outcome": "Outcome", "tasks": "Paired tasks",
                               "effect": f"Refutable − unrefutable ({level} % interval over tasks)", "reading": "Reading",
                               "discordant": "Greedy: only refutable / only unrefutable", "p": "McNemar p (exact)"},
                       summary=f"Refutable minus unrefutable, per model, stale arm and outcome ({plural(len(frame), 'row')})")


def contrasts_table(study: NotesStudy) -> Any:
    """Within each variant, the label, the verify rule and withholding against the note shown as fresh, paired by task.

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    by = {"stale_labelled": "the model's choice", "stale_verify": "instruction", "withheld": "construction"}
    rows = [{"model": r["model"], "variant": r["variant"],
             "contrast": " − ".join(ARM_LABELS[a] for a in r["contrast"].split(" − ")), "tasks": int(r["tasks"]),
             "effect": _points(r["mean"], r["low"], r["high"]), "reading": _reading(r["low"], r["high"], int(r["tasks"])),
             "by": by[r["contrast"].split(" − ")[0]]} for _, r in study.contrasts.iterrows()]
    frame = pd.DataFrame(rows, columns=["model", "variant", "contrast", "tasks", "effect", "reading", "by"])
    level = round(100 * study.confidence)
    return model_table(frame, {"model": "Model", "variant": "Variant", "contrast": "Contrast (first − second)",
                               "tasks": "Paired tasks", "effect": f"Stale-edit share, difference ({level} % interval)",
                               "reading": "Reading", "by": "Holds by"},
                       summary=f"Each arm against the note shown as fresh, per model and variant ({plural(len(frame), 'row')})")


def gate_table(study: NotesStudy) -> Any:
    """The real gate beside the ideal ``withheld`` arm, per model and variant (greedy).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    g = study.gate_effects
    rows = [{"model": r["model"], "variant": r["variant"], "tasks": int(r["tasks"]),
             "shown": f"{fmt(int(r['shown_stale']))} of {fmt(int(r['shown']))} "
                      f"({_interval(r['shown_stale'] / r['shown'] if r['shown'] else math.nan, r['shown_low'], r['shown_high'])})",
             "real": int(r["real_stale"]), "ideal": int(r["ideal_stale"]), "effect": _points(r["mean"], r["low"], r["high"])}
            for _, r in g.iterrows()]
    frame = pd.DataFrame(rows, columns=["model", "variant", "tasks", "shown", "real", "ideal", "effect"])
    level = round(100 * study.confidence)
    return model_table(frame, {"model": "Model", "variant": "Variant", "tasks": "Tasks",
                               "shown": f"Stale edits where the real gate shows the note ({level} % interval)",
                               "real": "Stale edits, real gate (all tasks)", "ideal": "Stale edits, withheld arm (all tasks)",
                               "effect": "Real − withheld, per task"}, collapse_after=None)


def kinds_table(study: NotesStudy) -> Any:
    """Per kind of rule: the verify arm's stale edits and held-back answers with and without the refuting code.

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    return model_table(study.kinds, {"model": "Model", "rule_kind": "Kind of rule", "tasks": "Tasks (both variants)",
                                     "stale_unrefutable": "Stale edits, unrefutable", "stale_refutable": "Stale edits, refutable",
                                     "unchanged_unrefutable": "Held back, unrefutable", "unchanged_refutable": "Held back, refutable"},
                       summary=f"The verify arm by kind of rule, per model ({plural(len(study.kinds), 'row')})")


def other_table(study: NotesStudy) -> Any:
    """Why answers were ``other``, per model and variant (greedy).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    names = {c: c.capitalize() for c in study.other.columns if c not in ("model", "variant", "answers", "other")}
    return model_table(study.other, {"model": "Model", "variant": "Variant", "answers": "Answers", "other": "Other", **names},
                       collapse_after=None)


def audit_table(study: NotesStudy) -> Any:
    """The hand audit against the reader: audited answers by the audit's verdict and the reader's outcome.

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.presentation.tables import table

    a = study.audit
    order = [o for o in (*OUTCOME_NAMES, MISSING) if o in set(a["audit"]) | set(a["reader"])]
    variants = [v for v in ("unrefutable", "refutable") if v in set(a["variant"])]
    rows = [(v, o) for v in variants for o in order if ((a["variant"] == v) & (a["audit"] == o)).any()]
    grid = pd.crosstab([a["variant"], a["audit"]], a["reader"]).reindex(index=pd.MultiIndex.from_tuples(rows),
                                                                         columns=order, fill_value=0)
    frame = grid.rename_axis(index=["variant", "hand audit"]).reset_index()
    frame["hand audit"] = frame["hand audit"].map(lambda o: OUTCOME_NAMES.get(o, o))
    names = {"variant": "Variant", "hand audit": "Hand audit ↓ / reader →",
             **{o: OUTCOME_NAMES.get(o, "not in the recordings") for o in order}}
    return table(frame, names, collapse_after=None)


def predictions_table(study: NotesStudy) -> Any:
    """Every pre-registered prediction with what was measured and its verdict (including those that came out against).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.presentation.tables import table

    p = study.predictions
    rows = []
    for _, r in p.iterrows():
        points = r["prediction"] in ("NP1", "NP2", "NP4")
        measured = _points(r["mean"], r["low"], r["high"]) if points else _interval(r["mean"], r["low"], r["high"])
        rows.append({"prediction": r["prediction"], "model": " − ".join(model_label(m) for m in r["model"].split(" − ")),
                     "measure": r["measure"], "tasks": int(r["tasks"]), "measured": measured, "verdict": r["verdict"]})
    frame = pd.DataFrame(rows, columns=["prediction", "model", "measure", "tasks", "measured", "verdict"])
    return table(frame, {"prediction": "Prediction", "model": "Model", "measure": "Measured", "tasks": "Tasks",
                         "measured": f"Value ({round(100 * study.confidence)} % interval)", "verdict": "Verdict"},
                 summary=f"Every prediction of part 2 with its verdict ({plural(len(frame), 'row')})")


def trials_table(study: NotesStudy) -> Any:
    """Every greedy answer as the reader read it: one row per model, variant and task, one column per arm (folded).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    greedy = study.outcomes[study.outcomes["repeat"] == 0]
    short = {"stale_edit": "stale", "true_exact": "true", "true_collateral": "true+", "unchanged": "unchanged", "other": "other"}
    grid = greedy.pivot_table(index=["model", "variant", "task"], columns="arm", values="outcome", aggfunc="first")
    grid = grid.reindex(columns=[a for a in ARMS if a in grid.columns]).reset_index()
    order = {m: k for k, m in enumerate(study.models)}
    grid = grid.assign(o=grid["model"].map(order), v=grid["variant"].map({"unrefutable": 0, "refutable": 1}))
    grid = grid.sort_values(["o", "v", "task"]).drop(columns=["o", "v"])
    for arm in ARMS:
        if arm in grid:
            grid[arm] = grid[arm].map(lambda o: short.get(o, MISSING) if isinstance(o, str) else MISSING)
    names = {"model": "Model", "variant": "Variant", "task": "Task",
             **{a: ARM_LABELS[a].capitalize() for a in ARMS if a in grid.columns}}
    return model_table(grid, names, summary=f"Every greedy answer, as the reader read it ({len(grid)} rows; true+ = with other changes)")


def prompts_markdown(task: NotesTask, refutation: Any) -> str:
    """Every arm's prompt for one task in both variants, in full, as plain Markdown (a notebook's output is CommonMark).

    Parameters
    ----------
    task : NotesTask
        The example task.
    refutation : Refutation
        Its verified refutation.

    Returns
    -------
    str
    """
    blocks = []
    for variant in ("unrefutable", "refutable"):
        blocks.append(f"**{variant.capitalize()} variant**")
        for arm in ARMS:
            turns = study_prompt(task, arm, variant, refutation if variant == "refutable" else None)
            text = "\n\n".join(f"[{role}]\n{content}" for role, content in turns)
            blocks.append(f"*{ARM_LABELS[arm]}* (`{arm}`, {variant})\n\n{prompt_block(text)}")
    refuting_context(refutation)  # fails loudly if the example has no test to show
    return "\n\n".join(blocks)


def _share_words(study: NotesStudy, model: str, arm: str, variant: str) -> str:
    """``k of n (share, interval)`` for one model, arm and variant (greedy), or "not recorded yet"."""
    s = study.shares
    hit = s[(s["model"] == model) & (s["arm"] == arm) & (s["variant"] == variant)] if len(s) else s
    if hit.empty:
        return na.NOT_RECORDED
    r = hit.iloc[0]
    return f"{fmt(int(r['stale']))} of {fmt(int(r['tasks']))}, {_interval(r['share'], r['low'], r['high'])}"


def _effect_words(frame: pd.DataFrame, **where: str) -> str:
    """One paired effect in words: points, interval and reading (n is the paragraph's); "not recorded yet" when absent."""
    hit = frame
    for column, value in where.items():
        hit = hit[hit[column] == value] if len(hit) else hit
    if hit.empty:
        return na.NOT_RECORDED
    r = hit.iloc[0]
    return effect_phrase(r["mean"], r["low"], r["high"], int(r["tasks"]), _POINTS, unit="point", min_tasks=_MIN_TASKS)


def _model_values(study: NotesStudy, model: str) -> dict[str, tuple[Any, str]]:
    """One model's glued values (``MN_<key>_...``): shares per arm and variant, effects, the gate, true notes, the finding."""
    p = f"MN_{glue_key(model)}_"
    out: dict[str, tuple[Any, str]] = {f"{p}label": (model_label(model), "count")}
    cov = study.coverage
    for variant in ("unrefutable", "refutable"):
        hit = cov[(cov["model"] == model) & (cov["variant"] == variant) & (cov["repeat"] == 0)] if len(cov) else cov
        out[f"{p}tasks_{variant}"] = (int(hit.iloc[0]["tasks"]) if len(hit) else na.NOT_RECORDED, "count")
        for arm, short in (("dependency_changed", "fresh"), ("stale_labelled", "labelled"), ("stale_verify", "verify"),
                           ("withheld", "withheld"), ("control", "control")):
            out[f"{p}{short}_{variant}"] = (_share_words(study, model, arm, variant), "count")
    out[f"{p}refute"] = (_effect_words(study.effects, model=model, arm="dependency_changed"), "count")
    out[f"{p}refute_held"] = (_effect_words(study.held, model=model, arm="dependency_changed"), "count")
    for first, short in (("stale_labelled", "label"), ("stale_verify", "verify"), ("withheld", "withhold")):
        out[f"{p}{short}_effect"] = (_effect_words(study.contrasts, model=model, variant="unrefutable",
                                                   contrast=f"{first} − dependency_changed"), "count")
    g = study.gate_effects
    hit = g[(g["model"] == model) & (g["variant"] == "unrefutable")] if len(g) else g
    if len(hit):
        r = hit.iloc[0]
        out[f"{p}gate_shown_stale"] = (f"{fmt(int(r['shown_stale']))} of {fmt(int(r['shown']))}", "count")
        out[f"{p}gate_real"] = (f"{fmt(int(r['real_stale']))} of {fmt(int(r['tasks']))}", "count")
        out[f"{p}gate_ideal"] = (f"{fmt(int(r['ideal_stale']))} of {fmt(int(r['tasks']))}", "count")
    else:
        for name in ("gate_shown_stale", "gate_real", "gate_ideal"):
            out[f"{p}{name}"] = (na.NOT_RECORDED, "count")
    s = study.shares
    true = s[(s["model"] == model) & (s["arm"] == "true_note") & (s["variant"] == "unrefutable")] if len(s) else s
    if len(true):
        r = true.iloc[0]
        n = int(r["tasks"])
        out[f"{p}true_exact"] = (f"{fmt(int(r['n_true_exact']))} of {fmt(n)}", "count")
        out[f"{p}true_any"] = (f"{fmt(int(r['n_true_exact'] + r['n_true_collateral']))} of {fmt(n)}", "count")
    else:
        out[f"{p}true_exact"] = out[f"{p}true_any"] = (na.NOT_RECORDED, "count")
    o = study.other
    mine = o[o["model"] == model] if len(o) else o
    out[f"{p}other"] = (", ".join(f"{fmt(int(r['other']))} of {fmt(int(r['answers']))} ({r['variant']})"
                                  for _, r in mine.iterrows()) or na.NOT_RECORDED, "count")
    refutable = mine[mine["variant"] == "refutable"] if len(mine) else mine
    out[f"{p}test_instead"] = ((f"{fmt(int(refutable.iloc[0]['a test instead of the function']))} of "
                                f"{fmt(int(refutable.iloc[0]['answers']))}") if len(refutable) else na.NOT_RECORDED, "count")
    out[f"{p}finding"] = (_finding(out, p, _held_back(study, model)), MARKDOWN)
    return out


def _held_back(study: NotesStudy, model: str) -> str:
    """Whether a fall in stale edits with the refuting code came with a rise in unchanged answers (holding back).

    A model can stop making the stale edit by answering something else (the
    test it was shown, another function): only a rise in *unchanged* answers
    is holding back, so the Key finding says which of the two the data show.
    """
    def row(frame: pd.DataFrame) -> Any:
        hit = frame[(frame["model"] == model) & (frame["arm"] == "dependency_changed")] if len(frame) else frame
        return hit.iloc[0] if len(hit) else None

    stale, held = row(study.effects), row(study.held)
    if stale is None or held is None or not stale["high"] < 0:
        return ""
    moved = _points(held["mean"], held["low"], held["high"])
    if held["low"] > 0:
        return f". Unchanged answers rose by {moved}: the model held back"
    o = study.other
    other = o[(o["model"] == model) & (o["variant"] == "refutable")] if len(o) else o
    instead = (f". {fmt(int(other.iloc[0]['other']))} of its {fmt(int(other.iloc[0]['answers']))} refutable answers were "
               "neither edit nor the function unchanged") if len(other) else ""
    return f". Unchanged answers changed by {moved}, so the fall is not shown to be holding back{instead}"


def _finding(out: Mapping[str, tuple[Any, str]], p: str, held_back: str = "") -> str:
    """The Key finding's sentence for one model, from its glued values and :func:`_held_back`."""
    label = out[f"{p}label"][0]
    if out[f"{p}tasks_unrefutable"][0] == na.NOT_RECORDED and out[f"{p}tasks_refutable"][0] == na.NOT_RECORDED:
        return f"{label}: {na.NOT_RECORDED}"
    return (f"{label}: shown as fresh, stale edit in {out[f'{p}fresh_unrefutable'][0]} without the refuting code and "
            f"{out[f'{p}fresh_refutable'][0]} with it. Paired difference: {out[f'{p}refute'][0]}{held_back}")


#: The arm contrasts the prose states for the coder models at once, each verdict once — glue key, first arm, lead.
_GROUPED: tuple[tuple[str, str, str], ...] = (
    ("label", "stale_labelled", "against the note shown as fresh (unrefutable variant), the change in the stale-edit share "
     "from the label"),
    ("verify", "stale_verify", "the change from the verify rule"),
    ("withhold", "withheld", "the change from withholding the note"),
)


def _group_values(study: NotesStudy, models: Sequence[str]) -> dict[str, tuple[Any, str]]:
    """``MN_group_<label|verify|withhold>``: each arm against the note shown as fresh, for the given models at once.

    :func:`~cvlib.presentation.formatting.grouped_effects` says each verdict once
    and names every model beside its number; a model without a recording is "not recorded yet".
    """
    c = study.contrasts
    out: dict[str, tuple[Any, str]] = {}
    for key, first, lead in _GROUPED:
        rows = []
        for model in dict.fromkeys(models):
            hit = c[(c["model"] == model) & (c["variant"] == "unrefutable") & (c["contrast"] == f"{first} − dependency_changed")] \
                if len(c) else c
            rows.append((model_label(model), *((hit.iloc[0][k] for k in ("mean", "low", "high"))
                                               if len(hit) else (math.nan,) * 3), int(hit.iloc[0]["tasks"]) if len(hit) else 0))
        out[f"MN_group_{key}"] = (grouped_effects(lead, rows, _POINTS, unit="point", min_tasks=_MIN_TASKS,
                                                  missing=na.NOT_RECORDED), MARKDOWN)
    return out


def _prediction_words(study: NotesStudy) -> dict[str, tuple[Any, str]]:
    """Each prediction's verdicts in one phrase: for which model it holds, does not, or is not recorded yet."""
    out: dict[str, tuple[Any, str]] = {}
    p = study.predictions
    for name in na.PREDICTIONS:
        mine = p[p["prediction"] == name]
        parts = []
        for verdict in ("holds", "does not hold", na.TOO_FEW, na.NOT_RECORDED):
            rows = mine[mine["verdict"] == verdict]
            if len(rows):
                who = ", ".join(dict.fromkeys(" − ".join(model_label(m) for m in r.split(" − ")) for r in rows["model"]))
                parts.append(f"{verdict} ({fmt(len(rows))} of {fmt(len(mine))} checks: {who})")
        out[f"MN_{name}"] = ("; ".join(parts) or na.NOT_RECORDED, "count")
    return out


def chapter_values(study: NotesStudy, tasks: Sequence[NotesTask], refutable_tasks: int, main: str) -> dict[str, tuple[Any, str]]:
    """Every value the prose quotes, by glue key, with its kind (for :func:`cvlib.presentation.formatting.glue_all`).

    Parameters
    ----------
    study : NotesStudy
        :func:`read_study`.
    tasks : sequence of NotesTask
        The tasks.
    refutable_tasks : int
        How many tasks have a verified refutation.
    main : str
        The model the front page quotes (``MN_tasks`` is its number of tasks recorded).

    Returns
    -------
    dict
        ``MN_tasks``, ``MN_preregistration``, the gate's counts, the audit's agreement, each prediction's verdicts
        (``MN_NP1`` ...), and per model ``MN_<s135|q05|q15|new>_...`` (shares, effects, gate, true notes, finding).
    """
    from cvlib.experiments.notes_study.design import NOTES_STUDY_SEED

    gate = study.gate
    audit = study.audit
    mine = study.outcomes[study.outcomes["model"] == main] if len(study.outcomes) else study.outcomes
    out: dict[str, tuple[Any, str]] = {
        "MN_tasks": (int(mine["task"].nunique()) if len(mine) else 0, "count"),
        "MN_all_tasks": (len(tasks), "count"), "MN_refutable_tasks": (refutable_tasks, "count"),
        "MN_preregistration": (PREREGISTRATION_COMMIT, "count"), "MN_seed": (str(NOTES_STUDY_SEED), "count"),
        "MN_temperature": (SAMPLED_TEMPERATURE, "tenths"), "MN_confidence_pct": (f"{round(100 * study.confidence)} %", "count"),
        "MN_gate_withheld": (int(gate["withheld"]), "count"), "MN_gate_shown": (len(gate["shown"]), "count"),
        "MN_gate_wide": (int(gate["wide"]), "count"), "MN_gate_shown_ids": (", ".join(gate["shown"]) or MISSING, "count"),
        "MN_audit_total": (len(audit), "count"), "MN_audit_agree": (int(audit["agree"].sum()), "count"),
        **{f"MN_audit_{v}_{k}": (n, "count") for v in ("unrefutable", "refutable")
           for k, n in (("total", int((audit["variant"] == v).sum())),
                        ("agree", int(audit[audit["variant"] == v]["agree"].sum())))},
        "MN_models_read": (len(study.models), "count"), "MN_main_label": (model_label(main), "count"),
    }
    for model in MODELS + tuple(m for m in study.models if m not in MODELS):
        out.update(_model_values(study, model))
    out.update({k.replace(f"MN_{glue_key(main)}_", "MN_main_"): v for k, v in _model_values(study, main).items()})
    out.update(_prediction_words(study))
    out.update(_group_values(study, [m for m in study.models if m not in MODELS] or list(MODELS[1:])))  # the coders, or a reader's own
    out["MN_determinism"] = (determinism_sentence(load_determinism(project_root() / "data" / "model_trials" / "determinism.csv"),
                                                  FIRST_EDITION_FILES), "count")
    return out

def determinism_table() -> Any:
    """Per recording of the notes study, its sampled calls that came back byte-identical at one and two threads.

    Returns
    -------
    cvlib.presentation.tables.Table
        Read from ``data/model_trials/determinism.csv`` (:func:`cvlib.models.determinism.load_determinism`).
    """
    return _study_models.determinism_table(load_determinism(project_root() / "data" / "model_trials" / "determinism.csv"),
                                           FIRST_EDITION_FILES)

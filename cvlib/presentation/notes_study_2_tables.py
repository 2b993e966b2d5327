"""The notes study's second edition as tables and one figure: levels, the manipulation check, contrasts with bounds.

The readings come from :mod:`cvlib.experiments.notes_study.second_analysis`
(every answer read again by the frozen reader, the strict classifier and the
echo check). This module puts them in the order the pre-registration
(``data/model_trials/preregistration_part4.md``) asks a reader to meet them:
what was recorded against the plan, then the **levels** (the share of tasks
with a stale edit, and with the model holding back, per model, variant and
arm), then the manipulation check, then the paired **contrasts**, each null
stated as the bound its two one-sided tests give (section 4.8), never as an
absence. The same tables are made for the strict reading as the sensitivity
analysis (section 4.6), and the two readings are set side by side outcome by
outcome.

Both the chapter (``notebooks/notes_study_2.ipynb``) and the report card
(``cvlib study report``) call these functions, so a reader's own recordings
are shown exactly as the book shows the study's.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.equivalence import EQUIVALENCE_MARGIN, MIN_TASKS, equivalence
from cvlib.experiments.notes_study.manipulation import ECHO_LIMIT, manipulation_check
from cvlib.experiments.notes_study.second_analysis import HELD_BACK, refutability
from cvlib.experiments.notes_study.second_design import PLANS, group_name, study_groups
from cvlib.experiments.notes_study.second_prompts import VARIANTS
from cvlib.experiments.notes_study.trials import ARM_LABELS, ARMS, STALE_ARMS
from cvlib.experiments.paired import mcnemar_exact, paired_effect
from cvlib.presentation._study_models import fold_long, model_label, model_table
from cvlib.presentation.formatting import MISSING, Quantity, fmt, interval_text, plural

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.experiments.notes_study.second_tasks import SecondEdition
    from cvlib.presentation.tables import Table

__all__ = [
    "NOT_RECORDED",
    "READINGS",
    "RULE_CONTRASTS",
    "bound_text",
    "contrasts",
    "contrasts_table",
    "levels",
    "levels_figure",
    "levels_table",
    "manipulation",
    "manipulation_table",
    "planned_groups",
    "recording_status",
    "sensitivity",
    "sensitivity_table",
    "status_table",
    "with_reading",
]

#: What the page says of a model, variant or arm with no whole group recorded.
NOT_RECORDED = "not recorded yet"
#: The two readings of every answer, the frozen reader's (primary) and the strict classifier's (sensitivity), by their columns.
READINGS: Mapping[str, str] = {"reader": "outcome", "strict": "strict"}
#: The arm contrasts of N2 within each variant, first minus second.
RULE_CONTRASTS: tuple[tuple[str, str], ...] = (("stale_labelled", "dependency_changed"), ("stale_verify", "dependency_changed"))
#: A difference of two shares, in percentage points.
_POINTS = Quantity(0, scale=100.0, signed=True)
#: How each question is named in the contrasts table.
_QUESTIONS: Mapping[str, str] = {"refutable − placebo": "N1", "placebo − unrefutable": "N1, secondary",
                                 "refutable − unrefutable": "N1, secondary"}
#: The variants' order, and the arms'.
_VARIANT_ORDER = {v: i for i, v in enumerate(VARIANTS)}
_ARM_ORDER = {a: i for i, a in enumerate(ARMS)}


# -- what was recorded ---------------------------------------------------------------------------------------
def planned_groups(edition: SecondEdition, model: str) -> dict[int, tuple[str, ...]]:
    """A model's pre-registered groups by repeat (section 4.5): greedy for every model, sampled for the Qwen coders.

    A model outside the plan (a reader's own) gets the greedy repeat, which is
    what ``cvlib models import-inspect`` or the recorder's default makes.

    Parameters
    ----------
    edition : SecondEdition
        :func:`~cvlib.experiments.notes_study.second_tasks.load_second_edition`.
    model : str
        The model's recording stem.

    Returns
    -------
    dict of int to tuple of str
        Each repeat's group names (:func:`~cvlib.experiments.notes_study.second_design.group_name`), in recording order.
    """
    repeats = PLANS.get(model, (0,))
    out: dict[int, list[str]] = {r: [] for r in repeats}
    for g in study_groups(edition.tasks, edition.refutations, edition.rules, repeats):
        out[g.repeat].append(group_name(g.task, g.variant, g.repeat))
    return {r: tuple(names) for r, names in out.items()}


def recording_status(planned: Mapping[str, Mapping[int, Collection[str]]],
                     recorded: Mapping[str, Collection[str]]) -> pd.DataFrame:
    """Per model and repeat, the groups planned, the planned groups recorded whole, and what that is in words.

    Counting groups reads no answer, so the status can be shown while the
    readings are still blind (section 4.11).

    Parameters
    ----------
    planned : Mapping
        Per model, :func:`planned_groups`.
    recorded : Mapping
        Per model, the group names its recordings hold whole
        (:func:`~cvlib.experiments.notes_study.second_design.recorded_groups`); a model with none is missing or empty.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``repeat``, ``planned``, ``recorded``, ``status`` (``not recorded yet``, ``k of n groups`` or
        ``complete``), in the order of ``planned``.
    """
    import pandas as pd

    rows = []
    for model, repeats in planned.items():
        have = set(recorded.get(model, ()))
        for repeat, names in repeats.items():
            n, k = len(names), len(have & set(names))
            status = NOT_RECORDED if k == 0 else "complete" if k == n else f"{fmt(k)} of {plural(n, 'group')}"
            rows.append({"model": model, "repeat": int(repeat), "planned": n, "recorded": k, "status": status})
    return pd.DataFrame(rows, columns=["model", "repeat", "planned", "recorded", "status"])


def status_table(status: pd.DataFrame) -> Table:
    """:func:`recording_status` as the page shows it.

    Parameters
    ----------
    status : pandas.DataFrame
        :func:`recording_status`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = status.assign(repeat=[_repeat_words(int(r)) for r in status["repeat"]])
    return model_table(frame, {"model": "Model", "repeat": "Repeat", "planned": "Groups planned",
                               "recorded": "Recorded whole", "status": "Status"}, collapse_after=None)


def _repeat_words(repeat: int) -> str:
    return "0 (greedy, six arms)" if repeat == 0 else f"{repeat} (sampled, three stale arms)"


# -- levels ----------------------------------------------------------------------------------------------------
def with_reading(outcomes: pd.DataFrame, reading: str = "reader") -> pd.DataFrame:
    """``outcomes`` with ``stale`` and ``held_back`` taken from one reading (the reader's, or the strict classifier's).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes`.
    reading : str
        ``reader`` or ``strict`` (:data:`READINGS`).

    Returns
    -------
    pandas.DataFrame
        A copy; ``declined`` and ``true_exact`` follow the same reading.
    """
    if reading not in READINGS:
        raise ParameterError(f"unknown reading {reading!r}; expected one of {', '.join(READINGS)}")
    column = outcomes[READINGS[reading]]
    return outcomes.assign(stale=column == "stale_edit", held_back=column.isin(HELD_BACK), declined=column == "declined",
                           true_exact=column == "true_exact")


def levels(outcomes: pd.DataFrame, confidence: float = 0.95, reading: str = "reader") -> pd.DataFrame:
    """Per model, variant and arm: the greedy answers' stale edits and holding back, each share with its Wilson interval.

    The greedy repeat holds one answer per task, so a share is ``k`` of ``n``
    tasks (section 4.8, single shares). Where sampled repeats exist (the Qwen
    coders' stale arms), the stale-edit share with every repeat averaged within
    a task is added, with a bootstrap interval over tasks.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes`.
    confidence : float
        The intervals' level.
    reading : str
        ``reader`` or ``strict``.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``variant``, ``arm``, ``tasks``, ``stale``, ``stale_share``, ``stale_low``, ``stale_high``, ``held``,
        ``held_share``, ``held_low``, ``held_high``, ``declined``, ``true_exact``, ``repeats`` (most answers a task
        has), ``averaged``, ``averaged_low``, ``averaged_high`` (NaN without sampled repeats); models in the order met,
        variants and arms in the plan's order.
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval
    from cvlib.experiments.agent_study.results import mean_interval

    columns = ["model", "variant", "arm", "tasks", "stale", "stale_share", "stale_low", "stale_high", "held", "held_share",
               "held_low", "held_high", "declined", "true_exact", "repeats", "averaged", "averaged_low", "averaged_high"]
    if outcomes.empty:
        return pd.DataFrame(columns=columns)
    read = with_reading(outcomes, reading)
    order = {m: i for i, m in enumerate(dict.fromkeys(read["model"]))}
    rows = []
    for (model, variant, arm), part in read.groupby(["model", "variant", "arm"], sort=False):
        greedy = part[part["repeat"] == 0]
        n = int(greedy["task"].nunique())
        if n == 0:
            continue
        stale, held = int(greedy["stale"].sum()), int(greedy["held_back"].sum())
        repeats = int(part.groupby("task")["repeat"].nunique().max())
        averaged = (mean_interval(part.groupby("task")["stale"].mean().astype(float).tolist(), confidence)
                    if repeats > 1 else (math.nan,) * 3)
        rows.append({"model": model, "variant": variant, "arm": arm, "tasks": n,
                     "stale": stale, "stale_share": stale / n, **dict(zip(("stale_low", "stale_high"),
                                                                           proportion_interval(stale, n, confidence))),
                     "held": held, "held_share": held / n, **dict(zip(("held_low", "held_high"),
                                                                      proportion_interval(held, n, confidence))),
                     "declined": int(greedy["declined"].sum()), "true_exact": int(greedy["true_exact"].sum()),
                     "repeats": repeats, "averaged": averaged[0], "averaged_low": averaged[1], "averaged_high": averaged[2]})
    frame = pd.DataFrame(rows, columns=columns)
    key = (frame["model"].map(order) * 100 + frame["variant"].map(_VARIANT_ORDER) * 10 + frame["arm"].map(_ARM_ORDER))
    return frame.assign(_key=key).sort_values("_key", kind="stable").drop(columns="_key").reset_index(drop=True)


def _count_share(k: Any, n: Any, share: Any, low: Any, high: Any) -> str:
    return f"{fmt(int(k))} of {fmt(int(n))}, {interval_text(share, low, high, 'percent_whole')}"


def levels_table(frame: pd.DataFrame, confidence: float = 0.95) -> Table:
    """:func:`levels` as the page shows it: counts of tasks with each share and its interval.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`levels`.
    confidence : float
        The intervals' level (for the headers).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    level = round(100 * confidence)
    shown = frame.assign(
        arm=[ARM_LABELS[a] for a in frame["arm"]],
        stale_text=[_count_share(*r) for r in frame[["stale", "tasks", "stale_share", "stale_low", "stale_high"]].itertuples(index=False)],
        held_text=[_count_share(*r) for r in frame[["held", "tasks", "held_share", "held_low", "held_high"]].itertuples(index=False)],
        averaged_text=[interval_text(m, lo, hi, "percent_whole") if not math.isnan(m) else MISSING
                       for m, lo, hi in frame[["averaged", "averaged_low", "averaged_high"]].itertuples(index=False)])
    names = {"model": "Model", "variant": "Variant", "arm": "Arm", "tasks": "Tasks",
             "stale_text": f"Stale edits ({level} % Wilson interval)",
             "held_text": f"Held back: unchanged or declined ({level} % Wilson interval)", "declined": "Declined"}
    if frame["repeats"].gt(1).any():
        names["averaged_text"] = f"Stale edits, sampled repeats averaged in ({level} % interval over tasks)"
    return model_table(shown, names, summary=f"Levels per model, variant and arm ({plural(len(frame), 'row')})")


def levels_figure(frame: pd.DataFrame, models: Sequence[str], confidence: float = 0.95,
                  empty: str | Mapping[str, str] = NOT_RECORDED) -> Figure:
    """The stale-edit share per arm and variant, one panel per model, with Wilson intervals (greedy answers).

    A model with no whole group recorded keeps its panel, which says so, so
    the figure has the same shape however far the recording has got.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`levels`.
    models : sequence of str
        The panels, in order.
    confidence : float
        The intervals' level (for the legend).
    empty : str or Mapping
        What a panel without a level says (:data:`NOT_RECORDED`), or that per model (a page whose readings are blind
        says so for the models recorded).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    from cvlib.presentation.style import SERIES, legend_below, new_figure

    panels = list(models) or [""]
    fig, axes = new_figure(1, len(panels), height=4.2, sharey=True, squeeze=False)
    colours = {v: SERIES[i] for i, v in enumerate(VARIANTS)}
    offsets = {v: 0.25 * (1 - i) for i, v in enumerate(VARIANTS)}
    for ax, model in zip(axes[0], panels):
        mine = frame[frame["model"] == model] if len(frame) else frame
        for r in mine.itertuples(index=False):
            y = len(ARMS) - 1 - _ARM_ORDER[r.arm] + offsets[r.variant]
            ax.plot([100 * r.stale_low, 100 * r.stale_high], [y, y], color=colours[r.variant], lw=2)
            ax.plot(100 * r.stale_share, y, marker="o", ms=5, color=colours[r.variant])
        if mine.empty:
            said = empty if isinstance(empty, str) else empty.get(model, NOT_RECORDED)
            ax.text(50, (len(ARMS) - 1) / 2, said, ha="center", va="center", fontsize=9, color="#555555")
        ax.set_title(model_label(model).replace("-", "\n", 1), fontsize=10)
        ax.set_xlim(-3, 103)
        ax.set_xlabel("% of tasks, stale edit")
        ax.grid(axis="y", visible=False)
    axes[0][0].set_yticks(range(len(ARMS)), [a.replace("_", " ") for a in reversed(ARMS)])
    axes[0][0].set_ylim(-0.6, len(ARMS) - 0.4)
    handles = [Line2D([], [], color=colours[v], marker="o", lw=2, label=v) for v in VARIANTS]
    handles.append(Line2D([], [], lw=0, label=f"share of tasks, {round(100 * confidence)} % Wilson interval"))
    legend_below(fig, handles, ncols=2)
    return fig


# -- the manipulation check ------------------------------------------------------------------------------------
def manipulation(outcomes: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per model, the control answers that echo the read-only context, and whether the model took the test (section 4.7).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes`.
    confidence : float
        The Wilson interval's level.

    Returns
    -------
    pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.manipulation.manipulation_check`'s columns.
    """
    import pandas as pd

    if outcomes.empty:
        return pd.DataFrame(columns=["model", "answers", "echoed", "share", "low", "high", "took_test"])
    return manipulation_check(outcomes, confidence=confidence)


def manipulation_table(check: pd.DataFrame, confidence: float = 0.95) -> Table:
    """:func:`manipulation` as the page shows it.

    Parameters
    ----------
    check : pandas.DataFrame
        :func:`manipulation`.
    confidence : float
        The interval's level (for the header).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    took = ["no control answer with context yet" if int(r.answers) == 0 else "yes" if r.took_test
            else "no: its variant contrasts are shown, not read" for r in check.itertuples(index=False)]
    frame = check.assign(
        echo=[_count_share(r.echoed, r.answers, r.share, r.low, r.high) if int(r.answers) else MISSING
              for r in check.itertuples(index=False)], took=took)
    return model_table(frame, {"model": "Model", "echo": f"Control answers that echo the context ({round(100 * confidence)} % "
                                                         "Wilson interval)", "took": f"Took the test (at most {fmt(ECHO_LIMIT, 'percent_whole')} echo)"},
                       collapse_after=None)


# -- contrasts ----------------------------------------------------------------------------------------------------
def _rule_contrasts(outcomes: pd.DataFrame, confidence: float, margin: float, column: str) -> list[dict[str, Any]]:
    """N2: within each variant, each stale arm against the note shown as fresh, paired by task (repeats averaged)."""
    rows = []
    for model in dict.fromkeys(outcomes["model"]):
        mine = outcomes[outcomes["model"] == model]
        for variant in VARIANTS:
            part = mine[mine["variant"] == variant]
            if part.empty:
                continue
            wide = part.assign(hit=part[column].astype(float)).set_index(["task", "repeat", "arm"])["hit"].unstack("arm")
            for first, second in RULE_CONTRASTS:
                if first not in wide or second not in wide:
                    continue
                both = wide[[first, second]].dropna()
                if both.empty:
                    continue
                per_task = both.groupby(level="task").mean()
                diff = (per_task[first] - per_task[second]).tolist()
                effect, bound = paired_effect(diff, confidence), equivalence(diff, margin)
                greedy = both.xs(0, level="repeat") if 0 in both.index.get_level_values("repeat") else both.iloc[:0]
                test = mcnemar_exact((greedy[first] > 0).tolist(), (greedy[second] > 0).tolist()) if len(greedy) else None
                rows.append({"model": model, "question": "N2", "variant": variant, "contrast": f"{first} − {second}",
                             "arm": first, "tasks": effect.tasks, "first_share": float(per_task[first].mean()),
                             "second_share": float(per_task[second].mean()), "mean": effect.mean, "low": effect.low, "high": effect.high,
                             "p_value": test.p_value if test else math.nan, "tost_low": bound.low, "tost_high": bound.high,
                             "verdict": bound.verdict, "read": True})
    return rows


def contrasts(outcomes: pd.DataFrame, confidence: float = 0.95, margin: float = EQUIVALENCE_MARGIN,
              reading: str = "reader") -> pd.DataFrame:
    """Every pre-registered contrast of the stale-edit share, with its interval, McNemar's test and its TOST.

    N1 and its two secondary variant contrasts come from
    :func:`~cvlib.experiments.notes_study.second_analysis.refutability` (a
    model that did not take the test keeps its rows, ``read`` False); N2 is
    each stale arm against ``dependency_changed`` within each variant.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes`.
    confidence : float
        The interval's level.
    margin : float
        The equivalence margin (pre-registered: 0.15).
    reading : str
        ``reader`` or ``strict``.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``question``, ``variant``, ``contrast``, ``arm``, ``tasks``, ``first_share``,
        ``second_share`` (each side's share over the paired tasks, repeats averaged), ``mean``, ``low``, ``high``,
        ``p_value``, ``tost_low``, ``tost_high``, ``verdict``, ``read``, ``bound`` (:func:`bound_text`).
    """
    import pandas as pd

    columns = ["model", "question", "variant", "contrast", "arm", "tasks", "first_share", "second_share", "mean", "low",
               "high", "p_value", "tost_low", "tost_high", "verdict", "read", "bound"]
    if outcomes.empty:
        return pd.DataFrame(columns=columns)
    read = with_reading(outcomes, reading).assign(stale=lambda f: f["stale"].astype(bool))
    variant = refutability(read, STALE_ARMS, "stale", confidence, margin)
    variant = variant.assign(question=variant["contrast"].map(_QUESTIONS), variant="")
    frame = pd.concat([variant, pd.DataFrame(_rule_contrasts(read, confidence, margin, "stale"))], ignore_index=True)
    frame = frame.assign(bound=[bound_text(r, margin) for r in frame.to_dict("records")])
    return frame[columns]


def bound_text(row: Mapping[str, Any], margin: float = EQUIVALENCE_MARGIN) -> str:
    """What one contrast says, in words: the direction when its interval excludes zero, else the bound its TOST gives.

    Section 4.8: a null is never an absence. When the lower test rejects, the
    sentence is "no reduction larger than X points", X the 90 % interval's low
    end rounded up to a whole point (at most the margin; "no reduction" when that
    end is above zero); when the upper test
    rejects too, "no change larger than ±margin"; when the lower test does not
    reject, or fewer than :data:`~cvlib.experiments.notes_study.equivalence.MIN_TASKS`
    tasks hold the contrast, "too few tasks to bound it" (a bound on an
    increase alone is not what the question asks).

    Parameters
    ----------
    row : Mapping
        ``tasks``, ``low``, ``high`` (the interval), ``tost_low``, ``tost_high`` (the 90 % interval) and
        ``verdict`` (:func:`~cvlib.experiments.notes_study.equivalence.equivalence`).
    margin : float
        The margin, as a share.

    Returns
    -------
    str
    """
    points = _whole_points(margin)
    if int(row["tasks"]) < MIN_TASKS:
        return f"too few tasks to bound it ({plural(int(row['tasks']), 'task')})"
    if row["high"] < 0:
        return "a reduction (the interval lies below zero)"
    if row["low"] > 0:
        return "an increase (the interval lies above zero)"
    said = row["verdict"]
    if said == "equivalent":
        return f"no change larger than ±{points} points"
    if said == "no reduction larger than the margin":
        bound = _whole_points(-row["tost_low"])
        return f"no reduction larger than {plural(bound, 'point')}" if bound else "no reduction (even the 90 % interval's low end is above zero)"
    return "too few tasks to bound it"


def _whole_points(share: float) -> int:
    """A share in whole percentage points, rounded up (a bound is never understated); at least 0."""
    return max(0, math.ceil(round(100 * float(share), 9)))


def _points(mean: float, low: float, high: float) -> str:
    if math.isnan(mean):
        return MISSING
    return f"{plural(mean, 'point', kind=_POINTS)} ({fmt(low, _POINTS)} to {fmt(high, _POINTS)})"


def contrasts_table(frame: pd.DataFrame, confidence: float = 0.95) -> Table:
    """:func:`contrasts` as the page shows it: one row per model, question and arm, the bound in words.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`contrasts`.
    confidence : float
        The interval's level (for the header).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    shown = frame.assign(
        contrast=[" − ".join(ARM_LABELS.get(p, p) for p in c.split(" − ")) for c in frame["contrast"]],
        where=[v or ARM_LABELS[a] for v, a in zip(frame["variant"], frame["arm"])],
        effect=[_points(m, lo, hi) for m, lo, hi in frame[["mean", "low", "high"]].itertuples(index=False)],
        p=[fmt(p, "rate") for p in frame["p_value"]],
        reading=[b if r else f"not read (the model did not take the test): {b}" for b, r in zip(frame["bound"], frame["read"])])
    return model_table(shown, {"model": "Model", "question": "Question", "contrast": "Contrast (first − second)",
                               "where": "Arm or variant", "tasks": "Paired tasks",
                               "effect": f"Stale-edit share, difference ({round(100 * confidence)} % interval)",
                               "p": "McNemar p (greedy)", "reading": "What it says"},
                       summary=f"Every pre-registered contrast, per model ({plural(len(frame), 'row')})")


# -- the two readings side by side -----------------------------------------------------------------------------
def sensitivity(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per model, the frozen reader's outcome against the strict classifier's, answer by answer, as counts.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``reader``, then one column per strict outcome, then ``answers`` and ``agree`` (on the diagonal).
    """
    import pandas as pd

    from cvlib.experiments.notes_study.second_reading import SECOND_OUTCOMES

    columns = ["model", "reader", *SECOND_OUTCOMES, "answers", "agree"]
    rows = []
    for model in dict.fromkeys(outcomes["model"]) if len(outcomes) else ():
        mine = outcomes[outcomes["model"] == model]
        for outcome in SECOND_OUTCOMES:
            part = mine[mine["outcome"] == outcome]
            if part.empty:
                continue
            counts = part["strict"].value_counts()
            rows.append({"model": model, "reader": outcome, **{o: int(counts.get(o, 0)) for o in SECOND_OUTCOMES},
                         "answers": len(part), "agree": int(counts.get(outcome, 0))})
    return pd.DataFrame(rows, columns=columns)


def sensitivity_table(frame: pd.DataFrame) -> Table:
    """:func:`sensitivity` as the page shows it (reader's outcome down, strict outcome across).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`sensitivity`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    from cvlib.experiments.notes_study.second_reading import SECOND_OUTCOMES

    shown = frame.assign(reader=[o.replace("_", " ") for o in frame["reader"]])
    return model_table(shown, {"model": "Model", "reader": "Reader ↓ / strict →",
                               **{o: o.replace("_", " ") for o in SECOND_OUTCOMES}, "answers": "Answers",
                               "agree": "Same outcome"},
                       **fold_long("Each reader's outcome against the strict reader's, per model", len(shown)))

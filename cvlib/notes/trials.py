"""The source study's published trial counts, their uncertainty, and what they imply per release.

The counts live in ``data/notes_trials/published_counts.csv`` (one row per
count, with the sentence it comes from); this module only reads them, puts
Wilson 95% intervals on them, and combines them with staleness rates we
measured on release histories (:mod:`cvlib.notes.history`) into expected
stale edits per release under three policies:

* **warn with a label**: a note whose code changed is still shown, labelled
  medium-confidence/unresolved; the published rate is stale edits per trial.
* **verify first**: the same, plus the rule to confirm against the file. The
  source reports this arm per *task* (two trials each): k of n tasks had a
  stale edit in at least one trial, so the per-trial rate lies between
  k/(2n) (one bad trial per such task) and k/n (both). We carry both bounds.
* **the symbol-only gate**: a note is withheld when its own code changed;
  a note whose code is unchanged but whose dependencies changed is *shown*,
  unlabelled, as FRESH -- so it is applied about as often as a true note
  (the published true-note rate).
* **the dependency-aware gate**: every note whose code or dependencies changed
  is absent, so it cannot be applied: zero by construction, whatever the model.

Which stale notes are *wrong* is not in the code's history: a changed
function may leave its note true. ``wrong_share`` (an assumption, not a
measurement) is the share of notes on changed code -- its own or its
dependencies' -- whose advice is now wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.core.intervals import proportion_interval

from .errors import NotesError

#: The study's arms in words (``stale`` is the gated study's arm, whose note was withheld).
ARM_NAMES: dict[str, str] = {"control": "control (no note)", "true_note": "true note", "stale_labelled": "stale, labelled",
                             "stale_verify": "stale, told to verify", "stale": "stale (gated: withheld)"}


def _share(name: str, value: object) -> float:
    """``value`` as a float in [0, 1], or a ParameterError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ParameterError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


TRIAL_COLUMNS: tuple[str, ...] = (
    "table", "study", "model", "arm", "rule_kind", "outcome", "unit", "count", "total", "published_percent", "status", "quote",
)

#: Default location of the counts, relative to the repository root.
DEFAULT_TRIALS_FILE = Path("data") / "notes_trials" / "published_counts.csv"


def load_trials(path: str | Path) -> pd.DataFrame:
    """Read the published counts; refuse a file with missing columns or impossible counts."""
    path = Path(path)
    if not path.is_file():
        raise NotesError(f"trial counts file {str(path)!r} does not exist (expected {DEFAULT_TRIALS_FILE} in the repository)")
    frame = pd.read_csv(path, dtype={"rule_kind": str}, keep_default_na=False, na_values={"published_percent": [""]})
    missing = [c for c in TRIAL_COLUMNS if c not in frame.columns]
    if missing:
        raise NotesError(f"trial counts file {str(path)!r} lacks column(s) {', '.join(missing)}")
    bad = frame[(frame["count"] < 0) | (frame["count"] > frame["total"]) | (frame["total"] <= 0)]
    if len(bad):
        row = bad.iloc[0]
        raise NotesError(f"trial counts file {str(path)!r}: {row['model']} {row['arm']} has count {row['count']} of {row['total']}")
    unknown = sorted(set(frame["status"]) - {"published", "implied"})
    if unknown:
        raise NotesError(f"trial counts file {str(path)!r}: status must be 'published' or 'implied', got {unknown}")
    return frame


def with_intervals(frame: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Add ``share``, ``low`` and ``high`` to a frame of counts: the Wilson interval of :func:`cvlib.core.intervals.proportion_interval`.

    The interval stays inside [0, 1] and is honest at 0 of 120 and 113 of
    120, where most of these counts sit; a bad count or confidence raises
    :class:`~cvlib.core.errors.ParameterError` naming it.
    """
    bounds = [proportion_interval(int(c), int(t), confidence) for c, t in zip(frame["count"], frame["total"])]
    return frame.assign(
        share=frame["count"] / frame["total"],
        low=[b[0] for b in bounds],
        high=[b[1] for b in bounds],
    )


def implied_count(percent: float, total: int) -> int:
    """The one count k with round(100 k / total, 1) == percent; error if none or several."""
    hits = [k for k in range(total + 1) if round(100.0 * k / total, 1) == round(percent, 1)]
    if len(hits) != 1:
        raise NotesError(f"{percent}% of {total} does not pin down one count (candidates {hits})")
    return hits[0]


@dataclass(frozen=True, slots=True)
class PolicyRates:
    """Per-exposure probability that a shown stale note becomes a stale edit, for one model.

    ``label`` and its Wilson interval are per trial; ``verify_low``/``verify_high``
    bound the per-trial verify-first rate from the per-task count (see the
    module docstring); ``shown`` is how often a note shown as fresh was acted
    on (the ungated true-note arm).
    """

    model: str
    label: float
    label_low: float
    label_high: float
    verify_low: float
    verify_high: float
    shown: float = 1.0


def policy_rates(trials: pd.DataFrame) -> list[PolicyRates]:
    """The per-exposure stale-edit rates of each model, from the published counts."""
    arms = trials[(trials["table"] == "arms") & (trials["study"] == "ungated")]
    out = []
    for model in sorted(arms["model"].unique()):
        rows = arms[arms["model"] == model].set_index("arm")
        if "stale_labelled" not in rows.index or "stale_verify" not in rows.index:
            raise NotesError(f"trial counts for {model!r} lack the stale_labelled or stale_verify arm")
        lab, ver = rows.loc["stale_labelled"], rows.loc["stale_verify"]
        lo, hi = proportion_interval(int(lab["count"]), int(lab["total"]))
        tasks_bad, tasks = int(ver["count"]), int(ver["total"])
        shown = float(rows.loc["true_note", "count"] / rows.loc["true_note", "total"]) if "true_note" in rows.index else 1.0
        out.append(PolicyRates(model, float(lab["count"] / lab["total"]), lo, hi, tasks_bad / (2 * tasks), tasks_bad / tasks,
                               shown))
    return out


def expected_stale_edits(step_counts: pd.DataFrame, rates: list[PolicyRates], wrong_share: float) -> pd.DataFrame:
    """Expected stale edits and withheld true notes per release step, per 100 notes, under each policy.

    Parameters
    ----------
    step_counts
        One row per project with ``notes`` (notes per release step, summed
        over steps) and the counts of each status over those steps:
        ``CHANGED``, ``DEPENDENCY_CHANGED`` (0 when absent), ``RENAMED``,
        ``AMBIGUOUS``, ``MISSING``, ``UNPARSABLE``, and ``steps`` (how many
        release steps).
    rates
        From :func:`policy_rates`.
    wrong_share
        Assumed share (0..1) of notes on CHANGED code whose advice is now wrong.

    Returns
    -------
    DataFrame
        One row per (project, model, policy) with ``stale_edits`` (and
        ``stale_low``/``stale_high``) per release step per 100 notes, and
        ``true_withheld``: notes still true but withheld awaiting review per
        release step per 100 notes (RENAMED and AMBIGUOUS notes, whose code is
        intact, plus the not-wrong share of the notes each gate withholds for a
        change). Only the gates pay that price; the other policies show those
        notes.

    Notes
    -----
    One exposure per note per release: an agent edits each changed symbol once
    and is shown its note. MISSING notes have no code left to edit and count
    in neither column.
    """
    wrong_share = _share("wrong_share", wrong_share)
    needed = {"project", "notes", "steps", "CHANGED", "RENAMED", "AMBIGUOUS"}
    missing = sorted(needed - set(step_counts.columns))
    if missing:
        raise NotesError(f"step_counts lacks column(s) {', '.join(missing)}")
    rows = []
    for rec in step_counts.itertuples(index=False):
        per100 = 100.0 / rec.notes
        dependency = float(getattr(rec, "DEPENDENCY_CHANGED", 0))
        wrong = (rec.CHANGED + dependency) * wrong_share * per100
        wrong_dependency = dependency * wrong_share * per100
        moved = rec.RENAMED + rec.AMBIGUOUS
        withheld_symbol = (moved + rec.CHANGED * (1 - wrong_share)) * per100
        withheld_dependency = (moved + (rec.CHANGED + dependency) * (1 - wrong_share)) * per100
        for r in rates:
            common = dict(project=rec.project, model=r.model, exposed_wrong=wrong)
            rows.append(dict(common, policy="warn with a label", stale_edits=wrong * r.label,
                             stale_low=wrong * r.label_low, stale_high=wrong * r.label_high, true_withheld=0.0))
            rows.append(dict(common, policy="verify first", stale_edits=wrong * (r.verify_low + r.verify_high) / 2,
                             stale_low=wrong * r.verify_low, stale_high=wrong * r.verify_high, true_withheld=0.0))
            rows.append(dict(common, policy="symbol-only gate", stale_edits=wrong_dependency * r.shown,
                             stale_low=wrong_dependency * r.shown, stale_high=wrong_dependency * r.shown,
                             true_withheld=withheld_symbol))
            rows.append(dict(common, policy="dependency-aware gate", stale_edits=0.0, stale_low=0.0, stale_high=0.0,
                             true_withheld=withheld_dependency))
    return pd.DataFrame(rows)


def policy_curves(counts: pd.DataFrame, rates: list[PolicyRates], shares: Sequence[float]) -> pd.DataFrame:
    """:func:`expected_stale_edits` of the pooled row at each assumed wrong share (for the figure)."""
    pooled = counts[counts["project"] == "all"]
    return pd.concat([expected_stale_edits(pooled, rates, float(w)).assign(wrong_share=float(w)) for w in shares],
                     ignore_index=True)

"""The notes study's second-edition blind audit as the pages show it: where it stands, its kappa, every disagreement.

The audit's mechanics (draw, sheets, verdicts, kappa) are
:mod:`cvlib.experiments.notes_study.blind_audit`. This module reads its two
files beside a folder of recordings (the sample and the verdicts), compares the
settled verdicts with the frozen reader's outcomes the chapter already holds,
so the audit judges exactly the readings the page prints, and writes what the
pages say about it: one sentence on the main page, the agreement and the list
of disagreements in the appendix.

Kappa is printed only for a complete audit (two raters on every drawn answer,
every disagreement adjudicated): a partial audit is reported by what it lacks,
never by a kappa over whichever answers happen to be judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cvlib.experiments.notes_study.blind_audit import (
    ADJUDICATED,
    DISAGREEMENT_COLUMNS,
    SAMPLE_FILE,
    VERDICT_FILE,
    AnswerKey,
    agreement,
    audit_problems,
    disagreements,
    final_verdicts,
    read_sample,
    read_verdicts,
)
from cvlib.experiments.notes_study.second_prompts import VARIANTS
from cvlib.presentation._study_models import MODELS, fold_long, model_label, model_table
from cvlib.presentation.formatting import MISSING, fmt, plural
from cvlib.presentation.tables import table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.tables import Table

__all__ = ["BlindAudit", "agreement_table", "audit_sentence", "disagreements_table", "read_audit", "reader_by_answer"]


@dataclass(frozen=True)
class BlindAudit:
    """The audit read from its files: what was drawn, who judged, what is missing, and (complete) how they agreed."""

    drawn: int
    raters: tuple[str, ...]
    adjudicated: int
    problems: tuple[str, ...]
    agreement: pd.DataFrame
    disagreements: pd.DataFrame

    @property
    def complete(self) -> bool:
        """Drawn, two raters on every answer, every disagreement settled."""
        return self.drawn > 0 and not self.problems

    def pooled(self, comparison: str) -> pd.Series | None:
        """The ``all answers`` row of one comparison (``raters`` or ``reader``), if the audit is complete."""
        if not self.complete or self.agreement.empty:
            return None
        frame = self.agreement[self.agreement["level"] == "all answers"]
        hit = frame[frame["comparison"] == "reader and adjudicated"] if comparison == "reader" else \
            frame[frame["comparison"] != "reader and adjudicated"]
        return hit.iloc[0] if len(hit) else None


def reader_by_answer(outcomes: pd.DataFrame) -> dict[str, str]:
    """The frozen reader's outcome of every read answer, by its audit id (the chapter's own readings, not new ones).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes` (``model``, ``task``,
        ``variant``, ``arm``, ``repeat``, ``outcome``).

    Returns
    -------
    dict of str to str
    """
    return {AnswerKey(r.model, r.task, r.variant, r.arm, int(r.repeat)).answer_id: r.outcome
            for r in outcomes[["model", "task", "variant", "arm", "repeat", "outcome"]].itertuples(index=False)}


def read_audit(folder: Path, outcomes: pd.DataFrame) -> BlindAudit:
    """Read the audit beside ``folder``'s recordings; its agreement and disagreements once it is complete.

    Parameters
    ----------
    folder : pathlib.Path
        The folder of recordings, where ``draw_blind_audit.py`` writes the sample and the raters the verdicts.
    outcomes : pandas.DataFrame
        The readings the page prints (empty while they are blind).

    Returns
    -------
    BlindAudit

    Raises
    ------
    ParameterError
        A sample or verdict file that does not read (a one-line error naming the file, line and value).
    """
    import pandas as pd

    empty_agreement = agreement(())
    empty_disagreements = pd.DataFrame(columns=list(DISAGREEMENT_COLUMNS))
    if not (folder / SAMPLE_FILE).is_file():
        return BlindAudit(0, (), 0, ("not drawn",), empty_agreement, empty_disagreements)
    sample = read_sample(folder / SAMPLE_FILE)
    if not (folder / VERDICT_FILE).is_file():
        return BlindAudit(len(sample), (), 0, (f"no {VERDICT_FILE} yet",), empty_agreement, empty_disagreements)
    verdicts = read_verdicts(folder / VERDICT_FILE, sample)
    raters = tuple(sorted({v.rater for v in verdicts} - {ADJUDICATED}))
    settled = sum(v.rater == ADJUDICATED for v in verdicts)
    problems = tuple(audit_problems(verdicts, sample))
    if problems:
        return BlindAudit(len(sample), raters, settled, problems, empty_agreement, empty_disagreements)
    reader = reader_by_answer(outcomes)
    unread = [a.answer_id for a in sample if a.answer_id not in reader]
    if unread:
        return BlindAudit(len(sample), raters, settled, (f"{plural(len(unread), 'drawn answer')} not among the readings "
                                                         f"(first {unread[0]})",), empty_agreement, empty_disagreements)
    assert len(final_verdicts(verdicts)) == len(sample)  # complete: every answer has its settled verdict
    return BlindAudit(len(sample), raters, settled, (), agreement(verdicts, reader), disagreements(verdicts, reader))


def _share(row: pd.Series) -> str:
    agreed = round(float(row["agreement"]) * int(row["answers"]))
    kappa = MISSING if row["kappa"] != row["kappa"] else fmt(float(row["kappa"]), "coefficient")
    return f"{fmt(agreed)} of {fmt(int(row['answers']))} ({fmt(float(row['agreement']), 'percent_whole')}, Cohen's kappa {kappa})"


def audit_sentence(audit: BlindAudit) -> str:
    """The audit on the main page, in at most two sentences: where it stands, or how the raters and the reader agreed.

    Parameters
    ----------
    audit : BlindAudit
        :func:`read_audit`.

    Returns
    -------
    str
    """
    if not audit.drawn:
        return ("The blind audit's sample is not drawn yet: it is drawn once every planned group is recorded "
                "(pre-registration, section 4.9).")
    if not audit.complete:
        return (f"The blind audit is under way: {plural(audit.drawn, 'answer')} drawn, "
                f"{plural(len(audit.raters), 'rater')} so far; its agreement is printed once it is complete.")
    raters, reader = audit.pooled("raters"), audit.pooled("reader")
    assert raters is not None and reader is not None
    return (f"Two raters who never saw the reader's outcome each judged {plural(audit.drawn, 'answer')} drawn by seed "
            f"and agreed on {_share(raters)}. The frozen reader matched their settled verdict on {_share(reader)}; "
            "the appendix lists every disagreement.")


def _pivot(audit: BlindAudit, levels: tuple[str, ...]) -> pd.DataFrame:
    """One row per cell at ``levels``: the raters' agreement and kappa beside the reader's against the settled verdict."""
    import pandas as pd

    frame = audit.agreement[audit.agreement["level"].isin(levels)]
    keys = ["model", "variant", "arm", "repeat"]
    raters = frame[frame["comparison"] != "reader and adjudicated"].set_index(keys)
    reader = frame[frame["comparison"] == "reader and adjudicated"].set_index(keys)
    rows = []
    for cell, r in raters.iterrows():
        m = reader.loc[cell] if cell in reader.index else None
        rows.append({**dict(zip(keys, cell)), "answers": int(r["answers"]), "raters_same": r["agreement"],
                     "raters_kappa": r["kappa"], "reader_same": m["agreement"] if m is not None else float("nan"),
                     "reader_kappa": m["kappa"] if m is not None else float("nan")})
    out = pd.DataFrame(rows)
    models = {m: i for i, m in enumerate(("all", *MODELS))}
    variants = {v: i for i, v in enumerate(("all", *VARIANTS))}
    order = [(models.get(str(r.model), len(models)), str(r.model), variants.get(str(r.variant), len(variants)), str(r.arm),
              str(r.repeat)) for r in out.itertuples(index=False)]
    return out.assign(_order=order).sort_values("_order").drop(columns="_order").reset_index(drop=True)


def agreement_table(audit: BlindAudit, level: str = "model and variant") -> Table:
    """Raw agreement and Cohen's kappa, the raters' beside the reader's against the settled verdict.

    Parameters
    ----------
    audit : BlindAudit
        :func:`read_audit`, complete.
    level : str
        ``model and variant`` (open, every answer pooled in its first row) or ``stratum`` (folded).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    stratum = level == "stratum"
    frame = _pivot(audit, ("stratum",) if stratum else ("all answers", "model and variant"))
    kappa = [c for c in frame.columns if c.endswith("_kappa")]
    same = [c for c in frame.columns if c.endswith("_same")]
    shown = frame.assign(
        model=[("every model" if m == "all" else model_label(str(m))) for m in frame["model"]],
        variant=[("all" if v == "all" else str(v)) for v in frame["variant"]],
        arm=[str(a).replace("_", " ") for a in frame["arm"]],
        **{c: [MISSING if k != k else fmt(float(k), "coefficient") for k in frame[c]] for c in kappa},
        **{c: [MISSING if a != a else fmt(float(a), "percent_whole") for a in frame[c]] for c in same},
    )
    columns = {"model": "Model", "variant": "Variant", "arm": "Arm", "repeat": "Repeat", "answers": "Answers",
               "raters_same": "Raters: same verdict", "raters_kappa": "Raters: kappa",
               "reader_same": "Reader and settled: same", "reader_kappa": "Reader and settled: kappa"}
    if not stratum:
        del columns["arm"], columns["repeat"]
        return table(shown, columns, collapse_after=None)
    return table(shown, columns, **fold_long("Agreement per stratum (kappa only where both sides vary)", len(shown)))


def disagreements_table(audit: BlindAudit) -> Table:
    """Every disagreement with its resolution: the raters', then the reader's against the settled verdict.

    Parameters
    ----------
    audit : BlindAudit
        :func:`read_audit`, complete.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = audit.disagreements
    shown = frame.assign(
        between=["the two raters" if b == "raters" else "reader and settled verdict" for b in frame["between"]],
        first=[v.replace("_", " ") for v in frame["first"]], second=[v.replace("_", " ") for v in frame["second"]],
        settled=[v.replace("_", " ") for v in frame["settled"]],
        where=[f"{v}, {a.replace('_', ' ')}, repeat {r}" for v, a, r in zip(frame["variant"], frame["arm"], frame["repeat"])],
    )
    return model_table(shown, {"answer": "Answer", "model": "Model", "task": "Task", "where": "Variant, arm, repeat",
                               "between": "Between", "first": "One says", "second": "The other says",
                               "settled": "Settled", "reason": "Why"},
                       **fold_long("Every disagreement and how it was settled", len(shown)))

"""The chapter "Small coding models and stale notes, second edition" and its appendix: recordings, values, prompts.

The readings and their tables are :mod:`cvlib.presentation.notes_study_2_tables`
(over :mod:`cvlib.experiments.notes_study.second_analysis`); this module finds
a folder's recordings, counts what is recorded against the plan, reads the
study once into :class:`SecondStudy`, and writes what the pages glue: the
levels in short sentences, the Key finding, the bounds, the predictions'
verdicts (:mod:`cvlib.experiments.notes_study.second_predictions`), and the
prompts as diffs between variants.

**Blind until the audit's sample is drawn.** Section 4.11 of
``data/model_trials/preregistration_part4.md`` says no table of readings is
made, and no reading looked at, before the blind audit's sample is drawn and
its standard's additions are written; progress is watched by counting groups.
So when the page reads the study's own folder (``data/model_trials``) and the
audit's sample (``notes_audit_blind_sample.csv``, written by
``draw_blind_audit.py --draw`` after recording) does not exist yet,
:func:`read_study` counts groups only and reads no answer, and the pages say
why. A reader's own
folder of recordings has no such audit and is read at once.
"""

from __future__ import annotations

import csv
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.blind_audit import SAMPLE_FILE, VERDICT_FILE
from cvlib.experiments.notes_study.equivalence import EQUIVALENCE_MARGIN
from cvlib.experiments.notes_study.manipulation import ECHO_LIMIT
from cvlib.experiments.notes_study.second_design import (
    EXPERIMENT,
    SECOND_SEED,
    recorded_groups,
    study_groups,
    study_order,
)
from cvlib.experiments.notes_study.second_predictions import PREDICTIONS, Verdict, grade_predictions
from cvlib.experiments.notes_study.second_prompts import VARIANTS, second_prompt
from cvlib.experiments.notes_study.trials import ARM_LABELS, ARMS
from cvlib.models.determinism import determinism_sentence, load_determinism
from cvlib.presentation import _study_models
from cvlib.presentation import notes_study_2_tables as tables
from cvlib.presentation._study_models import CONTINUED, PROMPT_WIDTH, model_label
from cvlib.presentation.formatting import MARKDOWN, fmt, plural
from cvlib.presentation.notes_study_2_audit import (
    BlindAudit,
    agreement_table,
    audit_sentence,
    disagreements_table,
    read_audit,
)
from cvlib.repository import data_path, project_root

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.experiments.notes_study.second_tasks import SecondEdition
    from cvlib.presentation.tables import Table

__all__ = [
    "AUDIT_FILE",
    "MODELS",
    "PREREGISTRATION_COMMIT",
    "PRINT_WIDTH",
    "AuditStatus",
    "SecondStudy",
    "appendix_values",
    "audit_tables",
    "audit_status",
    "chapter_values",
    "check_choices",
    "determinism_table",
    "find_recordings",
    "front_values",
    "key_finding",
    "level_sentences",
    "level_table",
    "levels_figure",
    "predictions_table",
    "prompt_diffs",
    "read_study",
    "readings_blind",
    "recording_sentence",
    "recordings_folder",
    "status_sentence",
    "unless_blind",
]

#: The studies' models, smallest first, by recording stem.
MODELS: tuple[str, ...] = _study_models.MODELS
#: The commit that adds part 4 of the pre-registration and freezes the reader, before the second edition's first call.
PREREGISTRATION_COMMIT = "a83558b"
#: The longest line of a prompt or a diff as the page prints it (a little under the column, which a diff's marker and the
#: continuation arrow would otherwise overrun by a few pixels).
PRINT_WIDTH = PROMPT_WIDTH - 4
#: The blind audit's file in the study's data folder, with each rater's verdicts on the drawn answers (section 4.9).
AUDIT_FILE = VERDICT_FILE


def recordings_folder(recordings_dir: str | os.PathLike[str]) -> Path:
    """The folder of recordings, relative to the repository root or absolute; a clear error when it is not one.

    Parameters
    ----------
    recordings_dir : str or os.PathLike
        The chapter's ``recordings_dir``.

    Returns
    -------
    pathlib.Path
    """
    text = os.fspath(recordings_dir)
    if not text.strip():
        raise ParameterError("recordings_dir is empty; expected a folder of recordings such as data/model_trials")
    path = Path(text) if Path(text).is_absolute() else project_root() / text
    if not path.is_dir():
        raise ParameterError(f"recordings_dir {text!r} is not a folder (looked for {path})")
    return path


def check_choices(models: Sequence[str], main_model: str) -> None:
    """The chapter's parameters beyond their types: models named once each, the main model among them.

    Parameters
    ----------
    models : sequence of str
        The ``models`` parameter.
    main_model : str
        The ``main_model`` parameter.

    Returns
    -------
    None
        Nothing; a bad value raises :class:`~cvlib.core.errors.ParameterError`, naming it and what was expected.
    """
    if not models:
        raise ParameterError("models is empty; expected at least one recording stem, e.g. smollm2-135m")
    bad = [m for m in models if not m.strip() or "/" in m]
    if bad:
        raise ParameterError(f"models holds {bad[0]!r}; expected recording stems like qwen2.5-coder-0.5b")
    twice = sorted({m for m in models if list(models).count(m) > 1})
    if twice:
        raise ParameterError(f"models names {twice[0]!r} twice")
    if main_model not in models:
        raise ParameterError(f"main_model {main_model!r} is not among models ({', '.join(models)})")


def find_recordings(models: Sequence[str], recordings_dir: str | os.PathLike[str]) -> dict[str, list[Path]]:
    """Each model's second-edition recordings in the folder (an empty list: not recorded yet).

    Parameters
    ----------
    models : sequence of str
        Recording stems (``notes_study_2.<stem>.jsonl.gz`` or ``.jsonl``).
    recordings_dir : str or os.PathLike
        The folder (:func:`recordings_folder`).

    Returns
    -------
    dict of str to list of Path

    Raises
    ------
    ParameterError
        The folder holds no recording of the second edition at all.
    """
    folder = recordings_folder(recordings_dir)
    if not any(folder.glob(f"{EXPERIMENT}.*.jsonl*")):
        raise ParameterError(f"recordings_dir {os.fspath(recordings_dir)!r} holds no recording of the notes study's second "
                             f"edition; expected files named {EXPERIMENT}.<model>.jsonl.gz")
    return {m: [p for p in (folder / f"{EXPERIMENT}.{m}.jsonl.gz", folder / f"{EXPERIMENT}.{m}.jsonl") if p.is_file()]
            for m in models}


def readings_blind(folder: Path) -> bool:
    """Whether the readings stay blind: the study's own folder, and the blind audit's sample not drawn yet (section 4.11).

    Parameters
    ----------
    folder : pathlib.Path
        The folder of recordings (:func:`recordings_folder`).

    Returns
    -------
    bool
    """
    study = data_path("model_trials")
    return folder.resolve() == study.resolve() and not (study / SAMPLE_FILE).is_file()


@dataclass(frozen=True)
class AuditStatus:
    """Where the blind audit (section 4.9) stands, read from its file: drawn or not, answers, raters, adjudications."""

    drawn: bool
    rows: int
    answers: int
    raters: tuple[str, ...]
    adjudicated: int

    def sentence(self) -> str:
        """The status in one sentence."""
        if not self.drawn:
            return f"sample not drawn yet (no {AUDIT_FILE} beside the recordings)"
        who = ", ".join(self.raters) or "no rater yet"
        return (f"drawn: {plural(self.answers, 'answer')} in {AUDIT_FILE}, {plural(self.rows, 'row')} of verdicts "
                f"(raters: {who}), {plural(self.adjudicated, 'adjudicated row')}")


def audit_status(path: str | os.PathLike[str] | None = None) -> AuditStatus:
    """Read the blind audit's file, if it exists: how many answers, which raters, how many adjudicated rows.

    An answer is a distinct ``(model, task, variant, arm, repeat)`` where the
    file has those columns, else a row.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The file (default: :data:`AUDIT_FILE` in ``data/model_trials``).

    Returns
    -------
    AuditStatus
    """
    file = Path(path) if path is not None else data_path("model_trials") / AUDIT_FILE
    if not file.is_file():
        return AuditStatus(False, 0, 0, (), 0)
    with file.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    keys = ("model", "task", "variant", "arm", "repeat")
    answers = {tuple(r.get(k, "") for k in keys) for r in rows} if rows and all(k in rows[0] for k in keys) else None
    raters = sorted({(r.get("rater") or "").strip() for r in rows} - {"", "adjudicated"})
    adjudicated = sum((r.get("rater") or "").strip() == "adjudicated" for r in rows)
    return AuditStatus(True, len(rows), len(answers) if answers is not None else len(rows), tuple(raters), adjudicated)


@dataclass(frozen=True)
class SecondStudy:
    """What both pages show, computed once: the status against the plan, and (unless blind) every reading."""

    models: tuple[str, ...]
    status: pd.DataFrame
    blind: bool
    outcomes: pd.DataFrame
    levels: pd.DataFrame
    strict_levels: pd.DataFrame
    check: pd.DataFrame
    contrasts: pd.DataFrame
    strict_contrasts: pd.DataFrame
    sensitivity: pd.DataFrame
    predictions: tuple[Verdict, ...]
    confidence: float
    tasks: int
    refutable_tasks: int
    placebo_tasks: int
    folder: Path
    audit: BlindAudit

    @property
    def recorded(self) -> tuple[str, ...]:
        """The models with at least one group recorded whole."""
        s = self.status
        return tuple(m for m in self.models if int(s[s["model"] == m]["recorded"].sum()) > 0)

    @property
    def whole(self) -> bool:
        """Every planned group of every model on the page is recorded."""
        return bool((self.status["recorded"] == self.status["planned"]).all())


def read_study(models: Sequence[str], recordings_dir: str | os.PathLike[str], confidence: float = 0.95,
               edition: SecondEdition | None = None) -> SecondStudy:
    """Count the recorded groups against the plan and, unless the readings are blind, read every answer.

    Parameters
    ----------
    models : sequence of str
        Recording stems.
    recordings_dir : str or os.PathLike
        The folder of recordings.
    confidence : float
        Every interval's level.
    edition : SecondEdition, optional
        The tasks (default: the study's, from ``data/model_trials``).

    Returns
    -------
    SecondStudy
    """
    import pandas as pd

    from cvlib.experiments.notes_study.second_analysis import read_second_outcomes
    from cvlib.experiments.notes_study.second_tasks import load_second_edition

    sources = find_recordings(models, recordings_dir)
    folder = recordings_folder(recordings_dir)
    edition = edition if edition is not None else load_second_edition(data_path("model_trials"))
    planned = {m: tables.planned_groups(edition, m) for m in models}
    recorded = {m: set().union(*(recorded_groups(p) for p in paths)) if paths else set() for m, paths in sources.items()}
    status = tables.recording_status(planned, recorded)
    blind = readings_blind(folder)
    parts = [] if blind else [read_second_outcomes(paths, edition, name=m) for m, paths in sources.items() if paths]
    outcomes = pd.concat(parts, ignore_index=True) if parts else read_second_outcomes([], edition)
    greedy = [g for g in study_groups(edition.tasks, edition.refutations, edition.rules, (0,))]
    return SecondStudy(
        models=tuple(models), status=status, blind=blind, outcomes=outcomes,
        levels=tables.levels(outcomes, confidence), strict_levels=tables.levels(outcomes, confidence, "strict"),
        check=tables.manipulation(outcomes, confidence), contrasts=tables.contrasts(outcomes, confidence),
        strict_contrasts=tables.contrasts(outcomes, confidence, reading="strict"),
        sensitivity=tables.sensitivity(outcomes), predictions=tuple(grade_predictions(outcomes)) if len(outcomes) else (),
        confidence=confidence, tasks=len(edition.tasks),
        refutable_tasks=sum(g.variant == "refutable" for g in greedy), placebo_tasks=sum(g.variant == "placebo" for g in greedy),
        folder=folder, audit=read_audit(folder, outcomes))


# -- words ------------------------------------------------------------------------------------------------------
def _count(study: SecondStudy, model: str, variant: str, arm: str, what: str = "stale") -> str:
    """``x of n tasks`` for one model, variant and arm (greedy), or "not recorded yet"."""
    lv = study.levels
    hit = lv[(lv["model"] == model) & (lv["variant"] == variant) & (lv["arm"] == arm)] if len(lv) else lv
    if hit.empty:
        return tables.NOT_RECORDED
    r = hit.iloc[0]
    return f"{fmt(int(r[what]))} of {plural(int(r['tasks']), 'task')}"


def _status_words(study: SecondStudy, model: str) -> str:
    """One model's groups recorded against the plan: each repeat recorded, the rest said once."""
    s = study.status[study.status["model"] == model]
    planned = int(s["planned"].sum())
    if int(s["recorded"].sum()) == 0:
        return f"{tables.NOT_RECORDED} ({plural(planned, 'group')} planned)"
    parts = [f"{fmt(int(r.recorded))} of {fmt(int(r.planned))} {'greedy' if int(r.repeat) == 0 else f'repeat-{int(r.repeat)}'} groups"
             for r in s.itertuples(index=False) if int(r.recorded) or int(r.repeat) == 0]
    empty = [int(r.repeat) for r in s.itertuples(index=False) if int(r.recorded) == 0 and int(r.repeat) > 0]
    sampled = [int(r.repeat) for r in s.itertuples(index=False) if int(r.repeat) > 0]
    if empty and empty == sampled:
        parts.append(f"sampled repeats {tables.NOT_RECORDED}")
    elif empty:
        parts.append(f"{' and '.join(f'repeat {r}' for r in empty)} {tables.NOT_RECORDED}")
    return ", ".join(parts)


def status_sentence(study: SecondStudy) -> str:
    """Per model, the groups recorded whole against the plan, in one sentence.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    str
    """
    parts = []
    for model in study.models:
        parts.append(f"{model_label(model)}, {_status_words(study, model)}")
    return "; ".join(parts)


def recording_sentence(study: SecondStudy) -> str:
    """What the page reads, in one sentence: every planned group, or whatever is recorded so far.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    str
    """
    if study.whole:
        parts = []
        for model in study.models:
            rows = study.status[study.status["model"] == model]
            sampled = int((rows["repeat"] > 0).sum())
            runs = "greedy" if not sampled else f"greedy and {plural(sampled, 'sampled repeat')}"
            parts.append(f"{model_label(model)} {fmt(int(rows['planned'].sum()))} ({runs})")
        total = fmt(int(study.status["planned"].sum()))
        return f"Every planned group is recorded, and this page reads them all: {total} groups, {'; '.join(parts)}."
    if study.blind:
        return f"The recording is still being made, and its readings stay blind until it is whole: {status_sentence(study)}."
    return f"The recording is still being made, and this page reads whatever is there: {status_sentence(study)}."


def level_sentences(study: SecondStudy) -> str:
    """The levels in four plain sentences per model: stale edits shown as fresh, under a label or a rule, holding back.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    str
        Markdown, one paragraph per model (greedy answers, the frozen reader).
    """
    if study.blind:
        return ("The readings are not shown yet. The pre-registration (section 4.11) keeps every reading blind until the "
                "blind audit's sample is drawn and its standard's additions are written; until then only groups are counted.")
    out = []
    for model in study.models:
        name = model_label(model)
        if model not in study.recorded:
            out.append(f"**{name}**: {tables.NOT_RECORDED}.")
            continue
        def c(variant: str, arm: str, what: str = "stale", model: str = model) -> str:
            return _count(study, model, variant, arm, what)

        out.append(
            f"**{name}**: shown the stale note as fresh, it made the stale edit in "
            f"{c('unrefutable', 'dependency_changed')} with the note alone, in {c('refutable', 'dependency_changed')} "
            f"beside the refuting context and in {c('placebo', 'dependency_changed')} beside the placebo. "
            f"With the note alone, it made it in {c('unrefutable', 'stale_labelled')} under the warning label and in "
            f"{c('unrefutable', 'stale_verify')} under the verify-first rule. "
            f"Shown the note alone as fresh, it held back in {c('unrefutable', 'dependency_changed', 'held')}, "
            f"{c('unrefutable', 'dependency_changed', 'declined').split(' of ')[0]} of them by declining in the offered form. "
            f"With no note it made the stale change in {c('unrefutable', 'control')}, and with the note withheld in "
            f"{c('unrefutable', 'withheld')}.")
    return "\n\n".join(out)


def _contrast(study: SecondStudy, model: str, contrast: str, where: str) -> Any:
    c = study.contrasts
    hit = c[(c["model"] == model) & (c["contrast"] == contrast) & ((c["arm"] == where) | (c["variant"] == where))] if len(c) else c
    return hit.iloc[0] if len(hit) else None


def _share(value: float) -> str:
    return str(fmt(value, "percent_whole"))


def _effect_words(row: Any, first: str, second: str) -> str:
    """Both levels over the paired tasks, then their difference and its bound, so the difference is read beside the
    levels it is taken between (the greedy levels above count a different set of answers)."""
    if row is None:
        return tables.NOT_RECORDED
    effect = f"{fmt(row['mean'], tables._POINTS)} points ({fmt(row['low'], tables._POINTS)} to {fmt(row['high'], tables._POINTS)})"
    said = (f"{_share(row['first_share'])} of {plural(int(row['tasks']), 'paired task')} {first} against "
            f"{_share(row['second_share'])} {second}: {effect}, {row['bound']}")
    return said if row["read"] else f"{said}, not read (the model did not take the test)"


def key_finding(study: SecondStudy, main: str) -> str:
    """The Key finding: for each recorded model, N1 shown as fresh and the verify rule's effect, each with its bound.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.
    main : str
        The model named first.

    Returns
    -------
    str
        Markdown bullets; the recording status alone while the readings are blind.
    """
    if study.blind:
        return (f"Nothing is read yet. Recorded so far: {status_sentence(study)}. The readings stay blind until the "
                "blind audit's sample is drawn (pre-registration, section 4.11).")
    order = [main, *(m for m in study.models if m != main)]
    bullets = []
    for model in order:
        if model not in study.recorded:
            bullets.append(f"* **{model_label(model)}**: {tables.NOT_RECORDED}.")
            continue
        n1 = _contrast(study, model, "refutable − placebo", "dependency_changed")
        verify = _contrast(study, model, "stale_verify − dependency_changed", "unrefutable")
        bullets.append(f"* **{model_label(model)}.** Stale edits, note shown as fresh: "
                       f"{_effect_words(n1, 'beside the refuting context', 'beside the placebo')}. Note alone: "
                       f"{_effect_words(verify, 'under the verify-first rule', 'shown as fresh')}.")
    return "\n".join(bullets)


def front_values(study: SecondStudy, main: str) -> dict[str, tuple[Any, str]]:
    """What the front page quotes from this study: the main model's stale edits beside the placebo and beside the
    refutation (note shown as fresh), their paired difference, and what that difference may be read as.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.
    main : str
        The model the front page names.

    Returns
    -------
    dict of str to tuple
        ``NS2_front_placebo`` ("x% of n tasks") and ``NS2_front_refutable`` ("y%"), the shares over the paired
        tasks, repeats averaged in, ``NS2_front_effect`` ("−a points (−b to
        −c)") and ``NS2_front_reading`` (a reduction, an increase, the bound, too few tasks, or not read because the
        model did not take the test); "not read yet" while the readings are blind.
    """
    keys = ("NS2_front_placebo", "NS2_front_refutable", "NS2_front_effect", "NS2_front_reading")
    row = None if study.blind else _contrast(study, main, "refutable − placebo", "dependency_changed")
    if row is None:
        missing = "not read yet" if study.blind else tables.NOT_RECORDED
        return {k: (missing, "count") for k in keys}
    effect = (f"{fmt(row['mean'], tables._POINTS)} points ({fmt(row['low'], tables._POINTS)} to "
              f"{fmt(row['high'], tables._POINTS)})")
    reading = str(row["bound"]) if row["read"] else "not read, since the model did not take the test"
    return {"NS2_front_placebo": (f"{_share(row['second_share'])} of {plural(int(row['tasks']), 'task')}", "count"),
            "NS2_front_refutable": (_share(row["first_share"]), "count"),
            "NS2_front_effect": (effect, "count"), "NS2_front_reading": (reading, "count")}


def _check_words(study: SecondStudy) -> str:
    if study.blind or study.check.empty:
        return "not read yet"
    parts = []
    for r in study.check.itertuples(index=False):
        if int(r.answers) == 0:
            parts.append(f"{model_label(r.model)} has no control answer with context yet")
        else:
            took = "took the test" if r.took_test else "did not take the test"
            parts.append(f"{model_label(r.model)} echoed in {fmt(int(r.echoed))} of {fmt(int(r.answers))} and {took}")
    return "; ".join(parts)


def chapter_values(study: SecondStudy, main: str) -> dict[str, tuple[Any, str]]:
    """Every value the main page's prose quotes, by glue key (``NS2_...``), with its kind.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.
    main : str
        The model the Key finding names first.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    planned = int(study.status["planned"].sum())
    return {
        "NS2_preregistration": (PREREGISTRATION_COMMIT, "count"),
        "NS2_tasks": (study.tasks, "count"), "NS2_refutable_tasks": (study.refutable_tasks, "count"),
        "NS2_placebo_tasks": (study.placebo_tasks, "count"), "NS2_planned": (planned, "count"),
        "NS2_recorded": (int(study.status["recorded"].sum()), "count"),
        "NS2_models_recorded": (len(study.recorded), "count"), "NS2_status": (status_sentence(study), "count"),
        "NS2_seed": (str(SECOND_SEED), "count"), "NS2_margin": (plural(round(100 * EQUIVALENCE_MARGIN), "point"), "count"),
        "NS2_echo_limit": (ECHO_LIMIT, "percent_whole"),
        "NS2_confidence_pct": (f"{round(100 * study.confidence)} %", "count"),
        "NS2_main_label": (model_label(main), "count"),
        "NS2_levels": (level_sentences(study), MARKDOWN), "NS2_key": (key_finding(study, main), MARKDOWN),
        "NS2_check": (_check_words(study), "count"),
        "NS2_recording": (recording_sentence(study), "count"),
        "NS2_read_limit": (
            f"Every planned group is recorded and read ({fmt(planned)} of {fmt(planned)})." if study.whole else
            f"Every number on this page is over the groups recorded whole so far "
            f"({fmt(int(study.status['recorded'].sum()))} of {fmt(planned)}).", "count"),
        "NS2_audit": (audit_sentence(study.audit), "count"),
        **front_values(study, main),
        "NS2_answers": (len(study.outcomes), "count"),
    }


def appendix_values(study: SecondStudy) -> dict[str, tuple[Any, str]]:
    """Every value the appendix's prose quotes (``NS2A_...``).

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    sens = study.sensitivity
    audit = audit_status(study.folder / AUDIT_FILE)
    counts = {v.verdict: 0 for v in study.predictions}
    for v in study.predictions:
        counts[v.verdict] += 1
    graded = ", ".join(f"{plural(n, 'check')} {verdict}" for verdict, n in counts.items()) or "none graded yet"
    return {
        "NS2A_preregistration": (PREREGISTRATION_COMMIT, "count"),
        "NS2A_status": (status_sentence(study), "count"),
        "NS2A_recording": (recording_sentence(study), "count"),
        "NS2A_answers": (len(study.outcomes), "count"),
        "NS2A_agree": (int(sens["agree"].sum()) if len(sens) else 0, "count"),
        "NS2A_audit": (audit.sentence(), "count"),
        "NS2A_predictions": (graded, "count"),
        # the script's folder is left out: a bold path that long cannot break and widens a phone's page
        "NS2A_determinism": (determinism_sentence(load_determinism(data_path("model_trials", "determinism.csv")),
                                                  f"{EXPERIMENT}.").replace("data/model_trials/", ""), "count"),
        "NS2A_planned": (int(study.status["planned"].sum()), "count"),
    }


def predictions_table(study: SecondStudy) -> Table:
    """Every prediction of section 4.10 with its verdict and what it rests on; "not read yet" while blind.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.presentation.tables import table

    verdicts: dict[str, list[Verdict]] = {}
    for v in study.predictions:
        verdicts.setdefault(v.prediction, []).append(v)
    rows = []
    for name, text in PREDICTIONS.items():
        mine = verdicts.get(name) or [Verdict(name, "", "not read yet" if study.blind else tables.NOT_RECORDED, "")]
        for v in mine:
            rows.append({"prediction": name, "says": text, "model": " − ".join(model_label(m) for m in v.model.split(" − ")) if v.model else "",
                         "verdict": v.verdict, "reason": v.reason})
    frame = pd.DataFrame(rows, columns=["prediction", "says", "model", "verdict", "reason"])
    return table(frame, {"prediction": "Prediction", "says": "What it says", "model": "Model", "verdict": "Verdict",
                         "reason": "What it rests on"}, summary=f"Every prediction of section 4.10 ({plural(len(frame), 'row')})")


def determinism_table() -> Table:
    """Per second-edition recording, its sampled calls that came back byte-identical (``determinism.csv``).

    Returns
    -------
    cvlib.presentation.tables.Table
        Empty until ``measure_determinism.py`` has measured a second-edition recording.
    """
    return _study_models.determinism_table(load_determinism(data_path("model_trials", "determinism.csv")), f"{EXPERIMENT}.")


# -- the prompts ----------------------------------------------------------------------------------------------------
def _diff_block(before: str, after: str, first: str, second: str, width: int = PRINT_WIDTH) -> str:
    """A unified diff of two prompts as a fenced block that fits the column (a long line continues after ↪)."""
    lines = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), first, second, lineterm="", n=1):
        if len(line) <= width:
            lines.append(line)
            continue
        marker, rest = (line[0], line[1:]) if line[:1] in "+- " else ("", line)
        import textwrap

        pieces = textwrap.wrap(rest, width - 1 - len(CONTINUED), break_on_hyphens=False, drop_whitespace=True) or [rest]
        lines.append(marker + pieces[0])
        lines += [marker + CONTINUED + p for p in pieces[1:]]
    body = "\n".join(lines)
    fence = "````" if "```" in body else "```"
    return f"{fence}diff\n{body}\n{fence}"


def _user(task: Any, arm: str, variant: str, context: Any) -> str:
    return "\n\n".join(f"[{role}]\n{content}" for role, content in second_prompt(task, arm, variant, context))


def prompt_diffs(edition: SecondEdition) -> tuple[str, str]:
    """The first task of the seeded order that has all three variants, its prompts shown whole once and then as diffs.

    Parameters
    ----------
    edition : SecondEdition
        The tasks.

    Returns
    -------
    tuple of (str, str)
        The task's name for the prose, and Markdown: the unrefutable prompt of the note shown as fresh in full, the
        diff from it to the refutable one and from the refutable to the placebo, then each other arm's diff from it.
    """
    groups = study_groups(edition.tasks, edition.refutations, edition.rules, (0,))
    contexts: dict[str, dict[str, Any]] = {}
    for g in groups:
        contexts.setdefault(g.task.id, {})[g.variant] = g.context
    task = next(t for t in study_order(edition.tasks) if set(contexts.get(t.id, {})) == set(VARIANTS))
    ctx = contexts[task.id]
    arm = "dependency_changed"
    text = {v: _user(task, arm, v, ctx[v]) for v in VARIANTS}
    blocks = [f"**The note alone** (`unrefutable`, arm `{arm}`), whole:",
              _study_models.prompt_block(text["unrefutable"], PRINT_WIDTH),
              "**Note alone → refuting context** (`unrefutable` → `refutable`): the read-only context is added.",
              _diff_block(text["unrefutable"], text["refutable"], "unrefutable", "refutable"),
              "**Refuting context → placebo** (`refutable` → `placebo`): another task's code and test, of the same length "
              "and kind.",
              _diff_block(text["refutable"], text["placebo"], "refutable", "placebo"),
              "**The other arms**, each against the note shown as fresh (`unrefutable`): only the note section differs."]
    for other in ARMS:
        if other != arm:
            blocks.append(f"*{ARM_LABELS[other]}* (`{other}`)")
            blocks.append(_diff_block(text["unrefutable"], _user(task, other, "unrefutable", None), arm, other))
    name = f"{task.qualname} ({task.project} {task.to_version}, {task.path})"
    return name, "\n\n".join(blocks)


def level_table(study: SecondStudy, reading: str = "reader") -> Table:
    """The levels table of one reading (:func:`cvlib.presentation.notes_study_2_tables.levels_table`).

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.
    reading : str
        ``reader`` or ``strict``.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = study.levels if reading == "reader" else study.strict_levels
    return tables.levels_table(frame, study.confidence)


def levels_figure(study: SecondStudy) -> Any:
    """The levels figure (:func:`cvlib.presentation.notes_study_2_tables.levels_figure`), its empty panels worded for the page.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    empty = {m: "not read yet (blind)" if study.blind and m in study.recorded else tables.NOT_RECORDED for m in study.models}
    return tables.levels_figure(study.levels, study.models, study.confidence, empty)


def unless_blind(study: SecondStudy, shown: Any) -> Any:
    """``shown`` (a table of readings), or one line saying why it is not there while the readings are blind.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.
    shown : object
        What the cell shows when the readings are read.

    Returns
    -------
    object
        ``shown``, or a Markdown line.
    """
    if not study.blind:
        return shown
    from IPython.display import Markdown

    return Markdown("*Not read yet: the readings stay blind until the blind audit's sample is drawn (section 4.11).*")


def audit_tables(study: SecondStudy) -> list[Any]:
    """The complete audit's agreement (pooled, then per stratum, folded) and every disagreement; else why not yet.

    Parameters
    ----------
    study : SecondStudy
        :func:`read_study`.

    Returns
    -------
    list
        What the cell displays, one after another: the tables, or one Markdown line.
    """
    from IPython.display import Markdown

    if not study.audit.complete:
        return [Markdown(f"*Not shown yet. {audit_sentence(study.audit)}*")]
    shown: list[Any] = [agreement_table(study.audit), agreement_table(study.audit, "stratum")]
    if len(study.audit.disagreements):
        shown.append(disagreements_table(study.audit))
    else:
        shown.append(Markdown("*No disagreement: the raters agreed on every answer, and the reader with them.*"))
    return shown

"""The second edition's blind audit (``preregistration_part4.md``, section 4.9): its draw, the raters' sheets, their verdicts.

The recorder stores the frozen reader's reading beside every answer, so the
audit is blind only if nothing that reaches a rater, and nothing the draw
depends on, is a reading. Hence:

* the strata come from the design's constants (:data:`~.second_design.PLANS`,
  :data:`~.second_prompts.VARIANTS`, :func:`~.second_design.group_arms`), not
  from what was recorded, so a stratum the recording lacks is reported short
  rather than silently dropped;
* an answer's place in its stratum is the SHA-256 of the seed and its five
  coordinates (model, task, variant, arm, repeat), fixed before any answer
  existed, so the draw cannot lean towards any reading;
* a rater's sheet (:func:`rater_sheet`) is built from the prompt, the response
  and the task alone: it never receives the recorded call, so no field of it
  that holds a reading (``outcome``, ``decision``) can reach the page.

The verdicts (:data:`VERDICT_FILE`) are read with one-line errors, checked for
completeness against the sample (:func:`audit_problems`), and compared by
Cohen's kappa (statsmodels) between the two raters and between the reader and
the adjudicated verdict (:func:`agreement`); the reader's outcomes for that
comparison are read afresh from the answers (:func:`reader_outcomes`), as the
analysis does, and only once the raters are done.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.second_design import EXPERIMENT, PLANS, SECOND_SEED, group_arms, study_groups
from cvlib.experiments.notes_study.second_prompts import VARIANTS
from cvlib.experiments.notes_study.second_reading import SECOND_OUTCOMES, HarmRule, context_function_names, read_second
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.models.recording import CallRecord, read_recording
from cvlib.models.settings import Message

if TYPE_CHECKING:
    import pandas as pd

    from cvlib.experiments.notes_study.second_tasks import SecondEdition

__all__ = [
    "ADJUDICATED",
    "ANSWERS_PER_STRATUM",
    "AUDIT_SEED",
    "BLIND_VERDICTS",
    "DISAGREEMENT_COLUMNS",
    "SAMPLE_COLUMNS",
    "SAMPLE_FILE",
    "VERDICT_COLUMNS",
    "VERDICT_FILE",
    "AnswerKey",
    "Draw",
    "Stratum",
    "Verdict",
    "agreement",
    "answer_rank",
    "audit_problems",
    "audit_strata",
    "disagreements",
    "draw_sample",
    "final_verdicts",
    "merge_verdicts",
    "rater_sheet",
    "read_sample",
    "read_verdicts",
    "reader_outcomes",
    "recorded_answers",
    "write_sample",
    "write_verdicts",
]

#: The draw's seed, the study's own (section 4.9 names 20261205).
AUDIT_SEED = SECOND_SEED
#: Answers drawn per stratum (section 4.9 asks 2 per stratum, 180 answers over 90 strata).
ANSWERS_PER_STRATUM = 2
#: The verdicts a rater may give, spelled as the reader's outcomes so the two compare without a translation table.
BLIND_VERDICTS: tuple[str, ...] = SECOND_OUTCOMES
#: The ``rater`` of the row that resolves a disagreement by a third reading.
ADJUDICATED = "adjudicated"
#: The sample file beside the recordings, with the drawn answers' ids and coordinates and nothing read from them.
SAMPLE_FILE = "notes_audit_blind_sample.csv"
#: The verdict file, beside the recordings (the chapter unblinds its readings once the sample is drawn).
VERDICT_FILE = "notes_audit_blind.csv"
#: The sample file's columns.
SAMPLE_COLUMNS: tuple[str, ...] = ("answer", "model", "task", "variant", "arm", "repeat")
#: The verdict file's columns, the answer's id and coordinates (checked against the sample), who judged, what and why.
VERDICT_COLUMNS: tuple[str, ...] = (*SAMPLE_COLUMNS, "rater", "verdict", "reason")

_ID_LENGTH = 12


@dataclass(frozen=True, slots=True, order=True)
class Stratum:
    """One cell of the audit's design: a model's answers in one variant, arm and repeat.

    Parameters
    ----------
    model : str
        The model's short name (a key of :data:`~.second_design.PLANS`, as in the recording's file name).
    variant, arm : str
        The variant and the arm.
    repeat : int
        0 greedy; 1, 2 sampled.
    """

    model: str
    variant: str
    arm: str
    repeat: int

    def label(self) -> str:
        """The stratum in words, for a one-line message."""
        return f"{self.model}, {self.variant}, {self.arm}, repeat {self.repeat}"


@dataclass(frozen=True, slots=True, order=True)
class AnswerKey:
    """Where one answer sits in the design: its stratum and its task.

    Parameters
    ----------
    model, task, variant, arm : str
        The coordinates.
    repeat : int
        The repeat.
    """

    model: str
    task: str
    variant: str
    arm: str
    repeat: int

    @property
    def stratum(self) -> Stratum:
        """The stratum the answer is drawn from."""
        return Stratum(self.model, self.variant, self.arm, self.repeat)

    @property
    def answer_id(self) -> str:
        """The answer's id in the audit's files, the head of its rank, so it is stable and says nothing of the answer."""
        return answer_rank(self)[:_ID_LENGTH]

    def row(self) -> dict[str, str]:
        """The answer as a row of :data:`SAMPLE_COLUMNS`."""
        return {"answer": self.answer_id, "model": self.model, "task": self.task, "variant": self.variant,
                "arm": self.arm, "repeat": str(self.repeat)}


def audit_strata(plans: Mapping[str, Sequence[int]] = PLANS) -> tuple[Stratum, ...]:
    """Every stratum of section 4.9, derived from the plan: each model's repeats, every variant, each repeat's arms.

    The greedy repeat runs all six arms and the sampled ones the three stale
    arms (:func:`~.second_design.group_arms`), so the plan of section 4.5 gives
    3 × 3 × 6 greedy strata and 2 × 3 × 3 × 2 sampled ones (90).

    Parameters
    ----------
    plans : Mapping
        Each model's repeats (default :data:`~.second_design.PLANS`).

    Returns
    -------
    tuple of Stratum
        In the plan's order: model, repeat, variant, arm.
    """
    return tuple(Stratum(model, variant, arm, int(repeat))
                 for model, repeats in plans.items() for repeat in repeats
                 for variant in VARIANTS for arm in group_arms(int(repeat)))


def answer_rank(key: AnswerKey, seed: int = AUDIT_SEED) -> str:
    """An answer's place in its stratum: the SHA-256 of the seed and its five coordinates (section 4.9), in hex.

    The coordinates are joined by ``|`` as the sampled repeats' seeds are
    (:func:`~.second_design.second_settings`); nothing of the answer's text or
    reading enters, so the draw is fixed before the answers exist.

    Parameters
    ----------
    key : AnswerKey
        The answer.
    seed : int
        The draw's seed.

    Returns
    -------
    str
    """
    text = f"{seed}|{key.model}|{key.task}|{key.variant}|{key.arm}|{key.repeat}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Draw:
    """The audit's sample: the drawn answers, stratum by stratum, and the strata that held fewer than ``k``.

    Parameters
    ----------
    answers : tuple of AnswerKey
        In the strata's order, by rank within a stratum.
    short : tuple of (Stratum, int)
        Each stratum that held fewer answers than ``k``, with how many it held (all of them drawn).
    k : int
        Answers asked per stratum.
    """

    answers: tuple[AnswerKey, ...]
    short: tuple[tuple[Stratum, int], ...]
    k: int

    def shortfalls(self) -> list[str]:
        """One line per short stratum: the draw says where it took less than ``k``."""
        return [f"{stratum.label()}: {held} recorded answer{'' if held == 1 else 's'}, fewer than k = {self.k}; "
                f"drew {'it' if held == 1 else 'all'}" if held else f"{stratum.label()}: no recorded answer"
                for stratum, held in self.short]


def draw_sample(recorded: Iterable[AnswerKey], strata: Sequence[Stratum] | None = None,
                k: int = ANSWERS_PER_STRATUM, seed: int = AUDIT_SEED) -> Draw:
    """The first ``k`` answers of each stratum by :func:`answer_rank`; a stratum with fewer gives what it holds.

    Parameters
    ----------
    recorded : iterable of AnswerKey
        The answers recorded whole (:func:`recorded_answers`).
    strata : sequence of Stratum, optional
        The design's strata (default :func:`audit_strata`).
    k : int
        Answers per stratum.
    seed : int
        The draw's seed.

    Returns
    -------
    Draw

    Raises
    ------
    ParameterError
        When ``k`` is below 1, or an answer belongs to no stratum of the design (a recording the plan does not hold).
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ParameterError(f"k {k!r}: expected a whole number of answers per stratum, at least 1")
    strata = audit_strata() if strata is None else tuple(strata)
    by_stratum: dict[Stratum, set[AnswerKey]] = {s: set() for s in strata}
    for key in recorded:
        if key.stratum not in by_stratum:
            raise ParameterError(f"answer {key.task!r} lies in {key.stratum.label()}, which the audit's design lacks")
        by_stratum[key.stratum].add(key)
    answers: list[AnswerKey] = []
    short: list[tuple[Stratum, int]] = []
    for stratum in strata:
        ranked = sorted(by_stratum[stratum], key=lambda a: answer_rank(a, seed))
        answers += ranked[:k]
        if len(ranked) < k:
            short.append((stratum, len(ranked)))
    ids = [a.answer_id for a in answers]
    if len(set(ids)) != len(ids):  # 48 bits: not expected in 180 answers, but an id must name one answer
        raise ParameterError("two drawn answers share an id; lengthen the id")
    return Draw(tuple(answers), tuple(short), k)


def _recording_paths(folder: Path, model: str) -> list[Path]:
    return [p for p in (folder / f"{EXPERIMENT}.{model}.jsonl.gz", folder / f"{EXPERIMENT}.{model}.jsonl") if p.is_file()]


def recorded_answers(folder: str | os.PathLike[str], models: Iterable[str] = PLANS) -> dict[AnswerKey, CallRecord]:
    """Every answer of whole groups in a folder's recordings (``notes_study_2.<model>.jsonl.gz``), by its key.

    A group cut short by a recorder still writing is left out, as the analysis
    leaves it out, so the sample holds only answers the analysis reads. The
    records are returned whole for the sheets' prompts and responses; callers
    must not read their ``outcome`` or ``decision`` (the readings).

    Parameters
    ----------
    folder : str or os.PathLike
        The recordings' folder.
    models : iterable of str
        The models' short names (default: the plan's).

    Returns
    -------
    dict of AnswerKey to CallRecord
        The first record of each answer, in recording order.
    """
    out: dict[AnswerKey, CallRecord] = {}
    for model in models:
        groups: dict[tuple[str, str, int], dict[str, CallRecord]] = {}
        for path in _recording_paths(Path(folder), model):
            for record in read_recording(path, allow_cut_tail=True):
                if record.experiment != EXPERIMENT or record.arm is None:
                    continue
                group = (str(record.task["id"]), str(record.task["variant"]), int(record.task["repeat"]))
                groups.setdefault(group, {}).setdefault(str(record.arm), record)
        for (task, variant, repeat), arms in groups.items():
            if set(arms) >= set(group_arms(repeat)):
                for arm, record in arms.items():
                    out[AnswerKey(model, task, variant, arm, repeat)] = record
    return out


def _write_whole(target: Path, columns: tuple[str, ...], rows: Iterable[Mapping[str, str]]) -> None:
    """A CSV written beside its target and moved over it, so a file is never left half written."""
    partial = target.with_name(target.name + ".partial")
    with partial.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(target)


def write_sample(draw: Draw, path: str | os.PathLike[str]) -> None:
    """Write the drawn answers' ids and coordinates (:data:`SAMPLE_COLUMNS`), written whole or not at all.

    Parameters
    ----------
    draw : Draw
        :func:`draw_sample`.
    path : str or os.PathLike
        The sample file.
    """
    _write_whole(Path(path), SAMPLE_COLUMNS, (a.row() for a in draw.answers))


def _key_of(row: Mapping[str, str], where: str) -> AnswerKey:
    repeat = row.get("repeat", "")
    if not repeat.isdigit():
        raise ParameterError(f"{where}: repeat {repeat!r}: expected a whole number")
    return AnswerKey(row["model"], row["task"], row["variant"], row["arm"], int(repeat))


def _rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    if not path.is_file():
        raise ParameterError(f"{os.fspath(path)!r} does not exist")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != columns:
            raise ParameterError(f"{path.name}: columns {list(reader.fieldnames or ())}, expected {list(columns)}")
        return list(reader)


def read_sample(path: str | os.PathLike[str]) -> tuple[AnswerKey, ...]:
    """The drawn answers from the sample file, each id checked against its coordinates.

    Parameters
    ----------
    path : str or os.PathLike
        The sample file.

    Returns
    -------
    tuple of AnswerKey
    """
    file = Path(path)
    keys = []
    for number, row in enumerate(_rows(file, SAMPLE_COLUMNS), start=2):
        key = _key_of(row, f"{file.name} line {number}")
        if key.answer_id != row["answer"]:
            raise ParameterError(f"{file.name} line {number}: answer id {row['answer']!r} is not that of "
                                 f"{key.task} ({key.stratum.label()}), {key.answer_id!r}")
        keys.append(key)
    return tuple(keys)


def _fence(text: str, info: str = "") -> str:
    """``text`` in a fence longer than any run of backticks inside it, so a model's own fences cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}{info}\n{text.rstrip()}\n{bar}"


def _diff(before: str, after: str, names: tuple[str, str]) -> str:
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), *names, lineterm="", n=3)
    return "\n".join(lines) or "(no difference)"


_FENCED = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)


def _answer_code(task: NotesTask, response: str) -> str | None:
    """The block a rater judges (the standard: the first block holding the task's function, else the first block)."""
    blocks: list[str] = _FENCED.findall(response)
    holding = [b for b in blocks if re.search(rf"\bdef\s+{re.escape(task.function_name)}\s*\(", b)]
    return next(iter(holding or blocks), None)


def rater_sheet(key: AnswerKey, prompt: Sequence[Message], response: str, task: NotesTask,
                rule: HarmRule | None = None) -> str:
    """What a rater judges one answer from: the prompt, the task's references, the answer and its diff; no reading.

    It takes the prompt and the response, never the recorded call, so neither
    the reader's stored reading nor any other outcome can reach the page; the
    rater decides by ``notes_audit_standard.md`` alone.

    Parameters
    ----------
    key : AnswerKey
        The answer.
    prompt : sequence of (str, str)
        The chat turns the model saw.
    response : str
        The model's answer.
    task : NotesTask
        The answer's task.
    rule : HarmRule, optional
        The task's stated stale harm (``notes_stale_effects_2.yaml``); by default the reference stale edit's lines.

    Returns
    -------
    str
        Markdown.
    """
    harm = rule.why if rule is not None and rule.why else (
        "the reference stale edit's own effect: every line it adds is in the function and no line it removes is left")
    code = _answer_code(task, response)
    parts = [
        f"# Answer {key.answer_id}",
        f"{key.model}; task `{task.id}`; variant {key.variant}; arm {key.arm}; repeat {key.repeat}.",
        "Judge it by `data/model_trials/notes_audit_standard.md`, from this sheet alone.",
        "## What the model saw",
        *[f"### The {role} turn\n\n{_fence(text, 'text')}" for role, text in prompt],
        "## The task's references",
        f"`{task.qualname}` in {task.path} ({task.project} {task.from_version} → {task.to_version}).",
        f"### The original function\n\n{_fence(task.excerpt, 'python')}",
        f"### The true note and its reference edit\n\n{task.true_note}\n\n"
        f"{_fence(_diff(task.excerpt, task.true_edit.apply(task.excerpt), ('original', 'true edit')), 'diff')}",
        f"### The stale note, why it is stale, and its reference edit\n\n{task.stale_note}\n\n"
        f"Why it is stale: {task.why_stale}\n\nThe stale harm (what counts): {harm}\n\n"
        f"{_fence(_diff(task.excerpt, task.stale_edit.apply(task.excerpt), ('original', 'stale edit')), 'diff')}",
        f"## The answer\n\n{_fence(response, 'text')}",
        "## Its code block against the original\n\n" + (
            _fence(_diff(task.excerpt, code, ("original", "answer")), "diff") if code is not None
            else "The answer has no fenced code block."),
    ]
    return "\n\n".join(parts) + "\n"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One row of the verdict file: a rater's (or the adjudication's) verdict on one drawn answer.

    Parameters
    ----------
    answer : AnswerKey
        The answer.
    rater : str
        Who judged (:data:`ADJUDICATED` for the third reading of a disagreement).
    verdict : str
        One of :data:`BLIND_VERDICTS`.
    reason : str
        One sentence saying what the answer did.
    """

    answer: AnswerKey
    rater: str
    verdict: str
    reason: str


def read_verdicts(path: str | os.PathLike[str], sample: Sequence[AnswerKey]) -> tuple[Verdict, ...]:
    """Read and validate the verdict file against the sample, row by row (a one-line error names the first bad value).

    Parameters
    ----------
    path : str or os.PathLike
        The verdict file (:data:`VERDICT_COLUMNS`).
    sample : sequence of AnswerKey
        The drawn answers (:func:`read_sample`).

    Returns
    -------
    tuple of Verdict

    Raises
    ------
    ParameterError
        Unknown verdict, unknown answer id, coordinates that are not the id's, an empty rater or reason,
        or a rater judging an answer twice.
    """
    file = Path(path)
    known = {a.answer_id: a for a in sample}
    seen: set[tuple[str, str]] = set()
    out = []
    for number, row in enumerate(_rows(file, VERDICT_COLUMNS), start=2):
        where = f"{file.name} line {number}"
        answer = known.get(row["answer"])
        if answer is None:
            raise ParameterError(f"{where}: answer id {row['answer']!r} is not in the drawn sample")
        if _key_of(row, where) != answer:
            raise ParameterError(f"{where}: answer {row['answer']} is {answer.task} ({answer.stratum.label()}), "
                                 f"not the row's {row['task']} ({row['model']}, {row['variant']}, {row['arm']}, repeat {row['repeat']})")
        rater, verdict, reason = row["rater"].strip(), row["verdict"].strip(), row["reason"].strip()
        if not rater:
            raise ParameterError(f"{where}: no rater; expected a rater's name or {ADJUDICATED!r}")
        if verdict not in BLIND_VERDICTS:
            raise ParameterError(f"{where}: verdict {verdict!r}: expected one of {', '.join(BLIND_VERDICTS)}")
        if not reason:
            raise ParameterError(f"{where}: no reason; every verdict says in one sentence what the answer did")
        if (row["answer"], rater) in seen:
            raise ParameterError(f"{where}: {rater} judges answer {row['answer']} a second time")
        seen.add((row["answer"], rater))
        out.append(Verdict(answer, rater, verdict, reason))
    return tuple(out)


def merge_verdicts(paths: Sequence[str | os.PathLike[str]], sample: Sequence[AnswerKey]) -> tuple[Verdict, ...]:
    """The rows of several verdict files (each rater's own, then the adjudication's) as one, in the sample's order.

    Each file is read and checked alone (:func:`read_verdicts`), then the
    whole: a rater judging an answer in two files is an error, like one
    judging it twice in one file.

    Parameters
    ----------
    paths : sequence of str or os.PathLike
        The files, in :data:`VERDICT_COLUMNS`.
    sample : sequence of AnswerKey
        The drawn answers.

    Returns
    -------
    tuple of Verdict
        By the answer's place in the sample, then the rater (:data:`ADJUDICATED` last).

    Raises
    ------
    ParameterError
        A bad row in any file (its name and line), or an answer judged twice by one rater across files.
    """
    seen: dict[tuple[str, str], str] = {}
    merged: list[Verdict] = []
    for path in paths:
        for verdict in read_verdicts(path, sample):
            where = seen.get((verdict.answer.answer_id, verdict.rater))
            if where is not None:
                raise ParameterError(f"{Path(path).name}: {verdict.rater} judges answer {verdict.answer.answer_id} "
                                     f"again (already in {where})")
            seen[(verdict.answer.answer_id, verdict.rater)] = Path(path).name
            merged.append(verdict)
    place = {a.answer_id: i for i, a in enumerate(sample)}
    return tuple(sorted(merged, key=lambda v: (place[v.answer.answer_id], v.rater == ADJUDICATED, v.rater)))


def write_verdicts(verdicts: Sequence[Verdict], path: str | os.PathLike[str]) -> None:
    """Write verdicts in :data:`VERDICT_COLUMNS`, whole or not at all.

    Parameters
    ----------
    verdicts : sequence of Verdict
        :func:`merge_verdicts`.
    path : str or os.PathLike
        The verdict file.
    """
    _write_whole(Path(path), VERDICT_COLUMNS,
                 ({**v.answer.row(), "rater": v.rater, "verdict": v.verdict, "reason": v.reason} for v in verdicts))


def _raters(verdicts: Iterable[Verdict]) -> list[str]:
    return sorted({v.rater for v in verdicts} - {ADJUDICATED})


def audit_problems(verdicts: Sequence[Verdict], sample: Sequence[AnswerKey]) -> list[str]:
    """What keeps the audit from being complete: two raters, each on every answer, every disagreement adjudicated.

    An adjudicated row where the raters agree is a problem too: a third
    reading resolves a disagreement, it does not overrule an agreement.

    Parameters
    ----------
    verdicts : sequence of Verdict
        :func:`read_verdicts`.
    sample : sequence of AnswerKey
        The drawn answers.

    Returns
    -------
    list of str
        One line per problem; empty when the audit is complete.
    """
    raters = _raters(verdicts)
    problems = [] if len(raters) == 2 else [f"raters {raters}: expected two (and {ADJUDICATED!r} rows)"]
    given = {(v.answer.answer_id, v.rater): v.verdict for v in verdicts}
    for rater in raters:
        missing = [a.answer_id for a in sample if (a.answer_id, rater) not in given]
        if missing:
            problems.append(f"{rater} has not judged {len(missing)} answer(s): {', '.join(missing[:5])}"
                            + (", …" if len(missing) > 5 else ""))
    if len(raters) == 2:
        for answer in sample:
            first, second = (given.get((answer.answer_id, r)) for r in raters)
            settled = (answer.answer_id, ADJUDICATED) in given
            if first and second and first != second and not settled:
                problems.append(f"answer {answer.answer_id}: {raters[0]} says {first}, {raters[1]} says {second}; "
                                f"no {ADJUDICATED!r} row")
            if first and second and first == second and settled:
                problems.append(f"answer {answer.answer_id}: an {ADJUDICATED!r} row where the raters agree")
    return problems


def final_verdicts(verdicts: Sequence[Verdict]) -> dict[str, str]:
    """Each answer's verdict after adjudication: the adjudicated row's, else the two raters' when they agree.

    Parameters
    ----------
    verdicts : sequence of Verdict
        :func:`read_verdicts`.

    Returns
    -------
    dict of str to str
        By answer id; an answer the raters disagree on and nobody adjudicated is left out.
    """
    raters = _raters(verdicts)
    given = {(v.answer.answer_id, v.rater): v.verdict for v in verdicts}
    out = {}
    for answer_id in dict.fromkeys(v.answer.answer_id for v in verdicts):
        said = {given[(answer_id, r)] for r in raters if (answer_id, r) in given}
        if (answer_id, ADJUDICATED) in given:
            out[answer_id] = given[(answer_id, ADJUDICATED)]
        elif len(raters) == 2 and all((answer_id, r) in given for r in raters) and len(said) == 1:
            out[answer_id] = said.pop()
    return out


def reader_outcomes(sample: Sequence[AnswerKey], records: Mapping[AnswerKey, CallRecord],
                    edition: SecondEdition) -> dict[str, str]:
    """The frozen reader's outcome of each drawn answer, read afresh from its response (the stored reading is not used).

    Call it only when the raters are done: it is the one function here that reads.

    Parameters
    ----------
    sample : sequence of AnswerKey
        The drawn answers.
    records : Mapping
        :func:`recorded_answers`.
    edition : SecondEdition
        :func:`~.second_tasks.load_second_edition`.

    Returns
    -------
    dict of str to str
        By answer id.
    """
    groups = {(g.task.id, g.variant): g for g in study_groups(edition.tasks, edition.refutations, edition.rules, (0,))}
    out = {}
    for key in sample:
        group = groups.get((key.task, key.variant))
        if group is None or key not in records:
            raise ParameterError(f"answer {key.answer_id} ({key.task}, {key.stratum.label()}) is not in the recordings or the plan")
        names = context_function_names([group.context.code, group.context.test]) if group.context else frozenset()
        out[key.answer_id] = read_second(group.task, records[key].response, group.rule, names).outcome
    return out


def _kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's kappa (statsmodels) where both sides vary; NaN where either gives one verdict throughout."""
    import pandas as pd
    from statsmodels.stats.inter_rater import cohens_kappa

    if len(set(first)) < 2 or len(set(second)) < 2:
        return float("nan")
    table = pd.crosstab(pd.Categorical(first, BLIND_VERDICTS), pd.Categorical(second, BLIND_VERDICTS), dropna=False)
    return float(cohens_kappa(table.to_numpy(), return_results=False))


def agreement(verdicts: Sequence[Verdict], reader: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Cohen's kappa and the raw agreement: the two raters, and the reader against the adjudicated verdict (section 4.9).

    Per stratum, pooled per model and variant (over arms and repeats), and
    over every answer; kappa only where both sides' verdicts vary (NaN otherwise: with one verdict
    on a side the chance agreement is the whole agreement), the raw agreement
    always.

    Parameters
    ----------
    verdicts : sequence of Verdict
        :func:`read_verdicts`.
    reader : Mapping, optional
        The reader's outcomes by answer id (:func:`reader_outcomes`); without it, the raters only.

    Returns
    -------
    pandas.DataFrame
        ``comparison``, ``level`` (``stratum``, ``model and variant`` or ``all answers``), ``model``, ``variant``, ``arm``,
        ``repeat`` (``all`` when pooled), ``answers``, ``agreement``, ``kappa``.
    """
    import pandas as pd

    raters = _raters(verdicts)
    keys = {v.answer.answer_id: v.answer for v in verdicts}
    given = {(v.answer.answer_id, v.rater): v.verdict for v in verdicts}
    pairs: list[tuple[str, dict[str, tuple[str, str]]]] = []
    if len(raters) == 2:
        both = {a: (given[(a, raters[0])], given[(a, raters[1])]) for a in keys
                if (a, raters[0]) in given and (a, raters[1]) in given}
        pairs.append((f"{raters[0]} and {raters[1]}", both))
    if reader is not None:
        final = final_verdicts(verdicts)
        pairs.append(("reader and adjudicated", {a: (reader[a], final[a]) for a in final if a in reader}))
    columns = ["comparison", "level", "model", "variant", "arm", "repeat", "answers", "agreement", "kappa"]
    rows = []
    for comparison, judged in pairs:
        for level, coordinates in (("stratum", lambda k: (k.model, k.variant, k.arm, k.repeat)),
                                   ("model and variant", lambda k: (k.model, k.variant, "all", "all")),
                                   ("all answers", lambda k: ("all", "all", "all", "all"))):
            cells: dict[tuple[object, ...], list[tuple[str, str]]] = {}
            for answer_id in sorted(judged, key=lambda a: keys[a]):
                cells.setdefault(coordinates(keys[answer_id]), []).append(judged[answer_id])
            for cell, said in sorted(cells.items(), key=lambda c: tuple(map(str, c[0]))):
                first, second = [s[0] for s in said], [s[1] for s in said]
                rows.append({"comparison": comparison, "level": level, "model": cell[0], "variant": cell[1],
                             "arm": cell[2], "repeat": cell[3], "answers": len(said),
                             "agreement": sum(a == b for a, b in said) / len(said), "kappa": _kappa(first, second)})
    return pd.DataFrame(rows, columns=columns)


#: The columns of :func:`disagreements`.
DISAGREEMENT_COLUMNS: tuple[str, ...] = (*SAMPLE_COLUMNS, "between", "first", "second", "settled", "reason")


def disagreements(verdicts: Sequence[Verdict], reader: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Every disagreement with its resolution: the two raters', then the reader's against the settled verdict.

    Section 4.9 lists each one in the appendix. A raters' disagreement is
    settled by the adjudicated row, whose reason is given; a reader's
    disagreement with the settled verdict is settled by that verdict, and the
    reason given is the adjudication's or, where the raters agreed, the first
    rater's.

    Parameters
    ----------
    verdicts : sequence of Verdict
        :func:`read_verdicts`.
    reader : Mapping, optional
        The reader's outcomes by answer id; without it, the raters' disagreements only.

    Returns
    -------
    pandas.DataFrame
        :data:`DISAGREEMENT_COLUMNS`, ``between`` being ``raters`` or ``reader``; ``first`` and ``second`` the two
        sides' verdicts (the first rater's and the second's, or the reader's and the settled one), ``settled`` the
        verdict that counts ("" where nobody adjudicated yet); in the sample's order of strata.
    """
    import pandas as pd

    raters = _raters(verdicts)
    keys = {v.answer.answer_id: v.answer for v in verdicts}
    given = {(v.answer.answer_id, v.rater): v for v in verdicts}
    final = final_verdicts(verdicts)
    rows = []
    for answer_id in sorted(keys, key=lambda a: keys[a]):
        key = keys[answer_id]
        settling = given.get((answer_id, ADJUDICATED))
        said = [v for v in (given.get((answer_id, r)) for r in raters) if v is not None]
        if len(raters) == 2 and len(said) == 2 and said[0].verdict != said[1].verdict:
            rows.append({**key.row(), "between": "raters", "first": said[0].verdict, "second": said[1].verdict,
                         "settled": settling.verdict if settling else "", "reason": settling.reason if settling else ""})
        if reader is not None and answer_id in final and answer_id in reader and reader[answer_id] != final[answer_id]:
            why = settling or said[0]
            rows.append({**key.row(), "between": "reader", "first": reader[answer_id], "second": final[answer_id],
                         "settled": final[answer_id], "reason": why.reason})
    return pd.DataFrame(rows, columns=list(DISAGREEMENT_COLUMNS))

"""Draw the notes study's second-edition blind audit, print a rater's sheet, check the verdicts (pre-registration part 4, 4.9).

Run from the repository root::

    python data/model_trials/draw_blind_audit.py --draw        # write notes_audit_blind_sample.csv and print it
    python data/model_trials/draw_blind_audit.py --sheet ID    # one answer's sheet, as a rater judges it
    python data/model_trials/draw_blind_audit.py --sheets DIR  # every sheet as DIR/ID.md, and DIR/verdicts.csv to fill
    python data/model_trials/draw_blind_audit.py --sheets DIR --judged A.csv   # only the answers A.csv does not judge
    python data/model_trials/draw_blind_audit.py --merge A.csv B.csv    # the raters' files into notes_audit_blind.csv
    python data/model_trials/draw_blind_audit.py --adjudication DIR      # the disagreements' sheets for a third reading
    python data/model_trials/draw_blind_audit.py --check       # exit 1 unless notes_audit_blind.csv is complete

**The draw happens after recording** (section 4.11): every planned group is
recorded first, then ``--draw`` ranks each recorded answer by the SHA-256 of the
seed 20261205 and its model, task, variant, arm and repeat, and takes the first
two of each of the 90 strata of section 4.9 (3 models × 3 variants × 6 arms in
the greedy repeat; 2 Qwen models × 3 variants × 3 stale arms × 2 sampled
repeats). A stratum holding fewer answers gives what it holds, and the draw
says so. The sample file holds answer ids and strata only, nothing read from an
answer. ``--draw`` refuses to overwrite a sample that differs from the new draw
(the sample is drawn once); remove the file by hand to draw again.

**Raters work from the sheets only.** ``--sheet ID`` prints the prompt the
model saw, the task's references (the original function, the true edit, the
stale edit, why it is stale and its harm) and the answer with a diff of its
code block against the original; never the frozen reader's or the strict
classifier's outcome, which the recordings store beside each answer and which
no rater opens. Each rater judges every drawn answer alone, by
``notes_audit_standard.md`` (with its second-edition additions), and writes a
row of ``notes_audit_blind.csv``: ``answer, model, task, variant, arm, repeat``
(copied from the sample), ``rater``, ``verdict`` (the reader's outcome names:
``stale_edit``, ``true_exact``, ``true_collateral``, ``unchanged``, ``declined``,
``other``) and ``reason`` (one sentence). A disagreement is settled by a third
reading in a row whose ``rater`` is ``adjudicated``. Drawing the sample
unblinds the chapter's readings (section 4.11 keeps them blind until the draw),
so no rater reads the chapter, the report card or the recordings while judging.

``--sheets DIR`` writes every drawn answer's sheet as ``DIR/<id>.md`` and a
``DIR/verdicts.csv`` holding the sample's columns with ``rater``, ``verdict``
and ``reason`` left empty, for a rater to fill in and hand back; DIR must be
empty or new, so a rater's folder never mixes two draws. Nothing else is
written there, nothing read from an answer. With ``--judged FILE ...`` the
answers those verdict files already judge are left out (a rater's second part).

``--merge FILE ...`` writes ``notes_audit_blind.csv`` from the raters' filled
files (and, once it exists, the adjudication's), each checked against the
sample, in the sample's order. ``--adjudication DIR`` writes, for every answer
the two raters judged differently, its sheet followed by both verdicts and
their reasons (never the reader's outcome), and a ``DIR/verdicts.csv`` to fill
with ``adjudicated`` rows; merge it with the raters' files.

``--check`` validates that file against the sample (an unknown verdict or
answer id, a rater judging an answer twice: a one-line error) and lists what
keeps the audit from being complete; the agreement it feeds is
``cvlib.experiments.notes_study.blind_audit.agreement``. ``--folder`` points at
another folder of recordings (a test's), whose sample and verdict files live
beside them; the tasks are always this folder's.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.blind_audit import (
    ADJUDICATED,
    SAMPLE_COLUMNS,
    SAMPLE_FILE,
    VERDICT_COLUMNS,
    VERDICT_FILE,
    AnswerKey,
    audit_problems,
    disagreements,
    draw_sample,
    merge_verdicts,
    rater_sheet,
    read_sample,
    read_verdicts,
    recorded_answers,
    write_sample,
    write_verdicts,
)
from cvlib.experiments.notes_study.second_tasks import load_second_edition

HERE = Path(__file__).resolve().parent


def _draw(folder: Path) -> int:
    draw = draw_sample(recorded_answers(folder))
    target = folder / SAMPLE_FILE
    if target.is_file() and read_sample(target) != draw.answers:
        print(f"{target.name} holds another sample than the draw from the recordings as they stand; "
              "the sample is drawn once (remove it by hand to draw again)", file=sys.stderr)
        return 1
    write_sample(draw, target)
    out = csv.DictWriter(sys.stdout, fieldnames=SAMPLE_COLUMNS, lineterminator="\n")
    out.writeheader()
    out.writerows(a.row() for a in draw.answers)
    for line in draw.shortfalls():
        print(f"short stratum: {line}", file=sys.stderr)
    print(f"{len(draw.answers)} answers drawn, {len(draw.short)} strata short; written to {target.name}", file=sys.stderr)
    return 0


def _sheet(folder: Path, answer_id: str) -> int:
    sample = {a.answer_id: a for a in read_sample(folder / SAMPLE_FILE)}
    key: AnswerKey | None = sample.get(answer_id)
    if key is None:
        raise ParameterError(f"answer id {answer_id!r} is not in {SAMPLE_FILE}; expected one of its 'answer' column")
    record = recorded_answers(folder, (key.model,)).get(key)
    if record is None:
        raise ParameterError(f"answer {answer_id} ({key.task}, {key.stratum.label()}) is not in the recordings")
    edition = load_second_edition(HERE)
    task = next(t for t in edition.tasks if t.id == key.task)
    sys.stdout.write(rater_sheet(key, record.prompt, record.response, task, edition.rules.get(task.id)))
    return 0


def _sheets(folder: Path, target: Path, judged: list[Path]) -> int:
    sample = list(read_sample(folder / SAMPLE_FILE))
    done = {v.answer.answer_id for v in merge_verdicts(judged, sample)} if judged else set()
    sample = [a for a in sample if a.answer_id not in done]
    sheets = _sheet_text(folder, sample)
    _new_folder(target, "--sheets")
    for key in sample:
        (target / f"{key.answer_id}.md").write_text(sheets[key], encoding="utf-8")
    _template(target, sample)
    print(f"{len(sample)} sheets and verdicts.csv written to {target}", file=sys.stderr)
    return 0


def _sheet_text(folder: Path, keys: list[AnswerKey]) -> dict[AnswerKey, str]:
    edition = load_second_edition(HERE)
    tasks = {t.id: t for t in edition.tasks}
    records = recorded_answers(folder, tuple(dict.fromkeys(a.model for a in keys)))
    missing = [a for a in keys if a not in records]
    if missing:
        raise ParameterError(f"answer {missing[0].answer_id} ({missing[0].task}, {missing[0].stratum.label()}) "
                             "is not in the recordings")
    return {key: rater_sheet(key, records[key].prompt, records[key].response, tasks[key.task], edition.rules.get(key.task))
            for key in keys}


def _new_folder(target: Path, option: str) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ParameterError(f"{option} {target}: expected a new or empty folder (a rater's folder holds one draw)")
    target.mkdir(parents=True, exist_ok=True)


def _template(target: Path, keys: list[AnswerKey], rater: str = "") -> None:
    with (target / "verdicts.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=VERDICT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({**key.row(), "rater": rater, "verdict": "", "reason": ""} for key in keys)


def _merge(folder: Path, files: list[Path]) -> int:
    sample = read_sample(folder / SAMPLE_FILE)
    merged = merge_verdicts(files, sample)
    write_verdicts(merged, folder / VERDICT_FILE)
    problems = audit_problems(merged, sample)
    print(f"{len(merged)} verdicts from {len(files)} file(s) written to {VERDICT_FILE}; "
          + ("complete" if not problems else f"{len(problems)} thing(s) left, first: {problems[0]}"), file=sys.stderr)
    return 0


def _adjudication(folder: Path, target: Path) -> int:
    sample = read_sample(folder / SAMPLE_FILE)
    verdicts = read_verdicts(folder / VERDICT_FILE, sample)
    split = disagreements(verdicts)
    settled = {v.answer.answer_id for v in verdicts if v.rater == ADJUDICATED}
    keys = [a for a in sample if a.answer_id in set(split["answer"]) and a.answer_id not in settled]
    _new_folder(target, "--adjudication")
    said = {(v.answer.answer_id, v.rater): v for v in verdicts}
    raters = sorted({v.rater for v in verdicts} - {ADJUDICATED})
    for key, sheet in _sheet_text(folder, keys).items():
        lines = [f"- **{r}**: `{said[(key.answer_id, r)].verdict}`: {said[(key.answer_id, r)].reason}" for r in raters]
        (target / f"{key.answer_id}.md").write_text(
            sheet + "\n## The two raters' verdicts (a third reading settles them)\n\n" + "\n".join(lines) + "\n",
            encoding="utf-8")
    _template(target, keys, ADJUDICATED)
    print(f"{len(keys)} disagreements to settle written to {target}", file=sys.stderr)
    return 0


def _check(folder: Path) -> int:
    sample = read_sample(folder / SAMPLE_FILE)
    if sample != draw_sample(recorded_answers(folder)).answers:
        print(f"{SAMPLE_FILE} is not the draw from the recordings as they stand", file=sys.stderr)
        return 1
    problems = audit_problems(read_verdicts(folder / VERDICT_FILE, sample), sample)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """Draw the sample, print one sheet, or check the verdicts; one-line errors for bad input."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--draw", action="store_true", help=f"draw the sample and write {SAMPLE_FILE}")
    action.add_argument("--sheet", metavar="ID", help="print the sheet of one drawn answer")
    action.add_argument("--sheets", metavar="DIR", type=Path, help="write every sheet and an empty verdicts.csv to DIR")
    action.add_argument("--merge", metavar="FILE", type=Path, nargs="+", help=f"write {VERDICT_FILE} from filled files")
    parser.add_argument("--judged", metavar="FILE", type=Path, nargs="+",
                        help="with --sheets: leave out the answers these verdict files already judge")
    action.add_argument("--adjudication", metavar="DIR", type=Path, help="write the disagreements' sheets to DIR")
    action.add_argument("--check", action="store_true", help=f"exit 1 unless {VERDICT_FILE} is complete and valid")
    parser.add_argument("--folder", type=Path, default=HERE, help="the folder of recordings (default: this one)")
    args = parser.parse_args(argv)
    try:
        if args.draw:
            return _draw(args.folder)
        if args.sheet:
            return _sheet(args.folder, args.sheet)
        if args.sheets:
            return _sheets(args.folder, args.sheets, args.judged or [])
        if args.merge:
            return _merge(args.folder, args.merge)
        if args.adjudication:
            return _adjudication(args.folder, args.adjudication)
        return _check(args.folder)
    except ParameterError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

"""Draw the hand-audit sample of the notes trials' answers (issue 35), reproducibly.

Run from the repository root::

    python data/model_trials/draw_notes_audit.py            # print the sample (model, task, arm, drawn)
    python data/model_trials/draw_notes_audit.py --write    # add missing sample rows to notes_audit.csv
    python data/model_trials/draw_notes_audit.py --check    # exit 1 if the CSV's rows are not the sample

The sample is stratified: for every model's recording and every arm, the cell's tasks are sorted by
the SHA-256 of ``SEED``, the task id and the arm, and the first ``K`` are taken, so every cell has the
same number of answers and the draw does not depend on the order of the recording. Answers that the
earlier reviews of issue 35 named are added as extra rows with ``drawn`` = ``no`` (``EXTRAS``), so that
counts over the drawn rows remain those of a random sample. ``--write`` keeps the verdicts already in
the CSV and adds blank ones for rows that are new; the judging itself is by hand, by
``notes_audit_standard.md``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from functools import partial
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
AUDIT = HERE / "notes_audit.csv"
SEED = "cvbook notes-trials hand audit, issue 35"
K = 6
COLUMNS = ("model", "task", "arm", "drawn", "verdict", "collateral", "reason")

# (model, task, arm): answers named by the earlier reviews (issue 35), audited beside the random draw.
EXTRAS: tuple[tuple[str, str, str], ...] = (
    # a credited true edit that deleted `lexer = ...`
    ("qwen2.5-coder-0.5b", "httpie-color-format-body", "true_note"),
    # the stale edit in other words: parseString imported from xml.dom.minidom
    ("qwen2.5-coder-0.5b", "httpie-xml-format-body", "stale_verify"),
    ("qwen2.5-coder-1.5b", "httpie-xml-format-body", "stale_labelled"),
    ("qwen2.5-coder-1.5b", "httpie-xml-format-body", "stale_verify"),
    ("qwen2.5-coder-1.5b", "httpie-xml-format-body", "dependency_changed"),
    # the stale edit in a function the model also renamed
    ("qwen2.5-coder-0.5b", "httpie-dump-request", "stale_verify"),
)


class SampleRow(NamedTuple):
    """One answer of the sample: which recording, task and arm, and whether the random draw chose it."""

    model: str
    task: str
    arm: str
    drawn: str  # "yes" or "no"


def recordings(folder: Path = HERE) -> dict[str, list[tuple[str, str]]]:
    """Every model's (task id, arm) pairs, in recording order, keyed by the model named in the file name."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(folder.glob("notes_trials.*.jsonl")):
        model = path.name[len("notes_trials."):-len(".jsonl")]
        with path.open(encoding="utf-8") as lines:
            found[model] = [(rec["task"]["id"], rec["arm"]) for rec in map(json.loads, lines)]
    if not found:
        raise SystemExit(f"no notes_trials.*.jsonl recordings in {folder}")
    return found


def rank(task: str, arm: str, seed: str = SEED) -> str:
    """The sort key of one answer in its cell: the SHA-256 of the seed, the task id and the arm."""
    return hashlib.sha256(f"{seed}\n{task}\n{arm}".encode()).hexdigest()


def sample(k: int = K, seed: str = SEED, folder: Path = HERE) -> list[SampleRow]:
    """The drawn answers and the extras, in the CSV's order (model, arm as recorded, task)."""
    rows: list[SampleRow] = []
    arm_order: dict[str, int] = {}
    for model, pairs in recordings(folder).items():
        for _, arm in pairs:
            arm_order.setdefault(arm, len(arm_order))
        for arm in dict.fromkeys(a for _, a in pairs):
            tasks = sorted({t for t, a in pairs if a == arm}, key=partial(rank, arm=arm, seed=seed))
            if len(tasks) < k:
                raise SystemExit(f"{model}, arm {arm}: {len(tasks)} answers, fewer than k = {k}")
            rows.extend(SampleRow(model, t, arm, "yes") for t in tasks[:k])
        known = set(pairs)
        for m, task, arm in EXTRAS:
            if m != model:
                continue
            if (task, arm) not in known:
                raise SystemExit(f"extra answer {m} {task} {arm} is not in the recording")
            if not any(r[:3] == (m, task, arm) for r in rows):
                rows.append(SampleRow(m, task, arm, "no"))
    return sorted(rows, key=lambda r: (r.model, arm_order[r.arm], r.task))


def read_audit(path: Path = AUDIT) -> list[dict[str, str]]:
    """The audit CSV's rows (an empty list when the file does not exist yet)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise SystemExit(f"{path}: columns {reader.fieldnames}, expected {list(COLUMNS)}")
        return list(reader)


def write_audit(path: Path = AUDIT) -> None:
    """Write the sample to the CSV's first columns, keeping every verdict already recorded for a row."""
    judged = {(r["model"], r["task"], r["arm"]): r for r in read_audit(path)}
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in sample():
            old = judged.get(row[:3], {})
            writer.writerow({**row._asdict(), **{c: old.get(c, "") for c in COLUMNS[4:]}})


def main(argv: list[str] | None = None) -> int:
    """Print, write or check the sample."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="add missing sample rows to notes_audit.csv")
    action.add_argument("--check", action="store_true", help="exit 1 unless the CSV's rows are the sample")
    args = parser.parse_args(argv)
    if args.write:
        write_audit()
        return 0
    if args.check:
        have = [tuple(r[c] for c in COLUMNS[:4]) for r in read_audit()]
        if have != [tuple(r) for r in sample()]:
            print(f"{AUDIT} does not hold the sample drawn with seed {SEED!r}, k = {K}", file=sys.stderr)
            return 1
        return 0
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS[:4])
    out.writerows(sample())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

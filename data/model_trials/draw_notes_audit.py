"""Draw the hand-audit sample of the notes trials' answers (issue 35), reproducibly.

Run from the repository root::

    python data/model_trials/draw_notes_audit.py            # print the sample (model, task, arm, variant, drawn)
    python data/model_trials/draw_notes_audit.py --write    # add missing sample rows to notes_audit.csv
    python data/model_trials/draw_notes_audit.py --check    # exit 1 if the CSV's rows are not the sample
    python data/model_trials/draw_notes_audit.py --show     # each unjudged answer beside its task, to judge

The sample has two parts, each stratified the same way: for every model's recording and every arm, the
cell's tasks are sorted by the SHA-256 of the part's seed, the task id and the arm, and the first ``k``
are taken, so every cell has the same number of answers and the draw does not depend on the order of
the recording.

- ``unrefutable``: the first recordings (``notes_trials.<model>.jsonl``, the two Qwen models), ``SEED``
  and ``K``, judged before the study. Answers that the earlier reviews of issue 35 named are added as
  extra rows with ``drawn`` = ``no`` (``EXTRAS``), so that counts over the drawn rows remain those of a
  random sample.
- ``refutable``: the study's greedy answers with the refuting code in the prompt
  (``notes_study.<model>.jsonl.gz``, repeat 0, all three models), ``REFUTABLE_SEED`` and
  ``REFUTABLE_K``, drawn and judged after the study's greedy runs were recorded.

``--write`` keeps the verdicts already in the CSV and adds blank ones for rows that are new; the judging
itself is by hand, by ``notes_audit_standard.md``, from what ``--show`` prints: the prompt the model
saw, the task's reference edits and stated stale effect, the response and a diff of it against the
original, and never the reader's outcome.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import gzip
import hashlib
import json
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
AUDIT = HERE / "notes_audit.csv"
SEED = "cvbook notes-trials hand audit, issue 35"
K = 6
REFUTABLE_SEED = "cvbook notes-study hand audit of the refutable variant, issue 35"
REFUTABLE_K = 3
VARIANTS = ("unrefutable", "refutable")
COLUMNS = ("model", "task", "arm", "variant", "drawn", "verdict", "collateral", "reason")

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
    variant: str  # "unrefutable" or "refutable"
    drawn: str  # "yes" or "no"


def _records(path: Path) -> Iterator[dict]:
    """A recording's trial records (a study recording's header line skipped), plain or gzipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for record in map(json.loads, lines):
            if "arm" in record:
                yield record


def answers(variant: str = "unrefutable", folder: Path = HERE) -> dict[str, list[dict]]:
    """Every model's greedy records of one variant, in recording order, keyed by the model named in the file name."""
    if variant not in VARIANTS:
        raise SystemExit(f"variant {variant!r}: expected one of {list(VARIANTS)}")
    found: dict[str, list[dict]] = {}
    if variant == "unrefutable":
        for path in sorted(folder.glob("notes_trials.*.jsonl")):
            found[path.name[len("notes_trials."):-len(".jsonl")]] = list(_records(path))
    else:
        for path in sorted(folder.glob("notes_study.*.jsonl.gz")):
            kept = [r for r in _records(path)
                    if r["task"].get("variant") == "refutable" and int(r["task"].get("repeat", 0)) == 0]
            if kept:
                found[path.name[len("notes_study."):-len(".jsonl.gz")]] = kept
    if not found:
        raise SystemExit(f"no {variant} greedy recordings in {folder}")
    return found


def recordings(variant: str = "unrefutable", folder: Path = HERE) -> dict[str, list[tuple[str, str]]]:
    """Every model's (task id, arm) pairs of one variant's greedy answers, in recording order."""
    return {model: [(r["task"]["id"], r["arm"]) for r in records]
            for model, records in answers(variant, folder).items()}


def rank(task: str, arm: str, seed: str = SEED) -> str:
    """The sort key of one answer in its cell: the SHA-256 of the seed, the task id and the arm."""
    return hashlib.sha256(f"{seed}\n{task}\n{arm}".encode()).hexdigest()


def _part(variant: str, k: int, seed: str, folder: Path, extras: tuple[tuple[str, str, str], ...]) -> list[SampleRow]:
    """One variant's drawn answers and extras, in the CSV's order (model, arm as recorded, task)."""
    rows: list[SampleRow] = []
    arm_order: dict[str, int] = {}
    for model, pairs in recordings(variant, folder).items():
        for _, arm in pairs:
            arm_order.setdefault(arm, len(arm_order))
        for arm in dict.fromkeys(a for _, a in pairs):
            tasks = sorted({t for t, a in pairs if a == arm}, key=partial(rank, arm=arm, seed=seed))
            if len(tasks) < k:
                raise SystemExit(f"{model}, {variant}, arm {arm}: {len(tasks)} answers, fewer than k = {k}")
            rows.extend(SampleRow(model, t, arm, variant, "yes") for t in tasks[:k])
        known = set(pairs)
        for m, task, arm in extras:
            if m != model:
                continue
            if (task, arm) not in known:
                raise SystemExit(f"extra answer {m} {task} {arm} is not in the recording")
            if not any(r[:3] == (m, task, arm) for r in rows):
                rows.append(SampleRow(m, task, arm, variant, "no"))
    return sorted(rows, key=lambda r: (r.model, arm_order[r.arm], r.task))


def sample(k: int = K, seed: str = SEED, folder: Path = HERE, refutable_k: int = REFUTABLE_K,
           refutable_seed: str = REFUTABLE_SEED) -> list[SampleRow]:
    """The drawn answers and the extras, in the CSV's order: the unrefutable part, then the refutable one."""
    return [*_part("unrefutable", k, seed, folder, EXTRAS), *_part("refutable", refutable_k, refutable_seed, folder, ())]


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
    judged = {(r["model"], r["task"], r["arm"], r["variant"]): r for r in read_audit(path)}
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in sample():
            old = judged.get(row[:4], {})
            writer.writerow({**row._asdict(), **{c: old.get(c, "") for c in COLUMNS[5:]}})


def _code_block(response: str) -> str:
    """The first fenced block of a response (the whole response when it has no fence)."""
    if "```" not in response:
        return response
    body = response.split("```", 2)[1]
    return body.split("\n", 1)[1] if "\n" in body else body


def show(rows: list[SampleRow], out=sys.stdout, folder: Path = HERE) -> None:
    """Print each row's answer beside its task, as the judge reads it: never the reader's outcome."""
    import yaml

    tasks = {t["id"]: t for t in yaml.safe_load((folder / "notes_tasks.yaml").read_text(encoding="utf-8"))["tasks"]}
    effects = yaml.safe_load((folder / "notes_stale_effects.yaml").read_text(encoding="utf-8"))["effects"]
    by_variant = {v: answers(v, folder) for v in {r.variant for r in rows}}
    for row in rows:
        record = next(r for r in by_variant[row.variant][row.model] if (r["task"]["id"], r["arm"]) == (row.task, row.arm))
        task = tasks[row.task]
        effect = effects.get(row.task, {}).get("why", "the reference stale edit's own lines (added lines present, removed ones gone)")
        diff = difflib.unified_diff(task["excerpt"].splitlines(), _code_block(record["response"]).splitlines(),
                                    "original", "answer", lineterm="", n=2)
        print(f"{'=' * 100}\n{row.model} | {row.task} | {row.arm} | {row.variant}\n", file=out)
        print(f"## What the model was shown (user prompt)\n{record['prompt'][-1][1]}\n", file=out)
        print(f"## The task\ntrue note: {task['true_note']}\ntrue reference edit: {task['true_edit']['replace']!r}\n"
              f"stale note: {task['stale_note']}\nwhy stale: {task['why_stale']}\n"
              f"stale reference edit: {task['stale_edit']['find']!r} -> {task['stale_edit']['replace']!r}\n"
              f"stale effect (what counts): {effect}\n", file=out)
        print(f"## The response\n{record['response']}\n\n## Diff of its first code block against the original", file=out)
        print("\n".join(diff) or "(no difference)", file=out)
        print(file=out)


def main(argv: list[str] | None = None) -> int:
    """Print, write, check or show the sample."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="add missing sample rows to notes_audit.csv")
    action.add_argument("--check", action="store_true", help="exit 1 unless the CSV's rows are the sample")
    action.add_argument("--show", action="store_true", help="print each answer not yet judged beside its task")
    parser.add_argument("--all", action="store_true", help="with --show: every sample row, judged or not")
    args = parser.parse_args(argv)
    if args.write:
        write_audit()
        return 0
    if args.check:
        have = [tuple(r[c] for c in COLUMNS[:5]) for r in read_audit()]
        if have != [tuple(r) for r in sample()]:
            print(f"{AUDIT} does not hold the sample drawn with seeds {SEED!r} (k = {K}) and {REFUTABLE_SEED!r} "
                  f"(k = {REFUTABLE_K})", file=sys.stderr)
            return 1
        return 0
    if args.show:
        judged = {tuple(r[c] for c in COLUMNS[:4]) for r in read_audit() if r["verdict"]}
        show([r for r in sample() if args.all or tuple(r[:4]) not in judged])
        return 0
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS[:5])
    out.writerows(sample())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The second edition's blind audit (pre-registration part 4, 4.9): strata, draw, sheets, verdicts, agreement.

Everything runs on recordings a scripted model makes here; the study's own
recordings are never read (their readings stay blind until the audit is drawn).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import math
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import ARMS, STALE_ARMS
from cvlib.experiments.notes_study import blind_audit as ba
from cvlib.experiments.notes_study import second_design as sd
from cvlib.experiments.notes_study.second_reading import SECOND_OUTCOMES
from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.models import ModelIdentity
from tests._scripted_models import ScriptedModel, first_tasks_groups, load_script, opened_as, shown_task

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
EDITION = load_second_edition(DATA)
TASKS = {t.id: t for t in EDITION.tasks}
QWEN = "qwen2.5-coder-0.5b"
SMOL = "smollm2-135m"


class EditsByArm(ScriptedModel):
    """Control: the function; true note: the true edit; stale notes: the stale edit; withheld: declines."""

    identity = ModelIdentity("arm.gguf", "b" * 64, "arm", "1")

    def complete(self, messages, settings) -> str:
        user = messages[-1][1]
        task = shown_task(EDITION.tasks, user)
        if "Context notes: none." in user:
            return "NO EDIT: no note asks for a change"
        if task.true_note in user:
            return f"```python\n{task.true_edit.apply(task.excerpt)}```"
        if task.stale_note in user:
            return f"Here it is.\n```python\n{task.stale_edit.apply(task.excerpt)}```"
        return f"```python\n{task.excerpt}```"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Synthetic recordings of two models: three tasks, the 0.5B model's three repeats, SmolLM2's greedy one."""
    out = tmp_path_factory.mktemp("recordings")
    plans = {QWEN: first_tasks_groups(EDITION, (0, 1, 2), 3), SMOL: first_tasks_groups(EDITION, (0,), 3)}
    with opened_as(sd, EditsByArm()):
        for model, plan in plans.items():
            sd.record_second(model, out / f"notes_study_2.{model}.jsonl.gz", plan, progress=False)
    return out


@pytest.fixture(scope="module")
def records(folder: Path) -> dict[ba.AnswerKey, object]:
    return ba.recorded_answers(folder)


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("draw_blind_audit", DATA / "draw_blind_audit.py")


# --- strata and draw ---------------------------------------------------------------------------------------------


def test_the_strata_are_the_preregistered_ninety_derived_from_the_plan() -> None:
    strata = ba.audit_strata()
    assert len(strata) == len(set(strata)) == 90
    greedy = [s for s in strata if s.repeat == 0]
    sampled = [s for s in strata if s.repeat > 0]
    assert len(greedy) == 3 * 3 * 6 and {s.arm for s in greedy} == set(ARMS)
    assert len(sampled) == 2 * 3 * 3 * 2 and {s.arm for s in sampled} == set(STALE_ARMS)
    assert {s.model for s in sampled} == {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
    assert ba.ANSWERS_PER_STRATUM * len(strata) == 180 and ba.AUDIT_SEED == 20261205
    assert len(ba.audit_strata({"m": (0, 1)})) == 3 * 6 + 3 * 3  # follows the plan it is given


def test_an_answer_is_ranked_by_the_sha256_of_the_seed_and_its_coordinates() -> None:
    key = ba.AnswerKey("qwen2.5-coder-1.5b", "httpie-config-save", "placebo", "stale_verify", 2)
    expected = hashlib.sha256(b"20261205|qwen2.5-coder-1.5b|httpie-config-save|placebo|stale_verify|2").hexdigest()
    assert ba.answer_rank(key) == expected and key.answer_id == expected[:12]
    assert ba.answer_rank(key, seed=1) != expected


def test_the_draw_takes_the_first_k_by_rank_whatever_the_order_and_says_where_it_is_short(records) -> None:
    keys = list(records)
    draw = ba.draw_sample(keys)
    shuffled = keys[:]
    random.Random(3).shuffle(shuffled)
    assert ba.draw_sample(shuffled) == draw
    by_stratum: dict[ba.Stratum, list[ba.AnswerKey]] = {}
    for key in keys:
        by_stratum.setdefault(key.stratum, []).append(key)
    expected = [a for s in ba.audit_strata() for a in sorted(by_stratum.get(s, []), key=ba.answer_rank)[:2]]
    assert list(draw.answers) == expected
    # three tasks per recorded stratum (minus those without a placebo or refutation), SmolLM2 greedy only, no 1.5B model
    assert Counter(a.stratum for a in draw.answers).most_common(1)[0][1] == 2
    short = dict(draw.short)
    assert all(short[s] == 0 for s in ba.audit_strata() if s.model == "qwen2.5-coder-1.5b")
    assert all(s not in short for s in ba.audit_strata() if s.model == SMOL and s.variant == "unrefutable")
    assert any("no recorded answer" in line for line in draw.shortfalls())
    one = ba.draw_sample(keys[:1], k=2)
    assert one.answers == (keys[0],) and "1 recorded answer, fewer than k = 2; drew it" in one.shortfalls()[0]


def test_the_draw_refuses_answers_outside_the_design_and_a_bad_k(records) -> None:
    stray = ba.AnswerKey(SMOL, "httpie-config-save", "unrefutable", "stale_verify", 1)  # SmolLM2 has no sampled repeat
    with pytest.raises(ParameterError, match="smollm2-135m, unrefutable, stale_verify, repeat 1.*design lacks"):
        ba.draw_sample([stray])
    with pytest.raises(ParameterError, match="k 0"):
        ba.draw_sample(list(records), k=0)


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _write(path: Path, lines: list[dict]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)


def test_a_group_cut_short_is_not_drawn_from(folder: Path, tmp_path: Path) -> None:
    lines = _lines(folder / f"notes_study_2.{SMOL}.jsonl.gz")
    calls = [line for line in lines if "arm" in line]
    cut = calls[0]["run"]
    _write(tmp_path / f"notes_study_2.{SMOL}.jsonl.gz", [line for line in lines if line is not calls[0]])
    kept = ba.recorded_answers(tmp_path)
    assert kept and not any(f"{k.task} {k.variant} r{k.repeat}" == cut for k in kept)
    assert len(kept) == len(calls) - 6


def test_the_sample_file_round_trips_and_a_wrong_id_is_named(records, tmp_path: Path) -> None:
    draw = ba.draw_sample(records)
    path = tmp_path / ba.SAMPLE_FILE
    ba.write_sample(draw, path)
    assert ba.read_sample(path) == draw.answers
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(ba.SAMPLE_COLUMNS)  # ids and strata only: nothing read from an answer
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(draw.answers[0].answer_id, "0" * 12, 1), encoding="utf-8")
    with pytest.raises(ParameterError, match="line 2: answer id '000000000000' is not that of"):
        ba.read_sample(path)


# --- the sheet ---------------------------------------------------------------------------------------------------

#: What a sheet must never hold: the fields that store a reading, and the readings' own words.
READING_FIELDS = ("outcome", "decision", "reading", "strict", "collateral")


def _sheet(script: ModuleType, folder: Path, answer_id: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert script.main(["--sheet", answer_id, "--folder", str(folder)]) == 0
    return capsys.readouterr().out


def _audit_folder(folder: Path, tmp_path: Path, script: ModuleType, capsys: pytest.CaptureFixture[str]) -> Path:
    for path in folder.glob("notes_study_2.*"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert script.main(["--draw", "--folder", str(tmp_path)]) == 0
    capsys.readouterr()
    return tmp_path


def test_a_sheet_shows_the_prompt_the_references_and_the_diff(folder, records, script, tmp_path, capsys) -> None:
    here = _audit_folder(folder, tmp_path, script, capsys)
    sample = ba.read_sample(here / ba.SAMPLE_FILE)
    key = next(a for a in sample if a.arm == "dependency_changed" and a.variant == "refutable")
    task, record = TASKS[key.task], records[key]
    sheet = _sheet(script, here, key.answer_id, capsys)
    assert record.prompt[0][1] in sheet and record.prompt[1][1] in sheet
    assert task.excerpt.rstrip() in sheet and task.true_note in sheet and task.stale_note in sheet
    assert task.why_stale in sheet and "--- original\n+++ stale edit" in sheet and "--- original\n+++ answer" in sheet
    if task.id in EDITION.rules:
        assert EDITION.rules[task.id].why in sheet
    added = [line for line in task.stale_edit.apply(task.excerpt).splitlines() if line not in task.excerpt.splitlines()]
    assert all(f"+{line}" in sheet for line in added)
    declined = next(a for a in sample if a.arm == "withheld")
    assert "has no fenced code block" in _sheet(script, here, declined.answer_id, capsys)


def test_a_sheet_holds_no_reading_and_does_not_change_with_the_stored_one(folder, script, tmp_path, capsys) -> None:
    here = _audit_folder(folder, tmp_path, script, capsys)
    sample = list({a.arm: a for a in ba.read_sample(here / ba.SAMPLE_FILE)}.values())  # an answer of every arm
    words = "|".join(SECOND_OUTCOMES + READING_FIELDS)
    quiet = [a for a in sample if not any(re.search(rf"\b({words})\b", text) for text in (
        TASKS[a.task].excerpt, TASKS[a.task].true_note, TASKS[a.task].stale_note, TASKS[a.task].why_stale,
        EDITION.rules[a.task].why if a.task in EDITION.rules else "", TASKS[a.task].true_edit.apply(TASKS[a.task].excerpt),
        TASKS[a.task].stale_edit.apply(TASKS[a.task].excerpt)))]
    assert quiet, "the synthetic tasks should include some whose own texts use none of the readings' words"
    answers = ba.recorded_answers(here)
    for key in quiet:
        sheet = _sheet(script, here, key.answer_id, capsys)
        for quoted in (*(text for _, text in answers[key].prompt), answers[key].response):  # the model's, not ours
            sheet = sheet.replace(quoted.rstrip(), "")
        found = re.findall(rf"\b({words})\b", sheet)
        assert not found, f"{key.answer_id}: the sheet names {sorted(set(found))}"
    before = {a.answer_id: _sheet(script, here, a.answer_id, capsys) for a in sample}
    for path in here.glob("notes_study_2.*.jsonl.gz"):  # every stored reading and decision replaced
        _write(path, [{**line, "outcome": {"reading": {"outcome": "stale_edit", "changes": ["x"], "reason": "planted"}},
                       "decision": {"stale": True}} if "arm" in line else line for line in _lines(path)])
    assert {a.answer_id: _sheet(script, here, a.answer_id, capsys) for a in sample} == before


def test_every_sheet_is_written_for_the_raters_with_an_empty_verdict_file(folder, script, tmp_path, capsys) -> None:
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    here = _audit_folder(folder, recordings, script, capsys)
    sample = ba.read_sample(here / ba.SAMPLE_FILE)
    sheets = tmp_path / "rater"
    assert script.main(["--sheets", str(sheets), "--folder", str(here)]) == 0
    assert f"{len(sample)} sheets" in capsys.readouterr().err
    assert sorted(p.name for p in sheets.iterdir()) == sorted([f"{a.answer_id}.md" for a in sample] + ["verdicts.csv"])
    for key in sample[:3]:
        assert (sheets / f"{key.answer_id}.md").read_text(encoding="utf-8") == _sheet(script, here, key.answer_id, capsys)
    with (sheets / "verdicts.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["answer"] for r in rows] == [a.answer_id for a in sample]
    assert {(r["rater"], r["verdict"], r["reason"]) for r in rows} == {("", "", "")}
    assert script.main(["--sheets", str(sheets), "--folder", str(here)]) == 2  # a folder holding a draw already
    assert "expected a new or empty folder" in capsys.readouterr().err
    first = _fill(sheets / "verdicts.csv", lambda row: ("ann", "other"))
    kept = [r for r in csv.DictReader(first.open(encoding="utf-8", newline=""))][:3]
    part = tmp_path / "part.csv"
    with part.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=ba.VERDICT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)
    rest = tmp_path / "rest"
    assert script.main(["--sheets", str(rest), "--judged", str(part), "--folder", str(here)]) == 0
    assert sorted(p.name for p in rest.iterdir()) == sorted([f"{a.answer_id}.md" for a in sample[3:]] + ["verdicts.csv"])


def _fill(path: Path, verdict_of) -> Path:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=ba.VERDICT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            rater, verdict = verdict_of(row)
            writer.writerow({**row, "rater": rater, "verdict": verdict, "reason": f"{rater}: {verdict}, in a sentence"})
    return path


def test_raters_files_merge_then_their_disagreements_go_to_a_third_reading(folder, script, tmp_path, capsys) -> None:
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    here = _audit_folder(folder, recordings, script, capsys)
    sample = ba.read_sample(here / ba.SAMPLE_FILE)
    for rater in ("a", "b"):
        assert script.main(["--sheets", str(tmp_path / rater), "--folder", str(here)]) == 0
    first = _fill(tmp_path / "a" / "verdicts.csv", lambda row: ("rater-a", "other"))
    differ = {sample[0].answer_id, sample[3].answer_id}
    second = _fill(tmp_path / "b" / "verdicts.csv",
                   lambda row: ("rater-b", "unchanged" if row["answer"] in differ else "other"))
    capsys.readouterr()
    assert script.main(["--merge", str(first), str(second), "--folder", str(here)]) == 0
    assert "2 thing(s) left, first: answer" in capsys.readouterr().err
    assert script.main(["--check", "--folder", str(here)]) == 1
    capsys.readouterr()
    assert script.main(["--adjudication", str(tmp_path / "third"), "--folder", str(here)]) == 0
    third = sorted(p.name for p in (tmp_path / "third").iterdir())
    assert third == sorted([f"{a}.md" for a in differ] + ["verdicts.csv"])
    page = (tmp_path / "third" / f"{sample[0].answer_id}.md").read_text(encoding="utf-8")
    assert "- **rater-a**: `other`: rater-a: other" in page and "- **rater-b**: `unchanged`" in page
    settled = _fill(tmp_path / "third" / "verdicts.csv", lambda row: (row["rater"], "unchanged"))
    assert script.main(["--merge", str(first), str(second), str(settled), "--folder", str(here)]) == 0
    assert "complete" in capsys.readouterr().err
    assert script.main(["--check", "--folder", str(here)]) == 0
    merged = ba.read_verdicts(here / ba.VERDICT_FILE, sample)
    assert [v.rater for v in merged[:3]] == ["rater-a", "rater-b", ba.ADJUDICATED]  # the sample's order, adjudication last
    assert script.main(["--merge", str(first), str(first), "--folder", str(here)]) == 2
    assert "rater-a judges answer" in capsys.readouterr().err and ba.read_verdicts(here / ba.VERDICT_FILE, sample) == merged


# --- verdicts ----------------------------------------------------------------------------------------------------


def _verdict_file(path: Path, rows: list[tuple[ba.AnswerKey, str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=ba.VERDICT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for key, rater, verdict in rows:
            writer.writerow({**key.row(), "rater": rater, "verdict": verdict, "reason": "what it did, in a sentence"})
    return path


@pytest.fixture
def sample(records) -> tuple[ba.AnswerKey, ...]:
    return ba.draw_sample(records).answers[:4]


def test_the_verdict_file_is_read_with_one_line_errors(sample, tmp_path: Path) -> None:
    path = tmp_path / ba.VERDICT_FILE
    a, b = sample[:2]
    good = [(a, "ann", "stale_edit"), (a, "bo", "stale_edit"), (b, "ann", "other")]
    assert [v.verdict for v in ba.read_verdicts(_verdict_file(path, good), sample)] == ["stale_edit", "stale_edit", "other"]
    for rows, message in (
        ([(a, "ann", "stale")], "line 2: verdict 'stale': expected one of stale_edit, true_exact"),
        ([(a, "ann", "other"), (a, "ann", "unchanged")], f"line 3: ann judges answer {a.answer_id} a second time"),
        ([(a, "ann", "other"), (a, ba.ADJUDICATED, "other"), (a, ba.ADJUDICATED, "other")], "adjudicated judges"),
        ([(a, "", "other")], "line 2: no rater"),
    ):
        with pytest.raises(ParameterError, match=re.escape(message)):
            ba.read_verdicts(_verdict_file(path, rows), sample)
    stray = ba.AnswerKey(SMOL, "no-such-task", "unrefutable", "control", 0)
    with pytest.raises(ParameterError, match=f"answer id '{stray.answer_id}' is not in the drawn sample"):
        ba.read_verdicts(_verdict_file(path, [(stray, "ann", "other")]), sample)
    text = _verdict_file(path, good[:1]).read_text(encoding="utf-8").replace(f",{a.arm},", ",control,", 1)
    path.write_text(text if a.arm != "control" else text.replace(",control,", ",withheld,", 1), encoding="utf-8")
    with pytest.raises(ParameterError, match="not the row's"):
        ba.read_verdicts(path, sample)
    path.write_text("answer,rater,verdict\n", encoding="utf-8")
    with pytest.raises(ParameterError, match="columns"):
        ba.read_verdicts(path, sample)


def test_the_audit_is_complete_only_with_two_raters_on_everything_and_disagreements_adjudicated(sample, tmp_path) -> None:
    path = tmp_path / ba.VERDICT_FILE
    a, b, c, d = sample
    rows = [(k, r, "other") for k in sample for r in ("ann", "bo")]
    assert ba.audit_problems(ba.read_verdicts(_verdict_file(path, rows), sample), sample) == []
    problems = ba.audit_problems(ba.read_verdicts(_verdict_file(path, rows[:-1]), sample), sample)
    assert problems == [f"bo has not judged 1 answer(s): {d.answer_id}"]
    split = [(a, "ann", "stale_edit")] + rows[1:]
    assert ba.audit_problems(ba.read_verdicts(_verdict_file(path, split), sample), sample) == [
        f"answer {a.answer_id}: ann says stale_edit, bo says other; no 'adjudicated' row"]
    settled = split + [(a, ba.ADJUDICATED, "stale_edit")]
    verdicts = ba.read_verdicts(_verdict_file(path, settled), sample)
    assert ba.audit_problems(verdicts, sample) == []
    assert ba.final_verdicts(verdicts) == {a.answer_id: "stale_edit", b.answer_id: "other", c.answer_id: "other",
                                          d.answer_id: "other"}
    overruled = rows + [(b, ba.ADJUDICATED, "unchanged")]
    assert "where the raters agree" in ba.audit_problems(ba.read_verdicts(_verdict_file(path, overruled), sample), sample)[0]
    alone = [(k, "ann", "other") for k in sample]
    assert "expected two" in ba.audit_problems(ba.read_verdicts(_verdict_file(path, alone), sample), sample)[0]


# --- agreement ---------------------------------------------------------------------------------------------------


def _keys(model: str, variant: str, arm: str, count: int) -> list[ba.AnswerKey]:
    return [ba.AnswerKey(model, f"task-{n}", variant, arm, 0) for n in range(count)]


def _verdicts(rows: list[tuple[ba.AnswerKey, str, str]]) -> list[ba.Verdict]:
    return [ba.Verdict(k, r, v, "why") for k, r, v in rows]


def test_kappa_and_raw_agreement_per_stratum_and_pooled_per_model_and_variant() -> None:
    first = _keys("m", "placebo", "stale_verify", 3)
    second = _keys("m", "placebo", "control", 2)
    ann = ["stale_edit", "other", "other", "unchanged", "unchanged"]
    bo = ["stale_edit", "other", "unchanged", "unchanged", "unchanged"]
    keys = first + second
    verdicts = _verdicts([(k, "ann", v) for k, v in zip(keys, ann)] + [(k, "bo", v) for k, v in zip(keys, bo)]
                         + [(keys[2], ba.ADJUDICATED, "other")])
    reader = {k.answer_id: v for k, v in zip(keys, ["stale_edit", "other", "other", "unchanged", "other"])}
    table = ba.agreement(verdicts, reader).set_index(["comparison", "level", "arm"])
    raters = table.loc[("ann and bo", "stratum", "stale_verify")]
    # ann: stale 1/3, other 2/3; bo: stale 1/3, other 1/3, unchanged 1/3; observed 2/3, chance 1/3
    assert raters["answers"] == 3 and raters["agreement"] == pytest.approx(2 / 3) and raters["kappa"] == pytest.approx(0.5)
    constant = table.loc[("ann and bo", "stratum", "control")]
    assert constant["agreement"] == 1.0 and math.isnan(constant["kappa"])  # one verdict on both sides: no kappa
    pooled = table.loc[("ann and bo", "model and variant", "all")]
    # 5 answers, 4 agree; ann 1/5, 2/5, 2/5; bo 1/5, 1/5, 3/5: chance (1 + 2 + 6) / 25
    assert pooled["answers"] == 5 and pooled["agreement"] == pytest.approx(0.8)
    assert pooled["kappa"] == pytest.approx((0.8 - 9 / 25) / (1 - 9 / 25))
    read = table.loc[("reader and adjudicated", "stratum", "stale_verify")]
    assert read["agreement"] == 1.0 and read["kappa"] == pytest.approx(1.0)  # the adjudicated verdict is compared
    assert table.loc[("reader and adjudicated", "stratum", "control")]["agreement"] == 0.5
    assert set(ba.agreement(verdicts)["comparison"]) == {"ann and bo"}
    everything = table.loc[("ann and bo", "all answers", "all")]
    assert everything["answers"] == 5 and everything["agreement"] == pytest.approx(0.8)


def test_every_disagreement_is_listed_with_how_it_was_settled() -> None:
    keys = _keys("m", "placebo", "stale_verify", 3)
    verdicts = _verdicts([(keys[0], "ann", "stale_edit"), (keys[0], "bo", "stale_edit"),
                          (keys[1], "ann", "other"), (keys[1], "bo", "unchanged"), (keys[1], ba.ADJUDICATED, "unchanged"),
                          (keys[2], "ann", "declined"), (keys[2], "bo", "declined")])
    reader = {keys[0].answer_id: "stale_edit", keys[1].answer_id: "other", keys[2].answer_id: "declined"}
    listed = ba.disagreements(verdicts, reader)
    assert list(listed.columns) == list(ba.DISAGREEMENT_COLUMNS)
    rows = listed[["answer", "between", "first", "second", "settled"]].to_dict("records")
    assert rows == [{"answer": keys[1].answer_id, "between": "raters", "first": "other", "second": "unchanged", "settled": "unchanged"},
                    {"answer": keys[1].answer_id, "between": "reader", "first": "other", "second": "unchanged", "settled": "unchanged"}]
    assert ba.disagreements(verdicts)["between"].tolist() == ["raters"]  # without the reader, the raters' alone
    open_one = _verdicts([(keys[1], "ann", "other"), (keys[1], "bo", "unchanged")])
    assert ba.disagreements(open_one)[["settled", "reason"]].values.tolist() == [["", ""]]  # not settled yet: said so


def test_the_reader_is_read_afresh_for_the_drawn_answers(records) -> None:
    draw = ba.draw_sample(records)
    outcomes = ba.reader_outcomes(draw.answers, records, EDITION)
    by_arm: dict[str, set[str]] = {}
    for key in draw.answers:
        by_arm.setdefault(key.arm, set()).add(outcomes[key.answer_id])
    assert by_arm["withheld"] == {"declined"} and by_arm["control"] == {"unchanged"}
    assert by_arm["dependency_changed"] == {"stale_edit"} and by_arm["true_note"] <= {"true_exact", "true_collateral"}


# --- the command -------------------------------------------------------------------------------------------------


def test_the_command_draws_once_checks_and_names_bad_input(folder, script, tmp_path, capsys) -> None:
    here = _audit_folder(folder, tmp_path, script, capsys)
    sample = ba.read_sample(here / ba.SAMPLE_FILE)
    assert sample == ba.draw_sample(ba.recorded_answers(here)).answers
    assert script.main(["--draw", "--folder", str(here)]) == 0  # the same draw again: the same file
    printed = capsys.readouterr()
    assert printed.out.splitlines()[1].startswith(sample[0].answer_id) and "strata short" in printed.err
    assert script.main(["--sheet", "nope", "--folder", str(here)]) == 2
    assert capsys.readouterr().err == f"error: answer id 'nope' is not in {ba.SAMPLE_FILE}; expected one of its 'answer' column\n"
    assert script.main(["--check", "--folder", str(here)]) == 2
    assert "notes_audit_blind.csv' does not exist" in capsys.readouterr().err
    _verdict_file(here / ba.VERDICT_FILE, [(k, r, "other") for k in sample for r in ("ann", "bo")][:-1])
    assert script.main(["--check", "--folder", str(here)]) == 1
    assert "bo has not judged 1 answer(s)" in capsys.readouterr().err
    _verdict_file(here / ba.VERDICT_FILE, [(k, r, "other") for k in sample for r in ("ann", "bo")])
    assert script.main(["--check", "--folder", str(here)]) == 0
    (here / ba.SAMPLE_FILE).write_text((here / ba.SAMPLE_FILE).read_text(encoding="utf-8").rsplit("\n", 2)[0] + "\n",
                                       encoding="utf-8")
    assert script.main(["--draw", "--folder", str(here)]) == 1
    assert "holds another sample" in capsys.readouterr().err


def test_the_study_folder_holds_no_verdict_file_yet_unless_the_sample_is_drawn() -> None:
    # verdicts are written only on a drawn sample (and the draw is what unblinds the chapter's readings)
    assert not (DATA / ba.VERDICT_FILE).exists() or (DATA / ba.SAMPLE_FILE).exists()


def test_the_standard_has_the_second_editions_additions_written_before_judging() -> None:
    text = (DATA / "notes_audit_standard.md").read_text(encoding="utf-8")
    heading = "## The second edition's blind audit (written before any of its answers was judged)"
    assert heading in text
    section = text.split(heading, 1)[1]
    for topic in ("NO EDIT:", "harm", "signature", "renamed", *SECOND_OUTCOMES, ba.ADJUDICATED):
        assert topic in section, topic


@pytest.fixture(autouse=True)
def _no_real_recording_is_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Guard: these tests never open the study's own recordings, whose readings are blind."""
    real = ba.read_recording

    def guarded(path, **kwargs):
        assert Path(path).resolve().parent != DATA.resolve(), f"a test opened the study's recording {path}"
        return real(path, **kwargs)

    monkeypatch.setattr(ba, "read_recording", guarded)
    yield

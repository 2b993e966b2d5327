"""The audit of precise-only note-steps (cvlib/notes/audit.py): its groups, its sample and its bound."""

from __future__ import annotations

import pandas as pd
import pytest

from cvlib.notes import audit, replay
from cvlib.notes.errors import NotesError
from cvlib.notes.gate import ordered_changes
from cvlib.presentation.chapters import notes_release_history_appendix as appendix
from cvlib.repository import data_path

AUDIT_FILE = data_path("code_history") / "precise_only_audit.csv"


def _rows(*specs):
    """Replay rows: (project, k, qualname, status, status_symbol, changed)."""
    return pd.DataFrame([
        {"project": p, "from_release": k, "to_release": k + 1, "horizon": 1, "path": "m.py", "qualname": q,
         "status": st, "status_symbol": sym, "changed": ch}
        for p, k, q, st, sym, ch in specs
    ])


VERSIONS = {"a": ["1", "2", "3"], "b": ["0.1", "0.2"]}


def test_groups_count_only_precise_only_note_steps_by_their_first_change():
    rows = _rows(
        ("a", 0, "f", "DEPENDENCY_CHANGED", "FRESH", "LIMIT; helper"),
        ("a", 0, "g", "DEPENDENCY_CHANGED", "FRESH", "helper; LIMIT"),
        ("a", 0, "h", "DEPENDENCY_CHANGED", "FRESH", "zeta"),
        ("a", 1, "f", "DEPENDENCY_CHANGED", "FRESH", "LIMIT"),
        ("a", 1, "g", "CHANGED", "CHANGED", "LIMIT"),      # the symbol-only gate withholds it too
        ("b", 0, "C.m", "FRESH", "FRESH", ""),
        ("b", 0, "C.n", "DEPENDENCY_CHANGED", "FRESH", "C.x (new)"),
    )
    groups = audit.precise_only_groups(rows, VERSIONS)
    assert groups["note_steps"].sum() == 5
    first = groups.iloc[0]
    assert (first["project"], first["from_version"], first["to_version"], first["dependency"], first["note_steps"]) == \
        ("a", "1", "2", ordered_changes(["LIMIT", "helper"], "f")[0].label, 2)
    assert first["notes"] == "m.py::f; m.py::g"
    assert list(groups["note_steps"]) == sorted(groups["note_steps"], reverse=True)
    assert set(groups["kind"]) == {"module name", "name appeared or disappeared"}
    again = audit.precise_only_groups(rows.iloc[::-1], VERSIONS)
    pd.testing.assert_frame_equal(groups, again)


def test_groups_need_projects_and_their_versions():
    rows = _rows(("a", 0, "f", "DEPENDENCY_CHANGED", "FRESH", "LIMIT"))
    with pytest.raises(NotesError, match="no versions given"):
        audit.precise_only_groups(rows, {"b": ["1", "2"]})
    with pytest.raises(NotesError, match="'project' column"):
        audit.precise_only_groups(rows.drop(columns="project"), VERSIONS)


def _groups(sizes):
    return pd.DataFrame([{"project": "p", "from_version": "1", "to_version": "2", "dependency": f"d{i}", "kind": "module name",
                          "note_steps": n, "notes": "; ".join(f"m.py::f{i}_{j}" for j in range(n))}
                         for i, n in enumerate(sizes)])


def test_the_sample_is_seeded_and_more_draws_keep_the_earlier_ones():
    groups = _groups([9, 5, 4, 3, 2, 1])
    few = audit.audit_sample(groups, min_steps=5, draws=3, seed=7)
    more = audit.audit_sample(groups, min_steps=5, draws=6, seed=7)
    assert list(few["stratum"][:2]) == ["top", "top"] and list(few["draws"][:2]) == [0, 0]
    assert few["draws"].sum() == 3 and more["draws"].sum() == 6
    drawn = dict(zip(few["dependency"], few["draws"]))
    for dependency, n in zip(more["dependency"], more["draws"]):
        assert n >= drawn.get(dependency, 0)
    assert (more[more["stratum"] == "sample"]["draws"] <= more[more["stratum"] == "sample"]["note_steps"]).all()
    pd.testing.assert_frame_equal(few, audit.audit_sample(groups, min_steps=5, draws=3, seed=7))
    with pytest.raises(NotesError, match="at most the 10 note-steps"):
        audit.audit_sample(groups, min_steps=5, draws=11, seed=7)
    with pytest.raises(NotesError, match="seed must be a whole number"):
        audit.audit_sample(groups, min_steps=5, draws=1, seed=-1)


def test_removing_a_group_leaves_the_other_draws_in_place():
    groups = _groups([9, 3, 3, 3, 3, 3, 3])
    before = audit.audit_sample(groups, min_steps=5, draws=4, seed=1)
    drawn = before[before["stratum"] == "sample"]
    gone = drawn.iloc[0]["dependency"]
    after = audit.audit_sample(groups[groups["dependency"] != gone], min_steps=5, draws=4, seed=1)
    kept = dict(zip(after["dependency"], after["draws"]))
    for dependency, n in zip(drawn["dependency"], drawn["draws"]):
        if dependency != gone:
            assert kept.get(dependency, 0) >= n
    assert after["draws"].sum() == 4


def _audit(rows):
    return pd.DataFrame(rows, columns=list(audit.AUDIT_COLUMNS))


def test_the_bound_on_a_tiny_audit():
    table = _audit([
        ("a", "1", "2", "X", "module name", 10, "top", 0, "behaviour", 10, 0, "r"),
        ("a", "1", "2", "Y", "module name", 6, "top", 0, "spelling", 0, 6, "r"),
        ("a", "2", "3", "Z", "module name", 4, "top", 0, "unsure", 1, 2, "r"),  # mixed: 1 behaviour, 2 spelling, 1 unsure
        ("b", "1", "2", "P", "class member", 5, "sample", 3, "behaviour", 5, 0, "r"),
        ("b", "1", "2", "Q", "class member", 5, "sample", 1, "spelling", 0, 5, "r"),
    ])
    # symbol-only 100, precise 160: 60 precise-only, 20 of them in the top groups, a rest of 40 with 4 draws
    b = audit.audit_bound(table, symbol=100, precise=160)
    assert (b.audited, b.behaviour, b.spelling, b.unsure, b.rest, b.draws) == (20, 11, 8, 1, 40, 4)
    assert (b.drawn_behaviour, b.drawn_spelling) == (3, 1)
    assert b.bound == pytest.approx(100 + 11 + 40 * 3 / 4)
    assert b.bound_low < b.bound < b.bound_high <= 100 + 11 + 40
    assert b.releasable == pytest.approx(8 + 40 * 1 / 4)
    assert b.best == pytest.approx(160 - 18)
    assert b.best_low < b.best < b.best_high
    assert b.ratio(b.bound) == pytest.approx(b.bound / 100)
    assert b.precise_only == 60


def test_a_census_replaces_the_estimate_by_counts():
    table = _audit([
        ("a", "1", "2", "X", "module name", 10, "top", 0, "behaviour", 10, 0, "r"),
        ("a", "2", "3", "Z", "module name", 4, "top", 0, "unsure", 1, 2, "r"),
        ("b", "1", "2", "P", "class member", 5, "sample", 3, "behaviour", 5, 0, "r"),
        ("b", "1", "2", "Q", "class member", 5, "sample", 1, "spelling", 0, 5, "r"),
        ("b", "1", "2", "R", "class member", 3, "census", 0, "unsure", 0, 1, "r"),
        ("b", "1", "2", "S", "class member", 2, "census", 0, "spelling", 0, 2, "r"),
    ])
    b = audit.audit_bound(table, symbol=100, precise=129)  # 29 precise-only: 14 top, 15 read in the sample and the census
    assert b.census and (b.rest, b.rest_behaviour, b.rest_spelling) == (15, 5, 8)
    assert b.exact_bound == 100 + 11 + 5
    assert b.exact_best == 129 - 2 - 8
    assert b.exact_unsure == 29 - 16 - 10 == 3
    partial = audit.audit_bound(table, symbol=100, precise=140)  # 11 note-steps outside every group read
    assert not partial.census and partial.rest_behaviour == partial.rest_spelling == 0
    # the verdict on a target, by how many note-steps it allows: the least sound load is 116, the best 119 (10 spelling shown)
    def verdict(allowed):
        found = appendix.census_numbers(b, table, allowed=allowed, target=allowed / 100)
        return found["N_census_reachable"][0], found["N_census_needed_share"][0]

    assert verdict(115) == ("out of reach of any sound gate", "more than all")
    assert verdict(117) == ("out of reach unless some changes we could not settle prove harmless", "more than all")
    assert verdict(119) == ("within reach only of a gate that shows nearly all of the spelling changes", "100.0% of the")
    assert verdict(125) == ("within reach only of a gate that shows some of the spelling changes", "40.0% of the")
    assert verdict(130) == ("met by the precise gate itself", "none of the")


def test_the_census_reads_every_group_once_and_keeps_the_sample():
    groups = _groups([9, 5, 4, 3, 2, 1])
    sample = audit.audit_sample(groups, min_steps=5, draws=3, seed=7)
    census = audit.audit_census(groups, audit.AuditDesign(min_steps=5, draws=3, seed=7, census=True))
    pd.testing.assert_frame_equal(census.iloc[:len(sample)].reset_index(drop=True), sample.reset_index(drop=True))
    assert sorted(census["dependency"]) == sorted(groups["dependency"])
    assert set(census.iloc[len(sample):]["stratum"]) == {"census"} and census.iloc[len(sample):]["draws"].eq(0).all()


def test_the_bound_rejects_loads_that_do_not_fit_the_audit():
    table = _audit([("a", "1", "2", "X", "module name", 10, "top", 0, "behaviour", 10, 0, "r")])
    with pytest.raises(NotesError, match="more than the 5 precise-only"):
        audit.audit_bound(table, symbol=100, precise=105)
    with pytest.raises(NotesError, match="none was drawn"):
        audit.audit_bound(table, symbol=100, precise=120)
    with pytest.raises(NotesError, match="0 < symbol <= precise"):
        audit.audit_bound(table, symbol=0, precise=10)


def test_reading_an_audit_checks_verdicts_and_counts(tmp_path):
    good = _audit([("a", "1", "2", "X", "module name", 10, "top", 0, "behaviour", 10, 0, "a reason")])
    path = tmp_path / "audit.csv"
    good.to_csv(path, index=False)
    assert audit.read_audit(path)["note_steps"].tolist() == [10]
    for column, value, message in (("verdict", "maybe", "verdict must be one of"), ("behaviour_steps", 3, "has verdict"), ("spelling_steps", 2, "has verdict"),
                                   ("note_steps", "ten", "whole number"), ("reason", " ", "has no reason"),
                                   ("stratum", "other", "stratum must be one of")):
        bad = good.copy()
        bad[column] = value
        bad.to_csv(path, index=False)
        with pytest.raises(NotesError, match=message):
            audit.read_audit(path)
    pd.concat([good, good]).to_csv(path, index=False)
    with pytest.raises(NotesError, match="twice"):
        audit.read_audit(path)
    good.assign(stratum="census", draws=2).to_csv(path, index=False)
    with pytest.raises(NotesError, match="draws 0 outside the sample"):
        audit.read_audit(path)
    with pytest.raises(NotesError, match="no audit table"):
        audit.read_audit(tmp_path / "missing.csv")


def test_check_audit_names_a_group_that_moved():
    groups = pd.DataFrame([("a", "1", "2", "X", "module name", 10, "m.py::f")],
                          columns=[*audit.GROUP_KEYS, "note_steps", "notes"])
    table = _audit([("a", "1", "2", "X", "module name", 10, "top", 0, "behaviour", 10, 0, "r")])
    audit.check_audit(table, groups)
    with pytest.raises(NotesError, match="now holds 9 note-steps"):
        audit.check_audit(table, groups.assign(note_steps=9))
    with pytest.raises(NotesError, match="no longer precise-only"):
        audit.check_audit(table, groups.assign(dependency="Y"))
    more = pd.concat([groups, groups.assign(dependency="Y", note_steps=2)], ignore_index=True)
    audit.check_audit(table, more)  # without a census, an unread group is the sample's business
    with pytest.raises(NotesError, match="census lacks the group"):
        audit.check_audit(table.assign(stratum="census"), more)


@pytest.fixture(scope="module")
def history():
    return replay.replay_projects(list(audit.PROJECTS), data_path("code_history"))


@pytest.fixture(scope="module")
def current_groups(history):
    return audit.precise_only_groups(history.replayed, history.versions)


def test_the_command_lists_what_the_chapter_lists(current_groups):
    pd.testing.assert_frame_equal(audit.replayed_groups(["rpds-py"], data_path("code_history")),
                                  current_groups[current_groups["project"] == "rpds-py"].reset_index(drop=True))


def test_the_chapter_numbers_are_the_bound_of_the_committed_audit(history):
    committed = audit.read_audit(AUDIT_FILE)
    numbers = appendix.audit_numbers(history, committed)
    t = replay.totals(history)
    b = audit.audit_bound(committed, int(t.loc["all", "withheld_symbol"]), int(t.loc["all", "withheld_dependency"]))
    assert numbers["N_audit_precise_only"] == (b.precise_only, "count")
    assert numbers["N_bound_ratio"] == (pytest.approx(b.bound / b.symbol), "ratio_fine")
    assert numbers["N_audit_needed"][0] == b.precise - int(1.5 * b.symbol)
    assert numbers["N_bound_low"][0] <= numbers["N_bound"][0] <= numbers["N_bound_high"][0] <= numbers["N_best"][0]
    verdicts = appendix.verdicts_table(history, committed).set_index("Verdict")
    assert verdicts.loc["all", "Their note-steps"] == b.audited
    assert verdicts.loc["all", "Drawn note-steps"] == b.draws == audit.DESIGN.draws
    assert b.census and verdicts.loc["all", "Note-steps in all"] == b.precise_only
    assert verdicts.loc["behaviour", "Note-steps in all"] + verdicts.loc["unsure", "Shown to be behaviour"] \
        == numbers["N_census_behaviour"][0] == b.exact_bound - b.symbol
    assert numbers["N_census_best"][0] == b.exact_best == b.precise - numbers["N_census_spelling"][0]
    assert numbers["N_census_behaviour"][0] + numbers["N_census_spelling"][0] + numbers["N_census_unsure"][0] == b.precise_only
    top = appendix.audit_table(history, committed, rows=5)
    assert list(top["Note-steps"]) == sorted(top["Note-steps"], reverse=True) and len(top) == 5
    with pytest.raises(NotesError, match="no longer precise-only"):
        appendix.audit_numbers(history, committed.assign(dependency="nothing"))


def test_the_committed_audit_still_describes_the_replay(current_groups):
    committed = audit.read_audit(AUDIT_FILE)
    audit.check_audit(committed, current_groups)
    chosen = audit.audit_census(current_groups, audit.DESIGN)
    keys = [*audit.GROUP_KEYS, "note_steps", "stratum", "draws"]
    pd.testing.assert_frame_equal(committed[keys].reset_index(drop=True), chosen[keys].reset_index(drop=True),
                                  check_dtype=False)


def test_the_command_prints_the_listing(capsys):
    assert audit.main(["--data", str(data_path("code_history")), "--projects", "rpds-py"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ",".join([*audit.GROUP_KEYS, "note_steps", "notes"])
    assert len(out) > 1
    assert audit.main(["--data", str(data_path("code_history")), "--projects", "nope"]) == 2
    assert "no release table" in capsys.readouterr().err


def test_the_audit_of_one_project_is_its_share_of_the_sample():
    flask = replay.replay_projects(["flask"], data_path("code_history"))
    committed = audit.read_audit(AUDIT_FILE)
    numbers = appendix.audit_numbers(flask, committed)
    mine = committed[committed["project"] == "flask"]
    assert numbers["N_audit_top_steps"][0] == mine.loc[mine["stratum"] == "top", "note_steps"].sum()
    assert numbers["N_audit_draws"][0] == mine["draws"].sum()


def test_gate_loads_put_any_sound_gate_between_the_symbol_only_and_the_precise_gate(history):
    committed = audit.read_audit(AUDIT_FILE)
    loads = appendix.gate_loads(history, committed).set_index("Gate")["Load ratio"]
    t = replay.totals(history)
    assert loads.iloc[0] == 1.0
    assert loads["precise gate (ours)"] == pytest.approx(t.loc["all", "load_ratio"])
    assert loads["wide rule"] == pytest.approx(t.loc["all", "load_ratio_wide"])
    numbers = appendix.audit_numbers(history, committed)
    assert loads["any sound gate, at least"] == pytest.approx(numbers["N_census_bound_ratio"][0])
    assert 1.0 <= loads["any sound gate, at least"] <= loads["best sound gate, unsure as behaviour"] <= loads["precise gate (ours)"]

"""Replaying release histories (cvlib/notes/history.py) and the committed tables under data/code_history."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from cvlib.notes import NotesError, anchor, locate
from cvlib.notes.anchors import analyse, dependency_fingerprint, symbols
from cvlib.notes.history import (
    HISTORY_COLUMNS,
    changed_dependency_kinds,
    duplicate_share_by_size,
    forgiven,
    gate_comparison,
    gate_totals,
    load_history,
    replay,
    review_load,
    step_shares,
    survival,
    withheld_by_kind,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "code_history"
PROJECTS = ("requests", "flask", "httpie", "jiter", "rpds-py")
RUST_PROJECTS = ("jiter", "rpds-py")

RELEASES = [
    {"m.py": "def keep(a):\n    return a + 100\n\ndef edit(a):\n    return a * 200\n\ndef move(a, b):\n    return a - b * 3\n"},
    {"m.py": "def keep(a):\n    # comment only\n    return a + 100\n\ndef edit(a):\n    return a * 201\n\ndef moved(a, b):\n    return a - b * 3\n"},
    {"m.py": "def keep(a):\n    return a + 100\n\ndef edit(a):\n    return a * 201\n", "n.py": "def moved(a, b):\n    return a - b * 3\n"},
]


def table_of(releases) -> pd.DataFrame:
    rows = []
    for k, snap in enumerate(releases):
        for path, source in snap.items():
            parsed = analyse(source, path)
            for s in parsed.rows():
                dep_hash, deps = dependency_fingerprint(parsed.dependencies(s.qualname))
                wide_hash, wide = dependency_fingerprint(parsed.dependencies(s.qualname, "wide"))
                rows.append(dict(release=k, version=f"0.{k}", path=path, qualname=s.qualname, kind=s.kind,
                                 raw_hash=s.raw_hash, norm_hash=s.norm_hash, dep_hash=dep_hash, lines=s.lines,
                                 nodes=s.nodes, deps=[f"{h} {label}" for label, h in deps],
                                 dep_hash_wide=wide_hash, deps_wide=[f"{h} {label}" for label, h in wide],
                                 fallback=parsed.fallback_reason(s.qualname)))
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS)).assign(project="toy")


def test_replay_matches_locate_on_snapshots():
    replayed = replay(table_of(RELEASES))
    for row in replayed.itertuples():
        a = anchor(RELEASES[row.from_release], row.path, row.qualname)
        assert locate(a, RELEASES[row.to_release]).status.name == row.status
        assert row.status_symbol == ("FRESH" if row.status == "DEPENDENCY_CHANGED" else row.status)


def test_step_shares_review_and_forgiveness():
    replayed = replay(table_of(RELEASES))
    first = replayed[(replayed.from_release == 0) & (replayed.to_release == 1)].set_index("qualname")["status"]
    assert first.to_dict() == {"keep": "FRESH", "edit": "CHANGED", "move": "RENAMED"}
    shares = step_shares(replayed)
    assert shares.loc[0, ["FRESH", "CHANGED", "RENAMED"]].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    load = review_load(replayed)
    assert load["to_review"].tolist() == [2, 1]  # 0->1: edit, move; 1->2: moved went to n.py
    fg = forgiven(replayed)
    assert fg.loc[0, "raw_changed"] == 2 and fg.loc[0, "forgiven"] == 1  # keep: comment only
    assert fg.loc[1, "forgiven"] == 1  # keep: comment removed again


def test_survival_ends_at_the_first_non_fresh_release():
    surv = survival(replay(table_of(RELEASES))).set_index("horizon")
    assert surv.loc[1, "notes"] == 6 and surv.loc[1, "surviving"] == pytest.approx(3 / 6)  # keep x2, edit from 1
    assert surv.loc[2, "surviving"] == pytest.approx(1 / 3)  # only keep survives from release 0


def test_duplicate_share_flags_twins():
    t = table_of([{"a.py": "def f(self):\n    return self\n\ndef g(self):\n    return self\n\ndef h(x):\n    return x + 1\n"}])
    d = duplicate_share_by_size(t)
    assert d["shared"].tolist() == [True, True, False]


def test_load_history_errors(tmp_path):
    with pytest.raises(NotesError, match="no release table"):
        load_history("nope", tmp_path)
    pd.DataFrame({"release": [0]}).to_parquet(tmp_path / "x.parquet")
    with pytest.raises(NotesError, match="lacks column"):
        load_history("x", tmp_path)


@pytest.mark.parametrize("project", PROJECTS)
def test_committed_table_has_eight_or_more_consecutive_releases(project):
    table = load_history(project, DATA)
    assert table["release"].nunique() >= 8
    assert list(table.columns[: len(HISTORY_COLUMNS)]) == list(HISTORY_COLUMNS)
    assert table.equals(table.sort_values(["release", "path", "qualname"]).reset_index(drop=True))


@pytest.mark.parametrize("project", PROJECTS)
def test_provenance_records_every_wheel_and_the_table_hash(project):
    prov = json.loads((DATA / "PROVENANCE.json").read_text())["projects"][project]
    table = load_history(project, DATA)
    assert [r["version"] for r in prov["releases"]] == table.drop_duplicates("release")["version"].tolist()
    assert all(len(r["sha256"]) == 64 for r in prov["releases"])
    assert hashlib.sha256((DATA / f"{project}.parquet").read_bytes()).hexdigest() == prov["table_sha256"]


def test_tables_stay_small():
    # five projects, two dependency rules each: the derived tables, never the archives
    total = sum(p.stat().st_size for p in DATA.iterdir() if p.is_file())
    assert total < 1_500_000


def _fetch_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("code_history_fetch", DATA / "fetch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fetch_indexes_a_wheel_in_memory_deterministically():
    import io
    import zipfile

    fetch = _fetch_module()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr("pkg/b.py", "def g(x):\n    return x * 2\n")
        wheel.writestr("pkg/a.py", "class A:\n    def m(self):\n        return 1\n")
        wheel.writestr("pkg/broken.py", "def (:\n")
        wheel.writestr("pkg-1.0.dist-info/METADATA", "Name: pkg\n")
        wheel.writestr("other/c.py", "def h():\n    pass\n")
    rows = fetch.index_wheel(buffer.getvalue(), "pkg/", 0, "1.0")
    assert [(r["path"], r["qualname"], r["kind"]) for r in rows] == [
        ("pkg/a.py", "A", "class"), ("pkg/a.py", "A.m", "method"), ("pkg/b.py", "g", "function"),
        ("pkg/broken.py", "", "unparsable"),
    ]
    expected = symbols("def g(x):\n    return x * 2\n", "pkg/b.py")[0]
    assert rows[2]["norm_hash"] == expected.norm_hash[: fetch.TABLE_HASH_DIGITS]
    stored = anchor({"pkg/b.py": "def g(x):\n    return x * 2\n"}, "pkg/b.py", "g")
    assert rows[2]["dep_hash"] == stored.dep_hash[: fetch.TABLE_HASH_DIGITS]
    assert [d.split(" ", 1)[1] for d in rows[2]["deps"]] == [label for label, _ in stored.deps]
    assert fetch.table_bytes(rows) == fetch.table_bytes(list(reversed(rows)))  # sorted, same bytes
    back = pd.read_parquet(io.BytesIO(fetch.table_bytes(rows)))
    assert list(back.columns) == list(HISTORY_COLUMNS)


def test_unparsable_rows_become_unparsable_statuses():
    t = table_of(RELEASES[:2])
    broken = pd.DataFrame([dict(release=2, version="0.2", path="m.py", qualname="", kind="unparsable",
                                raw_hash="", norm_hash="", dep_hash="", lines=3, nodes=0, deps=[],
                                dep_hash_wide="", deps_wide=[], fallback="")])
    t = pd.concat([t, broken.assign(project="toy")], ignore_index=True)
    replayed = replay(t)
    assert set(replayed.loc[replayed.to_release == 2, "status"]) == {"UNPARSABLE"}


def test_status_by_horizon_counts_the_status_then():
    from cvlib.notes.history import status_by_horizon

    by_h = status_by_horizon(replay(table_of(RELEASES))).set_index("horizon")
    assert by_h.loc[2, "notes"] == 3
    # from release 0 to 2: keep FRESH, edit CHANGED, move now lives in n.py as `moved` -> RENAMED
    assert by_h.loc[2, ["FRESH", "CHANGED", "RENAMED"]].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert by_h[["FRESH", "CHANGED", "DEPENDENCY_CHANGED", "RENAMED", "AMBIGUOUS", "MISSING", "UNPARSABLE",
                 "UNREADABLE"]].sum(axis=1).tolist() == pytest.approx([1, 1])


def test_list_parameters_given_as_strings_get_a_clear_error():
    from cvlib.core.errors import ParameterError
    from cvlib.notes.history import load_histories

    with pytest.raises(ParameterError, match="-y 'projects: \\[flask\\]'"):
        load_histories('["flask"]', DATA)
    with pytest.raises(ParameterError, match="kinds must be among"):
        replay(table_of(RELEASES), kinds=["module"])
    assert list(load_histories(["httpie"], DATA)) == ["httpie"]


DEPENDENT = [
    {"m.py": "LIMIT = 5\n\ndef use(a):\n    return min(a, LIMIT) * 100\n\ndef alone(a):\n    return a + 1000\n"},
    {"m.py": "LIMIT = 50\n\ndef use(a):\n    return min(a, LIMIT) * 100\n\ndef alone(a):\n    return a + 1000\n"},
    {"m.py": "LIMIT = 50  # raised\n\ndef use(a):\n    return min(a, LIMIT) * 100\n\ndef alone(a):\n    return a + 1001\n"},
]


def test_the_two_gates_side_by_side():
    replayed = replay(table_of(DEPENDENT))
    step = replayed[replayed.horizon == 1].set_index(["from_release", "qualname"])
    assert step.loc[(0, "use"), "status"] == "DEPENDENCY_CHANGED" and step.loc[(0, "use"), "status_symbol"] == "FRESH"
    assert step.loc[(0, "use"), "changed"] == "LIMIT"
    assert step.loc[(1, "use"), "status"] == "FRESH"  # a comment on the constant is cosmetic
    assert step.loc[(1, "alone"), "status"] == "CHANGED"
    comparison = gate_comparison(replayed).set_index("from_release")
    assert comparison.loc[0, ["withheld_symbol", "withheld_dependency", "symbol_fresh", "dependency_changed"]].tolist() == [0, 1, 2, 1]
    assert comparison.loc[0, "false_fresh"] == pytest.approx(0.5)
    totals = gate_totals(replayed).set_index("project")
    assert totals.loc["all", "withheld_dependency"] == 2 and totals.loc["all", "false_fresh"] == pytest.approx(1 / 3)
    kinds = changed_dependency_kinds(replayed)
    assert kinds[["kind", "note_steps"]].values.tolist() == [["module name", 1]]


@pytest.mark.parametrize("project", PROJECTS)
def test_committed_tables_hold_dependency_fingerprints(project):
    table = load_history(project, DATA)
    parsed = table[table["kind"] != "unparsable"]
    assert parsed["dep_hash"].str.fullmatch(r"[0-9a-f]{16}").all()
    assert parsed["deps"].map(len).gt(0).all()  # every symbol depends at least on its own binding


@pytest.mark.parametrize("project", RUST_PROJECTS)
def test_rust_tables_cover_at_least_fifteen_releases_of_rust_source(project):
    table = load_history(project, DATA)
    assert table["release"].nunique() >= 15
    assert table["path"].str.endswith(".rs").all()
    assert (table["dep_hash"] != table["dep_hash_wide"]).any()  # the precise rule differs from the wide one
    from cvlib.notes.rust import FALLBACK_REASONS

    assert set(table["fallback"]) <= {"", *FALLBACK_REASONS}


def test_fetch_indexes_an_sdist_in_memory_keeping_only_its_source_folders():
    import io
    import tarfile

    fetch = _fetch_module()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in [("pkg-1.0/src/lib.rs", "const K: u8 = 1;\nfn f() -> u8 { K }\n"),
                           ("pkg-1.0/tests/t.rs", "fn t() {}\n"), ("pkg-1.0/pkg/x.py", "X = 1\n")]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    pytest.importorskip("tree_sitter_rust")
    rows = fetch.index_sdist(buffer.getvalue(), ["src/"], 0, "1.0")
    assert sorted({r["path"] for r in rows}) == ["src/lib.rs"]
    assert {r["qualname"] for r in rows} == {"K", "f"}


PRECISE = [
    {"m.py": "class C:\n    a = 1\n    b = 2\n\n    def uses_a(self):\n        return self.a * 100\n\n"
             "    def alone(self, x):\n        return x + 1000\n"},
    {"m.py": "class C:\n    a = 1\n    b = 3\n\n    def uses_a(self):\n        return self.a * 100\n\n"
             "    def alone(self, x):\n        return x + 1000\n"},
]


def test_the_wide_gate_withholds_for_an_unrelated_member_and_the_precise_one_does_not():
    replayed = replay(table_of(PRECISE))
    step = replayed.set_index("qualname")
    assert step.loc["C.uses_a", "status_wide"] == "DEPENDENCY_CHANGED" and step.loc["C.uses_a", "status"] == "FRESH"
    totals = gate_totals(replayed).set_index("project")
    assert totals.loc["all", ["withheld_symbol", "withheld_wide", "withheld_dependency", "released"]].tolist() == [0, 2, 0, 2]
    by_kind = withheld_by_kind(replayed).set_index(["gate", "kind"])
    assert by_kind.loc[("wide", "class member"), "withheld"] == 2
    assert by_kind.loc[("precise", "class member"), "withheld"] == 0

"""The registry of notes languages (cvlib/notes/languages.py): a language from outside cvlib, found by suffix."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from cvlib.notes import anchor, locate
from cvlib.notes.anchors import analyse, language_of, read_snapshot
from cvlib.notes.errors import NotesError, UnparsableSource
from cvlib.notes.gate import AnchorStatus
from cvlib.notes.languages import (
    Language,
    UnknownLanguage,
    language_for,
    language_named,
    languages,
    register_language,
    suffixes,
    unregister_language,
)

#: A toy language: each line ``name = expression`` is a symbol; it depends on the names its expression reads.
TOY_MODULE = textwrap.dedent('''
    """A toy language for the notes gate, written outside cvlib."""
    import hashlib
    import re

    from cvlib.notes.errors import UnparsableSource
    from cvlib.notes.languages import Language
    from cvlib.notes.symbols import Symbol


    def _sha(text):
        return hashlib.sha256(text.encode()).hexdigest()


    class ToyFile:
        def __init__(self, source, path):
            self.path = path
            self.lines = {}
            for number, line in enumerate(source.splitlines(), start=1):
                if not line.strip():
                    continue
                name, sep, expression = line.partition("=")
                if not sep or not name.strip().isidentifier():
                    raise UnparsableSource(f"{path}: line {number} is not 'name = expression'")
                self.lines[name.strip()] = " ".join(expression.split())

        def rows(self):
            return [Symbol(self.path, name, "constant", _sha(f"{name}={text}"), _sha(text), 1, 9)
                    for name, text in self.lines.items()]

        def dependencies(self, qualname, rule="precise"):
            if qualname not in self.lines:
                raise KeyError(qualname)
            return {name: self.lines[name] for name in re.findall(r"[A-Za-z_]\\w*", self.lines[qualname])
                    if name in self.lines and name != qualname}

        def fallback_reason(self, qualname):
            return ""

        def dependency_depths(self, qualname):
            return {name: 1 for name in self.dependencies(qualname)}


    LANGUAGE = Language("Toy", (".toy",), ToyFile)
''')

NOTES = textwrap.dedent("""\
    notes:
      - {id: total, text: 'total adds the rate', path: calc.toy, qualname: total, tier: high, approved: true}
      - {id: rate, text: 'rate is per hour', path: calc.toy, qualname: rate, tier: high, approved: true}
""")


@pytest.fixture
def toy_package(tmp_path):
    """An installed package announcing the toy language in the entry-point group ``cvlib.notes.languages``."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "toylang.py").write_text(TOY_MODULE)
    info = site / "toylang-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toylang\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[cvlib.notes.languages]\ntoy = toylang:LANGUAGE\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.toy").write_text("rate = 3\ntotal = rate + 1\n")
    (tmp_path / "notes.yaml").write_text(NOTES)
    return tmp_path


def _cvlib(*args: str, path) -> subprocess.CompletedProcess[str]:
    """The ``cvlib`` command a user runs, with the toy package importable (as if pip-installed there)."""
    code = "import sys; from cvlib.presentation.cli import main; sys.exit(main())"
    env = {"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin", "HOME": str(path)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          env=env)


def test_a_language_from_an_installed_package_is_checked_with_no_other_change(toy_package):
    """The toy language arrives through its entry point only: ``cvlib notes anchor`` then ``check`` read it."""
    notes, repo = toy_package / "notes.yaml", toy_package / "repo"
    done = _cvlib("notes", "anchor", str(notes), str(repo), path=toy_package / "site")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["total: anchored", "rate: anchored"]
    fresh = _cvlib("notes", "check", str(notes), str(repo), path=toy_package / "site")
    assert fresh.returncode == 0, fresh.stderr
    assert "total: FRESH  calc.toy::total" in fresh.stdout
    assert fresh.stdout.strip().endswith("2 notes: 2 shown, 0 withheld")
    (repo / "calc.toy").write_text("rate = 4\ntotal = rate + 1\n")  # total's code is the same, what it reads is not
    changed = _cvlib("notes", "check", str(notes), str(repo), path=toy_package / "site")
    assert changed.returncode == 0, changed.stderr
    assert "total: DEPENDENCY_CHANGED  calc.toy::total" in changed.stdout
    assert "rate: CHANGED  calc.toy::rate" in changed.stdout
    assert changed.stdout.strip().endswith("2 notes: 0 shown, 2 withheld")


def test_without_the_package_the_toy_files_are_not_read(toy_package):
    """The same command without the package: the file is not in the snapshot, so the note's file is missing."""
    (toy_package / "notes.yaml").write_text(NOTES.replace("approved: true}", "approved: true, raw_hash: " + "a" * 64
                                                          + ", norm_hash: " + "a" * 64 + ", dep_hash: " + "a" * 64
                                                          + ", deps: {}}"))
    done = _cvlib("notes", "check", str(toy_package / "notes.yaml"), str(toy_package / "repo"), path=toy_package)
    assert done.returncode == 0, done.stderr
    assert "total: MISSING" in done.stdout


@pytest.fixture
def toy_registered(toy_package, monkeypatch):
    """The toy language registered by an explicit call, as a script would; unregistered afterwards."""
    monkeypatch.syspath_prepend(str(toy_package / "site"))
    import toylang

    register_language(toylang.LANGUAGE)
    yield toylang.LANGUAGE
    unregister_language("Toy")
    monkeypatch.delitem(sys.modules, "toylang")


def test_an_explicit_registration_reaches_the_snapshot_and_the_gate(toy_registered, toy_package):
    assert languages()[:2] == [language_named("Python"), language_named("Rust")]
    assert languages()[-1] is toy_registered and ".toy" in suffixes()
    assert language_for("a/b/calc.toy") is toy_registered and language_of("calc.toy") == "Toy"
    snapshot = read_snapshot(toy_package / "repo")
    assert list(snapshot) == ["calc.toy"]
    stored = anchor(snapshot, "calc.toy", "total")
    assert locate_status(stored, snapshot) is AnchorStatus.FRESH
    edited = {"calc.toy": "rate = 5\ntotal = rate + 1\n"}
    assert locate_status(stored, edited) is AnchorStatus.DEPENDENCY_CHANGED


def locate_status(stored, snapshot):
    from cvlib.notes import Note, Tier

    return locate(Note(id="n", text="t", anchor=stored, tier=Tier.HIGH, approved=True), snapshot).status


def test_names_and_suffixes_cannot_be_taken_twice(toy_registered):
    with pytest.raises(NotesError, match="'Toy' is already registered"):
        register_language(toy_registered)
    with pytest.raises(NotesError, match=r"suffix '\.py' already belongs to 'Python'"):
        register_language(Language("Snake", (".py",), toy_registered.analyse))


def test_an_unknown_suffix_names_itself_and_the_registered_ones():
    with pytest.raises(UnknownLanguage) as err:
        analyse("x := 1", "main.go")
    assert str(err.value) == "'main.go': no registered language reads '.go' files; the gate reads .py, .rs"
    assert isinstance(err.value, UnparsableSource)  # a note on such a file is UNPARSABLE, not a failed check
    assert "\n" not in str(err.value)


def test_a_malformed_language_is_refused_in_one_line():
    with pytest.raises(NotesError, match=r"suffixes must be a tuple like \('\.py',\), got 'go'"):
        Language("Go", "go", lambda source, path: None)  # type: ignore[arg-type]
    with pytest.raises(NotesError, match="analyse must be callable"):
        Language("Go", (".go",), None)  # type: ignore[arg-type]
    with pytest.raises(NotesError, match="no language called 'Go' is registered; registered: Python, Rust"):
        language_named("Go")


def test_the_built_ins_register_themselves_and_their_fallback_reasons():
    from cvlib.notes import python, rust

    assert language_named("Python") is python.LANGUAGE and python.LANGUAGE.fallback_reasons == python.FALLBACK_REASONS
    assert language_named("Rust") is rust.LANGUAGE and rust.LANGUAGE.build_folders == (("Cargo.toml", "target"),)

"""The hostile inputs cvlib is tried with, and what each must do: the table behind the robustness page.

Each :class:`Case` is one input a hostile (or merely careless) user could
give: a command line, a call into the API, a spec file, a papermill
parameter, a damaged checkpoint. It says how to run it and what must happen:
the exit status (or the exception, or "same as undamaged" for a checkpoint
whose damage did not reach the result) and fragments the one-line message must contain.
:mod:`cvlib.experiments.robustness` runs them, each in its own process
under a time and memory limit, and checks each outcome against these
expectations; the book's robustness page shows what actually happened, from
the same runs.

Fixture files are made fresh for each case by the functions in
:data:`FIXTURES`, named by the file they write.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AREAS", "CASES", "FIXTURES", "Case"]

#: The areas of the table, in the order the page shows them.
AREAS: tuple[str, ...] = ("command line", "Python API", "spec file", "notes check", "papermill", "checkpoint")


@dataclass(frozen=True)
class Case:
    """One hostile input and the behaviour it must get.

    ``kind`` says how it runs: ``"cli"`` (``cvlib`` with ``args``, in a
    child process; ``fault`` may plant a bug or a ``MemoryError`` first),
    ``"api"`` (``code`` executed with ``cv`` imported; the outcome is the
    exception it raises), ``"notes"`` (``cvlib notes check`` on a small
    repository whose note ``x`` was anchored, after the damage named by
    ``code``; the outcome is what the check prints about ``x``),
    ``"checkpoint"`` (the damage named by ``code``
    done to a finished checkpoint, then the sweep run again) or
    ``"papermill"`` (a chapter executed by the book's pipeline with the
    parameters in ``code``, a JSON mapping). ``status`` is the exit status
    for ``"cli"``, the exception's class name for ``"api"`` and
    ``"papermill"`` (``"ok"`` if nothing is raised), and ``"same as undamaged"`` (the sweep
    run again on the damaged folder returns what an undamaged run returns)
    or an exception's class name for ``"checkpoint"``.
    """

    id: str
    area: str
    input: str
    kind: str
    status: int | str
    expect: tuple[str, ...]
    args: tuple[str, ...] = ()
    code: str = ""
    files: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    fault: str | None = None
    multi_line: bool = False  # --debug prints a traceback before the line
    absent: tuple[str, ...] = ()  # fragments the message must not hold

    def __post_init__(self) -> None:
        if self.area not in AREAS:
            raise ValueError(f"case {self.id}: unknown area {self.area!r}")
        if self.kind not in {"cli", "api", "notes", "checkpoint", "papermill"}:
            raise ValueError(f"case {self.id}: unknown kind {self.kind!r}")
        unknown = [name for name in self.files if name not in FIXTURES]
        if unknown:
            raise ValueError(f"case {self.id}: no fixture for {unknown}")


# -- fixture files ----------------------------------------------------------------------------------

_GOOD = {
    "name": "small",
    "facts": [{"id": "F1", "value": 420}],
    "plan": {"generator": "chain", "params": {"depth": 4}},
    "events": [{"tick": 1, "fact": "F1", "kind": "replace", "new_value": 610}],
}
_GOOD_YAML = (
    "name: small\n"
    "facts: [{id: F1, value: 420}]\n"
    "plan: {generator: chain, params: {depth: 4}}\n"
    "events: [{tick: 1, fact: F1, kind: replace, new_value: 610}]\n"
)


def _spec_yaml(**replace: str) -> Callable[[Path], None]:
    """A fixture: the good YAML spec with some top-level lines replaced or added."""

    def make(path: Path) -> None:
        lines = {line.split(":", 1)[0]: line for line in _GOOD_YAML.splitlines()}
        for key, text in replace.items():
            lines[key] = f"{key}: {text}"
        path.write_text("\n".join(lines.values()) + "\n", encoding="utf-8")

    return make


def _text(content: str) -> Callable[[Path], object]:
    return lambda path: path.write_text(content, encoding="utf-8")


def _laughs(path: Path) -> None:
    """Nine levels of nine aliases: a 700-byte file that expands to 9^9 (387 million) strings."""
    lines = [_GOOD_YAML.rstrip("\n"), 'l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 9):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    lines.append("description: *l8")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _big_json(path: Path) -> None:
    """A valid spec of 10 MB: 150,000 facts."""
    spec = dict(_GOOD, facts=[{"id": f"F{i + 1}", "value": "x" * 40} for i in range(150_000)])
    path.write_text(json.dumps(spec), encoding="utf-8")


def _duplicate_facts(path: Path) -> None:
    """20,000 facts, the last one a duplicate: the duplicate check must be linear (it took seconds)."""
    facts = [{"id": f"F{i + 1}", "value": i} for i in range(20_000)]
    facts.append({"id": "F777", "value": "again"})
    path.write_text(json.dumps(dict(_GOOD, facts=facts)), encoding="utf-8")


def _latin1(path: Path) -> None:
    path.write_bytes(_GOOD_YAML.replace("name: small", "name: café").encode("latin-1"))


def _binary(path: Path) -> None:
    rng = random.Random(16)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(4096)))


def _nul(path: Path) -> None:
    path.write_bytes(_GOOD_YAML.encode("utf-8") + b"description: a\x00b\n")


def _deep_json(path: Path) -> None:
    path.write_text('{"name": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")


def _deep_yaml(path: Path) -> None:
    path.write_text("name: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")


def _long_name(path: Path) -> None:
    path.write_text(json.dumps(dict(_GOOD, name=list(range(100_000)))), encoding="utf-8")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere.yaml")


def _cycle(path: Path) -> None:
    steps = [
        {"id": "S0", "kind": "plan", "requires": ["F1"], "after": ["S2"]},
        {"id": "S1", "kind": "decision", "after": ["S0"]},
        {"id": "S2", "kind": "action", "after": ["S1"]},
    ]
    path.write_text(json.dumps(dict(_GOOD, plan={"steps": steps})), encoding="utf-8")


#: Fixture files by name; each function writes the file at the path it is given.
FIXTURES: dict[str, Callable[[Path], object]] = {
    "good.yaml": _text(_GOOD_YAML),
    "laughs.yaml": _laughs,
    "big.json": _big_json,
    "duplicates.json": _duplicate_facts,
    "latin1.yaml": _latin1,
    "image.yaml": _binary,
    "nul.yaml": _nul,
    "deep.json": _deep_json,
    "deep.yaml": _deep_yaml,
    "unclosed.yaml": _text("name: x\nfacts: [{id: F1, value: 1}\nplan: {generator: chain}\n"),
    "trailing-comma.json": _text('{"name": "x", "facts": [],}'),
    "list.yaml": _text("- name: x\n- facts: []\n"),
    "empty.yaml": _text(""),
    "long-name.json": _long_name,
    "fifo.yaml": _fifo,
    "dangling.yaml": _dangling,
    "spec.txt": _text(_GOOD_YAML),
    "huge-chain.yaml": _spec_yaml(plan="{generator: chain, params: {depth: 1000000000}}"),
    "huge-diamond.yaml": _spec_yaml(plan="{generator: branching, params: {depth: 12, branching_factor: 1000000}}"),
    "unknown-generator.yaml": _spec_yaml(plan="{generator: spiral, params: {depth: 3}}"),
    "cycle.json": _cycle,
    "python-tag.yaml": _spec_yaml(description='!!python/object/apply:os.system ["echo pwned"]'),
    "int-key.yaml": _text(_GOOD_YAML + "1: one\n"),
    "budget-text.yaml": _spec_yaml(budget="1e400"),
    "at-risk-list.yaml": _spec_yaml(at_risk="[F1]"),
    "int-param-key.yaml": _spec_yaml(plan="{generator: chain, params: {1: 3}}"),
    "bool-depth.yaml": _spec_yaml(plan="{generator: chain, params: {depth: true}}"),
    "int-fact-id.yaml": _spec_yaml(facts="[{id: 123, value: 1}]"),
}


# -- the cases --------------------------------------------------------------------------------------

_LIMIT = "the limit is 10,000,000"
_DIGITS_40 = "1" + "0" * 39


def _cli(id: str, input: str, args: tuple[str, ...], status: int, *expect: str, **kw: object) -> Case:
    return Case(id, "command line", input, "cli", status, expect, args=args, **kw)  # type: ignore[arg-type]


def _spec(id: str, input: str, file: str, status: int, *expect: str, **kw: object) -> Case:
    return Case(id, "spec file", input, "cli", status, expect, args=("spec", file), files=(file,), **kw)  # type: ignore[arg-type]


def _api(id: str, code: str, status: str, *expect: str, input: str = "", **kw: object) -> Case:
    return Case(id, "Python API", input or code, "api", status, expect, code=code, **kw)  # type: ignore[arg-type]


def _notes(id: str, input: str, damage: str, status: int, *expect: str) -> Case:
    withheld = ("agent sees: target",) if status == 0 else ()  # a note on code that cannot be read is never shown
    return Case(id, "notes check", input, "notes", status, expect, code=damage, absent=withheld)


def _damage(id: str, input: str, damage: str, *expect: str, status: str = "same as undamaged") -> Case:
    return Case(id, "checkpoint", input, "checkpoint", status, expect, code=damage)


#: Every hostile input tried, by area.
CASES: tuple[Case, ...] = (
    # -- the command line: a usage error exits 2, a runtime error 1, each on one line ------------
    _cli("cli-depth-1e9", "cvlib run A -p depth=1000000000", ("run", "A", "-p", "depth=1000000000"), 2,
         "a chain of depth 1,000,000,000 would have 1,000,000,000 steps", _LIMIT),
    _cli("cli-depth-29-digits", "cvlib run A -p depth=99…9 (29 nines)",
         ("run", "A", "-p", "depth=99999999999999999999999999999"), 2, "would have about 10^28 steps", _LIMIT),
    _cli("cli-depth-40-digits", "cvlib run A -p depth=1 followed by 39 zeros", ("run", "A", "-p", f"depth={_DIGITS_40}"), 2,
         "depth must be an integer of at most 30 digits", "40 digits"),
    _cli("cli-d2-wide", "cvlib run D2 -p depth=100000 -p branching_factor=5",
         ("run", "D2", "-p", "depth=100000", "-p", "branching_factor=5"), 2,
         "would have 31,299,462 dependency links", "the limit is 20,000,000"),
    _cli("cli-d2-deep", "cvlib run D2 -p depth=1000000000", ("run", "D2", "-p", "depth=1000000000"), 2,
         "would have 4,499,999,994 steps", _LIMIT),
    _cli("cli-d2-branching-1e6", "cvlib run D2 -p depth=12 -p branching_factor=1000000",
         ("run", "D2", "-p", "depth=12", "-p", "branching_factor=1000000"), 2, "would have about 10^18 steps", _LIMIT),
    _cli("cli-d3-branches-1e7", "cvlib run D3 -p num_branches=10000000", ("run", "D3", "-p", "num_branches=10000000"), 2,
         "10,000,000 isolated branches", "would have 60,000,002 steps", _LIMIT),
    _cli("cli-arabic-digit", "cvlib run A -p depth=٣ (an Arabic-Indic three)", ("run", "A", "-p", "depth=٣"), 2,
         "depth must be an integer, got '٣'", "only ASCII digits"),
    _cli("cli-underscore", "cvlib run A -p depth=1_0", ("run", "A", "-p", "depth=1_0"), 2,
         "depth must be an integer, got '1_0'"),
    _cli("cli-word", "cvlib run A -p depth=six", ("run", "A", "-p", "depth=six"), 2, "depth must be an integer, got 'six'"),
    _cli("cli-float", "cvlib run A -p depth=6.0", ("run", "A", "-p", "depth=6.0"), 2, "depth must be an integer, got '6.0'"),
    _cli("cli-exponent", "cvlib run E1 -p depth=1e9", ("run", "E1", "-p", "depth=1e9"), 2, "depth must be an integer, got '1e9'"),
    _cli("cli-empty-value", "cvlib run A -p depth=", ("run", "A", "-p", "depth="), 2, "depth must be an integer, got ''"),
    _cli("cli-depth-0", "cvlib run A -p depth=0", ("run", "A", "-p", "depth=0"), 2, "depth must be >= 1, got 0"),
    _cli("cli-negative-tick", "cvlib run A -p change_tick=-1", ("run", "A", "-p", "change_tick=-1"), 2,
         "change_tick must be >= 0, got -1"),
    _cli("cli-negative-budget", "cvlib run A -p budget=-4", ("run", "A", "-p", "budget=-4"), 2, "budget must be >= 0, got -4"),
    _cli("cli-seed-arabic", "cvlib run D2 -p seed=٣", ("run", "D2", "-p", "seed=٣"), 2, "seed must be an integer, got '٣'"),
    _cli("cli-unknown-param", "cvlib run A -p dpeth=6", ("run", "A", "-p", "dpeth=6"), 2,
         "scenario 'A' has no parameter 'dpeth'", "depth (default 4)"),
    _cli("cli-long-param-name", "cvlib run A -p with a 100,000-character name", ("run", "A", "-p", "x" * 100_000 + "=1"), 2,
         "has no parameter 'xxxx", "(100,002 characters)"),
    _cli("cli-unknown-scenario", "cvlib run B", ("run", "B"), 2, "unknown scenario 'B'", "C, A, D1, D2, D3, E1, E2"),
    _cli("cli-no-equals", "cvlib run A -p depth", ("run", "A", "-p", "depth"), 2, "expected key=value, got 'depth'"),
    _cli("cli-twice", "cvlib run A -p depth=3 -p depth=4", ("run", "A", "-p", "depth=3", "-p", "depth=4"), 2,
         "depth is given twice"),
    _cli("cli-unknown-option", "cvlib run A --bogus", ("run", "A", "--bogus"), 2, "No such option '--bogus'",
         "see 'cvlib run --help'"),
    _cli("cli-unknown-command", "cvlib bogus", ("bogus",), 2, "No such command 'bogus'"),
    _cli("cli-max-steps", "cvlib run A -p depth=2000 --max-steps 1000", ("run", "A", "-p", "depth=2000", "--max-steps", "1000"), 2,
         "would have 2,000 steps; the limit is 1,000"),
    _cli("cli-max-steps-0", "cvlib run A --max-steps 0", ("run", "A", "--max-steps", "0"), 2,
         "Invalid value for '--max-steps'", "must be >= 1, got 0"),
    _cli("cli-max-steps-arabic", "cvlib run A --max-steps ٣", ("run", "A", "--max-steps", "٣"), 2,
         "Invalid value for '--max-steps'", "got '٣'"),
    _cli("cli-env-limit", "CVLIB_MAX_STEPS=5 cvlib run A -p depth=6", ("run", "A", "-p", "depth=6"), 2,
         "would have 6 steps; the limit is 5", env=(("CVLIB_MAX_STEPS", "5"),)),
    _cli("cli-env-garbage", "CVLIB_MAX_STEPS=lots cvlib run A", ("run", "A"), 2,
         "the environment variable CVLIB_MAX_STEPS must be an integer, got 'lots'", env=(("CVLIB_MAX_STEPS", "lots"),)),
    _cli("cli-bug", "cvlib run A, with a bug planted in the library", ("run", "A"), 1,
         "unexpected RuntimeError: a planted bug", "run with --debug for the traceback", fault="bug"),
    _cli("cli-bug-debug", "cvlib --debug run A, with the same bug", ("--debug", "run", "A"), 1,
         "Traceback (most recent call last)", "error: unexpected RuntimeError: a planted bug", fault="bug", multi_line=True),
    _cli("cli-memory", "cvlib run A, with the machine out of memory", ("run", "A"), 1, "out of memory", fault="memory"),
    _cli("cli-debug-after", "cvlib run A -p depth=0 --debug", ("run", "A", "-p", "depth=0", "--debug"), 2,
         "Traceback (most recent call last)", "error: depth must be >= 1, got 0", multi_line=True),
    # -- the Python API: a CvlibError naming the value and the limit --------------------------------
    _api("api-chain-1e9", "cv.chain(10**9)", "SizeLimitError", "a chain of depth 1,000,000,000", _LIMIT),
    _api("api-diamond-1e6", "cv.branching(12, branching_factor=10**6)", "SizeLimitError", "would have about 10^18 steps"),
    _api("api-diamond-links", "cv.branching(3, branching_factor=2000)", "SizeLimitError",
         "would have 8,000,002,000 dependency links", "the limit is 20,000,000"),
    _api("api-d2-1e9", "cv.run_scenario('D2', depth=10**9)", "SizeLimitError", "would have 4,499,999,994 steps"),
    _api("api-multi-branch", "cv.multi_branch(6, 10**7, 2)", "SizeLimitError", "would have 60,000,002 steps"),
    _api("api-branch-facts", "cv.branch_facts(10**9)", "SizeLimitError", "would rest on 1,000,000,000 facts"),
    _api("api-layered", "cv.random_plans.layered_dag(10**6, 100, 3, seed=0)", "SizeLimitError",
         "would have up to 99,999,901 steps"),
    _api("api-fan-out", "cv.random_plans.isolated_fan_out(10**4, 10**4, seed=0)", "SizeLimitError",
         "would have up to 200,010,002 steps"),
    _api("api-staged", "cv.chain(10**8, num_actions=3)", "SizeLimitError", "a chain of depth 100,000,000"),
    _api("api-family-count", "cv.RandomFamily(seed=0, count=10**9)", "SizeLimitError",
         "count asks for 1,000,000,000 runs", "the limit is 10,000,000"),
    _api("api-family-size", "cv.RandomFamily(seed=0, count=10, max_steps=10**9)", "SizeLimitError",
         "max_steps=1,000,000,000 would have up to"),
    _api("api-schedules", "cv.noisy_verification.verification_sweep([0.5], [0.1], n_schedules=10**12)", "SizeLimitError",
         "n_schedules asks for 1,000,000,000,000 runs"),
    _api("api-huge-int", "cv.chain(10**5000)", "SizeLimitError", "a chain of depth about 10^5000"),
    _api("api-huge-negative", "cv.chain(-10**5000)", "ParameterError",
         "depth must be >= 1, got -<an integer of 5,001 digits>"),
    _api("api-limit-block", "with cv.size_limits(steps=100): cv.chain(101)", "SizeLimitError",
         "would have 101 steps; the limit is 100", input="with cv.size_limits(steps=100): cv.chain(101)"),
    _api("api-bool", "cv.run_scenario('A', depth=True)", "ParameterError", "depth must be an integer, got bool True"),
    _api("api-float", "cv.run_scenario('A', depth=6.0)", "ParameterError", "depth must be an integer, got float 6.0"),
    _api("api-digit-string", "cv.run_scenario('A', depth='٣')", "ParameterError", "depth must be an integer, got str '٣'"),
    _api("api-nan", "cv.random_plans.random_facts(['F1'], 0, horizon=3, expiry_prob=float('nan'))", "ParameterError",
         "expiry_prob must be in [0, 1], got nan"),
    _api("api-max-bytes", "cv.load_spec('good.yaml', max_bytes=10)", "SpecError",
         "scenario spec 'good.yaml' is", "the limit is 10", files=("good.yaml",)),
    # -- spec files: read as bytes under a cap, UTF-8, no aliases; a runtime error exits 1 ------------
    _spec("spec-billion-laughs", "a billion-laughs YAML (nine levels of nine aliases)", "laughs.yaml", 1,
          "line 6, column 10", "found the alias *l0; spec files may not use YAML aliases"),
    _spec("spec-10mb", "a 10 MB spec (150,000 facts)", "big.json", 1, "is 10,689,055 bytes; the limit is 1,048,576"),
    _spec("spec-latin1", "a spec saved as Latin-1", "latin1.yaml", 1, "is not UTF-8 text: byte 0xe9 at offset 9 (line 1)"),
    _spec("spec-binary", "a PNG image named .yaml", "image.yaml", 1, "is not UTF-8 text: byte 0x89 at offset 0"),
    _spec("spec-nul", "a UTF-8 spec with a NUL byte", "nul.yaml", 1, "holds a NUL character"),
    _spec("spec-deep-json", "JSON nested 100,000 deep", "deep.json", 1, "could not be parsed: it is nested too deeply"),
    _spec("spec-deep-yaml", "YAML nested 100,000 deep", "deep.yaml", 1, "could not be parsed", "nesting depth"),
    _spec("spec-unclosed", "YAML with an unclosed bracket", "unclosed.yaml", 1, "could not be parsed: line 3, column"),
    _spec("spec-trailing-comma", "JSON with a trailing comma", "trailing-comma.json", 1,
          "could not be parsed: line 1, column 27"),
    _spec("spec-list", "a YAML list at the top", "list.yaml", 1, "must be a mapping at the top, got list"),
    _spec("spec-empty", "an empty file", "empty.yaml", 1, "must be a mapping at the top, got NoneType"),
    _spec("spec-duplicates", "20,000 facts and one duplicate id", "duplicates.json", 1, "fact id(s) ['F777'] are defined more than once"),
    _spec("spec-long-name", "a name that is a list of 100,000 numbers", "long-name.json", 1,
          "'name' must be a non-empty string, got [0, 1, 2", "characters)"),
    _spec("spec-fifo", "a FIFO named fifo.yaml", "fifo.yaml", 1, "does not exist or is not a file"),
    _spec("spec-dangling", "a dangling symlink", "dangling.yaml", 2, "does not exist"),
    _spec("spec-txt", "a spec named spec.txt", "spec.txt", 1, "must end in .yaml, .yml or .json"),
    _spec("spec-huge-chain", "a spec asking for a chain of depth 10^9", "huge-chain.yaml", 1,
          "plan: a chain of depth 1,000,000,000 would have 1,000,000,000 steps"),
    _spec("spec-huge-diamond", "a spec asking for a diamond of branching factor 10^6", "huge-diamond.yaml", 1,
          "would have about 10^18 steps"),
    _spec("spec-unknown-generator", "an unknown generator", "unknown-generator.yaml", 1,
          "unknown plan generator 'spiral'", "chain, branching, multi_branch, layered, fan_out, random"),
    _spec("spec-cycle", "explicit steps with a cycle", "cycle.json", 1, "the plan has a cycle"),
    _spec("spec-python-tag", "a !!python/object tag", "python-tag.yaml", 1,
          "could not be parsed", "could not determine a constructor for the tag"),
    _spec("spec-int-key", "a top-level key that is a number", "int-key.yaml", 1, "unknown key(s) 1"),
    _spec("spec-budget-text", "budget: 1e400 (text to YAML)", "budget-text.yaml", 1,
          "'budget' must be a non-negative integer or null, got '1e400'"),
    _spec("spec-at-risk-list", "at_risk given as a list", "at-risk-list.yaml", 1, "'at_risk' must be a fact id, got ['F1']"),
    _spec("spec-int-param-key", "a generator parameter keyed by a number", "int-param-key.yaml", 1,
          "plan.params must be keyed by parameter names, got the key 1"),
    _spec("spec-bool-depth", "depth: true", "bool-depth.yaml", 1, "depth must be an integer, got bool True"),
    _spec("spec-int-fact-id", "a fact id that is a number", "int-fact-id.yaml", 1, "facts[0].id must be a non-empty string, got 123"),
    _spec("spec-env-cap", "CVLIB_MAX_SPEC_BYTES=100 and a spec larger than that", "good.yaml", 1,
          "bytes; the limit is 100", env=(("CVLIB_MAX_SPEC_BYTES", "100"),)),
    # -- notes checks: a file that cannot be read is a status, never a wait or a traceback -----------
    _notes("notes-fifo", "a FIFO named x.py in the repository", "fifo", 0, "x: UNREADABLE", "not a regular file"),
    _notes("notes-loop", "a symlink loop named x.py", "symlink_loop", 0, "x: UNREADABLE", "symlink loop"),
    _notes("notes-dangling", "a dangling symlink named x.py", "dangling", 0, "x: UNREADABLE", "dangling symlink"),
    _notes("notes-outside", "x.py a symlink to a file outside the repository", "outside", 0,
           "x: UNREADABLE", "outside the repository"),
    _notes("notes-binary", "x.py full of binary bytes", "binary", 0, "x: UNPARSABLE"),
    _notes("notes-file-fifo", "the notes file itself a FIFO", "notes_fifo", 1, "error: ", "notes file"),
    _notes("notes-repo-loop", "the repository folder a symlink loop", "repo_loop", 1, "error: "),
    # -- papermill parameters, through the book's pipeline (book/build.py) ---------------------------
    Case("papermill-word", "papermill", "value_change with -p depth six", "papermill", "BuildError",
         ("notebooks/value_change.ipynb failed", "ParameterError", "depth", "'six'"),
         code='{"depth": "six"}'),
    Case("papermill-huge", "papermill", "value_change with -p depth 1000000000", "papermill", "BuildError",
         ("notebooks/value_change.ipynb failed", "SizeLimitError: a chain of depth 1,000,000,000 would have 1,000,000,000 steps"),
         code='{"depth": 1000000000}'),
    Case("papermill-negative", "papermill", "value_change with -p change_tick -1", "papermill", "BuildError",
         ("notebooks/value_change.ipynb failed", "ParameterError", "change_tick", "-1"), code='{"change_tick": -1}'),
    # -- checkpoints: every chunk verified; a bad one recomputed, the result as if undamaged ----------
    _damage("ck-edited", "a chunk whose values were edited", "edited", "chunks 1 (", "failed verification; they are recomputed"),
    _damage("ck-copied", "a chunk copied over another position", "copied", "chunks 2 (", " bytes, expected "),
    _damage("ck-copied-forged", "a chunk copied with its manifest hash copied too", "copied_forged",
            "chunks 2 (its rows are not tasks 100-149)"),
    _damage("ck-short", "a chunk with fewer rows", "fewer_rows", "chunks 1 ("),
    _damage("ck-short-forged", "a chunk with fewer rows and a manifest entry forged to match", "fewer_rows_forged",
            "chunks 1 (40 rows, expected 50)"),
    _damage("ck-truncated", "a chunk cut in half", "truncated", "chunks 3 ("),
    _damage("ck-garbage", "a chunk of random bytes with a forged entry", "garbage_forged", "chunks 0 (unreadable: ArrowInvalid)"),
    _damage("ck-missing", "a chunk file deleted", "missing", "chunks 2 (missing)"),
    _damage("ck-empty-dir", "an empty folder in a chunk's place", "empty_dir", "chunks 1 (not a regular file)"),
    _damage("ck-full-dir", "a folder with a file in it in a chunk's place", "full_dir",
            "chunks 1 (not a regular file)", "is a non-empty folder; chunk 1 is kept in memory only"),
    _damage("ck-symlink", "a symlink to a good chunk in a chunk's place", "symlink", "chunks 2 (not a regular file)"),
    _damage("ck-no-manifest", "sweep.json deleted, then a sweep with another seed", "manifest_deleted_other_seed",
            "4 chunk file(s) without a manifest entry", "are not used"),
    _damage("ck-manifest-garbage", "sweep.json replaced by garbage", "manifest_garbage",
            "its manifest cannot be trusted (it is not valid JSON"),
    _damage("ck-manifest-entry", "a manifest entry with a malformed hash", "manifest_bad_entry",
            "manifest entries for chunks '1' are not valid"),
    _damage("ck-manifest-old", "a manifest from an older cvlib (no checksums)", "manifest_old_format",
            "it is from an older cvlib and records no checksums"),
    _damage("ck-stray-tmp", "stray temporary files of an interrupted write", "stray_tmp", "no warning"),
    _damage("ck-other-sweep", "a folder holding another sweep (seed 6)", "other_sweep", "holds another sweep", status="SweepError"),
    _damage("ck-manifest-dir", "a folder named sweep.json", "manifest_dir", "sweep.json is a folder, not a manifest",
            status="SweepError"),
    _damage("ck-locked", "a folder another running sweep holds", "locked", "is in use by another running sweep",
            status="SweepError"),
)

"""The ``cvlib`` command line, driven through click's test runner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import cvlib as cv
from cvlib.presentation.cli import main


@pytest.fixture()
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(main, list(args), catch_exceptions=False)


def table_row(output: str, label: str) -> list[str]:
    for line in output.splitlines():
        if line.startswith(label + " "):
            return line[len(label):].split()
    raise AssertionError(f"no row {label!r} in:\n{output}")


def test_run_a_prints_the_published_table(runner):
    result = invoke(runner, "run", "A")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "scenario A (depth=4, change_tick=1, budget=9 computed from the plan)"
    assert table_row(result.stdout, "steps used") == ["9", "6"]
    assert table_row(result.stdout, "pre-failure work") == ["2", "0"]
    assert table_row(result.stdout, "replans") == ["1", "1"]
    assert table_row(result.stdout, "SCUR") == ["0.75", "0.50"]
    assert table_row(result.stdout, "completed") == ["True", "True"]


def test_run_a_json_is_to_dict(runner):
    result = invoke(runner, "run", "A", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == cv.run_scenario("A").to_dict()


def test_run_with_a_param(runner):
    result = invoke(runner, "run", "A", "-p", "depth=6", "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["params"]["depth"] == 6
    assert record == cv.run_scenario("A", depth=6).to_dict()


def test_run_with_several_params_and_long_option(runner):
    result = invoke(runner, "run", "D2", "--param", "depth=4", "-p", "branching_factor=4", "-p", "merge_factor=4", "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["structure"]["total_steps"] == 25
    assert record["baseline"]["pre_failure_work"] == 24


def test_budget_none_on_the_command_line(runner):
    result = invoke(runner, "run", "A", "-p", "budget=none", "--json")
    assert json.loads(result.stdout)["params"]["budget"] is None


def test_json_output_is_byte_stable(runner):
    assert invoke(runner, "run", "D3", "--json").stdout == invoke(runner, "run", "D3", "--json").stdout


def test_law_exits_0_and_reports_15_of_15(runner):
    result = invoke(runner, "law")
    assert result.exit_code == 0, result.output
    assert "15 of 15 cases match" in result.stdout
    for label, _, _ in cv.LAW_CASES:
        assert label in result.stdout


def test_law_exits_1_on_a_mismatch(runner, monkeypatch):
    import cvlib.experiments.law_check

    monkeypatch.setattr(cvlib.experiments.law_check, "predicted_pfw_single", lambda plan, fact, tick: -1)
    result = invoke(runner, "law")
    assert result.exit_code == 1
    assert "0 of 15 cases match" in result.stdout


def test_list_shows_every_scenario_with_params_and_defaults(runner):
    result = invoke(runner, "list")
    assert result.exit_code == 0
    for name, definition in cv.SCENARIOS.items():
        assert f"{name}: {definition.description}" in result.stdout
        for p in definition.params:
            assert f"{p.name} = {p.default!r}" in result.stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["run", "A", "-p", "depth=six"], ["depth must be an integer", "'six'"]),
        (["run", "A", "-p", "depth=0"], ["depth must be >= 1, got 0"]),
        (["run", "A", "-p", "change_tick=-1"], ["change_tick must be >= 0, got -1"]),
        (["run", "A", "-p", "budget=-4"], ["budget must be >= 0, got -4"]),
        (["run", "A", "-p", "dpeth=6"], ["no parameter 'dpeth'", "depth (default 4)"]),
        (["run", "B"], ["unknown scenario 'B'", "C, A, D1, D2, D3, E1, E2"]),
    ],
    ids=["not-an-int", "depth-0", "negative-tick", "negative-budget", "unknown-param", "unknown-scenario"],
)
def test_bad_input_exits_2_with_one_line(runner, args, fragments):
    result = invoke(runner, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {result.stderr!r}"
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_param_without_equals_is_a_usage_error(runner):
    result = invoke(runner, "run", "A", "-p", "depth")
    assert result.exit_code == 2
    assert "expected key=value, got 'depth'" in result.stderr


def test_spec_command(runner, tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "name: A by spec\n"
        "facts: [{id: F1, value: 420}]\n"
        "plan: {generator: chain, params: {depth: 4}}\n"
        "events: [{tick: 1, fact: F1, kind: replace, new_value: 610}]\n"
    )
    result = invoke(runner, "spec", str(path), "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["baseline"]["steps_used"] == 9 and record["validity_aware"]["steps_used"] == 6
    table = invoke(runner, "spec", str(path))
    assert table.stdout.splitlines()[0] == "spec A by spec"


def test_spec_command_runs_a_spec_with_rules_and_an_outage(runner):
    path = cv.paths.project_root() / "data" / "scenarios" / "warehouse_outage.yaml"
    record = json.loads(invoke(runner, "spec", str(path), "--json").stdout)
    assert record["rules"]["checker"] == "dependency" and record["rules"]["ttl"] == 4
    assert record == cv.run_spec(path).to_dict()


def test_spec_command_bad_file_exits_2(runner, tmp_path):
    result = invoke(runner, "spec", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert "missing.yaml" in result.stderr and "does not exist" in result.stderr


def test_help_and_version(runner):
    assert invoke(runner, "--help").exit_code == 0
    version = invoke(runner, "--version")
    assert version.exit_code == 0 and cv.__version__ in version.stdout


MARKING_POLICY = """
import pathlib
from dataclasses import dataclass

pathlib.Path(__file__).with_name("imported.txt").write_text("ran", encoding="utf-8")


@dataclass(frozen=True)
class Marked:
    name: str = "marked"

    def watched_states(self, rules):
        return frozenset()

    def watches_health(self, rules):
        return False

    def check(self, view, run, position, closure):
        return None
"""


def test_spec_command_refuses_code_in_a_spec_file_unless_trusted(tmp_path):
    """A spec file naming module:attribute beside it (the current folder is importable) runs nothing without --trust-code."""
    import subprocess
    import sys

    (tmp_path / "evil_mod.py").write_text(MARKING_POLICY, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: sent to you\nfacts: [{id: F1, value: 420}]\nplan: {generator: chain, params: {depth: 4}}\n"
        "events: [{tick: 1, fact: F1, kind: replace, new_value: 610}]\npolicies: [baseline, 'evil_mod:Marked']\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "cvlib.presentation.cli", "spec", "s.yaml"]
    refused = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: s.yaml: policies: 'evil_mod:Marked'")
    assert "cvlib spec FILE --trust-code" in refused.stderr
    assert not (tmp_path / "imported.txt").exists()
    trusted = subprocess.run([*command, "--trust-code"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.splitlines()[1].split() == ["baseline", "marked"]
    assert (tmp_path / "imported.txt").read_text(encoding="utf-8") == "ran"


def test_the_header_shows_the_budget_the_table_shows(runner):
    computed = invoke(runner, "run", "A", "-p", "depth=6")
    assert "budget=13 computed from the plan)" in computed.stdout.splitlines()[0]
    assert table_row(computed.stdout, "budget") == ["13", "13"]
    given = invoke(runner, "run", "A", "-p", "budget=12")
    assert given.stdout.splitlines()[0] == "scenario A (depth=4, change_tick=1, budget=12)"


def test_a_column_that_cannot_differ_is_explained_under_the_table(runner):
    result = invoke(runner, "run", "A", "--policy", "baseline", "--policy", "timestamp_only")
    lines = result.stdout.splitlines()
    assert table_row(result.stdout, "steps used") == ["9", "9"]
    assert lines[-1].startswith("note: timestamp-only cannot differ from baseline here")
    assert "no fact in scenario A has one" in lines[-1] and "ttl" in lines[-1]
    plain = invoke(runner, "run", "A", "--policy", "baseline", "--policy", "validity_aware").stdout
    assert "note:" not in plain
    assert "note:" not in invoke(runner, "run", "A", "--policy", "baseline", "--policy", "timestamp_only", "--json").stdout


def test_the_note_says_only_what_the_run_knows():
    """With a time-to-live, or a fact with its own horizon, timestamp-only can act: no note; never verifying, it cannot."""
    from cvlib.core.facts import Fact
    from cvlib.core.rules import ExecutionRules
    from cvlib.core.values import replace
    from cvlib.presentation._cli_shared import run_notes

    setup = cv.setup_scenario("A")
    run = setup.run(policies=["baseline", "timestamp_only"])
    assert len(run_notes(run, setup)) == 1
    assert run_notes(run, replace(setup, rules=ExecutionRules(ttl=3))) == []
    horizon = replace(setup, facts=(*setup.facts[:-1], Fact(setup.facts[-1].id, setup.facts[-1].value, valid_until=2)))
    assert run_notes(run, horizon) == []
    never = run_notes(run, replace(setup, rules=ExecutionRules(ttl=3, verify_policy="never")))
    assert len(never) == 1 and "never verify" in never[0]
    assert run_notes(setup.run(), setup) == []  # no timestamp-only column


# -- the light door: what click would print, without importing click ----------------------------------


def test_the_top_level_help_is_clicks_in_clicks_test_runner():
    from cvlib.presentation.cli import click_app

    fast = CliRunner().invoke(main, ["--help"], prog_name="cvlib")
    full = CliRunner().invoke(click_app(), ["--help"], prog_name="cvlib")
    assert fast.exit_code == full.exit_code == 0
    assert fast.stdout == full.stdout


@pytest.mark.parametrize("columns", [40, 60, 79, 80, 100, 200])
def test_the_top_level_help_is_clicks_at_every_terminal_width(columns):
    """The program as installed, against click's own group, each in a fresh interpreter on a terminal that wide."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": str(columns)}
    run = "import sys\nfrom cvlib.presentation.cli import {}\nsys.argv = ['cvlib', '--help']\n{}"
    fast = subprocess.run([sys.executable, "-c", run.format("main", "main()")], capture_output=True, text=True, env=env)
    full = subprocess.run([sys.executable, "-c", run.format("click_app", "click_app()()")], capture_output=True,
                          text=True, env=env)
    assert fast.returncode == full.returncode == 0
    assert fast.stdout == full.stdout and fast.stdout.startswith("Usage: cvlib [OPTIONS] COMMAND [ARGS]...")


@pytest.mark.parametrize("args", [
    ["run", "A"],
    ["run", "D2", "-p", "depth=3", "--param", "branching_factor=2", "--json"],
    ["--debug", "run", "A", "--policy", "baseline", "--policy", "timestamp_only"],
    ["run", "A", "--max-steps", "100", "--debug"],
    ["run", "Z"],
    ["run", "A", "-p", "depth=x"],
    ["run", "A", "-p", "depth=0"],
    ["run", "A", "-p", "nope=1"],
    ["run", "A", "--policy", "oracle"],
    ["run", "A", "--max-steps", "3", "-p", "depth=9"],
])
def test_the_light_door_prints_and_fails_as_click_does(args):
    from cvlib.presentation.cli import _fast_run, click_app

    assert _fast_run(args) is not None  # served without click
    fast = CliRunner().invoke(main, args, prog_name="cvlib")
    full = CliRunner().invoke(click_app(), args, prog_name="cvlib")
    assert (fast.exit_code, fast.stdout, fast.stderr) == (full.exit_code, full.stdout, full.stderr)


@pytest.mark.parametrize("args", [
    ["run"], ["run", "A", "B"], ["run", "A", "-p", "depth"], ["run", "A", "--bogus"], ["run", "A", "--max-steps", "0"],
    ["run", "A", "--max-steps", "x"], ["run", "A", "--param=depth=3"], ["run", "A", "-p"], ["run", "--help"], ["list"],
    ["--version"], ["--help", "run"], [],
])
def test_anything_else_goes_to_click(args):
    from cvlib.presentation.cli import _fast_help, _fast_run

    assert _fast_run(args) is None and _fast_help(args, "cvlib") is None


def test_run_and_help_start_without_click():
    import subprocess
    import sys

    probe = (
        "import sys\nfrom cvlib.presentation.cli import main\nsys.argv = ['cvlib', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\nprint('click' in sys.modules, file=sys.stderr)"
    )
    for args in (["run", "A"], ["--help"], ["run", "A", "-p", "depth"]):
        out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False)
        assert out.stderr.splitlines()[-1] == str(args[-1] == "depth"), (args, out.stderr)  # only the mistake needs click

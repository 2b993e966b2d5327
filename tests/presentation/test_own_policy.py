"""A policy written outside cvlib, found with no other change everywhere executors are compared.

The policy is the worked example of the page "Write your own executor"
(``book/write_executor.md``), copied from the page into a throwaway module, so
the page's code is the code under test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

import cvlib as cv
from cvlib.presentation import spec_page as sp

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "write_executor.md"
REF = "skittish_policy:Skittish"


@pytest.fixture
def module(tmp_path, monkeypatch):
    """``skittish_policy`` written from the page into ``tmp_path``, importable from there only."""
    blocks = re.findall(r"```python\n(# skittish_policy\.py\n.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the page has one module to save, headed '# skittish_policy.py'"
    (tmp_path / "skittish_policy.py").write_text(blocks[0], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    yield tmp_path
    sys.modules.pop("skittish_policy", None)


def test_in_a_scenario_run_as_the_page_says(module):
    run = cv.run_scenario("E2", policies=["baseline", "validity_aware", REF])
    assert list(run.results) == ["baseline", "validity_aware", "skittish"]
    skittish, va = run.results["skittish"], run.validity_aware
    assert skittish.verifications == 0 and skittish.replans == 1 and va.replans == 0  # a replan for a false alarm
    assert skittish.steps_used > va.steps_used
    a = cv.run_scenario("A", policies=["validity_aware", REF])
    assert a.results["skittish"].pre_failure_work == a.validity_aware.pre_failure_work == 0


def test_in_a_budget_sweep_and_the_grid(module):
    frame = cv.budget_sweep(policies=["baseline", REF])
    assert list(frame.columns) == ["budget", "baseline_completed", "skittish_completed", "baseline_steps", "skittish_steps"]
    grid = cv.topology_grid(depths=[3], branching_factors=[1, 2], merge_factors=[1], policies=[REF])
    assert (grid["skittish_pfw"] == 0).all()


@pytest.mark.parametrize("backend", ["serial", "processes"])
def test_in_a_random_plan_sweep(module, backend):
    rows = cv.sweep(cv.RandomFamily(seed=1, count=10, policies=["baseline", REF]), backend=backend, workers=2,
                    chunk_size=4, progress=False)
    assert {"skittish_pfw", "skittish_steps", "skittish_completed", "skittish_verifications"} <= set(rows.columns)
    assert (rows["skittish_pfw"] == 0).all() and rows["law_holds"].all()


def test_in_a_table_and_figures(module):
    run = cv.run_scenario("E2", policies=["baseline", "validity_aware", REF])
    assert "Skittish" in cv.tables.run_table(run)._repr_html_()
    setup = cv.setup_scenario("E2")
    figure = cv.figures.mechanism_figure(cv.trace.trace_both(setup, policies=["baseline", REF]), budget=setup.budget)
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["Baseline", "Skittish"]
    sweep = cv.budget_sweep(policies=["baseline", "validity_aware", REF])
    legend = cv.figures.budget_sweep_figure(sweep, cv.separation_window(sweep))
    assert "Skittish" in {t.get_text() for t in legend.legends[0].get_texts()}
    assert cv.presentation.style.figure_problems(figure) == [] and cv.presentation.style.figure_problems(legend) == []


def test_on_the_command_line(module):
    out = subprocess.run([sys.executable, "-m", "cvlib.presentation.cli", "run", "A", "--policy", "baseline",
                          "--policy", REF], capture_output=True, text=True, cwd=module, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].split() == ["baseline", "skittish"]
    bad = subprocess.run([sys.executable, "-m", "cvlib.presentation.cli", "run", "A", "--policy", "oracle"],
                         capture_output=True, text=True, cwd=module, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "timestamp_only" in bad.stderr


def test_on_a_spec_page(module):
    spec = module / "skittish_spec.yaml"
    spec.write_text(
        "name: skittish-demo\nfacts:\n  - {id: F1, value: 420}\nplan: {generator: chain, params: {depth: 3}}\n"
        "events:\n  - {tick: 1, fact: F1, kind: ambiguous, ground_truth_changed: false}\n"
        f"policies: ['{REF}']\n",
        encoding="utf-8",
    )
    with pytest.raises(cv.SpecError, match="--trust-code"):  # a spec file is data: naming code needs an opt-in
        sp.load_spec_page(spec)
    page = sp.load_spec_page(spec, trust_code=True)
    assert page.policies == ("baseline", "validity_aware", REF)
    run = page.setup.run(policies=page.policies)
    assert "Skittish used" in sp.findings(run)["S_other_executors"]
    table = sp.outcomes_by_budget(page.setup, policies=page.policies)
    assert sp.budget_columns(table)["skittish_completed"] == "Skittish completes"
    assert "Skittish completes" in sp.budget_words(table)
    assert cv.run_spec(spec, trust_code=True).policies == ["skittish"]  # run alone, the spec's list is the list


def test_the_spec_page_notebook_shows_it(module):
    import papermill

    spec = module / "skittish_spec.yaml"
    spec.write_text(
        "name: skittish-demo\nfacts:\n  - {id: F1, value: 420}\nplan: {generator: chain, params: {depth: 3}}\n"
        "events:\n  - {tick: 1, fact: F1, kind: ambiguous, ground_truth_changed: false}\n"
        f"policies: ['{REF}']\n",
        encoding="utf-8",
    )
    out = module / "page.ipynb"
    papermill.execute_notebook(str(ROOT / "notebooks" / "spec_page.ipynb"), str(out), parameters={"spec": str(spec), "trust_code": True},
                               cwd=str(ROOT / "notebooks"), progress_bar=False, kernel_name="python3")
    text = out.read_text(encoding="utf-8")
    assert "Skittish completes" in text and "Skittish used" in text


def test_a_page_with_only_the_article_executors_says_so():
    """The sentence about further executors is never empty, so its glue shows on the page."""
    from cvlib.presentation import spec_page as sp

    run = cv.run_scenario("A")
    assert sp.other_executors_words(run) == "No executor beyond the article's two ran on this page."


def _build_module(monkeypatch):
    import importlib.util

    loader = importlib.util.spec_from_file_location("cvbook_build_for_trust", ROOT / "book" / "build.py")
    build = importlib.util.module_from_spec(loader)
    monkeypatch.setitem(sys.modules, "cvbook_build_for_trust", build)  # its dataclasses look themselves up there
    loader.loader.exec_module(build)
    return build


def test_book_build_passes_trust_code_through_to_the_spec_page(module, monkeypatch, capsys):
    """``book/build.py --spec FILE --trust-code`` hands the flag to the page's notebook; without it, one refusal line."""
    spec = module / "skittish_spec.yaml"
    spec.write_text(
        "name: skittish-demo\nfacts:\n  - {id: F1, value: 420}\nplan: {generator: chain, params: {depth: 3}}\n"
        "events:\n  - {tick: 1, fact: F1, kind: ambiguous, ground_truth_changed: false}\n"
        f"policies: ['{REF}']\n",
        encoding="utf-8",
    )
    build = _build_module(monkeypatch)
    ran = []
    monkeypatch.setattr(build, "execute_all", lambda jobs, *a, **k: ran.extend(jobs) or 0.0)
    monkeypatch.setattr(build, "check_labels", lambda *a, **k: None)
    monkeypatch.setattr(build, "add_to_toc", lambda name: False)
    assert build.main(["--spec", str(spec), "--no-build"]) == 1
    refused = capsys.readouterr().err.strip()
    assert "--trust-code" in refused and refused.count("\n") == 0 and not ran
    assert "skittish_policy" not in sys.modules  # refused before anything was imported
    assert build.main(["--spec", str(spec), "--trust-code", "--no-build"]) == 0
    (job,) = ran
    assert job.parameters == {"spec": str(spec), "trust_code": True}
    assert "--trust-code" in build.expected_source(job).cells[0].source  # the page says how it was made
    assert build.job_for("two_suppliers").parameters == {"spec": "data/scenarios/two_suppliers.yaml"}

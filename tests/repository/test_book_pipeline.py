"""The book cannot drift from its notebooks, and the pipeline keeps its promises.

* The table of contents is the list of chapters: each executed notebook in
  book/chapters/ it names has the same cells (code and prose) as its source
  (notebooks/NAME.ipynb, or notebooks/spec_page.ipynb for a page made from a
  spec file, with that file's title and the page's own labels), so editing a
  source without re-executing it fails here; nothing else sits in book/chapters/.
* Each source has exactly one ``parameters`` cell of literals, so papermill
  ``-p`` can override every parameter.
* Executed notebooks carry no volatile metadata, and every figure has a
  caption and alt text; every chapter ends by saying how to rerun it.
* The build's pieces: the label rule, the table-of-contents editor, ``--only``
  and ``--spec`` errors, and (slow) two spec files from outside the repository
  becoming two pages of one book built with ``-W``.
* A papermill run with another parameter gives the number the law predicts.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cvlib as cv

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = ROOT / "book" / "chapters"


def _load_build():
    spec = importlib.util.spec_from_file_location("cvbook_build", ROOT / "book" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cvbook_build"] = module
    spec.loader.exec_module(module)
    return module


build = _load_build()
#: The chapters the table of contents names, each with the notebook that makes it.
JOBS = [build.job_for(name) for name in build.toc_chapters()]
#: The source notebooks the build executes (a stray notebooks/out.ipynb is not one).
SOURCES = sorted({job.source for job in JOBS} | {build.SPEC_SOURCE})


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _cells(nb: dict) -> list[tuple[str, str]]:
    """Every cell's type and source (prose too: the page shows it), papermill's injected cell left out."""
    return [
        (c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
        for c in nb["cells"]
        if "injected-parameters" not in _tags(c)
    ]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_there_are_notebooks():
    assert SOURCES, "notebooks/ holds no notebooks"
    assert JOBS, "_toc.yml names no chapters"


@pytest.mark.parametrize("job", JOBS, ids=lambda j: j.name)
def test_executed_copy_matches_source(job):
    executed = CHAPTERS / f"{job.name}.ipynb"
    assert executed.is_file(), f"{job.name} has no executed copy; run: bash scripts/book.sh --only {job.name}"
    import nbformat

    expected = json.loads(nbformat.writes(build.expected_source(job)))
    assert _cells(_read(executed)) == _cells(expected), (
        f"book/chapters/{job.name}.ipynb is out of date with {job.source.relative_to(ROOT)}"
        + (f" run on {job.spec}" if job.spec else "")
        + f"; re-execute it: bash scripts/book.sh --only {job.name}"
    )


def test_book_chapters_holds_only_chapters_the_toc_names():
    assert build.strays() == [], "book/chapters/ holds notebooks _toc.yml does not name; delete them or list them"


def test_every_committed_notebook_makes_a_chapter():
    """A notebook committed to notebooks/ is a chapter's source (git-ignored outputs of reruns are not)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "notebooks/*.ipynb"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    unused = sorted(name for name in listed if ROOT / name not in SOURCES)
    assert unused == [], f"notebooks/ holds committed sources no chapter is made from: {unused}; add them to _toc.yml"


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_exactly_one_parameters_cell_of_literals(src):
    nb = _read(src)
    cells = [c for c in nb["cells"] if "parameters" in _tags(c)]
    assert len(cells) == 1, f"{src.name}: {len(cells)} cells tagged 'parameters', expected exactly one"
    cell = cells[0]
    assert cell["cell_type"] == "code"
    tree = ast.parse(_source(cell))
    assert tree.body, f"{src.name}: the parameters cell is empty"
    for stmt in tree.body:
        assert isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None, (
            f"{src.name}: parameters cell line {stmt.lineno} is not `name: type = literal`"
        )
        try:
            ast.literal_eval(stmt.value)
        except ValueError:
            pytest.fail(f"{src.name}: parameter {stmt.target.id!r} is not a literal: {ast.unparse(stmt.value)}")


@pytest.mark.parametrize("src", [CHAPTERS / f"{j.name}.ipynb" for j in JOBS], ids=lambda p: p.stem)
def test_executed_notebook_has_no_volatile_metadata(src):
    executed = src
    if not executed.is_file():
        pytest.skip("no executed copy (reported by test_executed_copy_matches_source)")
    nb = _read(executed)
    assert set(nb["metadata"].get("papermill", {})) <= {"parameters"}
    assert set(nb["metadata"].get("cvbook", {})) <= {"spec"}
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}) and "papermill" not in cell.get("metadata", {})
        if "injected-parameters" in _tags(cell):
            assert "remove-input" in _tags(cell)
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{src.name}: a cell raised an error"


@pytest.mark.parametrize("src", [CHAPTERS / f"{j.name}.ipynb" for j in JOBS], ids=lambda p: p.stem)
def test_every_figure_has_caption_and_alt_text(src):
    executed = src
    if not executed.is_file():
        pytest.skip("no executed copy (reported by test_executed_copy_matches_source)")
    for i, cell in enumerate(_read(executed)["cells"]):
        images = [o for o in cell.get("outputs", []) if {"image/png", "image/svg+xml"} & set(o.get("data", {}))]
        if not images:
            continue
        meta = cell.get("metadata", {}).get("mystnb", {})
        assert meta.get("figure", {}).get("caption"), f"{src.name} cell {i}: figure without a caption"
        assert meta.get("image", {}).get("alt"), f"{src.name} cell {i}: figure without alt text"


@pytest.mark.parametrize("job", JOBS, ids=lambda j: j.name)
def test_chapter_ends_with_run_it_yourself(job):
    cells = _read(CHAPTERS / f"{job.name}.ipynb")["cells"]
    heading = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and re.search(r"^#+ Run it yourself", _source(c), re.M)]
    assert heading, f"{job.name}: no 'Run it yourself' section"
    rendered = [
        o for c in cells[heading[-1] + 1 :] for o in c.get("outputs", []) if "rerun" in o.get("metadata", {}).get("cvbook", {})
    ]
    assert len(rendered) == 1, f"{job.name}: 'Run it yourself' does not render its command (cvlib.presentation.rerun)"
    text = "".join(rendered[0]["data"]["text/markdown"])
    flat = re.sub(r" \\\n\s*", " ", text)  # a long command is printed one option per line, with `\` continuations
    source = "spec_page" if job.spec else job.name
    assert re.search(rf"^papermill notebooks/{source}\.ipynb _runs/{job.name}\.ipynb ", flat, re.M), text


def test_toc_entries_exist():
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    for entry in files:
        candidates = [ROOT / f"{entry}{ext}" for ext in (".md", ".ipynb")]
        assert any(c.is_file() for c in candidates), f"_toc.yml lists {entry!r}, which does not exist"


def test_config_turns_jupyter_book_execution_off():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["execute"]["execute_notebooks"] == "off"
    assert config["only_build_toc_files"] is True
    assert "notebooks/*" in config["exclude_patterns"]


# -- book/build.py ----------------------------------------------------------------


def _nb(*cells):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook()
    for source, tags in cells:
        cell = new_code_cell(source)
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    return nbformat.from_dict(nb)


@pytest.mark.parametrize("cells", [[("x = 1", [])], [("x = 1", ["parameters"]), ("y = 2", ["parameters"])]])
def test_build_refuses_a_notebook_without_exactly_one_parameters_cell(cells):
    with pytest.raises(build.BuildError, match="needs exactly one code cell"):
        build.check_parameters_cell(_nb(*cells), Path("notebooks/bad.ipynb"))


def test_build_clean_hides_injected_cell_and_strips_volatile_metadata():
    nb = _nb(("x = 1", ["parameters"]), ("x = 2", ["injected-parameters"]), ("print(x)", []))
    nb.metadata["papermill"] = {"parameters": {"x": 2}, "start_time": "2026", "duration": 1.0, "input_path": "/a"}
    nb.cells[2].metadata["execution"] = {"iopub.status.busy": "2026"}
    nb.cells[2].metadata["papermill"] = {"duration": 0.1}
    build.clean(nb)
    assert nb.metadata["papermill"] == {"parameters": {"x": 2}}
    assert nb.cells[1].metadata["tags"] == ["injected-parameters", "remove-input"]
    assert nb.cells[1].id == "injected-parameters"
    assert nb.cells[2].metadata == {}


def test_build_write_atomic_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "out.ipynb"
    build.write_atomic(target, "one")
    build.write_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["out.ipynb"]


def test_build_only_unknown_notebook_is_a_clear_error():
    with pytest.raises(build.BuildError, match="no chapter 'nope' in _toc.yml and no notebooks/nope.ipynb; chapters: "):
        build.jobs_for_only(["nope"])


def test_build_only_a_listed_chapter_is_not_new():
    jobs, new = build.jobs_for_only(["value_change", "notebooks/value_change.ipynb"])
    assert [j.name for j in jobs] == ["value_change"] and new == []


# -- the label rule ------------------------------------------------------------------------------


def _titled(first: str, figure: str | None = None):
    import nbformat
    from nbformat.v4 import new_markdown_cell

    nb = _nb(("x = 1", ["parameters"]), ("plt.show()", []))
    nb.cells.insert(0, new_markdown_cell(first))
    if figure:
        nb.cells[2].metadata["mystnb"] = {"figure": {"name": figure, "caption": "c"}}
    return nbformat.from_dict(nb)


def test_label_rule_gives_a_copy_of_the_template_its_own_labels():
    nb = build.apply_label_rule(_titled("(template)=\n# Template: your experiment here", "fig-template"), "my_experiment")
    assert nb.cells[0].source == "(my-experiment)=\n# Template: your experiment here"
    assert nb.cells[2].metadata["mystnb"]["figure"]["name"] == "fig-my-experiment"


def test_label_rule_keeps_a_chapters_own_labels_and_other_figure_names():
    nb = build.apply_label_rule(_titled("(value-change)=\n# Value change", "fig-mechanism"), "value_change")
    assert nb.cells[0].source == "(value-change)=\n# Value change"
    assert nb.cells[2].metadata["mystnb"]["figure"]["name"] == "fig-mechanism"


def test_label_rule_adds_a_missing_label():
    nb = build.apply_label_rule(_titled("# Untitled"), "x1_new")
    assert nb.cells[0].source == "(x1-new)=\n# Untitled"


@pytest.mark.parametrize("job", JOBS, ids=lambda j: j.name)
def test_every_chapter_carries_the_label_of_its_name(job):
    import nbformat

    executed = nbformat.read(CHAPTERS / f"{job.name}.ipynb", as_version=4)
    assert build.labels_of(executed)[0] == build.label_for(job.name), job.name


def test_a_clash_of_labels_is_a_clear_error(monkeypatch):
    job = build.Job("model", NOTEBOOKS / "template.ipynb")  # a chapter called "model" clashes with book/model.md
    monkeypatch.setattr(build, "toc_files", lambda *a: ["book/intro", "book/model", "book/chapters/model"])
    with pytest.raises(build.BuildError, match=r"label 'model' is defined in both book/model.md and book/chapters/model.ipynb"):
        build.check_labels([job])


# -- the table of contents -----------------------------------------------------------------------


def test_add_to_toc_adds_once_under_your_own_experiments(tmp_path):
    toc = tmp_path / "_toc.yml"
    shutil.copy(ROOT / "_toc.yml", toc)
    before = toc.read_text()
    assert build.add_to_toc("my_page", toc) is True
    assert build.add_to_toc("my_page", toc) is False
    after = toc.read_text()
    import yaml

    parts = {p["caption"]: [c["file"] for c in p["chapters"]] for p in yaml.safe_load(after)["parts"]}
    assert parts[build.OWN_PART][-1] == "book/chapters/my_page"
    assert after.count("book/chapters/my_page") == 1
    assert after.replace("      - file: book/chapters/my_page\n", "", 1) == before  # comments and layout kept


def test_add_to_toc_creates_the_part_when_missing(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: Start\n    chapters:\n      - file: book/model\n"
        "  - caption: Reference\n    chapters:\n      - file: book/api\n"
    )
    assert build.add_to_toc("mine", toc)
    import yaml

    parts = yaml.safe_load(toc.read_text())["parts"]
    assert [p["caption"] for p in parts] == ["Start", build.OWN_PART, "Reference"]
    assert parts[1]["chapters"] == [{"file": "book/chapters/mine"}]


# -- --spec, refused before anything is written -------------------------------------------------------


SPEC = (ROOT / "data" / "scenarios" / "two_suppliers.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("file_name", "text", "message"),
    [
        ("value_change.yaml", SPEC, "the name of the chapter notebooks/value_change.ipynb; rename the spec file"),
        ("two suppliers.yaml", SPEC, "its file name must be letters, digits"),
        ("broken.yaml", SPEC.replace("at_risk: F2", "at_risk: F9"), "'at_risk' fact 'F9' is not required by any step"),
        ("untitled.yaml", SPEC.replace('title: "A scenario of your own: two suppliers"', "title: 7"), "'title' must be a non-empty string"),
    ],
    ids=["name-of-a-chapter", "bad-file-name", "malformed", "bad-title"],
)
def test_spec_that_cannot_make_a_page_is_refused(tmp_path, file_name, text, message):
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(build.BuildError, match=re.escape(message)):
        build.spec_job(str(path))


def test_spec_with_the_name_of_another_spec_page_is_refused(tmp_path):
    path = tmp_path / "two_suppliers.yaml"
    path.write_text(SPEC, encoding="utf-8")
    with pytest.raises(build.BuildError, match="already exists, made from data/scenarios/two_suppliers.yaml"):
        build.spec_job(str(path))


def test_spec_job_reads_a_relative_path_from_the_root_and_shows_it_relative():
    job = build.spec_job("data/scenarios/two_suppliers.yaml")
    assert (job.name, job.spec, job.parameters) == (
        "two_suppliers", "data/scenarios/two_suppliers.yaml", {"spec": "data/scenarios/two_suppliers.yaml"}
    )


def test_missing_spec_file_is_a_clear_error():
    with pytest.raises(build.BuildError, match="--spec nope.yaml: no such file"):
        build.spec_job("nope.yaml")


# -- two spec files from outside the repository become two pages of one book (slow) ------------------

OTHER_SPEC = """\
name: {name}
title: "{title}"
description: >-
  {description}
facts:
  - {{id: F1, value: 420}}
  - {{id: F2, value: ok, valid_until: 2}}
plan:
  generator: {generator}
  params: {params}
events:
  - {{tick: {tick}, fact: F1, kind: replace, new_value: 610}}
at_risk: F1
budget: null
"""


@pytest.mark.slow
def test_two_outside_spec_files_become_two_pages_of_one_book(tmp_path):
    """In a copy of the repository: --spec twice, from outside it; both pages build with -W, coexist, and say nothing of other scenarios."""
    repo = tmp_path / "repo"
    shutil.copytree(
        ROOT, repo,
        ignore=shutil.ignore_patterns(".venv", ".git", "_runs", "test-artifacts", ".pytest_cache", ".hypothesis", "__pycache__"),
    )
    outside = tmp_path / "my specs"
    outside.mkdir()
    specs = {
        "river_crossing": OTHER_SPEC.format(
            name="river", title="Crossing a river", description="A ferry timetable changes under a long chain.",
            generator="chain", params="{depth: 6}", tick=2),
        "hill-walk": OTHER_SPEC.format(
            name="hill", title="A walk over the hill", description="A forecast that two branches rest on changes early.",
            generator="branching", params="{depth: 4, branching_factor: 2, merge_factor: 2}", tick=1),
    }
    for name, text in specs.items():
        (outside / f"{name}.yaml").write_text(text, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("CVBOOK_ROOT", None)

    def make(*args):
        return subprocess.run(
            [sys.executable, str(repo / "book" / "build.py"), *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    # ... and, the JupyterLab path, a copy of the template made a chapter by --only, in the same build
    shutil.copy(repo / "notebooks" / "template.ipynb", repo / "notebooks" / "my_experiment.ipynb")
    first = make(
        "--spec", str(outside / "river_crossing.yaml"), "--spec", str(outside / "hill-walk.yaml"), "--only", "my_experiment"
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Kernel is running over TCP" not in first.stdout + first.stderr  # the quiet log
    copy = _read(repo / "book" / "chapters" / "my_experiment.ipynb")
    assert _source(copy["cells"][0]).startswith("(my-experiment)=\n# Template")
    assert [c["metadata"]["mystnb"]["figure"]["name"] for c in copy["cells"] if "mystnb" in c["metadata"]] == ["fig-my-experiment"]
    assert (repo / "_build" / "html" / "book" / "chapters" / "my_experiment.html").is_file()
    toc = (repo / "_toc.yml").read_text()
    again = make("--spec", str(outside / "hill-walk.yaml"), "--no-build")
    assert again.returncode == 0, again.stdout + again.stderr
    assert (repo / "_toc.yml").read_text() == toc, "running --spec again changed _toc.yml"
    assert toc.count("book/chapters/my_experiment\n") == 1
    for name, label, title in [("river_crossing", "river-crossing", "Crossing a river"), ("hill-walk", "hill-walk", "A walk over the hill")]:
        assert toc.count(f"book/chapters/{name}\n") == 1
        page = _read(repo / "book" / "chapters" / f"{name}.ipynb")
        first_cell = _source(page["cells"][0])
        assert first_cell.startswith(f"({label})=\n# {title}\n")
        assert str(outside / f"{name}.yaml") in first_cell
        figures = [c["metadata"]["mystnb"]["figure"]["name"] for c in page["cells"] if "mystnb" in c["metadata"]]
        assert figures == [f"fig-{label}"]
        html = (repo / "_build" / "html" / "book" / "chapters" / f"{name}.html").read_text(encoding="utf-8")
        html = html[html.index("<article") : html.index("</article>")]  # the page, without the navigation
        assert title in html
        assert "supplier" not in html.lower(), f"the page made from {name}.yaml speaks of the two-suppliers example"
        import html as html_module

        text = html_module.unescape(re.sub(r"<[^>]+>", "", html))
        text = re.sub(r" \\\n\s*", " ", text)  # a long command is printed one option per line, with `\` continuations
        assert f"papermill notebooks/spec_page.ipynb _runs/{name}.ipynb -p spec '{outside / name}.yaml' -p budget " in text


# -- papermill with another parameter --------------------------------------------------


def _glued(nb, key: str):
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == key:
                return ast.literal_eval(output["data"]["application/papermill.record/text/plain"])
    raise KeyError(key)


@pytest.mark.slow
def test_value_change_depth_6_gives_the_law_prediction(tmp_path):
    """``papermill value_change.ipynb out.ipynb -p depth 6`` gives the baseline PFW the law predicts."""
    setup = cv.setup_scenario("A", depth=6)
    expected = cv.predicted_pfw_single(setup.plan, "F1", setup.events[0].tick)
    nb = build.execute(NOTEBOOKS / "value_change.ipynb", tmp_path / "value_change.ipynb", parameters={"depth": 6})
    executed = __import__("nbformat").read(nb, as_version=4)
    assert _glued(executed, "A_baseline_pfw") == str(expected) == "4"
    assert _glued(executed, "A_predicted_pfw") == str(expected)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "remove-input" in injected[0].metadata["tags"]
    assert "depth = 6" in injected[0].source


# -- the committed chapters show the article's numbers -----------------------------------

#: Glue keys the book issue requires, by chapter, with the article's value at the default parameters, written
#: as the book writes it (glued values are text from cvlib.presentation.formatting: counts with separators,
#: SCUR with two decimals, percentages with one, lists joined by commas).
REQUIRED_GLUE = {
    "control": {"C_overhead": "0"},
    "value_change": {
        "A_baseline_steps": "9",
        "A_validity_steps": "6",
        "A_baseline_pfw": "2",
        "A_validity_pfw": "0",
        "A_baseline_scur": "0.75",
        "A_validity_scur": "0.50",
    },
    "depth_chain": {"D1_baseline_pfw": "0, 1, 2, 4, 9", "D1_baseline_pfw_depth10": "9"},
    "topologies": {"D2_grid_configs": "96", "D2_grid_mismatches": "0"},
    "isolation": {"D3_exposed_pct": "100.0%, 30.8% and 16.0%", "D3_baseline_pfw": "7, 7 and 7", "D3_exposed_pct_b8": "16.0%"},
    "ambiguity": {"E1_baseline_steps": "7", "E1_validity_steps": "6", "E2_baseline_steps": "3", "E2_validity_steps": "4"},
    "budget_sweep": {"budget_window": "8, 7, 6"},
    "pfw_law": {"law_cases": "15", "law_matches": "15"},
}


def _glue_values(nb: dict) -> dict:
    values = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            text = output.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                text = "".join(text) if isinstance(text, list) else text
                try:
                    values[name] = ast.literal_eval(text)
                except (ValueError, SyntaxError):  # a glued figure's text is its repr, not a literal
                    values[name] = text
    return values


@pytest.mark.parametrize("chapter", list(REQUIRED_GLUE))
def test_committed_chapter_glues_the_published_numbers(chapter):
    values = _glue_values(_read(CHAPTERS / f"{chapter}.ipynb"))
    for key, expected in REQUIRED_GLUE[chapter].items():
        assert key in values, f"{chapter}: glue key {key!r} missing"
        assert values[key] == expected, f"{chapter}: {key} = {values[key]!r}, the article published {expected!r}"


# -- a quiet execute log, and the execution record (issue 37) ---------------------------------------


def test_the_kernel_manager_talks_over_ipc_with_one_socket_name_per_kernel():
    manager = build.quiet_kernel_manager()
    first, second = manager(), manager()
    assert first.transport == second.transport == "ipc"  # ipykernel warns about unencrypted TCP, once per kernel
    assert first.ip != second.ip, "two kernels side by side would share their IPC sockets"


def test_the_kernel_manager_skips_the_interrupt_only_while_shutting_down():
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    def run(make):  # in a thread of its own: earlier tests of the session may leave an event loop running in this one
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(lambda: asyncio.run(make())).result()

    km = build.quiet_kernel_manager()()
    km.shutting_down = True
    run(km._async_interrupt_kernel)  # nothing to interrupt: no signal, no error
    km.shutting_down = False
    with pytest.raises(RuntimeError, match="No kernel is running"):  # any other interrupt still goes to the kernel
        run(km._async_interrupt_kernel)


@pytest.mark.slow
def test_executing_chapters_side_by_side_leaves_the_log_empty(tmp_path):
    """Two chapters at once, in a process of their own: the copies are made and the execute log stays empty."""
    script = (
        "import importlib.util, sys, pathlib\n"
        f"spec = importlib.util.spec_from_file_location('cvbook_build', {str(ROOT / 'book' / 'build.py')!r})\n"
        "b = importlib.util.module_from_spec(spec); sys.modules['cvbook_build'] = b; spec.loader.exec_module(b)\n"
        f"t = pathlib.Path({str(tmp_path)!r})\n"
        "b.CHAPTERS, b.LOGS, b.STATISTICS = t / 'chapters', t / 'logs', t / 'statistics.json'\n"
        "b.execute_all([b.job_for('control'), b.job_for('value_change')], 2)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (tmp_path / "chapters").iterdir()) == ["control.ipynb", "value_change.ipynb"]
    log = (tmp_path / "logs" / "execute.log").read_text(encoding="utf-8")
    assert log == "", f"the execute log is not empty:\n{log[:2000]}"
    record = json.loads((tmp_path / "statistics.json").read_text(encoding="utf-8"))
    assert set(record["chapters"]) == {"control", "value_change"}


def test_the_execution_record_keeps_earlier_chapters_and_only_the_runs_they_point_at(tmp_path):
    path = tmp_path / "statistics.json"
    build.record_execution({"control": 8.04, "value_change": 5.66}, 2, path=path)
    first = json.loads(path.read_text(encoding="utf-8"))
    assert first["chapters"]["control"]["seconds"] == 8.0 and first["chapters"]["control"]["status"] == "ok"
    (run,) = first["runs"].values()
    assert run["notebooks"] == 2 and run["jobs"] == 2
    assert {"python", "platform", "cores", "packages"} <= set(run["environment"])
    assert run["environment"]["packages"]["papermill"] != "not installed"
    build.record_execution({"control": None}, 1, path=path)
    second = json.loads(path.read_text(encoding="utf-8"))
    assert second["chapters"]["control"]["status"] == "failed"
    assert second["chapters"]["value_change"] == first["chapters"]["value_change"]
    assert set(second["runs"]) == {c["run"] for c in second["chapters"].values()}


def test_the_execution_statistics_page_lists_what_ran(tmp_path):
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import execution_statistics as stats
    finally:
        sys.path.pop(0)
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: A\n    chapters:\n"
        "      - file: book/chapters/control\n      - file: book/chapters/value_change\n",
        encoding="utf-8",
    )
    assert stats.toc_chapters(tmp_path) == ["control", "value_change"]
    assert stats.load_record(tmp_path) == {}
    (tmp_path / "_build" / "execution").mkdir(parents=True)
    build.record_execution({"control": 8.0}, 1, path=tmp_path / stats.RECORD)
    assert set(stats.load_record(tmp_path)["chapters"]) == {"control"}


# -- reader tools: one setting, repository.url -----------------------------------------------------


def _reader_tools():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import reader_tools
    finally:
        sys.path.pop(0)
    return reader_tools


def test_reader_tools_are_off_while_the_url_is_empty_and_on_when_it_is_set():
    tools = _reader_tools()
    off = tools.reader_tools({"repository_url": "", "launch_buttons": {"notebook_interface": "jupyterlab"}})
    assert not any(off[b] for b in tools.BUTTONS)
    assert off["launch_buttons"]["binderhub_url"] == off["launch_buttons"]["colab_url"] == ""
    on = tools.reader_tools({"repository_url": "https://github.com/example/cvbook", "launch_buttons": {}})
    assert all(on[b] for b in tools.BUTTONS)
    assert on["launch_buttons"]["binderhub_url"] == tools.BINDER and on["launch_buttons"]["colab_url"] == tools.COLAB


def test_the_committed_config_leaves_the_repository_url_empty():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["repository"]["url"] == "", "the repository is not public yet: no button may lead nowhere"
    assert "reader_tools" in config["sphinx"]["local_extensions"]


@pytest.mark.slow
@pytest.mark.parametrize("url", ["https://github.com/example/cvbook", ""])
def test_a_book_built_with_the_url_set_shows_the_reader_tools(tmp_path, url):
    """The book's own configuration with ``repository.url`` set (or not), on a page and a chapter."""
    import yaml

    book = tmp_path / "book"
    (book / "book" / "chapters").mkdir(parents=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["repository"]["url"] = url
    config["sphinx"]["local_extensions"] = {"reader_tools": "book/_ext"}
    (book / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (book / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: book/chapters/control\n", encoding="utf-8"
    )
    (book / "book" / "intro.md").write_text("# A page\n\nText.\n", encoding="utf-8")
    shutil.copy(ROOT / "book" / "references.bib", book / "book" / "references.bib")
    shutil.copytree(ROOT / "book" / "_ext", book / "book" / "_ext")
    shutil.copytree(ROOT / "book" / "_static", book / "book" / "_static", ignore=shutil.ignore_patterns("mathjax"))
    nb = _read(CHAPTERS / "control.ipynb")
    nb["cells"] = [{"cell_type": "markdown", "metadata": {}, "source": "# A chapter\n\nText."}]
    (book / "book" / "chapters" / "control.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    exe = Path(sys.executable).with_name("jupyter-book")
    done = subprocess.run([str(exe), "build", str(book)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    page = (book / "_build" / "html" / "book" / "intro.html").read_text(encoding="utf-8")
    chapter = (book / "_build" / "html" / "book" / "chapters" / "control.html").read_text(encoding="utf-8")
    wanted = {
        "repository": "https://github.com/example/cvbook\"",
        "issues": "https://github.com/example/cvbook/issues/new",
        "edit this page": "https://github.com/example/cvbook/edit/main/book/intro.md",
    }
    launch = {"Binder": "mybinder.org/v2/gh/example/cvbook/main", "Colab": "colab.research.google.com/github/example/cvbook"}
    if url:
        for what, link in wanted.items():
            assert link in page, f"no {what} button on a page built with repository.url set"
        for what, link in launch.items():
            assert link in chapter, f"no {what} launch button on a chapter built with repository.url set"
    else:
        assert "example/cvbook" not in page + chapter
        assert "mybinder.org" not in chapter and "colab.research.google.com" not in chapter


def test_book_sh_counts_its_closing_time_from_before_the_install(monkeypatch):
    script = (ROOT / "scripts" / "book.sh").read_text(encoding="utf-8")
    assert script.index("CVBOOK_STARTED=") < script.index("bash scripts/setup.sh"), "the install is left out of the time"
    import time

    monkeypatch.setenv("CVBOOK_STARTED", f"{time.time() - 65:.3f}")
    assert build._since_start(time.perf_counter()) == "1 min 5 s, set-up included"
    monkeypatch.delenv("CVBOOK_STARTED")
    assert build._since_start(time.perf_counter() - 2.0) == "2.0 s"

"""The book cannot drift from its notebooks, and the pipeline keeps its promises.

* Each executed notebook in book/chapters/ has the same cells (code and prose)
  as its source in notebooks/, so editing a source without re-executing it
  fails here.
* Each source has exactly one ``parameters`` cell of literals, so papermill
  ``-p`` can override every parameter.
* Executed notebooks carry no volatile metadata, and every figure has a
  caption and alt text; every chapter ends by saying how to rerun it.
* A papermill run with another parameter gives the number the law predicts.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import json
import sys
from pathlib import Path

import pytest

import cvlib as cv

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = ROOT / "book" / "chapters"
SOURCES = sorted(NOTEBOOKS.glob("*.ipynb"))


def _load_build():
    spec = importlib.util.spec_from_file_location("cvbook_build", ROOT / "book" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cvbook_build"] = module
    spec.loader.exec_module(module)
    return module


build = _load_build()


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


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_executed_copy_matches_source(src):
    executed = CHAPTERS / src.name
    assert executed.is_file(), f"{src.name} has no executed copy; run: python book/build.py --only {src.stem}"
    assert _cells(_read(executed)) == _cells(_read(src)), (
        f"book/chapters/{src.name} is out of date with notebooks/{src.name}; "
        f"re-execute it: python book/build.py --only {src.stem}"
    )


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
        assert isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name), (
            f"{src.name}: parameters cell line {stmt.lineno} is not `name = literal`"
        )
        try:
            ast.literal_eval(stmt.value)
        except ValueError:
            pytest.fail(f"{src.name}: parameter {stmt.targets[0].id!r} is not a literal: {ast.unparse(stmt.value)}")


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_executed_notebook_has_no_volatile_metadata(src):
    executed = CHAPTERS / src.name
    if not executed.is_file():
        pytest.skip("no executed copy (reported by test_executed_copy_matches_source)")
    nb = _read(executed)
    assert set(nb["metadata"].get("papermill", {})) <= {"parameters"}
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}) and "papermill" not in cell.get("metadata", {})
        if "injected-parameters" in _tags(cell):
            assert "remove-input" in _tags(cell)
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{src.name}: a cell raised an error"


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_every_figure_has_caption_and_alt_text(src):
    executed = CHAPTERS / src.name
    if not executed.is_file():
        pytest.skip("no executed copy (reported by test_executed_copy_matches_source)")
    for i, cell in enumerate(_read(executed)["cells"]):
        images = [o for o in cell.get("outputs", []) if {"image/png", "image/svg+xml"} & set(o.get("data", {}))]
        if not images:
            continue
        meta = cell.get("metadata", {}).get("mystnb", {})
        assert meta.get("figure", {}).get("caption"), f"{src.name} cell {i}: figure without a caption"
        assert meta.get("image", {}).get("alt"), f"{src.name} cell {i}: figure without alt text"


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_chapter_ends_with_run_it_yourself(src):
    markdown = [_source(c) for c in _read(src)["cells"] if c["cell_type"] == "markdown"]
    run_it = [m for m in markdown if re.search(r"^#+ Run it yourself", m, re.M)]
    assert run_it, f"{src.name}: no 'Run it yourself' section"
    command = re.compile(rf"papermill\s+(notebooks/)?{re.escape(src.name)}\s")
    assert command.search(run_it[-1]), f"{src.name}: 'Run it yourself' lacks its papermill command"


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
    assert nb.cells[2].metadata == {}


def test_build_write_atomic_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "out.ipynb"
    build.write_atomic(target, "one")
    build.write_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["out.ipynb"]


def test_build_only_unknown_notebook_is_a_clear_error():
    with pytest.raises(build.BuildError, match="there is no notebooks/nope.ipynb; available: "):
        build.notebook_paths("nope")


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

"""The X1 recovery chapter's module: the windows summarised by model, the branch rows, and the numbers it glues."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.experiments import recovery_windows as recovery  # noqa: E402
from cvlib.presentation import extension_figures, formatting  # noqa: E402
from cvlib.presentation.chapters import x1_recovery as chapter  # noqa: E402


@pytest.fixture(scope="module")
def surfaces():
    single = recovery.window_surface([3, 4, 5], [0, 1, 2])
    multi = recovery.window_surface([3, 4, 5], [0, 1, 2], num_actions=2)
    return single, multi


def test_the_summary_counts_every_cell_once_by_model_and_actions(surfaces) -> None:
    single, multi = surfaces
    table = chapter.summary(single, multi)
    assert table["cells"].sum() == len(single) + len(multi)
    assert set(table["model"]) == set(extension_figures.MODEL_LABELS.values())
    for _, row in table.iterrows():
        frame = single if row["num_actions"] == 1 else multi
        model = next(k for k, v in extension_figures.MODEL_LABELS.items() if v == row["model"])
        part = frame[frame.model == model]
        assert row["with_window"] == int((part["width"] > 0).sum())
        assert row["law"] == int((part["width"] == part["predicted_pfw"] + 1).sum())


def test_the_glued_numbers_come_from_the_surfaces_and_the_branches(surfaces) -> None:
    single, multi = surfaces
    d3 = chapter.branch_rows([1, 2], "original")
    assert list(d3["branches"]) == [1, 1, 2, 2] and len(chapter.branch_table(d3).rows) == 4
    values = chapter.glue_values(single, multi, d3, 2)
    assert values["X1_cells"] == len(single) + len(multi)
    assert values["X1_max_width_single"] == int(single["width"].max())
    assert values["X1_d3_branches"] == 2
    flat = d3[(d3.branches == 2) & (d3.model == extension_figures.MODEL_LABELS["flat"])].iloc[0]
    assert values["X1_d3_flat_width"] == flat["window_width"]
    assert set(formatting.written(values)) == set(values)
    with pytest.raises(ParameterError, match="give at least one branch count"):
        chapter.glue_values(single, multi, d3.iloc[0:0], 2)

"""The book's figures: each draws exactly the data it is given, in the book's colours."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import cvlib as cv  # noqa: E402
from cvlib.presentation import figures as plots  # noqa: E402
from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.experiments.article import run_row  # noqa: E402
from cvlib.core.trace import trace_both  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _same_colour(a, b) -> bool:
    return mcolors.to_hex(a) == mcolors.to_hex(b)


def test_palette_has_both_executors_and_distinct_colours():
    assert set(plots.PALETTE) == {"baseline", "validity_aware"}
    colours = list(plots.PALETTE.values()) + list(plots.ACCENTS.values())
    assert len(set(colours)) == len(colours)


def test_set_style_is_idempotent():
    plots.set_style()
    plots.set_style()
    assert matplotlib.rcParams["svg.hashsalt"] == "cvbook"


def test_mechanism_figure_draws_one_box_per_trace_entry():
    setup = cv.setup_scenario("A")
    traces = trace_both(setup)
    fig = plots.mechanism_figure(traces, markers=[(1, "F1: $420 → $610")], budget=setup.budget)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(boxes) == sum(len(t.entries) for t in traces.values())
    hatched = [p for p in boxes if p.get_hatch()]
    assert len(hatched) == traces["baseline"].result.pre_failure_work
    assert all(_same_colour(p.get_edgecolor(), plots.PALETTE["baseline"]) for p in hatched)
    texts = [t.get_text() for t in ax.texts]
    assert r"F1: \$420 → \$610" in texts  # dollars escaped, so no mathtext swallows them
    assert "budget 9" in texts
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Baseline", "Validity-aware"]


def test_mechanism_figure_needs_both_traces():
    traces = trace_both(cv.setup_scenario("A"))
    with pytest.raises(ParameterError, match="missing \\['validity_aware'\\]"):
        plots.mechanism_figure({"baseline": traces["baseline"]})


def test_pfw_vs_size_plots_every_run_and_the_law_line():
    depth = cv.depth_sweep()
    grid = cv.topology_grid([3, 4], [1, 2], [1, 2])
    named = pd.DataFrame([{"label": "(6,1,1)", **run_row(cv.run_scenario("D2", depth=6, branching_factor=1, merge_factor=1))}])
    fig = plots.pfw_vs_size_figure(depth=depth, topologies=named, grid=grid)
    ax = fig.axes[0]
    labels = [c.get_label() for c in ax.collections]
    assert labels == ["grid: 8 branching configs", "D1 chains", "D2 named topologies", "validity-aware (every run)"]
    grid_points = ax.collections[0].get_offsets()
    assert sorted(map(tuple, grid_points.tolist())) == sorted(zip(grid["closure_size"], grid["baseline_pfw"]))
    va = ax.collections[-1].get_offsets()
    assert len(va) == len(depth) + len(grid) + len(named) and (va[:, 1] == 0).all()
    law = ax.get_lines()[0]
    x, y = law.get_data()
    assert (y == x - 1).all()
    assert _same_colour(ax.collections[1].get_facecolor()[0], plots.PALETTE["baseline"])
    assert _same_colour(ax.collections[-1].get_facecolor()[0], plots.PALETTE["validity_aware"])


def test_pfw_vs_size_needs_data():
    with pytest.raises(ParameterError, match="at least one non-empty DataFrame"):
        plots.pfw_vs_size_figure()


def test_isolation_figure_bars_are_exposure_and_lines_are_pfw():
    iso = cv.isolation_sweep()
    fig = plots.isolation_figure(iso)
    left, right = fig.axes
    heights = [p.get_height() for p in left.patches]
    assert heights == pytest.approx(list(iso["exposed_pct"]))
    base, va = right.get_lines()
    assert list(base.get_ydata()) == list(iso["baseline_pfw"])
    assert list(va.get_ydata()) == list(iso["validity_pfw"])
    assert _same_colour(base.get_color(), plots.PALETTE["baseline"])


def test_budget_sweep_figure_shades_the_window():
    sweep = cv.budget_sweep()
    window = cv.separation_window(sweep)
    fig = plots.budget_sweep_figure(sweep, window)
    ax = fig.axes[0]
    spans = [p for p in ax.patches]
    assert len(spans) == 1
    span = spans[0]
    if isinstance(span, Rectangle):  # matplotlib >= 3.9 draws axvspan as a rectangle
        xs = [span.get_x(), span.get_x() + span.get_width()]
    else:
        xs = [v[0] for v in span.get_xy()]
    assert min(xs) == pytest.approx(min(window) - 0.5) and max(xs) == pytest.approx(max(window) + 0.5)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["Baseline", "Validity-aware"]
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # generous on the left, tight on the right


def test_budget_sweep_figure_without_window_draws_no_shade():
    sweep = cv.budget_sweep(budgets=[12, 11, 10])
    fig = plots.budget_sweep_figure(sweep, cv.separation_window(sweep))
    assert len(fig.axes[0].patches) == 0


def test_steps_comparison_and_law_figures():
    runs = {"E1": cv.run_scenario("E1"), "E2": cv.run_scenario("E2")}
    fig = plots.steps_comparison_figure(runs)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == [7, 3, 6, 4]  # baseline E1, E2, then validity-aware E1, E2
    law = cv.check_law()
    fig = plots.law_figure(law)
    points = sum(len(c.get_offsets()) for c in fig.axes[0].collections)
    assert points == len(law)

"""The book's figures: each draws exactly the data it is given, in the book's colours and one style.

Every figure function is also held to the style a reader relies on
(:func:`cvlib.presentation.style.figure_problems`): the text column's width,
text of at least 9 points at that size, no two labels on top of each other,
nothing outside the figure.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import cvlib as cv  # noqa: E402
from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.core.trace import trace_both  # noqa: E402
from cvlib.experiments import errata, exposure, noisy_verification, recovery_windows  # noqa: E402
from cvlib.experiments import time_and_operational as freshness  # noqa: E402
from cvlib.experiments.article import run_row  # noqa: E402
from cvlib.presentation import extension_figures as xfig  # noqa: E402
from cvlib.presentation import figures as plots  # noqa: E402
from cvlib.presentation import style  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _same_colour(a, b) -> bool:
    return mcolors.to_hex(a) == mcolors.to_hex(b)


def _ok(fig: Figure) -> Figure:
    assert isinstance(fig, Figure)
    problems = style.figure_problems(fig)
    assert not problems, "\n".join(problems)
    assert fig.get_size_inches()[0] == pytest.approx(style.COLUMN_WIDTH_IN)
    return fig


# -- the style ---------------------------------------------------------------------------


def test_palette_has_both_executors_and_no_other_colour_reuses_theirs():
    assert set(plots.PALETTE) == {"baseline", "validity_aware"}
    executor = {c.lower() for c in plots.PALETTE.values()}
    others = [*plots.ACCENTS.values(), *style.SERIES, *xfig.POLICY_COLOURS.values()]
    others += [c for k, c in xfig.CHECKER_COLOURS.items() if k != "baseline"]
    assert not executor & {c.lower() for c in others}
    assert xfig.CHECKER_COLOURS["baseline"] == plots.PALETTE["baseline"]


def test_set_style_is_idempotent_and_sets_readable_sizes():
    plots.set_style()
    plots.set_style()
    rc = matplotlib.rcParams
    assert rc["svg.hashsalt"] == "cvbook" and rc["svg.fonttype"] == "path"
    assert min(rc["xtick.labelsize"], rc["ytick.labelsize"], rc["legend.fontsize"], rc["font.size"]) >= style.MIN_FONT_PT
    assert rc["figure.figsize"][0] == style.COLUMN_WIDTH_IN


def test_new_figure_refuses_to_be_wider_than_the_column():
    with pytest.raises(ParameterError, match="at most 6.5 in wide"):
        style.new_figure(width=8)


def test_figure_problems_finds_small_text_overlaps_and_overflow():
    fig, ax = style.new_figure()
    ax.text(0.5, 0.5, "tiny", fontsize=6)
    ax.text(0.2, 0.2, "first label", fontsize=10)
    ax.text(0.2, 0.2, "second label", fontsize=10)
    ax.text(1.6, 0.5, "outside", fontsize=10, transform=ax.transAxes)
    problems = style.figure_problems(fig)
    assert any("'tiny' is 6 pt" in p for p in problems)
    assert any("'first label' and 'second label' overlap" in p for p in problems)
    assert any("'outside' reaches outside the figure" in p for p in problems)
    wide = Figure(figsize=(9, 3))
    assert any("9.00 in wide" in p for p in style.figure_problems(wide))


# -- the article's figures -----------------------------------------------------------------


def test_mechanism_figure_draws_one_box_per_trace_entry():
    setup = cv.setup_scenario("A")
    traces = trace_both(setup)
    fig = _ok(plots.mechanism_figure(traces, markers=[(1, "F1: $420 → $610")], budget=setup.budget))
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


def test_mechanism_figure_stacks_marker_labels_that_would_collide():
    setup = cv.load_spec(cv.paths.project_root() / "data" / "scenarios" / "two_suppliers.yaml")
    markers = [(e.tick, f"{e.fact_id} {e.kind}") for e in setup.events]
    markers += [(f.valid_until + 1, f"{f.id} expires") for f in setup.facts if f.valid_until is not None]
    _ok(plots.mechanism_figure(trace_both(setup), markers=markers, budget=setup.budget))


def test_mechanism_figure_needs_both_traces():
    traces = trace_both(cv.setup_scenario("A"))
    with pytest.raises(ParameterError, match="missing \\['validity_aware'\\]"):
        plots.mechanism_figure({"baseline": traces["baseline"]})


def test_pfw_vs_size_plots_every_run_on_linear_axes_with_a_close_up():
    depth = cv.depth_sweep()
    grid = cv.topology_grid([3, 6], [1, 4], [1, 4])
    named = pd.DataFrame([{"label": "(6,1,1)", **run_row(cv.run_scenario("D2", depth=6, branching_factor=1, merge_factor=1))}])
    fig = _ok(plots.pfw_vs_size_figure(depth=depth, topologies=named, grid=grid))
    assert len(fig.axes) == 2  # all runs, and the close-up of the small plans
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "linear"  # the law stays a straight line
    grid_points = ax.collections[0].get_offsets()
    assert sorted(map(tuple, grid_points.tolist())) == sorted(zip(grid["closure_size"], grid["baseline_pfw"]))
    va = ax.collections[-1].get_offsets()
    assert len(va) == len(depth) + len(grid) + len(named) and (va[:, 1] == 0).all()
    x, y = ax.get_lines()[0].get_data()
    assert (y == x - 1).all()
    assert _same_colour(ax.collections[1].get_facecolor()[0], plots.PALETTE["baseline"])
    assert _same_colour(ax.collections[-1].get_facecolor()[0], plots.PALETTE["validity_aware"])
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "law: PFW = closure size − 1" in labels and all("_" not in label for label in labels)


def test_pfw_vs_size_chains_alone_is_one_panel():
    fig = _ok(plots.pfw_vs_size_figure(depth=cv.depth_sweep()))
    assert len(fig.axes) == 1


def test_pfw_vs_size_needs_data():
    with pytest.raises(ParameterError, match="at least one non-empty DataFrame"):
        plots.pfw_vs_size_figure()


def test_isolation_figure_bars_are_exposure_and_lines_are_pfw():
    iso = cv.isolation_sweep()
    fig = _ok(plots.isolation_figure(iso))
    left, right = fig.axes
    heights = [p.get_height() for p in left.patches]
    assert heights == pytest.approx(list(iso["exposed_pct"]))
    base, va = right.get_lines()
    assert list(base.get_ydata()) == list(iso["baseline_pfw"])
    assert list(va.get_ydata()) == list(iso["validity_aware_pfw"])
    assert _same_colour(base.get_color(), plots.PALETTE["baseline"])


def test_budget_sweep_figure_shades_the_window():
    sweep = cv.budget_sweep()
    window = cv.separation_window(sweep)
    fig = _ok(plots.budget_sweep_figure(sweep, window))
    ax = fig.axes[0]
    (span,) = ax.patches
    xs = [span.get_x(), span.get_x() + span.get_width()] if isinstance(span, Rectangle) else [v[0] for v in span.get_xy()]
    assert min(xs) == pytest.approx(min(window) - 0.5) and max(xs) == pytest.approx(max(window) + 0.5)
    assert [line.get_label() for line in ax.get_lines()] == ["Baseline", "Validity-aware"]
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # generous on the left, tight on the right


def test_budget_sweep_figure_without_window_draws_no_shade():
    sweep = cv.budget_sweep(budgets=[12, 11, 10])
    fig = _ok(plots.budget_sweep_figure(sweep, cv.separation_window(sweep)))
    assert len(fig.axes[0].patches) == 0


def test_steps_comparison_and_law_figures():
    runs = {"E1: real change": cv.run_scenario("E1"), "E2: false alarm": cv.run_scenario("E2")}
    fig = _ok(plots.steps_comparison_figure(runs))
    assert [p.get_height() for p in fig.axes[0].patches] == [7, 3, 6, 4]  # baseline E1, E2, then validity-aware
    law = cv.check_law()
    fig = _ok(plots.law_figure(law))
    assert sum(len(c.get_offsets()) for c in fig.axes[0].collections) == len(law)
    assert fig.axes[0].get_xscale() == "linear"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "Chains (D1)" in labels


# -- the chapters beyond the article ---------------------------------------------------------


def test_window_surface_figure_writes_every_width():
    single = recovery_windows.window_surface([2, 3, 4], [0, 1, 2], num_actions=1)
    panels = [(xfig.MODEL_LABELS[m], single[single.model == m]) for m in recovery_windows.RECOVERY_MODELS]
    fig = _ok(xfig.window_surface_figure(panels))
    numbers = sorted(int(t.get_text()) for t in fig.axes[0].texts)
    assert numbers == sorted(int(w) for w in single[single.model == "flat"]["width"].dropna())


def test_policy_figure_has_a_row_per_noise_level():
    sweep = noisy_verification.verification_sweep([0.0, 0.5, 1.0], [0.0, 0.3], n_schedules=10)
    fig = _ok(xfig.policy_figure(sweep, [0.0, 0.3], {0.0: 0.5, 0.3: 0.8}))
    assert len([a for a in fig.axes if a.get_visible()]) == 4
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "always verify" in labels and not any("expected_cost" in label for label in labels)


def test_exposure_figure_two_stacked_panels():
    data = exposure.exposure_sweep(40, seed=0)
    start, later = data[data.timing == "at_start"], data[data.timing == "random"]
    fit = exposure.fit_pfw(later, ["exposed_size", "exposed_depth", "exposed_breadth"])
    _ok(xfig.exposure_figure(start, later, fit.fitted))


def test_checker_figures_name_checkers_and_rates_in_words():
    ops = freshness.operational_comparison([1, 8], depth=6, outage_prob=0.5, n_schedules=10)
    fig = _ok(xfig.checker_figure(ops, "ttl", ["mean_pfw", "mean_scur", "mean_verifications", "completion_rate"]))
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "dependency-aware checker" in labels and "timestamp_laundering" not in labels
    ttl = freshness.ttl_sweep([0, 2], [0.1], n_schedules=10, depth=6)
    numeric = ttl[ttl.ttl != "baseline"].assign(ttl=lambda d: d["ttl"].astype(int))
    fig = _ok(xfig.checker_figure(numeric, "ttl", ["mean_steps", "mean_pfw"], hue="rate"))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["silent-change rate 0.1 per tick"]


def test_change_figure_marks_what_changes():
    table = errata.errata_table()
    names = list(errata.CORRECTIONS)[1:]
    changed = pd.DataFrame({n: table[n].astype(str) != table["original"].astype(str) for n in names})
    changed.index = table["headline"] + ": " + table["quantity"]
    fig = _ok(xfig.change_figure(changed, {"strict_budget": "strict budget"}))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("changes") == int(changed.to_numpy().sum())


def test_performance_and_law_at_scale_figures():
    record = cv.performance.load_record(cv.paths.data_path("benchmarks", "latest.json"))
    fig = _ok(cv.performance.scaling_figure(record))
    assert fig.axes[0].get_xscale() == "log"  # a power law is a straight line
    _ok(cv.performance.breakdown_figure(record, "grid"))
    rows = cv.sweep(cv.RandomFamily(seed=1, count=60, family="mixed", max_steps=30), backend="serial", progress=False)
    fig = _ok(xfig.law_at_scale_figure(rows))
    assert len(fig.axes) == 2


def test_figures_refuse_empty_input():
    with pytest.raises(ParameterError):
        xfig.window_surface_figure([])
    with pytest.raises(ParameterError):
        xfig.checker_figure(pd.DataFrame(), "ttl", [])
    with pytest.raises(ParameterError):
        plots.steps_comparison_figure({})
    with pytest.raises(ParameterError):
        xfig.law_at_scale_figure(pd.DataFrame({"steps": [], "predicted_pfw": [], "baseline_pfw": []}))

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
from cvlib.presentation.narrow_figures import NARROW_WIDTH_IN, narrow_layout  # noqa: E402


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
    assert narrow_layout(fig).get_size_inches()[0] == pytest.approx(NARROW_WIDTH_IN)
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


def test_mechanism_figure_draws_one_lane_per_trace_in_order():
    setup = cv.setup_scenario("A")
    with pytest.raises(ParameterError, match="at least one trace"):
        plots.mechanism_figure({})
    three = trace_both(setup, policies=["baseline", "validity_aware", "timestamp_only"])
    figure = plots.mechanism_figure(three, budget=setup.budget)
    _ok(figure)
    ticks = figure.axes[0].get_yticklabels()
    assert [t.get_text() for t in ticks] == ["Baseline", "Validity-aware", "Timestamp-only"]
    assert [t.get_color() for t in ticks] == ["#D55E00", "#0072B2", "#E69F00"]
    one = plots.mechanism_figure({"validity_aware": three["validity_aware"]})
    assert [t.get_text() for t in one.axes[0].get_yticklabels()] == ["Validity-aware"]


def test_budget_and_steps_figures_take_every_policy_present():
    three = ["baseline", "validity_aware", "timestamp_only"]
    sweep = cv.budget_sweep(policies=three)
    figure = plots.budget_sweep_figure(sweep, cv.separation_window(sweep))
    _ok(figure)
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["Baseline", "Validity-aware", "Timestamp-only"]
    runs = {"A": cv.run_scenario("A", policies=three), "E2": cv.run_scenario("E2", policies=three)}
    bars = plots.steps_comparison_figure(runs)
    _ok(bars)
    assert len(bars.axes[0].patches) == 6


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


def test_tie_break_figure_marks_the_steps_after_the_action():
    plan = cv.branching(11, 2, 1, seed=0)
    fig = _ok(xfig.tie_break_figure(plan))
    assert len(fig.axes) == 2
    after = [len(ax.collections[2].get_offsets()) for ax in fig.axes]  # ran, action, after the action
    assert after == [len(plan) - 1 - plan.topological_order().index("L10_0"), 0]
    assert [len(ax.collections[0].get_offsets()) + len(ax.collections[1].get_offsets()) for ax in fig.axes] == [
        len(plan) - after[0], len(plan)]
    with pytest.raises(ParameterError):
        xfig.tie_break_figure(plan, ())


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


# -- the notes chapters' figures -----------------------------------------------------------


@pytest.fixture(scope="module")
def notes_replay():
    from cvlib.notes import views
    from cvlib.repository import data_path

    return views.replay_projects(["requests", "rpds-py"], data_path("code_history"))


def test_notes_release_figures_pass_the_style_check(notes_replay):
    from cvlib.notes import history as nh
    from cvlib.notes import views
    from cvlib.presentation import notes_figures as nf

    projects = notes_replay.projects
    fig = _ok(nf.gate_comparison_figure(nh.gate_comparison(notes_replay.replayed), notes_replay.versions, projects))
    assert len(fig.axes[0].patches) == 3 * (len(notes_replay.versions["requests"]) - 1)  # three gates per step
    _ok(nf.step_status_figure(nh.step_shares(notes_replay.replayed), notes_replay.versions, projects))
    _ok(nf.survival_figure(views.survival_curves(notes_replay), views.survival_curves(notes_replay, "status_symbol"), projects))


def test_notes_trial_figures_pass_the_style_check(notes_replay):
    import numpy as np

    from cvlib.notes import trials as nt
    from cvlib.notes import views
    from cvlib.presentation import notes_figures as nf
    from cvlib.repository import data_path

    counts = nt.with_intervals(nt.load_trials(data_path("notes_trials/published_counts.csv")), confidence=0.95)
    arms = counts[counts["table"] == "arms"].reset_index(drop=True)
    _ok(nf.trial_intervals_figure(arms, views.ARM_NAMES, 0.95))
    curves = views.policy_curves(views.step_counts(notes_replay), nt.policy_rates(counts), np.linspace(0, 1, 5))
    _ok(nf.policy_curves_figure(curves, 0.5))


def test_every_notes_figure_function_is_under_the_style_check():
    import inspect

    from cvlib.presentation import notes_figures as nf

    drawn = {"gate_comparison_figure", "step_status_figure", "survival_figure", "trial_intervals_figure", "policy_curves_figure"}
    public = {n for n, f in inspect.getmembers(nf, inspect.isfunction) if f.__module__ == nf.__name__ and not n.startswith("_")}
    assert public == drawn


# -- the progressive-fidelity chapters ----------------------------------------------------


def test_every_fidelity_figure_passes_the_style_check():
    from cvlib import fidelity as fid
    from cvlib.fidelity.findings import SHORT_B
    from cvlib.presentation import fidelity_figures as ffig

    a = fid.sweep_a(seeds=[0], n_objects=5, budget_fractions=[0.1, 0.3, 1.0])
    reps, _, _ = fid.representation_sweep([0], 5)
    b = fid.sweep_b(seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6)
    traj = fid.generate_trajectory(0, budget_fraction=0.35, n_turns=12, n_objects=5, n_probes=6)
    runs, folds, _ = fid.decay_trace(traj)
    sens = fid.sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["lead"])
    figures = [
        ffig.operating_points_figure(reps),
        ffig.budget_figure(a),
        ffig.probe_failures_figure(b),
        ffig.legality_figure(b),
        ffig.fold_trace_figure(traj, runs, folds),
        ffig.sensitivity_figure(sens, SHORT_B),
    ]
    drawn = {name for name, f in vars(ffig).items() if name.endswith("_figure") and getattr(f, "__module__", "") == ffig.__name__}
    assert len(figures) == len(drawn), f"a fidelity figure is not checked here: {sorted(drawn)}"
    for fig in figures:
        _ok(fig)
        legend = {t.get_text() for lg in fig.legends for t in lg.get_texts()}
        assert legend and not any("_" in t for t in legend)  # words, not column keys

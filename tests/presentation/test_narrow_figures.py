"""A figure's phone layout: panels stacked, legend below, text the same size, the same data, the same bytes each time."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from cvlib.presentation import narrow_figures as nf  # noqa: E402
from cvlib.presentation import style  # noqa: E402


@pytest.fixture(autouse=True)
def _styled():
    style.set_style()
    yield
    plt.close("all")


def _side_by_side():
    fig, (left, right) = style.new_figure(1, 2, height=3.0, sharey=True)
    left.plot([0, 1, 2], [1, 3, 2], label="baseline")
    right.plot([0, 1, 2], [2, 1, 0], label="validity-aware")
    left.set_title("Left panel")
    right.set_title("Right panel")
    style.legend_below(fig, [*left.get_lines(), *right.get_lines()], ncols=2)
    return fig


def test_side_by_side_panels_are_stacked_in_reading_order_at_the_phone_width():
    fig = _side_by_side()
    narrow = nf.narrow_layout(fig)
    assert narrow.get_size_inches()[0] == pytest.approx(nf.NARROW_WIDTH_IN)
    narrow._get_renderer()
    narrow.draw_without_rendering()  # lays the panels out
    top, bottom = sorted(narrow.axes, key=lambda ax: -ax.get_position().y0)
    assert top.get_title() == "Left panel" and bottom.get_title() == "Right panel"
    assert top.get_position().x0 == pytest.approx(bottom.get_position().x0, abs=0.05)  # one column
    assert narrow.get_size_inches()[1] > fig.get_size_inches()[1]  # each panel keeps its height
    assert all(label.get_visible() for label in bottom.get_yticklabels())  # the shared axis written on both
    assert style.figure_problems(narrow, width=nf.NARROW_WIDTH_IN, narrow=False) == []


def test_the_wide_figure_is_left_as_it_was_and_out_of_pyplot():
    fig = _side_by_side()
    before = [ax.get_subplotspec().get_geometry() for ax in fig.axes]
    open_before = plt.get_fignums()
    narrow = nf.narrow_layout(fig)
    assert [ax.get_subplotspec().get_geometry() for ax in fig.axes] == before
    assert plt.get_fignums() == open_before and narrow is not fig


def test_a_legend_too_wide_for_a_phone_gets_fewer_columns_and_long_labels_break():
    fig, ax = style.new_figure()
    lines = [ax.plot([0, 1], [k, k], label=f"a fairly long series label number {k}")[0] for k in range(4)]
    style.legend_below(fig, lines, ncols=4)
    narrow = nf.narrow_layout(fig)
    (legend,) = narrow.legends
    assert legend._ncols < 4
    assert style.figure_problems(narrow, width=nf.NARROW_WIDTH_IN, narrow=False) == []


def test_a_figure_that_redraws_itself_narrow_is_drawn_again_not_copied():
    calls = []

    def draw(width: float):
        calls.append(width)
        fig, ax = style.new_figure(width=width)
        ax.plot([0, 1], [0, 1])
        return nf.redraw_narrow(fig, draw)

    wide = draw(style.COLUMN_WIDTH_IN)
    narrow = nf.narrow_layout(wide)
    assert calls == [style.COLUMN_WIDTH_IN, nf.NARROW_WIDTH_IN]
    assert narrow.get_size_inches()[0] == pytest.approx(nf.NARROW_WIDTH_IN)


def test_the_narrow_svg_is_the_same_bytes_every_time_and_undated():
    fig = _side_by_side()
    first, second = nf.narrow_svg(fig), nf.narrow_svg(fig)
    assert first == second and "<dc:date>" not in first
    assert 'width="266.4pt"' in first  # 3.7 in at 72 pt an inch


def test_figure_problems_reports_the_narrow_layout_too():
    fig, ax = style.new_figure()
    ax.set_title("a title far too long for a phone column, which no wrapping can save: " + "x" * 60)
    problems = style.figure_problems(fig)
    assert any(p.startswith("narrow layout:") for p in problems)
    assert not any(p.startswith("narrow layout:") for p in style.figure_problems(fig, narrow=False))


def test_a_notebook_shell_stores_the_narrow_drawing_beside_every_figure():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    nf.show_narrow_layouts(shell)
    nf.show_narrow_layouts(shell)  # safe to call again
    data, _ = shell.display_formatter.format(_side_by_side())
    assert data[nf.NARROW_MIME].startswith("<?xml") and 'width="266.4pt"' in data[nf.NARROW_MIME]
    assert data[nf.NARROW_MIME] == nf.narrow_svg(_side_by_side())

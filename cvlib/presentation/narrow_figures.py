"""Every figure a second time, laid out for a phone: one column of panels, the legend below, nothing shrunk.

The book draws its figures for the 6.5 in text column. A phone held upright
has a column of about 358 CSS px, so the page would either shrink a figure's
9 pt text to 5 px or make it scroll sideways. Instead each figure is also
drawn :data:`NARROW_WIDTH_IN` wide with the same data and text sizes: its
panels stacked in reading order (left to right, then down), a y axis that
side-by-side panels shared written out on each, the figure's legends in as
many columns as fit. The page shows this narrow drawing on small screens and
the wide one elsewhere (``book/_ext/narrow_figures.py``, ``cvbook.css``).

The narrow drawing is made from the finished figure, so it always shows the
same run. A figure whose drawing depends on its width (labels placed by the
space a step takes, cells that hold words) registers how to draw itself again
at another width with :func:`redraw_narrow`; every other figure is copied and
laid out anew. In a notebook,
:func:`show_narrow_layouts` (called by
:func:`cvlib.presentation.style.set_style`) adds it to every displayed or
glued figure under :data:`NARROW_MIME`.
"""

from __future__ import annotations

import io
import pickle
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

#: Width of a figure's narrow layout, in inches (355 CSS px, within a 390 px phone's 358 px text column).
NARROW_WIDTH_IN = 3.7
#: The output type a notebook stores a figure's narrow SVG under, beside its ``image/svg+xml``.
NARROW_MIME = "application/vnd.cvbook.narrow-figure+svg"
#: Height a panel keeps when stacked, in inches, at least.
_MIN_PANEL_IN = 1.9
#: Height of one more row of legend entries, in inches (9 pt text and its spacing).
_LEGEND_ROW_IN = 0.24


#: Figures that draw themselves again at another width, with the function that does it.
_REDRAWS: WeakKeyDictionary[Any, Callable[[float], Any]] = WeakKeyDictionary()


def redraw_narrow(figure: Figure, draw: Callable[[float], Figure]) -> Figure:
    """Record how ``figure`` is drawn again at another width, for :func:`narrow_layout` to use.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The wide figure.
    draw : callable
        Takes a width in inches and returns the same figure drawn that wide
        from the same data.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure``, so a figure function can end with ``return redraw_narrow(fig, ...)``.
    """
    _REDRAWS[figure] = draw
    return figure


def narrow_layout(figure: Figure, width: float = NARROW_WIDTH_IN) -> Figure:
    """A copy of ``figure`` laid out ``width`` inches wide: panels in one column, legends below, same text sizes.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        A finished figure, made with constrained layout (as
        :func:`cvlib.presentation.style.new_figure` makes it). It is not changed.
    width : float
        The narrow layout's width, in inches.

    Returns
    -------
    matplotlib.figure.Figure
        A new figure, not registered with pyplot (so a notebook never shows it
        by itself), ``width`` wide and tall enough for every panel to keep at
        least the height it had.
    """
    import matplotlib.pyplot as plt

    redraw = _REDRAWS.get(figure)
    if redraw is not None:
        drawn = redraw(width)
        plt.close(drawn)
        return drawn
    wide_w, wide_h = figure.get_size_inches()
    copy = _copy(figure)
    if type(copy.get_layout_engine()).__name__ != "ConstrainedLayoutEngine":
        copy.set_layout_engine("constrained")  # a tight layout is fixed at the wide size; this one is redone
    panels = _panels(copy)
    rows = max((spec.rowspan.stop for spec, _ in panels), default=1)
    cols = max((spec.colspan.stop for spec, _ in panels), default=1)
    legend_rows_before = _legend_rows(copy)
    extra = 0.0
    if cols > 1:
        panel_h = max(_MIN_PANEL_IN, wide_h / max(rows, 1) * 0.9)
        extra += panel_h * (len(panels) - rows)
        grid = copy.add_gridspec(len(panels), 1)
        for k, (_, axes) in enumerate(panels):
            for ax in axes:
                ax.set_subplotspec(grid[k, 0])
                ax.yaxis.set_tick_params(which="both", labelleft=True)
    copy.set_size_inches(width, wide_h + extra)
    _refit_legends(copy, width)
    _wrap_long_texts(copy)
    extra += _LEGEND_ROW_IN * max(0, _legend_rows(copy) - legend_rows_before)
    # a narrower panel keeps its height: text that sat beside the data now needs room above or below
    extra += 0.15 * wide_h * (1 - width / wide_w) if cols == 1 else 0.0
    copy.set_size_inches(width, wide_h + extra)
    return copy


def narrow_svg(figure: Figure) -> str:
    """The SVG of :func:`narrow_layout`, written the way the book writes every figure (no date, fixed ids).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        A finished figure.

    Returns
    -------
    str
        The SVG document.
    """
    narrow = narrow_layout(figure)
    buffer = io.StringIO()
    narrow.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def show_narrow_layouts(shell: Any) -> None:
    """Make an IPython shell add a figure's narrow SVG (:data:`NARROW_MIME`) wherever it shows or glues one.

    Parameters
    ----------
    shell : object
        The notebook's IPython shell (an ``InteractiveShell``). Safe to call again.

    Returns
    -------
    None
    """
    from IPython.core.formatters import BaseFormatter
    from matplotlib.figure import Figure
    from traitlets import ObjectName, Unicode

    class NarrowFigureFormatter(BaseFormatter):  # type: ignore[misc]
        """Formats a matplotlib figure as its narrow SVG."""

        format_type = Unicode(NARROW_MIME)
        print_method = ObjectName("_repr_narrow_svg_")

    formatters = shell.display_formatter.formatters
    if NARROW_MIME not in formatters:
        formatters[NARROW_MIME] = NarrowFigureFormatter(parent=shell.display_formatter)
    formatters[NARROW_MIME].for_type(Figure, narrow_svg)


def _copy(figure: Figure) -> Figure:
    """A deep copy of a figure, kept out of pyplot's list of open figures."""
    import matplotlib.pyplot as plt

    copy: Figure = pickle.loads(pickle.dumps(figure))  # noqa: S301 - our own figure, pickled a line above
    plt.close(copy)  # unpickling a pyplot figure opens it in pyplot again; a no-op otherwise
    return copy


def _panels(figure: Figure) -> list[tuple[Any, list[Any]]]:
    """The figure's panels in reading order: each grid cell's subplot spec and the axes drawn in it (twins share one)."""
    cells: dict[tuple[int, int, int, int], tuple[Any, list[Any]]] = {}
    for ax in figure.axes:
        spec = ax.get_subplotspec()
        if spec is None or not ax.get_visible():
            continue
        key = (spec.rowspan.start, spec.colspan.start, spec.rowspan.stop, spec.colspan.stop)
        cells.setdefault(key, (spec, []))[1].append(ax)
    return [cells[key] for key in sorted(cells)]


def _legend_rows(figure: Figure) -> int:
    """Rows of entries in the figure's own legends (those below the panels)."""
    import math

    return sum(math.ceil(len(leg.get_texts()) / max(1, getattr(leg, "_ncols", 1))) for leg in figure.legends)


def _refit_legends(figure: Any, width: float) -> None:
    """Redraw each figure legend in as many columns as fit ``width`` (one at least)."""
    for legend in list(figure.legends):
        handles: list[Any] = list(legend.legend_handles)
        labels = [t.get_text() for t in legend.get_texts()]
        columns = legend._ncols
        loc: Any = f"outside {legend._outside_loc} center" if legend._outside_loc else legend._loc
        frame = legend.get_frame_on()
        legend.remove()
        while True:
            new = figure.legend(handles, labels, loc=loc, ncols=columns, frameon=frame)
            wide = _width_in(figure, new)
            if wide <= width - 0.1:
                break
            if columns == 1:  # one entry a line and still too wide: its longest labels break between words
                longest = max(len(label) for label in labels)
                per_line = max(10, int(longest * (width - 0.1) / wide) - 2)
                new.remove()
                new = figure.legend(handles, [textwrap.fill(label, per_line) for label in labels], loc=loc, ncols=1,
                                    frameon=frame)
                break
            new.remove()
            columns -= 1


def _width_in(figure: Any, artist: Any) -> float:
    """An artist's drawn width, in inches."""
    return float(artist.get_window_extent(figure._get_renderer()).width / figure.dpi)


def _wrap_long_texts(figure: Figure) -> None:
    """Let titles and axis labels that no longer fit break between words, inside the figure (matplotlib's wrap)."""
    texts: list[Any] = [*figure.texts]
    axes: list[Any] = figure.axes  # the two side titles are private attributes matplotlib does not type
    for ax in axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label]
    for text in texts:
        if text.get_text():
            text.set_wrap(True)


__all__ = ["NARROW_MIME", "NARROW_WIDTH_IN", "narrow_layout", "narrow_svg", "redraw_narrow", "show_narrow_layouts"]

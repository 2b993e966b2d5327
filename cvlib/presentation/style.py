"""The book's one figure style: drawn for the text column, readable at the size it is shown.

Every figure in the book is made by a function in :mod:`cvlib.presentation`
that starts from :func:`new_figure`, so all of them share what a reader
should be able to rely on:

* the width of the text column, :data:`COLUMN_WIDTH_IN` inches, so the page
  shows a figure at its natural size and never shrinks its text; panels are
  stacked rather than squeezed side by side;
* text of at least :data:`MIN_FONT_PT` points at that size;
* SVG output in the notebooks (crisp at any zoom, exact in size), with a
  fixed hash salt and no date so the same data gives the same bytes;
* a second, narrow SVG of every figure beside it, panels stacked and legend
  below, which the page shows on a phone (:mod:`cvlib.presentation.narrow_figures`);
* the same colour for an executor on every page: the article's two keep
  :data:`PALETTE`'s, ``timestamp_only`` and any other policy get one of
  :data:`EXECUTOR_COLOURS` chosen from its name (:func:`policy_colours`), and
  every executor's name is written as words (:func:`policy_label`).

:func:`figure_problems` checks a finished figure against these rules (width,
font sizes, text that collides with other text or leaves the figure); the
tests run it on every figure function.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import policies as registered_policies
from cvlib.presentation.narrow_figures import NARROW_WIDTH_IN, narrow_layout, show_narrow_layouts

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

#: Width of the book's text column, in inches (the page shows a figure this wide at its natural size).
COLUMN_WIDTH_IN = 6.5
#: The smallest text a figure may use, in points at its natural size.
MIN_FONT_PT = 9.0

#: Executor colours, the same in every figure (the colour-blind-safe Okabe-Ito vermillion and blue).
PALETTE: dict[str, str] = {"baseline": "#D55E00", "validity_aware": "#0072B2"}

#: The executors' names as a reader sees them.
LABELS: dict[str, str] = {"baseline": "Baseline", "validity_aware": "Validity-aware"}

#: Colours of executors beyond the article's two, in the order a name's hash picks them (Okabe-Ito
#: orange and bluish green first, then colours no accent uses).
EXECUTOR_COLOURS: tuple[str, ...] = ("#E69F00", "#009E73", "#CC79A7", "#7F3C8D", "#8C6D31", "#000000", "#11A579")

#: Colours of the executors the library ships beyond the article's two.
_SHIPPED_COLOURS: dict[str, str] = {"timestamp_only": EXECUTOR_COLOURS[0]}


def policy_label(name: str) -> str:
    """An executor's name as a reader sees it: :data:`LABELS`, a policy's own ``label``, or its name in words.

    Parameters
    ----------
    name : str
        The executor's name (``"timestamp_only"``).

    Returns
    -------
    str
        ``"Baseline"``, ``"Validity-aware"``, ``"Timestamp-only"``; a registered
        policy with a string ``label`` attribute gets that.
    """
    if name in LABELS:
        return LABELS[name]
    own = getattr(registered_policies().get(name), "label", None)
    if isinstance(own, str) and own:
        return own
    words = name.replace("_", "-")
    return words[:1].upper() + words[1:]


def policy_colour(name: str) -> str:
    """An executor's colour, the same on every page: :data:`PALETTE` for the article's two, else from its name.

    Parameters
    ----------
    name : str
        The executor's name.

    Returns
    -------
    str
        A hex colour; another policy's is picked from :data:`EXECUTOR_COLOURS` by a
        hash of the name (SHA-256, so the same in every process and run).
    """
    if name in PALETTE:
        return PALETTE[name]
    if name in _SHIPPED_COLOURS:
        return _SHIPPED_COLOURS[name]
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")
    return EXECUTOR_COLOURS[1 + digest % (len(EXECUTOR_COLOURS) - 1)]


def policy_colours(names: Iterable[str]) -> dict[str, str]:
    """Colours for the executors of one figure: :func:`policy_colour`, a clash moved to the next free colour.

    Parameters
    ----------
    names : iterable of str
        The executors drawn, in order.

    Returns
    -------
    dict of str to str
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        colour = policy_colour(name)
        if colour in taken and name not in PALETTE:
            free = [c for c in EXECUTOR_COLOURS if c not in taken]
            colour = free[0] if free else colour
        out[name] = colour
        taken.add(colour)
    return out


#: Colours for things that belong to neither executor (Okabe-Ito, none reusing an executor's colour).
ACCENTS: dict[str, str] = {
    "exposure": "#CC79A7",  # share of a plan a broken fact can reach
    "replan": "#8C8C8C",  # the recovery both executors pay
    "event": "#009E73",  # the moment the world changes
    "law": "#333333",  # the closed-form prediction
    "window": "#56B4E9",  # budgets where only validity-aware completes
}

#: Further categorical colours, in order, for series that are not executors (policies, checkers, projects).
SERIES: tuple[str, ...] = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C8C8C")

#: Font sizes, in points, at the figure's natural size.
FONT_SIZES: dict[str, float] = {"text": 10.0, "ticks": 9.0, "legend": 9.0, "title": 10.5, "annotation": 9.0}

_RC: dict[Any, Any] = {  # matplotlib types its keys as literals
    "figure.figsize": (COLUMN_WIDTH_IN, 3.6),
    "figure.dpi": 100,
    "savefig.dpi": 200,  # a PNG, when one is made, at twice the screen's density
    "font.size": FONT_SIZES["text"],
    "axes.titlesize": FONT_SIZES["title"],
    "axes.titleweight": "bold",
    "axes.labelsize": FONT_SIZES["text"],
    "xtick.labelsize": FONT_SIZES["ticks"],
    "ytick.labelsize": FONT_SIZES["ticks"],
    "legend.fontsize": FONT_SIZES["legend"],
    "legend.title_fontsize": FONT_SIZES["legend"],
    "figure.titlesize": FONT_SIZES["title"],
    "svg.hashsalt": "cvbook",  # the same ids in every SVG, run after run
    "svg.fonttype": "path",  # text drawn as outlines: it looks the same in every browser
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def set_style() -> None:
    """Apply the book's figure style; in a notebook, also make figures display as SVG at their natural size.

    Call once at the top of a notebook (the chapters do it in their hidden
    set-up cell). Safe to call again.

    Returns
    -------
    None
    """
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    mpl.rcParams.update(_RC)
    shell = _kernel()
    if shell is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        # bbox_inches=None keeps the figure exactly COLUMN_WIDTH_IN wide (constrained layout
        # keeps everything inside it); no date, so the SVG is the same on every run.
        set_matplotlib_formats("svg", bbox_inches=None, metadata={"Date": None})
        show_narrow_layouts(shell)  # and each figure again, laid out for a phone (the page picks one)


def new_figure(
    rows: int = 1,
    cols: int = 1,
    *,
    height: float | None = None,
    width: float = COLUMN_WIDTH_IN,
    squeeze: bool = True,
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """A figure of the text column's width with a grid of axes, laid out so nothing is cut off.

    The figure is made through pyplot, so a notebook shows it when the cell
    that made it ends (assign it, ``fig = cv.figures....``, rather than
    ending the cell with it, which would show it twice), and the older
    ``plt.show()`` idiom works too.

    Parameters
    ----------
    rows, cols:
        The grid of panels.
    height:
        Height in inches (default: 3.6 for one row, 2.6 per row for more).
    width:
        Width in inches; the text column's by default, and never wider.
    squeeze:
        Return a single Axes (not an array) for a 1 × 1 grid.
    **subplot_kw:
        Passed to :meth:`matplotlib.figure.Figure.subplots` (``sharex``, ``gridspec_kw``, ...).

    Returns
    -------
    tuple
        ``(figure, axes)``.
    """
    import matplotlib.pyplot as plt


    if width > COLUMN_WIDTH_IN + 1e-9:
        raise ParameterError(f"a figure may be at most {COLUMN_WIDTH_IN} in wide (the text column); got {width}")
    if height is None:
        height = 3.6 if rows == 1 else 2.6 * rows
    fig = plt.figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=squeeze, **subplot_kw)
    return fig, axes


def legend_below(fig: Figure, handles: Iterable[Any], labels: Iterable[str] | None = None, ncols: int = 2) -> Any:
    """One legend for the whole figure, under the panels, outside every axes.

    Parameters
    ----------
    fig:
        The figure (made with constrained layout, as :func:`new_figure` makes it).
    handles:
        Legend handles (artists).
    labels:
        Their labels (default: each handle's own label).
    ncols:
        Columns of legend entries.

    Returns
    -------
    matplotlib.legend.Legend
        The legend.
    """
    handles = list(handles)
    labels = [h.get_label() for h in handles] if labels is None else list(labels)
    return fig.legend(handles, labels, loc="outside lower center", ncols=ncols, frameon=False)


def figure_problems(
    fig: Figure, *, width: float = COLUMN_WIDTH_IN, min_font: float = MIN_FONT_PT, narrow: bool = True
) -> list[str]:
    """What a reader would find wrong with a figure at its natural size, or on a phone; empty when nothing is.

    Checks that the figure is no wider than the text column, that every
    visible text is at least ``min_font`` points, that no two texts overlap,
    and that no text reaches outside the figure; then the same of the layout a
    phone shows (:func:`cvlib.presentation.narrow_figures.narrow_layout`),
    :data:`~cvlib.presentation.narrow_figures.NARROW_WIDTH_IN` wide.

    Parameters
    ----------
    fig:
        A finished figure.
    width:
        The widest the figure may be, in inches.
    min_font:
        The smallest font size allowed, in points.
    narrow:
        Also check the figure's narrow layout (its problems start "narrow layout:").

    Returns
    -------
    list of str
        One line per problem.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    problems = []
    fig_w, fig_h = fig.get_size_inches()
    if fig_w > width + 1e-6:
        problems.append(f"figure is {fig_w:.2f} in wide; the text column is {width} in")
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [t for t in _texts(fig) if t.get_visible() and t.get_text().strip()]
    frame = fig.bbox
    boxes = []
    for t in texts:
        name = repr(t.get_text())
        if t.get_fontsize() < min_font - 1e-6:
            problems.append(f"text {name} is {t.get_fontsize():g} pt; at least {min_font:g} pt is needed")
        box = t.get_window_extent(renderer)
        if box.x0 < frame.x0 - 1 or box.y0 < frame.y0 - 1 or box.x1 > frame.x1 + 1 or box.y1 > frame.y1 + 1:
            problems.append(f"text {name} reaches outside the figure")
        boxes.append((t, box.shrunk(0.98, 0.9)))
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if box_a.overlaps(box_b):
                problems.append(f"texts {a.get_text()!r} and {b.get_text()!r} overlap")
    if narrow:
        phone = narrow_layout(fig)
        problems += [f"narrow layout: {p}" for p in figure_problems(phone, width=NARROW_WIDTH_IN, min_font=min_font,
                                                                    narrow=False)]
    return problems


def _texts(fig: Figure) -> list[Any]:
    """Every text the figure really draws: titles, labels, annotations, legends, and in-range tick labels."""
    found = list(fig.texts)
    for legend in fig.legends:
        found += [*legend.get_texts(), legend.get_title()]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        titled: Any = ax  # the two side titles are private attributes matplotlib does not type
        found += [*ax.texts, ax.title, titled._left_title, titled._right_title]
        for axis in (ax.xaxis, ax.yaxis):
            if not axis.get_visible():
                continue
            found.append(axis.label)
            lo, hi = sorted(axis.get_view_interval())
            span = (hi - lo) or 1.0
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if lo - 1e-9 * span <= tick.get_loc() <= hi + 1e-9 * span:
                    found += [label for label in (tick.label1, tick.label2) if label.get_visible()]
        own_legend = ax.get_legend()
        if own_legend is not None:
            found += [*own_legend.get_texts(), own_legend.get_title()]
    return found


def _kernel() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return None
    shell = get_ipython()
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


__all__ = [
    "ACCENTS",
    "COLUMN_WIDTH_IN",
    "FONT_SIZES",
    "LABELS",
    "MIN_FONT_PT",
    "PALETTE",
    "EXECUTOR_COLOURS",
    "SERIES",
    "figure_problems",
    "legend_below",
    "new_figure",
    "policy_colour",
    "policy_colours",
    "policy_label",
    "set_style",
]

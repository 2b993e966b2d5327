"""One way to show a table: human column names, formatted numbers, nothing cut off.

Every table in the book goes through :func:`table`. It takes a DataFrame that
cvlib computed and returns a :class:`Table`, which a notebook displays by
ending a cell with it. What the reader gets:

* the columns it names, under the names it gives them, and no integer index;
* every number written by :mod:`cvlib.presentation.formatting`, one kind of
  quantity per column (thousands separators, fixed decimals), *yes*/*no* for
  truth values and ``–`` for a missing value, so a table and the prose around
  it write the same value the same way;
* all rows and columns, never pandas' ``…``; a table longer than
  :data:`COLLAPSE_AFTER` rows is folded into a dropdown behind a one-line
  summary, so it does not push the chapter's argument off the screen;
* HTML with the ``cvtable`` class, which the book's stylesheet
  (``book/_static/cvbook.css``) sets in a smaller type with wrapping headers
  so it fits the text column.

The HTML and plain-text renderings are deterministic (no random ids, no
object addresses), so nbval can compare them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.formatting import MISSING, Quantity, fmt, is_missing
from cvlib.presentation.style import policy_label

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.scenarios.setup import ScenarioRun

#: Tables with more rows than this are folded into a dropdown.
COLLAPSE_AFTER = 12
#: A word longer than this may break after its dots, underscores and slashes on a wide screen.
LONG_WORD = 18
_LONG_WORD = re.compile(rf"[^\s]{{{LONG_WORD + 1},}}")


def breakable(text: str) -> str:
    """A cell's text as HTML, each long dotted or snake_case word marked where a wide screen may break it.

    On a desktop a table must fit the text column, and a name such as
    ``werkzeug.sansio.request.Request.host`` is the widest thing in its column.
    After each ``.``, ``_``, ``/`` and ``::`` of a word longer than :data:`LONG_WORD`
    characters goes an empty ``<span class="cvbr">``, which ``cvbook.css``
    turns into a break opportunity above 672 px only: on a phone the table
    scrolls sideways instead, its words whole.

    Parameters
    ----------
    text : str
        The cell's text.

    Returns
    -------
    str
        Escaped HTML.
    """
    def mark(match: re.Match[str]) -> str:
        word = html.escape(match.group(0))
        return re.sub(r"([._/:])(?=[^._/:])", r'\1<span class="cvbr"></span>', word)

    out, last = [], 0
    for match in _LONG_WORD.finditer(text):
        out += [html.escape(text[last:match.start()]), mark(match)]
        last = match.end()
    return "".join([*out, html.escape(text[last:])])

_Format = str | Quantity | Callable[[Any], str]  # a column's format


@dataclass(frozen=True)
class Table:
    """A formatted table, ready to display: every cell is already the text a reader sees.

    Parameters
    ----------
    header:
        Column names, as shown.
    rows:
        Rows of cell texts.
    numeric:
        For each column, whether it holds numbers (set right-aligned).
    caption:
        A sentence above the table, or None.
    summary:
        The line shown on a folded table's dropdown.
    collapsed:
        Whether the table is folded into a dropdown.
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...] = field(default=())
    caption: str | None = None
    summary: str | None = None
    collapsed: bool = False

    def __post_init__(self) -> None:
        width = len(self.header)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ParameterError(f"table row {i} has {len(row)} cells; the header has {width}")
        if self.numeric and len(self.numeric) != width:
            raise ParameterError(f"numeric flags for {len(self.numeric)} columns; the header has {width}")

    def _repr_html_(self) -> str:
        numeric = self.numeric or (False,) * len(self.header)
        parts = ['<table class="cvtable">']
        if self.caption:
            parts.append(f"<caption>{html.escape(self.caption)}</caption>")
        parts.append("<thead><tr>")
        parts += [f'<th{_align(n)}>{breakable(h)}</th>' for h, n in zip(self.header, numeric)]
        parts.append("</tr></thead><tbody>")
        for row in self.rows:
            parts.append("<tr>" + "".join(f"<td{_align(n)}>{breakable(c)}</td>" for c, n in zip(row, numeric)) + "</tr>")
        parts.append("</tbody></table>")
        body = "".join(parts)
        if not self.collapsed:
            return f'<div class="cvtable-wrap">{body}</div>'
        summary = html.escape(self.summary or f"{len(self.rows):,} rows")
        return (
            '<details class="cvtable-fold">'
            f'<summary><span class="cvtable-summary">{summary}</span>'
            '<span class="cvtable-show">show the table</span></summary>'
            f'<div class="cvtable-wrap">{body}</div></details>'
        )

    def __repr__(self) -> str:
        """The table as aligned plain text (what nbval compares and a terminal shows)."""
        cells = [list(self.header), *map(list, self.rows)]
        widths = [max(len(row[j]) for row in cells) for j in range(len(self.header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        if self.caption:
            lines.insert(0, self.caption)
        if self.collapsed:
            lines.insert(0, f"[{self.summary or f'{len(self.rows):,} rows'}]")
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """The displayed texts as a DataFrame of strings (for tests and for reuse).

        Returns
        -------
        pandas.DataFrame
            One column per displayed column, cells as shown.
        """
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(self.header))


def _align(numeric: bool) -> str:
    return ' class="num"' if numeric else ""


def table(
    frame: pd.DataFrame,
    columns: Mapping[str, str] | Sequence[str] | None = None,
    formats: Mapping[str, str | Quantity | Callable[[Any], str]] | None = None,
    *,
    caption: str | None = None,
    summary: str | None = None,
    collapse_after: int | None = COLLAPSE_AFTER,
    index: str | None = None,
) -> Table:
    """A DataFrame as the book shows tables.

    Parameters
    ----------
    frame:
        The data, one row per table row.
    columns:
        Which columns to show, in order, and their human names:
        ``{"baseline_pfw": "Baseline PFW", ...}``; a list keeps the names
        as they are. None shows every column, names as they are.
    formats:
        Per column (by its name in ``frame``): a quantity name of
        :data:`cvlib.presentation.formatting.QUANTITIES`, a
        :class:`~cvlib.presentation.formatting.Quantity`, or a function
        from a value to its text. Columns not named here are written by
        their type: integers as counts, floats with two decimals, truth
        values as *yes*/*no*, text as it is.
    caption:
        A sentence shown above the table.
    summary:
        The one-line summary shown on the dropdown when the table is folded
        (default: its row count).
    collapse_after:
        Fold the table into a dropdown when it has more rows than this
        (None: never fold).
    index:
        Show the frame's index as a first column under this name (None: the
        index is not shown).

    Returns
    -------
    Table
        The formatted table; end a notebook cell with it to display it.
    """
    formats = dict(formats or {})
    data = frame.reset_index() if index is not None else frame
    if index is not None:
        first = data.columns[0]
        data = data.rename(columns={first: "__index__"})
        if isinstance(columns, Mapping):
            columns = {"__index__": index, **columns}
        elif columns is not None:
            columns = {"__index__": index, **{c: c for c in columns}}
        if first in formats:
            formats["__index__"] = formats.pop(first)
    if columns is None:
        names = {str(c): str(c) for c in data.columns}
    elif isinstance(columns, Mapping):
        names = {str(k): str(v) for k, v in columns.items()}
    else:
        names = {str(c): str(c) for c in columns}
    missing = [c for c in names if c not in data.columns]
    if missing:
        raise ParameterError(f"table: no column {missing[0]!r}; the frame has {', '.join(map(str, data.columns))}")
    unknown = [c for c in formats if c not in names]
    if unknown:
        raise ParameterError(f"table: a format for {unknown[0]!r}, which is not a shown column")
    writers = {c: _writer(data[c], formats.get(c)) for c in names}
    rows = tuple(tuple(writers[c](v) for c, v in zip(names, values)) for values in data[list(names)].itertuples(index=False))
    numeric = tuple(_is_numeric(data[c], formats.get(c)) for c in names)
    collapsed = collapse_after is not None and len(rows) > collapse_after
    return Table(tuple(names.values()), rows, numeric, caption, summary, collapsed)


def _writer(column: pd.Series, spec: _Format | None) -> Callable[[Any], str]:
    if callable(spec) and not isinstance(spec, Quantity):
        return lambda v: MISSING if is_missing(v) else str(spec(v))
    if spec is not None:
        return lambda v: fmt(v, spec)
    kind = column.dtype.kind
    if kind == "b":
        return fmt
    if kind in "iu":
        return lambda v: fmt(v, "count")
    if kind == "f":
        if column.dropna().map(lambda x: float(x).is_integer()).all():
            return lambda v: fmt(v, "count")
        return lambda v: fmt(v, "mean")
    return lambda v: fmt(v) if not isinstance(v, str) else v


# a cell already written as a number (digits with separators, a sign, a unit such as % or ×)
_WRITTEN_NUMBER = re.compile(r"^[−+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:%|×| s| ms)?$")


def _is_numeric(column: pd.Series, spec: _Format | None) -> bool:
    if spec is not None and not (callable(spec) and not isinstance(spec, Quantity)):
        return True
    if column.dtype.kind in "iuf":
        return True
    texts = [v for v in column if isinstance(v, str) and v not in (MISSING, "")]
    return bool(texts) and all(_WRITTEN_NUMBER.match(v) for v in texts)


def shown(frame: pd.DataFrame, *, caption: str | None = None, summary: str | None = None,
          collapse_after: int | None = COLLAPSE_AFTER) -> Table:
    """A DataFrame a library function already named and rounded for the page, as the book's table.

    Its columns are shown under their own names and its index, when it has
    a name, as the first column. A float column keeps the decimals its values
    were rounded to, the same for every row (so ``47.6`` and ``576.1`` stay
    one decimal, and ``126.0`` does not lose its ``.0``); integers get
    thousands separators; text is shown as it is.

    Parameters
    ----------
    frame:
        The table, columns already named for a reader.
    caption:
        A sentence shown above the table.
    summary:
        The line on the dropdown when the table is folded.
    collapse_after:
        Fold the table when it has more rows than this (None: never).

    Returns
    -------
    Table
        The formatted table.
    """
    formats: dict[str, Any] = {}
    for column in frame.columns:
        if frame[column].dtype.kind == "f":
            formats[str(column)] = Quantity(_decimals(frame[column]))
    import pandas as pd

    labelled = not isinstance(frame.index, pd.RangeIndex) or frame.index.name not in (None, "")
    data = frame.rename(columns=str)
    columns = {str(c): str(c) for c in frame.columns}
    name = str(frame.index.name or "")
    index = name[:1].upper() + name[1:] if labelled else None
    return table(data, columns, formats, caption=caption, summary=summary, collapse_after=collapse_after, index=index)


def _decimals(column: pd.Series, most: int = 3) -> int:
    """How many decimals the values of a float column were rounded to (at most ``most``)."""
    places = 0
    for value in column.dropna():
        text = f"{float(value):.{most}f}".rstrip("0")
        places = max(places, len(text.split(".")[1]) if "." in text else 0)
    return places


#: The columns of an executor run as a reader sees them, in the order :func:`run_table` shows them.
RUN_COLUMNS: dict[str, str] = {
    "completed": "Completed",
    "steps_used": "Steps used",
    "budget": "Budget",
    "replans": "Replans",
    "verifications": "Verifications",
    "pre_failure_work": "Doomed steps (PFW)",
    "decisions_total": "Decisions",
    "decisions_on_stale_deps": "On stale facts",
    "scur": "SCUR",
}


def run_table(
    runs: ScenarioRun | Mapping[str, ScenarioRun],
    columns: Sequence[str] = ("completed", "steps_used", "budget", "replans", "verifications", "pre_failure_work", "scur"),
    *,
    caption: str | None = None,
) -> Table:
    """Each executor's results for one run (or several runs, one row per executor each), in the run's order.

    Parameters
    ----------
    runs:
        A :class:`~cvlib.scenarios.setup.ScenarioRun`, or a label for each of several.
    columns:
        Which results to show, keys of :data:`RUN_COLUMNS`, in order.
    caption:
        A sentence above the table.

    Returns
    -------
    Table
        One row per executor (per run), SCUR with two decimals.
    """
    import pandas as pd


    unknown = [c for c in columns if c not in RUN_COLUMNS]
    if unknown:
        raise ParameterError(f"run_table: unknown column {unknown[0]!r}; expected some of {', '.join(RUN_COLUMNS)}")
    labelled = runs if isinstance(runs, Mapping) else {"": runs}
    frames = []
    for label, run in labelled.items():
        frame = run.to_frame().reset_index(names="executor")
        frame["executor"] = frame["executor"].map(policy_label)
        frame.insert(0, "run", label)
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True)
    names = {"run": "Run"} if len(labelled) > 1 or "" not in labelled else {}
    names |= {"executor": "Executor", **{c: RUN_COLUMNS[c] for c in columns}}
    return table(data, names, {"scur": "share"} if "scur" in columns else None, caption=caption)


__all__ = ["COLLAPSE_AFTER", "RUN_COLUMNS", "Table", "run_table", "shown", "table"]

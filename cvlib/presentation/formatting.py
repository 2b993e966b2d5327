"""How the book writes a number: one helper for prose, tables and glued values.

A reader should meet the same value written the same way wherever it appears:
``0.50`` in the prose and ``0.50`` in the table (never ``0.5`` beside
``0.50``), ``1,000,000`` rather than ``1000000``, *yes* rather than ``True``,
``–`` for a value that is missing. Each kind of quantity the book reports has
one :class:`Quantity` saying how many decimals it gets and what follows it;
:func:`fmt` applies it, :func:`glue` formats and glues in one call, so a
notebook never formats a number by hand.

The same goes for the few phrases the chapters assemble around numbers:
:func:`plural` (``1 task``, ``12,000 tasks``), :func:`interval_text`
(``0.50 (0.40 to 0.60)``), :func:`verdict` and :func:`effect_phrase` (an effect,
its interval and what they say, in one short phrase, with an interval of width
zero written as what it is: ``identical on all 44 tasks``), and
:func:`grouped_effects` (several models' effects, each verdict said once).

Nothing here imports pandas, numpy or matplotlib at import time; numpy and
pandas scalars are recognised by duck typing.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cvlib.core.errors import ParameterError

#: The en dash the book prints for a missing value (None or NaN).
MISSING = "–"
#: The kind :func:`glue_all` glues as Markdown — whole sentences, set in the page's type, not as a value.
MARKDOWN = "markdown"


@dataclass(frozen=True)
class Quantity:
    """How one kind of quantity is written.

    Parameters
    ----------
    decimals:
        Digits after the decimal point; 0 writes an integer.
    suffix:
        Text after the number, e.g. ``"%"`` or ``" s"``.
    scale:
        Multiplier applied first (100 turns a share into a percentage).
    signed:
        Write a ``+`` before positive numbers (for differences).
    significant:
        Write this many significant digits instead of fixed decimals (for
        timings, which span orders of magnitude); numbers with more integer
        digits than that are written whole.
    """

    decimals: int = 0
    suffix: str = ""
    scale: float = 1.0
    signed: bool = False
    significant: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.decimals, int) or isinstance(self.decimals, bool) or self.decimals < 0:
            raise ParameterError(f"Quantity decimals must be a non-negative integer; got {self.decimals!r}")


#: Every kind of quantity the book prints, by name. Chapters refer to these names only.
QUANTITIES: dict[str, Quantity] = {
    "count": Quantity(0),  # steps, plans, cases, notes: integers with thousands separators
    "share": Quantity(2),  # a fraction of 1 (SCUR, completion rate, a share of objects)
    "percent": Quantity(1, "%"),  # a value already in percent
    "percent_of": Quantity(1, "%", scale=100.0),  # a fraction of 1, written as a percentage
    "percent_whole": Quantity(0, "%", scale=100.0),  # a fraction of 1, as a whole percentage
    "mean": Quantity(2),  # an average over runs (mean steps, mean doomed steps)
    "tenths": Quantity(1),  # a value to one decimal (notes per 100 per release, a fold change)
    "probability": Quantity(2),  # a prior, a break-even probability, a rate of change
    "rate": Quantity(3),  # a small per-tick or per-run rate measured by sampling
    "coefficient": Quantity(2),  # a fitted coefficient
    "r_squared": Quantity(3),  # a coefficient of determination
    "correlation": Quantity(2),
    "seconds": Quantity(significant=3),  # a timing in seconds: 0.271, 1.40, 23.0
    "milliseconds": Quantity(significant=3),
    "mib": Quantity(0, " MiB"),
    "ratio": Quantity(1, "×"),  # a speed-up or another ratio of two quantities
    "ratio_fine": Quantity(2, "×"),  # a ratio whose second decimal matters (a bound next to a target)
    "exponent": Quantity(2),  # a fitted growth exponent
    "difference": Quantity(0, signed=True),
}


def quantity(kind: str | Quantity) -> Quantity:
    """The :class:`Quantity` named ``kind`` (or ``kind`` itself).

    Parameters
    ----------
    kind:
        A name in :data:`QUANTITIES`, or a :class:`Quantity`.

    Returns
    -------
    Quantity
        How to write that kind of value.
    """
    if isinstance(kind, Quantity):
        return kind
    try:
        return QUANTITIES[kind]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown quantity {kind!r}; expected one of {', '.join(QUANTITIES)}") from None


def is_missing(value: Any) -> bool:
    """Whether ``value`` is missing: None, NaN or pandas' missing marker.

    Parameters
    ----------
    value:
        Any value.

    Returns
    -------
    bool
        True if the book writes it as ``–``.
    """
    if value is None:
        return True
    if isinstance(value, float) or type(value).__name__ in {"float32", "float64", "NAType", "NaTType"}:
        try:
            return bool(value != value)  # NaN is the only value unequal to itself
        except TypeError:  # pandas.NA refuses a truth value
            return True
    return False


def words(value: Any, yes: str = "yes", no: str = "no") -> str:
    """A truth value as a word (``True`` is never printed).

    Parameters
    ----------
    value:
        A bool (or numpy bool).
    yes, no:
        The words for true and false.

    Returns
    -------
    str
        ``yes`` or ``no`` (or the words given), ``–`` if missing.
    """
    if is_missing(value):
        return MISSING
    if not _is_bool(value):
        raise ParameterError(f"words() needs a truth value; got {value!r}")
    return yes if bool(value) else no


def fmt(value: Any, kind: str | Quantity = "count", *, decimals: int | None = None) -> str:
    """One value, written as the book writes that kind of quantity.

    Parameters
    ----------
    value:
        A number, a truth value (written as *yes*/*no*), a string (returned as
        is), None or NaN (written ``–``), or a list or tuple of these (joined
        with commas).
    kind:
        A name in :data:`QUANTITIES` (default ``"count"``) or a :class:`Quantity`.
    decimals:
        Override the quantity's number of decimals.

    Returns
    -------
    str
        The text a reader sees, e.g. ``fmt(1000000)`` is ``"1,000,000"`` and
        ``fmt(0.5, "share")`` is ``"0.50"``.
    """
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v, kind, decimals=decimals) for v in value)
    if is_missing(value):
        return MISSING
    if _is_bool(value):
        return words(value)
    if isinstance(value, str):
        return value
    if not isinstance(value, numbers.Real):
        if hasattr(value, "item"):  # a numpy scalar
            return fmt(value.item(), kind, decimals=decimals)
        raise ParameterError(f"cannot format {value!r} as a number")
    q = quantity(kind)
    places = q.decimals if decimals is None else decimals
    x = float(value) * q.scale
    if math.isinf(x):
        return ("−" if x < 0 else "") + "∞"
    if q.significant is not None and decimals is None and x != 0 and abs(x) < 10**q.significant:
        text = f"{x:#.{q.significant}g}".rstrip(".")
    else:
        text = f"{x:,.{places}f}"
    zero = text.lstrip("-").strip("0.,") == ""
    if zero:  # -0.00 and 0.00 are both zero, and a zero has no sign
        text = text.lstrip("-")
    if text.startswith("-"):
        text = "−" + text[1:]  # a true minus sign
    elif q.signed and x > 0 and not zero:
        text = "+" + text
    return text + q.suffix


def plain_words(text: Any) -> str:
    """A text from a library table with Python's ``True``/``False`` written as *yes*/*no*.

    Some results are strings built from several values (``"True / True"`` for
    two executors' completions); a reader should see ``yes / yes``.

    Parameters
    ----------
    text:
        A value already written as text (anything else goes through :func:`fmt`).

    Returns
    -------
    str
        The text with each whole word ``True`` or ``False`` replaced.
    """
    import re

    if not isinstance(text, str):
        return fmt(text)
    return re.sub(r"\b(True|False)\b", lambda m: "yes" if m.group(1) == "True" else "no", text)


def listing(values: Iterable[Any], kind: str | Quantity = "count", *, last: str = ", ", empty: str = "none") -> str:
    """Several values in a row, e.g. ``"1, 2, 3"`` or (with ``last=" and "``) ``"1, 2 and 3"``.

    Parameters
    ----------
    values : mapping
        The values, in order.
    kind:
        How each is written (see :func:`fmt`).
    last:
        The separator before the last value.
    empty:
        The text for no values at all.

    Returns
    -------
    str
        The values written and joined.
    """
    texts = [fmt(v, kind) for v in values]
    if not texts:
        return empty
    if len(texts) == 1:
        return texts[0]
    return ", ".join(texts[:-1]) + last + texts[-1]


def range_text(text: str) -> str:
    """A range the library wrote with a hyphen (``"6-8"``, ``"8-8"``), as the prose writes it (``"6–8"``, ``"8"``).

    Parameters
    ----------
    text:
        A range ``low-high``, or any other text (``"none"``, ``"4,6"``), which is kept.

    Returns
    -------
    str
        One value when both ends are the same, else the ends joined by an en dash.
    """
    ends = text.split("-")
    return ends[0] if len(set(ends)) == 1 else text.replace("-", "–")


def span(values: Iterable[Any], kind: str | Quantity = "count") -> str:
    """The range of some values, ``"3–8"`` (one value: just it).

    Parameters
    ----------
    values : mapping
        The values (at least one).
    kind:
        How the ends are written.

    Returns
    -------
    str
        ``low–high`` with an en dash.
    """
    items = [v for v in values if not is_missing(v)]
    if not items:
        return MISSING
    lo, hi = fmt(min(items), kind), fmt(max(items), kind)
    return lo if lo == hi else f"{lo}–{hi}"


#: The verdict on a difference whose interval includes zero (it may be there; the data do not show it).
NOT_DISTINGUISHABLE = "not distinguishable from zero"


def plural(count: Any, noun: str, plural_noun: str | None = None, kind: str | Quantity = "count") -> str:
    """A count and its noun, the noun in the singular only when the count as written is 1.

    Parameters
    ----------
    count:
        The number (written by :func:`fmt`, so ``12000`` reads ``12,000``).
    noun:
        The noun for one (``"task"``).
    plural_noun:
        The noun for any other number (default: ``noun + "s"``).
    kind:
        How the number is written.

    Returns
    -------
    str
        ``"1 task"``, ``"0 tasks"``, ``"12,000 tasks"``, ``"1.0 steps"`` (a written
        ``1.0`` is not one of something). A missing count is ``"– tasks"``.
    """
    text = fmt(count, kind)
    many = plural_noun if plural_noun is not None else noun + "s"
    return f"{text} {noun if text.lstrip('+−-') == '1' else many}"


def interval_text(mean: Any, low: Any, high: Any, kind: str | Quantity = "mean") -> str:
    """A value with its interval, ``"0.50 (0.40 to 0.60)"``, each end written as the value is.

    Parameters
    ----------
    mean, low, high:
        The estimate and its interval's ends.
    kind:
        How the three are written (see :func:`fmt`).

    Returns
    -------
    str
        ``–`` for a missing estimate; ``"0.50 (interval not computable)"`` when an end is missing.
    """
    if is_missing(mean):
        return MISSING
    if is_missing(low) or is_missing(high):
        return f"{fmt(mean, kind)} (interval not computable)"
    return f"{fmt(mean, kind)} ({fmt(low, kind)} to {fmt(high, kind)})"


def _zero_width(low: Any, high: Any) -> bool:
    return not is_missing(low) and not is_missing(high) and math.isclose(float(low), float(high), rel_tol=0.0, abs_tol=1e-12)


def verdict(low: Any, high: Any, tasks: int, *, min_tasks: int = 0, noun: str = "task") -> str:
    """What an interval says of a paired difference over ``tasks`` tasks, in a few words.

    Parameters
    ----------
    low, high:
        The interval's ends.
    tasks:
        How many paired tasks it rests on.
    min_tasks:
        Below this many tasks the interval is not read at all.
    noun:
        What was paired (``"task"``).

    Returns
    -------
    str
        ``"identical on all 44 tasks"`` when both ends are zero (every task's
        difference is zero), ``"lower"`` or ``"higher"`` when the interval
        excludes zero, :data:`NOT_DISTINGUISHABLE` when it includes zero,
        ``"too few tasks (3) to read"`` below ``min_tasks`` and ``"no interval"``
        when an end is missing.
    """
    if tasks < min_tasks:
        return f"too few {noun}s ({fmt(tasks)}) to read"
    if is_missing(low) or is_missing(high):
        return "no interval"
    if _zero_width(low, high) and math.isclose(float(low), 0.0, abs_tol=1e-12):
        return f"identical on {'the one ' + noun if tasks == 1 else 'all ' + plural(tasks, noun)}"
    if float(low) <= 0 <= float(high):
        return NOT_DISTINGUISHABLE
    return "lower" if float(high) < 0 else "higher"


def effect_phrase(mean: Any, low: Any, high: Any, tasks: int, kind: str | Quantity = "mean", *, unit: str = "",
                  min_tasks: int = 0, noun: str = "task") -> str:
    """A paired effect, its interval and its verdict in one short phrase.

    ``n`` is left out (a paragraph states it once) except where it is the
    finding: an interval of width zero is every task's difference, so
    ``0.00 (0.00 to 0.00), not distinguishable from zero`` is written
    ``0.00, identical on all 44 tasks`` and a constant non-zero difference
    ``+1 step on each of the 16 tasks``.

    Parameters
    ----------
    mean, low, high:
        The mean of the per-task differences and its interval.
    tasks:
        How many paired tasks.
    kind:
        How the numbers are written (see :func:`fmt`).
    unit:
        A noun after the effect, made plural as the effect reads (``"point"``: ``−1 point``, ``−5 points``).
    min_tasks, noun:
        See :func:`verdict`.

    Returns
    -------
    str
        ``"−5 points (−11 to +3), not distinguishable from zero"``, ``"−16 points (−30 to −5), lower"``,
        ``"0 points, identical on all 44 tasks"``; ``–`` for a missing effect.
    """
    if is_missing(mean):
        return MISSING

    def written(value: Any) -> str:
        return plural(value, unit, kind=kind) if unit else fmt(value, kind)

    said = verdict(low, high, tasks, min_tasks=min_tasks, noun=noun)
    if said.startswith("identical"):
        return f"{written(mean)}, {said}"
    if said != "no interval" and _zero_width(low, high) and tasks >= min_tasks:
        return f"{written(mean)} on {'the one ' + noun if tasks == 1 else f'each of the {fmt(tasks)} {noun}s'}"
    if said == "no interval":
        return f"{written(mean)} (interval not computable)"
    return f"{written(mean)} ({fmt(low, kind)} to {fmt(high, kind)}), {said}"


#: How :func:`grouped_effects` states a verdict after "was" — a difference is below or above zero.
_GROUP_VERDICTS = {NOT_DISTINGUISHABLE: NOT_DISTINGUISHABLE, "lower": "below zero", "higher": "above zero"}


def grouped_effects(lead: str, effects: Iterable[tuple[str, Any, Any, Any, int]], kind: str | Quantity = "mean", *,
                    unit: str = "", min_tasks: int = 0, noun: str = "task", missing: str = "not measured") -> str:
    """Several models' paired effects in a few short sentences, each verdict said once for the models that share it.

    A chapter that writes ``X, not distinguishable from zero for A; Y, not
    distinguishable from zero for B`` repeats itself and runs long; a reader
    wants the verdict once and each model named beside its own number. One
    sentence per verdict, in the order the models are given: the first starts
    with ``lead``, the others with "It".

    Parameters
    ----------
    lead:
        The subject of the first sentence, singular (``"the change in pre-failure work from enforcing"``).
    effects:
        ``(name, mean, low, high, tasks)`` per model, in the order to name them.
    kind, unit, min_tasks, noun:
        As in :func:`effect_phrase`.
    missing:
        What a missing effect was (``"not recorded yet"``).

    Returns
    -------
    str
        E.g. ``"The change was not distinguishable from zero for A, −0.02 (−0.04 to 0.00), and B, 0.10 (−0.08 to
        0.27). It was 0.00 on all 40 tasks for C."``; empty for no effects.
    """
    def written(value: Any) -> str:
        return plural(value, unit, kind=kind) if unit else fmt(value, kind)

    groups: dict[str, list[str]] = {}
    for name, mean, low, high, tasks in effects:
        if is_missing(mean):
            said, item = missing, name
        elif tasks < min_tasks:
            said, item = f"not read (only {plural(tasks, noun)})", f"{name}, {written(mean)}"
        elif is_missing(low) or is_missing(high):
            said, item = f"not read (too few {noun}s for an interval)", f"{name}, {written(mean)}"
        elif _zero_width(low, high):  # every task's difference: the value and n are the finding
            said, item = f"{written(mean)} on {'the one ' + noun if tasks == 1 else 'all ' + plural(tasks, noun)}", name
        else:
            said = _GROUP_VERDICTS[verdict(low, high, tasks, noun=noun)]
            item = f"{name}, {written(mean)} ({fmt(low, kind)} to {fmt(high, kind)})"
        groups.setdefault(said, []).append(item)
    sentences: list[str] = []
    for said, items in groups.items():
        subject = lead if not sentences else "it"
        names = items[0] if len(items) == 1 else ", ".join(items[:-1]) + (", and " if "," in items[0] else " and ") + items[-1]
        sentence = f"{subject} was {said} for {names}."
        sentences.append(sentence[0].upper() + sentence[1:])
    return " ".join(sentences)


def glue(key: str, value: Any, kind: str | Quantity = "count", *, decimals: int | None = None) -> None:
    """Format ``value`` with :func:`fmt` and glue the text under ``key`` for the page's prose.

    The chapter's markdown then writes ``{glue:text}`KEY``` and the reader sees
    exactly the text a table shows for the same value. Outside a notebook
    kernel (in tests) nothing is glued and only the text is returned.

    Parameters
    ----------
    key:
        The glue key.
    value:
        The value (see :func:`fmt`).
    kind:
        How to write it.
    decimals:
        Override the quantity's number of decimals.

    Returns
    -------
    None
        Nothing, so a notebook cell that ends with a glue shows no output
        (:func:`fmt` gives the text).
    """
    _glue_text(key, fmt(value, kind, decimals=decimals))


def glue_text(key: str, text: str) -> None:
    """Glue a sentence or phrase already written (a verdict, a list of words).

    Parameters
    ----------
    key:
        The glue key.
    text:
        The text.

    Returns
    -------
    None
        Nothing, so a cell ending with it shows no output.
    """
    if not isinstance(text, str):
        raise ParameterError(f"glue_text({key!r}, ...) needs a string; got {text!r} (use glue() for numbers)")
    _glue_text(key, text)


def glue_markdown(key: str, text: str) -> None:
    """Glue a paragraph the library wrote, to be shown as ordinary prose (``{glue:md}`KEY```).

    :func:`glue_text` is for a value or a short phrase, which the page sets in
    bold; a generated paragraph of several sentences reads better in the
    page's own type, so it is glued as Markdown.

    Parameters
    ----------
    key:
        The glue key.
    text:
        The paragraph, in Markdown.

    Returns
    -------
    None
        Nothing, so a cell ending with it shows no output.
    """
    if not isinstance(text, str):
        raise ParameterError(f"glue_markdown({key!r}, ...) needs a string; got {text!r}")
    if _in_kernel():
        from IPython.display import Markdown
        from myst_nb import glue as myst_glue

        myst_glue(key, Markdown(text), display=False)


def glue_texts(texts: Mapping[str, str]) -> None:
    """Glue several sentences or phrases already written, so a notebook glues a finding's words in one line.

    Parameters
    ----------
    texts : mapping of str to str
        Glue keys to their texts.

    Returns
    -------
    None
        Nothing, so a cell ending with it shows no output.
    """
    for key, text in texts.items():
        glue_text(key, text)


def glue_all(values: Mapping[str, tuple[Any, str | Quantity] | Any]) -> None:
    """Glue several values: ``{"key": (value, kind)}`` or ``{"key": value}`` (a count).

    A text of the kind :data:`MARKDOWN` (sentences the library wrote) is glued
    by :func:`glue_markdown`, for ``{glue:md}`` in the page's own type.

    Parameters
    ----------
    values : mapping
        Keys to values, each with its kind of quantity.

    Returns
    -------
    None
        Nothing (see :func:`written` for the texts).
    """
    kinds = {key: item[1] if isinstance(item, tuple) and len(item) == 2 else "count" for key, item in values.items()}
    for key, text in written(values).items():
        if kinds[key] == MARKDOWN:
            glue_markdown(key, text)
        else:
            _glue_text(key, text)


def written(values: Mapping[str, tuple[Any, str | Quantity] | Any]) -> dict[str, str]:
    """The texts :func:`glue_all` would glue, without glueing them.

    Parameters
    ----------
    values : mapping
        Keys to values, each with its kind of quantity (``{"key": (value, kind)}``
        or ``{"key": value}`` for a count).

    Returns
    -------
    dict
        Each key's text.
    """
    out = {}
    for key, item in values.items():
        pair = isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (str, Quantity))
        value, kind = item if pair else (item, "count")
        out[key] = fmt(value, kind)
    return out


def glue_figure(key: str, figure: Any) -> None:
    """Glue a figure so another page can show the same drawing (the introduction does).

    Parameters
    ----------
    key:
        The glue key.
    figure:
        A matplotlib figure.

    Returns
    -------
    None
        Nothing: the cell that made the figure shows it once, when it ends.
    """
    if _in_kernel():
        from myst_nb import glue as myst_glue

        myst_glue(key, figure, display=False)


def _glue_text(key: str, text: str) -> None:
    if not _in_kernel():
        return
    from myst_nb import glue as myst_glue

    myst_glue(key, text, display=False)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with the book's tools
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ in {"bool_", "bool"}


__all__ = [
    "MARKDOWN",
    "MISSING",
    "NOT_DISTINGUISHABLE",
    "QUANTITIES",
    "Quantity",
    "effect_phrase",
    "fmt",
    "glue",
    "glue_all",
    "glue_figure",
    "glue_markdown",
    "glue_text",
    "glue_texts",
    "grouped_effects",
    "interval_text",
    "is_missing",
    "listing",
    "plain_words",
    "plural",
    "quantity",
    "range_text",
    "span",
    "verdict",
    "words",
    "written",
]

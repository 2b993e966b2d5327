"""The article's published numbers, kept apart from everything we compute, and an honest comparison with ours.

These are the *reference* column of each chapter's comparison table: claims
copied from the article and its README, with the parameters they were
published for. Nothing in cvlib reads them to compute a result; notebooks put
them beside our numbers, and :func:`comparison` says whether the two agree.

An agreement means what it says. Counts and yes/no outcomes are compared
exactly. A published decimal is stored as the article printed it (a
:class:`~decimal.Decimal` such as ``Decimal("0.75")`` or ``Decimal("30.8")``),
and our value is compared at that printed precision: ours agrees if, rounded
to the article's decimals, it *is* the article's number, so a SCUR of 0.71
never passes for 0.75. The verdict says how many numbers were compared each
way. When a reader reruns a chapter with other parameters, the published
numbers no longer describe that run, and the table says so instead of
reporting a spurious mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.formatting import fmt
from cvlib.presentation.tables import Table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


#: What the article ran for each experiment (``"params"``), what it reported (``"values"``, decimals as
#: printed) and where it printed them (``"source"``).
PUBLISHED: dict[str, dict[str, Any]] = {
    "C": {
        "params": {"depth": 5},
        "values": {"baseline_steps": 5, "validity_aware_steps": 5, "overhead": 0},
        "source": "article, summary table",
    },
    "A": {
        "params": {"depth": 4, "change_tick": 1},
        "values": {
            "baseline_steps": 9,
            "validity_aware_steps": 6,
            "baseline_pfw": 2,
            "validity_aware_pfw": 0,
            "baseline_replans": 1,
            "validity_aware_replans": 1,
            "baseline_scur": Decimal("0.75"),
            "validity_aware_scur": Decimal("0.50"),
            "baseline_completed": True,
            "validity_aware_completed": True,
        },
        "source": "article, experiment 1 table",
    },
    "D1": {
        "params": {"depths": [1, 2, 3, 5, 10], "change_tick": 0},
        "values": {"baseline_pfw": [0, 1, 2, 4, 9], "validity_aware_pfw": [0, 0, 0, 0, 0]},
        "source": "article, experiment 2 (D1 table)",
    },
    "D2": {
        "params": {
            "topologies": [[6, 1, 1], [4, 4, 4], [8, 2, 2]],
            "seed": 0,
            "grid_depths": [3, 4, 5, 6, 7, 8],
            "grid_branching": [1, 2, 3, 4],
            "grid_merging": [1, 2, 3, 4],
        },
        "values": {"nodes": [6, 25, 30], "baseline_pfw": [5, 24, 29], "grid_configs": 96, "grid_mismatches": 0},
        "source": "article, experiment 2 (D2 table and the 96-configuration sweep)",
    },
    "D3": {
        "params": {"branch_counts": [1, 4, 8], "pre_merge_depth": 6, "post_merge_depth": 2},
        "values": {
            "total_steps": [8, 26, 50],
            "exposed_nodes": [8, 8, 8],
            "exposed_pct": [Decimal("100.0"), Decimal("30.8"), Decimal("16.0")],
            "baseline_pfw": [7, 7, 7],
        },
        "source": "article, experiment 2 (D3 table)",
    },
    "E1": {
        "params": {"depth": 3, "change_tick": 1},
        "values": {"baseline_steps": 7, "validity_aware_steps": 6, "validity_aware_verifications": 1},
        "source": "article, experiment 3 table",
    },
    "E2": {
        "params": {"depth": 3, "change_tick": 1},
        "values": {
            "baseline_steps": 3,
            "validity_aware_steps": 4,
            "validity_aware_verifications": 1,
            "baseline_scur": Decimal("0.00"),
            "validity_aware_scur": Decimal("0.00"),
        },
        "source": "article, experiment 3 table; SCUR from the repository's README",
    },
    "budget": {
        "params": {"depth": 4, "change_tick": 1, "budgets": [9, 8, 7, 6, 5, 4]},
        "values": {
            "both_complete": [9],
            "only_validity_completes": [8, 7, 6],
            "neither_completes": [5, 4],
        },
        "source": "article, experiment 4 table",
    },
    "law": {
        "params": {"cases": "the 15 published cases"},
        "values": {"cases": 15, "matches": 15},
        "source": "article, the closed-form verification",
    },
}

#: How each published quantity is named in a comparison table.
QUANTITY_NAMES: dict[str, str] = {
    "baseline_steps": "baseline steps",
    "validity_aware_steps": "validity-aware steps",
    "overhead": "overhead (steps)",
    "baseline_pfw": "baseline doomed steps (PFW)",
    "validity_aware_pfw": "validity-aware doomed steps (PFW)",
    "baseline_replans": "baseline replans",
    "validity_aware_replans": "validity-aware replans",
    "baseline_scur": "baseline SCUR",
    "validity_aware_scur": "validity-aware SCUR",
    "baseline_completed": "baseline completed",
    "validity_aware_completed": "validity-aware completed",
    "validity_aware_verifications": "verifications",
    "nodes": "plan steps, per topology",
    "grid_configs": "grid configurations",
    "grid_mismatches": "grid plans off the law (PFW ≠ nodes − 1)",
    "total_steps": "plan steps",
    "exposed_nodes": "exposed steps",
    "exposed_pct": "plan exposed (%)",
    "both_complete": "budgets where both complete",
    "only_validity_completes": "budgets where only validity-aware completes",
    "neither_completes": "budgets where neither completes",
    "cases": "cases checked",
    "matches": "cases matching the law",
}

_NOT_APPLICABLE = "n/a: other parameters"


def published(experiment: str) -> dict[str, Any]:
    """The published values of one experiment (a copy, so a notebook cannot edit the reference).

    Parameters
    ----------
    experiment:
        A key of :data:`PUBLISHED` (``"A"``, ``"D1"``, ``"budget"``, ...).

    Returns
    -------
    dict
        Quantity name to value; decimals as :class:`~decimal.Decimal`, as printed.
    """
    return dict(_entry(experiment)["values"])


def at_published_params(experiment: str, params: Mapping[str, Any]) -> bool:
    """Whether ``params`` agree with the parameters the article published ``experiment`` for.

    Only the keys the article fixed are compared; extra keys (a budget left at
    None, a seed the article did not vary) are ignored.

    Parameters
    ----------
    experiment:
        A key of :data:`PUBLISHED`.
    params:
        The parameters of our run.

    Returns
    -------
    bool
        True if every parameter the article fixed has the article's value.
    """
    reference = _entry(experiment)["params"]
    return all(_same(params[k], v) for k, v in reference.items() if k in params)


def _entry(experiment: str) -> dict[str, Any]:
    try:
        return PUBLISHED[experiment]
    except (KeyError, TypeError):
        raise ParameterError(f"no published numbers for {experiment!r}; expected one of {', '.join(PUBLISHED)}") from None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


# -- comparing ---------------------------------------------------------------------------


def decimals_of(value: Any) -> int | None:
    """How many decimals the article printed for ``value`` (None for a count or a yes/no).

    Parameters
    ----------
    value:
        A published value: an int, a bool, a :class:`~decimal.Decimal` as
        printed, or a list of these.

    Returns
    -------
    int or None
        The number of decimals of a decimal (the largest, for a list), None
        if the value is compared exactly.
    """
    if isinstance(value, (list, tuple)):
        places = [d for d in map(decimals_of, value) if d is not None]
        return max(places) if places else None
    if isinstance(value, Decimal):
        return max(0, -value.as_tuple().exponent)
    if isinstance(value, float):
        raise ParameterError(
            f"published decimal {value!r} is a float; store it as Decimal('...') exactly as the article prints it"
        )
    return None


def agrees(ours: Any, ref: Any) -> bool:
    """Whether our value is the published one: exactly for counts and yes/no, at the printed decimals for decimals.

    Parameters
    ----------
    ours:
        Our value (a number, a bool, or a list of them).
    ref:
        The published value (see :func:`decimals_of`).

    Returns
    -------
    bool
        True if they agree; lists agree element by element and must have
        the same length.
    """
    if isinstance(ours, (list, tuple)) or isinstance(ref, (list, tuple)):
        if not (isinstance(ours, (list, tuple)) and isinstance(ref, (list, tuple))) or len(ours) != len(ref):
            return False
        return all(agrees(a, b) for a, b in zip(ours, ref))
    if _is_truth(ref) or _is_truth(ours):
        return _is_truth(ref) and _is_truth(ours) and bool(ours) == bool(ref)
    if isinstance(ref, Decimal):
        try:
            rounded = Decimal(repr(float(ours))).quantize(ref, rounding=ROUND_HALF_UP)
        except (InvalidOperation, TypeError, ValueError):
            return False
        return rounded == ref
    decimals_of(ref)  # a float reference is an error, not a silent tolerance
    try:
        return float(ours).is_integer() and int(ours) == ref
    except (TypeError, ValueError, OverflowError):
        return ours == ref


def _is_truth(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ in {"bool_"}


def _show(value: Any, places: int | None) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v, places) for v in value)
    if isinstance(value, Decimal):
        return fmt(float(value), "count", decimals=max(0, -value.as_tuple().exponent))
    if places is not None and not _is_truth(value):
        return fmt(value, "count", decimals=places)
    return fmt(value)


def _how(places: int | None) -> str:
    if places is None:
        return "exactly"
    return f"to {places} decimal{'s' if places != 1 else ''}, as printed"


@dataclass(frozen=True)
class ComparisonRow:
    """One published quantity beside ours.

    Parameters
    ----------
    quantity:
        What is compared, in words.
    published:
        The article's value as it printed it.
    ours:
        Our value, written at the article's precision.
    agrees:
        ``yes``, ``no``, or ``n/a: other parameters``.
    compared:
        How: ``exactly``, or ``to N decimals, as printed``.
    places:
        The decimals compared, None when compared exactly.
    """

    quantity: str
    published: str
    ours: str
    agrees: str
    compared: str
    places: int | None = None


@dataclass(frozen=True)
class Comparison:
    """The article's numbers beside ours, row by row; displays as a table, and says its own verdict.

    Parameters
    ----------
    rows:
        One :class:`ComparisonRow` per quantity.
    applies:
        False when our run's parameters differ from the published ones.
    """

    rows: tuple[ComparisonRow, ...]
    applies: bool = True

    @property
    def agreed(self) -> list[str]:
        """Quantities that agree."""
        return [r.quantity for r in self.rows if r.agrees == "yes"]

    @property
    def differ(self) -> list[str]:
        """Quantities that differ."""
        return [r.quantity for r in self.rows if r.agrees == "no"]

    def verdict(self) -> str:
        """One sentence, for a chapter's prose: how many numbers agree, and how they were compared.

        Returns
        -------
        str
            E.g. "all 10 published numbers agree: 8 compared exactly and 2
            at the 2 decimals the article prints".
        """
        n = len(self.rows)
        if not n:
            return "there is nothing to compare"
        if not self.applies:
            return "the article published no numbers for these parameters, so there is nothing to compare"
        exact = sum(r.compared == "exactly" for r in self.rows)
        places = sorted({r.places for r in self.rows if r.places is not None})
        printed = n - exact
        how = []
        if exact:
            how.append(f"{fmt(exact)} compared exactly")
        if printed:
            digits = f"{places[0]} decimal{'s' if places[0] != 1 else ''}" if len(places) == 1 else "decimals"
            how.append(f"{fmt(printed)} at the {digits} the article prints")
        manner = " and ".join(how)
        if not self.differ:
            if n == 1:
                return f"the published number agrees, compared {'exactly' if exact else 'at the ' + digits + ' the article prints'}"
            return f"all {fmt(n)} published numbers agree: {manner}"
        if n == 1:
            return f"the published number differs ({self.differ[0]}), compared {manner.split(' ', 1)[1]}"
        return f"{fmt(len(self.differ))} of {fmt(n)} published numbers differ ({', '.join(self.differ)}); {manner}"

    def table(self) -> Table:
        """The comparison as the book's table.

        Returns
        -------
        Table
            Columns: quantity, the article, this book, agrees, compared.
        """

        header = ("Quantity", "Article", "This book", "Agrees", "Compared")
        rows = tuple((r.quantity, r.published, r.ours, r.agrees, r.compared) for r in self.rows)
        return Table(header, rows, (False, True, True, False, False))

    def to_frame(self) -> pd.DataFrame:
        """One row per quantity, the texts as shown.

        Returns
        -------
        pandas.DataFrame
            Columns ``quantity``, ``published``, ``ours``, ``agrees``, ``compared``.
        """
        import pandas as pd

        return pd.DataFrame([vars(r) for r in self.rows]).drop(columns="places")

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return repr(self.table())


def comparison(rows: Iterable[tuple[str, Any, Any]], applies: bool = True) -> Comparison:
    """The article's values beside ours, each compared honestly (see :func:`agrees`).

    Parameters
    ----------
    rows:
        ``(quantity, published value, our value)`` triples.
    applies:
        False when the run's parameters differ from the published ones; each
        row then reads "n/a: other parameters" rather than claiming a mismatch.

    Returns
    -------
    Comparison
        Displays as a table; :meth:`Comparison.verdict` gives the sentence.
    """
    out = []
    for quantity, ref, ours in rows:
        places = decimals_of(ref)
        verdict_ = ("yes" if agrees(ours, ref) else "no") if applies else _NOT_APPLICABLE
        out.append(ComparisonRow(str(quantity), _show(ref, places), _show(ours, places), verdict_, _how(places), places))
    return Comparison(tuple(out), applies)


def compare(experiment: str, ours: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Comparison:
    """Compare our values with one experiment's published ones, quantity by quantity.

    Parameters
    ----------
    experiment:
        A key of :data:`PUBLISHED`.
    ours:
        Our value for each published quantity compared (keys of the
        experiment's ``values``, named in the table by :data:`QUANTITY_NAMES`).
    params:
        Our run's parameters; if they differ from the published ones the
        comparison claims nothing (None: assume the published parameters).

    Returns
    -------
    Comparison
        The rows in the order of ``ours``.
    """
    reference = published(experiment)
    unknown = [k for k in ours if k not in reference]
    if unknown:
        raise ParameterError(
            f"{experiment} published no {unknown[0]!r}; it published {', '.join(reference)}"
        )
    applies = True if params is None else at_published_params(experiment, params)
    return comparison([(QUANTITY_NAMES.get(k, k.replace("_", " ")), reference[k], v) for k, v in ours.items()], applies)


def combined(parts: Mapping[str, Comparison]) -> Comparison:
    """Several comparisons as one table, each row's quantity prefixed by its part's label.

    Parameters
    ----------
    parts:
        A label (``"E1"``) for each :class:`Comparison`.

    Returns
    -------
    Comparison
        All rows, in order; it applies only if every part does.
    """
    from dataclasses import replace

    rows = tuple(replace(r, quantity=f"{label}: {r.quantity}") for label, part in parts.items() for r in part.rows)
    return Comparison(rows, all(part.applies for part in parts.values()))


def verdict(table: Comparison) -> str:
    """One sentence on a :class:`Comparison`, for glueing into a chapter's prose.

    Parameters
    ----------
    table:
        The comparison.

    Returns
    -------
    str
        See :meth:`Comparison.verdict`.
    """
    if not isinstance(table, Comparison):
        raise ParameterError(f"verdict() needs a Comparison from comparison() or compare(); got {type(table).__name__}")
    return table.verdict()


__all__ = [
    "PUBLISHED",
    "QUANTITY_NAMES",
    "Comparison",
    "ComparisonRow",
    "agrees",
    "at_published_params",
    "combined",
    "compare",
    "comparison",
    "decimals_of",
    "published",
    "verdict",
]

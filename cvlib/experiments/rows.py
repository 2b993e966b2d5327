"""A sweep's rows as plain Python, turned into a DataFrame only when one is asked for.

Importing pandas costs more than running the article's whole topology grid,
and a frame holds about 100 MiB more than the rows; a script that only reads
a few numbers should pay for neither. :class:`Rows` holds the column names and
one tuple per row; :meth:`Rows.to_frame` makes the DataFrame the book's tables
are drawn from (the same frame the sweep returns with ``as_frame=True``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.values import value_class

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


@value_class
class Rows:
    """A table as column names and row tuples; ``len``, iteration (one dict a row), a column by name, a frame."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    @classmethod
    def from_dicts(cls, rows: Sequence[Mapping[str, Any]]) -> Rows:
        """Rows from dicts that all have the same keys in the same order (the first row's).

        Parameters
        ----------
        rows : sequence of mapping
            One mapping per row.

        Returns
        -------
        Rows
        """
        columns = tuple(rows[0]) if rows else ()
        for i, row in enumerate(rows):
            if tuple(row) != columns:
                raise ParameterError(f"row {i} has columns {list(row)}, expected {list(columns)}")
        return cls(columns, tuple(tuple(row.values()) for row in rows))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        names = self.columns
        return (dict(zip(names, row)) for row in self.rows)

    def column(self, name: str) -> list[Any]:
        """Every row's value in column ``name``.

        Parameters
        ----------
        name : str
            A column.

        Returns
        -------
        list
        """
        try:
            i = self.columns.index(name)
        except ValueError:
            raise ParameterError(f"no column {name!r}; expected one of {', '.join(self.columns)}") from None
        return [row[i] for row in self.rows]

    def to_frame(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame (pandas is imported here, not before).

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(self.columns))

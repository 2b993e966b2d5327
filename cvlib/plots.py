"""One look for every figure in the book.

Baseline and validity-aware keep the same colours on every page, so a reader
who learned them in chapter one never has to read a legend again.
"""

from __future__ import annotations

#: Executor colours, used by every figure (colour-blind-safe pair).
PALETTE: dict[str, str] = {"baseline": "#D55E00", "validity_aware": "#0072B2"}

#: Display names for the executors.
LABELS: dict[str, str] = {"baseline": "Baseline", "validity_aware": "Validity-aware"}


def set_style() -> None:
    """Apply the book's seaborn theme; call once at the top of a notebook."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": (7.0, 4.0),
            "axes.titleweight": "bold",
            "svg.hashsalt": "cvbook",
        }
    )

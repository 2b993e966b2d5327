"""The X4 chapter's module: its tables and figures show the sweeps as run."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from cvlib.experiments import time_and_operational as freshness  # noqa: E402
from cvlib.presentation.chapters import x4_time_and_operational as chapter  # noqa: E402


def test_the_ttl_table_names_the_baseline_and_the_figure_leaves_it_out() -> None:
    rows = freshness.ttl_sweep([1, 3], [0.1], n_schedules=5, depth=4, seed=0)
    table = chapter.ttl_table(rows, [0.1], [1, 3])
    assert (
        len(table.rows) == len(rows)
        and table.summary == f"{len(rows)} configurations: 1 rates of change × 2 TTLs, and the baseline"
    )
    ttl_column = table.header.index("TTL")
    assert "baseline" in [row[ttl_column] for row in table.rows]
    figure = chapter.ttl_figure(rows)
    assert "baseline" in set(rows.ttl) and len(figure.axes) >= 1
    plt.close("all")


def test_the_operational_table_names_each_checker() -> None:
    ops = freshness.operational_comparison([1, 2], depth=4, outage_prob=0.5, n_schedules=5, seed=0)
    table = chapter.operational_table(ops, [1, 2])
    assert len(table.rows) == len(ops)
    assert table.summary == f"{len(ops)} configurations: {ops.checker.nunique()} checkers × 2 TTLs"
    chapter.operational_figure(ops)
    plt.close("all")

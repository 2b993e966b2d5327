"""The law checked at scale, as the chapter "The law at scale" shows it: tables, a figure, numbers.

The rows come from :func:`cvlib.sweep` over a :class:`cvlib.RandomFamily`
(one row per random plan); the recorded large run from
``data/benchmarks/law_at_scale_largest.json`` (written by ``python -m
benchmarks.law_at_scale``). Nothing here computes a result: each function
summarises, draws or picks out numbers for the page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.extension_figures import law_at_scale_figure
from cvlib.repository import data_path

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure


def family_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per plan family: how many plans, their sizes, doomed work, and how often the law or the executor missed.

    Parameters
    ----------
    rows : pandas.DataFrame
        A random-family sweep (``cv.sweep(cv.RandomFamily(...))``).

    Returns
    -------
    pandas.DataFrame
    """
    table = rows.groupby("family").agg(
        plans=("task", "size"),
        mean_steps=("total_steps", "mean"),
        max_steps=("total_steps", "max"),
        mean_facts=("facts", "mean"),
        plans_with_pfw=("baseline_pfw", lambda s: int((s > 0).sum())),
        total_pfw=("baseline_pfw", "sum"),
        law_mismatches=("law_holds", lambda s: int((~s).sum())),
        validity_pfw_nonzero=("validity_aware_pfw", lambda s: int((s != 0).sum())),
    )
    return table.round(2).rename(
        columns={
            "mean_steps": "mean steps",
            "max_steps": "max steps",
            "mean_facts": "mean facts",
            "plans_with_pfw": "plans with baseline PFW > 0",
            "total_pfw": "baseline PFW, total",
            "law_mismatches": "law mismatches",
            "validity_pfw_nonzero": "plans with validity-aware PFW > 0",
        }
    )


def law_scale_figure(rows: pd.DataFrame) -> Figure:
    """What was drawn (plan sizes) and the law against the executor (predicted vs observed PFW), stacked.

    Parameters
    ----------
    rows : pandas.DataFrame
        A random-family sweep.

    Returns
    -------
    matplotlib.figure.Figure
        The book's figure for it, :func:`cvlib.presentation.extension_figures.law_at_scale_figure`.
    """

    return law_at_scale_figure(rows)


def glue_values(rows: pd.DataFrame) -> dict[str, Any]:
    """The numbers the chapter states about its own run, by glue key (``law_scale_…``).

    Parameters
    ----------
    rows : pandas.DataFrame
        A random-family sweep.

    Returns
    -------
    dict
    """
    return {
        "law_scale_plans": len(rows),
        "law_scale_mismatches": int((~rows["law_holds"]).sum()),
        "law_scale_validity_nonzero": int((rows["validity_aware_pfw"] != 0).sum()),
        "law_scale_plans_with_pfw": int((rows["baseline_pfw"] > 0).sum()),
        "law_scale_multi_break": int((rows["broken_facts"] > 1).sum()),
        "law_scale_families": int(rows["family"].nunique()),
        "law_scale_steps_max": int(rows["total_steps"].max()),
        "law_scale_steps_median": float(rows["total_steps"].median()),
        "law_scale_total_pfw": int(rows["baseline_pfw"].sum()),
    }


def load_recorded_run(path: str | Path | None = None) -> dict[str, Any]:
    """The recorded large run: ``data/benchmarks/law_at_scale_largest.json`` or the file at ``path``.

    Parameters
    ----------
    path : str or pathlib.Path or None
        A record written by ``python -m benchmarks.law_at_scale``.

    Returns
    -------
    dict
    """
    file = Path(path) if path is not None else data_path("benchmarks", "law_at_scale_largest.json")
    try:
        return json.loads(file.read_text())
    except (OSError, ValueError) as err:
        raise ParameterError(f"cannot read the recorded run {str(file)!r}: {err}") from None


def recorded_run_table(largest: Mapping[str, Any]) -> pd.DataFrame:
    """The recorded large run: what was run, on what, when, how long it took, and what it found.

    Parameters
    ----------
    largest : dict
        A recorded run (:func:`load_recorded_run`).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    m = largest["machine"]
    rows = [
        ("plans", f"{largest['plans']:,}"),
        ("seed, family", f"{largest['seed']}, {largest['family']}"),
        ("backend, workers, chunk size", f"{largest['backend']}, {largest['workers']}, {largest['chunk_size']:,}"),
        ("wall time (s)", f"{largest['seconds']:,.1f}"),
        ("plans per second", f"{largest['plans_per_second']:,.0f}"),
        ("law mismatches", f"{largest['law_mismatches']:,}"),
        ("plans with validity-aware PFW > 0", f"{largest['validity_pfw_nonzero']:,}"),
        ("plans with baseline PFW > 0", f"{largest['plans_with_pfw']:,}"),
        ("steps: min / median / max", f"{largest['steps']['min']} / {largest['steps']['q50']} / {largest['steps']['max']}"),
        ("recorded", m.get("measured_at", "date not recorded")),
        ("load average (1 min) at start, end", _loads(largest)),
        ("machine", f"{m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB"),
        ("software", f"Python {m['python']}, cvlib {m['cvlib']}"),
    ]
    return pd.DataFrame(rows, columns=["recorded run", "value"]).set_index("recorded run")


def _loads(largest: Mapping[str, Any]) -> str:
    loads = largest.get("load_average_start_end")
    return "not recorded" if not loads else ", ".join(f"{x:.1f}" for x in loads)


def recorded_histogram_table(largest: Mapping[str, Any]) -> pd.DataFrame:
    """How many plans of the recorded run fell in each size range.

    Parameters
    ----------
    largest : dict
        A recorded run.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    table = pd.DataFrame(largest["steps_histogram"]).rename(columns={"from": "steps from", "to": "steps to"})
    return table.set_index(["steps from", "steps to"])


def recorded_glue_values(largest: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers the chapter states about the recorded run, by glue key (``law_scale_big_…``).

    Parameters
    ----------
    largest : dict
        A recorded run.

    Returns
    -------
    dict
    """
    m = largest["machine"]
    return {
        "law_scale_big_plans": largest["plans"],
        "law_scale_big_seconds": largest["seconds"],
        "law_scale_big_minutes": largest["seconds"] / 60,
        "law_scale_big_rate": largest["plans_per_second"],
        "law_scale_big_mismatches": largest["law_mismatches"],
        "law_scale_big_validity_nonzero": largest["validity_pfw_nonzero"],
        "law_scale_big_total_steps": largest["total_steps"],
        "law_scale_big_steps_median": largest["steps"]["q50"],
        "law_scale_big_steps_max": largest["steps"]["max"],
        "law_scale_big_with_pfw": largest["plans_with_pfw"],
        "law_scale_big_cores": m["cores"],
        "law_scale_big_cpu": m["cpu"],
        "law_scale_big_when": m.get("measured_at", "at a date not recorded"),
        "law_scale_big_workers": largest["workers"],
        "law_scale_big_loads": _loads(largest),
        "law_scale_big_backend": largest["backend"],
    }

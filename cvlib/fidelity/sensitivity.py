"""Which findings survive changing the numbers the book chose.

For every choice marked ``book`` or ``port`` in :mod:`cvlib.fidelity.params`
that bears on an experiment, the experiment is re-run with each of the
choice's alternatives in place of its default (one choice changed at a time,
the others at their defaults), and every finding of
:mod:`cvlib.fidelity.findings` is computed again. A finding that holds at the
defaults and under every alternative does not hang on any one of our
choices; one that flips names the choice it hangs on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

from .experiments import cascade_dominance, sweep_a, sweep_b
from .findings import findings_a, findings_b
from .params import choice, show_value
from .schedules import POLICIES
from .trajectories import generate_trajectory

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Choices that shape Experiment B, and the keyword each becomes in :func:`~cvlib.fidelity.experiments.sweep_b`.
B_CHOICES: dict[str, str] = {
    "n_turns": "n_turns",
    "n_objects": "n_objects",
    "n_probes": "n_probes",
    "admit_window": "admit_window",
    "declared_fraction": "declared_fraction",
    "lead": "lead",
    "pin_fraction": "pin_fraction",
    "probe_min_age": "probe_min_age",
    "status_window": "status_window",
    "budget_jitter": "budget_jitter",
    "importance_mode": "importance_mode",
    "prohibition_share": "prohibition_share",
    "probe_two_checks": "probe_two_checks",
    "relation_share": "relation_share",
    "second_id_share": "second_id_share",
    "age_thresholds": "age_thresholds",
    "related_weight": "related_weight",
    "hysteresis": "hysteresis",
    "keep_recent": "keep_recent",
    "compact_ratio": "compact_ratio",
    "fold_every": "fold_every",
    "mc_pressure_passes": "pressure_passes",
    "mc_force_on": "force",
    "mc_cache_ttl_turns": "cache_ttl_turns",
}

#: Choices that shape Experiment A (its requirement sets and fixture size), and their keywords in :func:`~cvlib.fidelity.experiments.sweep_a`.
A_CHOICES: dict[str, str] = {
    "a_n_objects": "n_objects",
    "n_turns": "n_turns",
    "n_probes": "n_probes",
    "declared_fraction": "declared_fraction",
    "pin_fraction": "pin_fraction",
    "probe_min_age": "probe_min_age",
    "prohibition_share": "prohibition_share",
    "probe_two_checks": "probe_two_checks",
    "relation_share": "relation_share",
    "second_id_share": "second_id_share",
}


def _value(name: str, value: object) -> object:
    """A choice's value as the experiment keyword expects it."""
    if name == "mc_force_on":
        return choice("mc_force").default if value else None
    return value


def variations(names: Sequence[str]) -> list[tuple[str, str, dict]]:
    """``(parameter, value shown, keyword overrides)`` for the defaults and for each alternative of each named choice."""
    out: list[tuple[str, str, dict]] = [("defaults", "", {})]
    for name in names:
        c = choice(name)
        if c.owner not in ("book", "port"):
            raise ParameterError(f"choice {name!r} belongs to {c.owner}; only the book's and the port's choices are varied")
        for alt in c.alternatives:
            out.append((name, show_value(alt), {name: alt}))
    return out


def _run(names: dict[str, str], compute: Callable[[dict], pd.DataFrame], only: Sequence[str] | None) -> pd.DataFrame:
    import pandas as pd

    chosen = list(names) if only is None else list(only)
    unknown = set(chosen) - set(names)
    if unknown:
        raise ParameterError(f"cannot vary {sorted(unknown)} here; expected some of {sorted(names)}")
    frames = []
    for param, shown, override in variations(chosen):
        kwargs = {names[k]: _value(k, v) for k, v in override.items()}
        f = compute(kwargs)
        f.insert(0, "parameter", param)
        f.insert(1, "value", shown)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def sensitivity_b(
    seeds: Sequence[int] | None = None,
    budget_fractions: Sequence[float] | None = None,
    only: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Experiment B's findings at the defaults and under each alternative of each choice in :data:`B_CHOICES`.

    Parameters
    ----------
    seeds, budget_fractions:
        The sweep each variation runs (defaults: the book's).
    only:
        Vary only these choices (default: all of :data:`B_CHOICES`).

    Returns
    -------
    pandas.DataFrame
        :func:`~cvlib.fidelity.findings.findings_b` rows with ``parameter`` and ``value`` in front.
    """
    # the findings compare the six schedules, never the oracle, which is the slowest to run: leave it out
    policies = [p for p in POLICIES if p != "oracle"]
    return _run(
        B_CHOICES,
        lambda kw: findings_b(sweep_b(seeds, budget_fractions, policies=policies, check_reproducible=False, **kw)),
        only,
    )


def sensitivity_a(
    seeds: Sequence[int] | None = None,
    budget_fractions: Sequence[float] | None = None,
    only: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Experiment A's findings at the defaults and under each alternative of each choice in :data:`A_CHOICES`."""
    import pandas as pd

    def compute(kw: dict) -> pd.DataFrame:
        a = sweep_a(seeds, budget_fractions=budget_fractions, **kw)
        n_objects = kw.pop("n_objects", choice("a_n_objects").default)
        dom = pd.concat(
            [cascade_dominance(generate_trajectory(s, n_objects=n_objects, **kw)) for s in sorted(set(a["seed"]))],
            ignore_index=True,
        )
        return findings_a(a, dom)

    return _run(A_CHOICES, compute, only)


def survival(sens: pd.DataFrame) -> pd.DataFrame:
    """Per finding: its basis, whether it holds at the defaults, and under how many of the variations it still holds.

    Parameters
    ----------
    sens:
        :func:`sensitivity_a` or :func:`sensitivity_b` output.

    Returns
    -------
    pandas.DataFrame
        ``key``, ``finding``, ``basis``, ``holds_at_defaults``, ``holds_under``,
        ``variations`` and ``flips_under`` (the ``parameter = value`` settings
        under which it differs from the defaults), in finding order.
    """
    import pandas as pd

    rows = []
    base = sens[sens["parameter"] == "defaults"].set_index("key")
    var = sens[sens["parameter"] != "defaults"]
    for key in base.index:
        sub = var[var["key"] == key]
        at_default = bool(base.loc[key, "holds"])
        flips = sub[sub["holds"] != at_default]
        rows.append(
            {
                "key": key,
                "finding": base.loc[key, "finding"],
                "basis": base.loc[key, "basis"],
                "holds_at_defaults": at_default,
                "holds_under": int(sub["holds"].sum()),
                "variations": int(len(sub)),
                "flips_under": "; ".join(f"{p} = {v}" for p, v in zip(flips["parameter"], flips["value"])),
            }
        )
    return pd.DataFrame(rows)


#: Variants of how Magic Context's port is mapped onto the simulation (owner ``port`` in the registry).
PORT_VARIANTS: dict[str, dict] = {
    f"as ported ({choice('mc_pressure_passes').default} pressure passes, force fold at {choice('mc_force').default:.0%})": {},
    "one pressure pass, as the plugin ships": {"pressure_passes": 1},
    "no force fold (delta cap and first render only)": {"force": None},
    f"no force fold, cache expiry every {choice('mc_cache_ttl_turns').alternatives[0]} turns": {
        "force": None,
        "cache_ttl_turns": choice("mc_cache_ttl_turns").alternatives[0],
    },
}


def port_variants(seeds: Sequence[int] | None = None, budget_fractions: Sequence[float] | None = None) -> pd.DataFrame:
    """Magic Context's port under each of :data:`PORT_VARIANTS`, beside the book's variant: means per trajectory.

    Returns
    -------
    pandas.DataFrame
        One row per variant (and one for the book's variant): ``variant``,
        ``probe_failures``, ``failures_declared``, ``failures_undeclared``,
        ``legality_violations``, ``infeasible_turns``, ``switching_tokens``.
    """
    import pandas as pd

    cols = ["probe_failures", "failures_declared", "failures_undeclared", "legality_violations", "infeasible_turns", "switching_tokens"]
    rows = []
    for label, kw in PORT_VARIANTS.items():
        b = sweep_b(seeds, budget_fractions, policies=["magic_context_decay"], check_reproducible=False, **kw)
        rows.append({"variant": f"Magic Context port: {label}", **b[cols].mean().to_dict()})
    b = sweep_b(seeds, budget_fractions, policies=["book_decay"], check_reproducible=False)
    rows.append({"variant": "Book's decay variant", **b[cols].mean().to_dict()})
    return pd.DataFrame(rows)

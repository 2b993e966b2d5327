"""Every number the simulation rests on, in one place, with who chose it.

The progressive-fidelity chapter fixes no number: it says "Nothing here has
been run". Every threshold, weight and fixture size below was therefore chosen
by someone, and a reader should know by whom:

``book``
    our choice, made to build a runnable fixture or schedule; nothing in the
    source chapter or in Magic Context fixes it. The sensitivity sweep
    (:func:`cvlib.fidelity.sensitivity.sensitivity_b`) varies each of these
    over ``Choice.alternatives`` and reports which findings survive.
``Magic Context``
    a constant of Magic Context's decay renderer, kept as published so the
    port stays a port (see :mod:`cvlib.fidelity.magic_context`).
``port``
    how we map a Magic Context mechanism onto this simulation where the two
    differ (our budget is the only budget, our objects are its compartments).
``issue``
    set to remove a tie the simulation should not have (importance drawn
    from the very constraint that is always pinned); the alternative is
    kept as a sensitivity run.

Modules read their defaults from here (``default("age_thresholds")``), so a
default is never written twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Who can have chosen a number.
OWNERS: tuple[str, ...] = ("book", "Magic Context", "port", "issue")


@dataclass(frozen=True, slots=True)
class Choice:
    """One named number (or setting), its default, who chose it and what it does.

    ``alternatives`` are the values the sensitivity sweep tries instead of the
    default (empty for constants that are not ours to vary).
    """

    name: str
    default: object
    owner: str
    meaning: str
    alternatives: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        if self.owner not in OWNERS:
            raise ParameterError(f"choice {self.name!r} has owner {self.owner!r}; expected one of {OWNERS}")


#: Every named choice, in the order the chapters list them.
CHOICES: tuple[Choice, ...] = (
    # --- trajectory fixtures (cvlib.fidelity.trajectories) -----------------------------------------
    Choice("n_turns", 30, "book", "turns in a generated trajectory", (20, 45)),
    Choice("n_objects", 10, "book", "episodes admitted over a generated trajectory", (6, 16)),
    Choice("n_probes", 12, "book", "hidden later tasks per trajectory", (6, 24)),
    Choice("admit_window", 0.7, "book", "episodes are admitted in the first this-share of the turns", (0.4, 0.9)),
    Choice("declared_fraction", 0.5, "book", "share of probes announced ahead by an obligation", (0.25, 0.75)),
    Choice("lead", 2, "book", "turns before a declared probe that its obligation starts", (1, 4)),
    Choice("pin_fraction", 0.5, "book", "share of non-prohibition constraints pinned to EXACT mid-trajectory", (0.0, 1.0)),
    Choice("probe_min_age", 3, "book", "a probe falls at least this many turns after its episode's admission", (1, 6)),
    Choice("status_window", (2, 8), "book", "turns a status obligation lasts, drawn from [low, high)", ((1, 4), (4, 16))),
    Choice("budget_jitter", 0.2, "book", "each turn's budget is the base times 1 - jitter * U(0, 1)", (0.0, 0.4)),
    Choice("budget_fraction", 0.35, "book", "base budget of a single generated trajectory, as a share of all its full text (the experiments sweep it)"),
    Choice("prohibition_share", 0.5, "book", "share of episodes whose constraint is a prohibition (in quarters; the rest split between requirement and preference)", (0.25, 0.75)),
    Choice("probe_two_checks", 0.4, "book", "share of probes that need two checks rather than one", (0.0, 0.8)),
    Choice("relation_share", 0.7, "book", "share of episodes whose record holds a relation", (0.3, 1.0)),
    Choice("second_id_share", 0.5, "book", "share of episodes with a second identifier (an incident number)", (0.0, 1.0)),
    Choice(
        "importance_mode",
        "independent",
        "book",
        "importance drawn independently of obligations; 'coupled' ties importance to the prohibition, which is always pinned",
        ("coupled",),
    ),
    Choice("importance_coupled", (30, 20, 40), "issue", "coupled importance: 30 + 20 * [prohibition] + U(0, 40)"),
    Choice("importance_independent", (30, 20, 40), "book", "independent importance: 30 + 20 * B + U(0, 40), B a fair coin apart from obligations"),
    # --- schedules (cvlib.fidelity.schedules) -------------------------------------------------------
    Choice("age_thresholds", (3, 8, 15), "book", "age-only: full, dense, record, anchor below each age (turns)", ((2, 5, 10), (5, 12, 24))),
    Choice("related_weight", 3, "book", "obligation-aware: value weight of checks on objects the task declares related", (1, 10)),
    Choice("hysteresis", 0, "book", "obligation-aware: turns a changed form is held before it may change again", (2,)),
    Choice("keep_recent", 1, "book", "flat compactor: episodes younger than this (turns) are not compacted", (0, 3)),
    Choice("compact_ratio", 0.3, "book", "flat compactor: target size of its one compaction, as a share of the full text", (0.15, 0.5)),
    Choice("fold_every", 4, "book", "the book's decay variant re-tiers every this many turns", (1, 8)),
    # --- Magic Context's decay renderer (cvlib.fidelity.magic_context) ------------------------------
    Choice("mc_h50", 24.0, "Magic Context", "half-life in compartments at importance 50 and pressure 1 (H50)"),
    Choice("mc_d", 25.0, "Magic Context", "importance points that double the half-life (D)"),
    Choice("mc_boundaries", (0.201, 0.729, 1.322, 2.587), "Magic Context", "tier cut points on z = age / half-life (Z1-Z4)"),
    Choice("mc_p_floor", 0.10, "Magic Context", "pressure floor (P_FLOOR)"),
    Choice("mc_correction", 1.1, "Magic Context", "second pressure pass runs when the first overshoots the budget by this factor"),
    Choice("mc_m1_cap", 0.20, "Magic Context", "hard fold when the delta of new compartments exceeds this share of the history budget"),
    Choice("mc_force", 0.85, "Magic Context", "hard fold (force materialization) at this usage of the budget"),
    Choice("mc_pressure_passes", 2, "port", "pressure passes: 2 runs the correction pass (Magic Context's renderer ships 1)", (1,)),
    Choice("mc_force_on", True, "port", "apply the 85 % force-materialization fold to our single resident budget", (False,)),
    Choice("mc_cache_ttl_turns", None, "port", "provider cache expiry every this many turns since the last fold (None: never)", (6,)),
    # --- experiments (cvlib.fidelity.experiments) ---------------------------------------------------
    Choice("a_n_objects", 12, "book", "episodes per Experiment A fixture", (6, 24)),
    Choice("a_budget_fractions", (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0), "book", "Experiment A budgets, as shares of all full text"),
    Choice("compaction_grid", tuple(round(0.05 * k, 2) for k in range(1, 21)), "book", "ratios the fair flat compaction may pick per budget"),
    Choice("b_budget_fractions", (0.15, 0.25, 0.35, 0.5, 0.7), "book", "Experiment B base budgets, as shares of all full text"),
    Choice("seeds", (0, 1, 2), "book", "trajectory seeds (each one fixture, not an independent sample)"),
)

_BY_NAME = {c.name: c for c in CHOICES}


def choice(name: str) -> Choice:
    """The :class:`Choice` called ``name`` (a clear error if there is none)."""
    if name not in _BY_NAME:
        raise ParameterError(f"unknown choice {name!r}; expected one of {sorted(_BY_NAME)}")
    return _BY_NAME[name]


def default(name: str) -> Any:
    """The default value of the choice called ``name`` (an int, a float, a string or a tuple, as the choice is)."""
    return choice(name).default


def book_choices() -> tuple[Choice, ...]:
    """The choices that are ours to vary: owned by the book or by the port, with alternatives to try."""
    return tuple(c for c in CHOICES if c.owner in ("book", "port") and c.alternatives)


def choices_table() -> pd.DataFrame:
    """Every choice as a DataFrame: name, default, owner, meaning, alternatives tried.

    Returns
    -------
    pandas.DataFrame
        One row per :data:`CHOICES` entry, in registry order.
    """
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "name": c.name,
                "default": show_value(c.default),
                "owner": c.owner,
                "meaning": c.meaning,
                "alternatives": ", ".join(show_value(a) for a in c.alternatives),
            }
            for c in CHOICES
        ]
    )


def show_value(value: object) -> str:
    """A value as the tables print it: tuples in parentheses, long ones as a range."""
    if isinstance(value, tuple):
        if len(value) > 6:
            return f"{show_value(value[0])} to {show_value(value[-1])} ({len(value)} values)"
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    return str(value)

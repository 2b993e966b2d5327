"""What a schedule's run shows, as plain results: a probe's outcome, the turns a decay schedule re-tiered and why.

These read a :class:`~cvlib.fidelity.runner.ScheduleRun` (nothing is re-run)
and return plain values; the chapters' glued numbers are picked out of them,
and out of the experiments' tables, by
:mod:`cvlib.presentation.chapters.fidelity_experiment_a` and
:mod:`~cvlib.presentation.chapters.fidelity_experiment_b`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from .runner import ScheduleRun


def probe_outcome(run: ScheduleRun, turn: int, object_id: str) -> str:
    """ "passes" or "fails" for the probe of ``object_id`` at ``turn`` in a run (a clear error if there is none)."""
    for p in run.probes:
        if p.turn == turn and p.object_id == object_id:
            return "passes" if p.passed else "fails"
    raise ParameterError(f"run {run.policy!r} has no probe of {object_id!r} at turn {turn}")


def fold_turns(policy, run: ScheduleRun) -> list[int]:
    """The turns at which a schedule re-tiered: Magic Context's port by its hard folds, the book's variant by its cadence.

    Parameters
    ----------
    policy:
        The :class:`~cvlib.fidelity.schedules.MagicContextDecay` or
        :class:`~cvlib.fidelity.schedules.BookDecay` that made ``run``.
    run:
        Its run (the snapshots it saw are replayed; nothing is re-run).

    Returns
    -------
    list of int
    """
    if hasattr(policy, "fold_reason"):
        return [s.turn for s in run.snapshots if policy.fold_reason(s) is not None]
    if hasattr(policy, "fold_every"):
        return [t.turn for t in run.turns if t.turn % policy.fold_every == 0]
    raise ParameterError(
        f"schedule {policy.name!r} has no folds: expected Magic Context's port or the book's decay variant"
    )


def fold_reasons(policy, run: ScheduleRun) -> Mapping[str, int]:
    """How often each hard-fold trigger fired in a run of Magic Context's port."""
    if not hasattr(policy, "fold_reason"):
        raise ParameterError(f"schedule {policy.name!r} is not Magic Context's port")
    out: dict[str, int] = {}
    for s in run.snapshots:
        r = policy.fold_reason(s)
        if r is not None:
            out[r] = out.get(r, 0) + 1
    return out

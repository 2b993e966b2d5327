"""What one executor run gives: its counts, SCUR, and the one rule for naming per-executor columns.

Every entry that runs executors (the one loop, the bit-mask path, the
sweeps) reports an :class:`ExecutorResult` or the same seven counts, and every
results table lays several executors side by side by one rule,
:func:`policy_column`: ``{policy}_{metric}``, e.g. ``validity_aware_pfw``.
Kept apart from the loop so that the tables and the fast path read results
without importing how they were computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cvlib.core.errors import ParameterError
from cvlib.core.values import asdict, value_class
from cvlib.core.world import Ledger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["METRICS", "ExecutorResult", "policy_column", "policy_columns", "scur_of"]

#: The per-executor quantities of a results table by column suffix; the column ``{policy}_{metric}``
#: holds this :class:`ExecutorResult` attribute of that policy's run.
METRICS: Mapping[str, str] = {
    "pfw": "pre_failure_work",
    "steps": "steps_used",
    "completed": "completed",
    "scur": "scur",
    "replans": "replans",
    "verifications": "verifications",
}


@value_class
class ExecutorResult:
    """What one executor did on one scenario.

    ``pre_failure_work`` (PFW) counts non-action steps executed while a fact in
    their closure was really broken; ``scur`` is the share of decisions taken
    on such a closure, judged by ground truth rather than by belief.
    """

    executor: str
    completed: bool
    steps_used: int
    budget: int
    replans: int
    verifications: int
    pre_failure_work: int
    decisions_total: int
    decisions_on_stale_deps: int

    @property
    def scur(self) -> float:
        """Stale context utilization rate (SCUR), stale decisions over all decisions; 0 when none."""
        return scur_of(self.decisions_on_stale_deps, self.decisions_total)

    @classmethod
    def from_ledger(cls, executor: str, ledger: Ledger, budget: int, completed: bool) -> ExecutorResult:
        """The result of a finished run, from the counters its world kept.

        Parameters
        ----------
        executor : str
            The executor's name.
        ledger : Ledger
            The world's counters after the run.
        budget : int
            The budget the run had.
        completed : bool
            Whether the run completed.

        Returns
        -------
        ExecutorResult
        """
        return cls(
            executor=executor,
            completed=completed,
            steps_used=ledger.steps_used,
            budget=budget,
            replans=ledger.replans,
            verifications=ledger.verifications,
            pre_failure_work=ledger.pre_failure_work,
            decisions_total=ledger.decisions_total,
            decisions_on_stale_deps=ledger.decisions_on_stale_deps,
        )

    def to_dict(self) -> dict[str, Any]:
        """Every field plus ``scur``, flat, for one row of a results table.

        Returns
        -------
        dict
        """
        out = asdict(self)
        out["scur"] = self.scur
        return out


def scur_of(decisions_on_stale_deps: int, decisions_total: int) -> float:
    """SCUR from its two counts: the one definition, which :attr:`ExecutorResult.scur` and the bit-mask paths share.

    Parameters
    ----------
    decisions_on_stale_deps : int
        Decisions taken on a closure holding a really broken fact.
    decisions_total : int
        All decisions; 0 gives a SCUR of 0.

    Returns
    -------
    float
    """
    if decisions_total == 0:
        return 0.0
    return decisions_on_stale_deps / decisions_total



def policy_column(policy: str, metric: str) -> str:
    """The one rule for naming a per-executor column: ``{policy}_{metric}``.

    Parameters
    ----------
    policy : str
        The executor's name (``"validity_aware"``).
    metric : str
        A key of :data:`METRICS` or another per-run quantity (``"pfw"``).

    Returns
    -------
    str
        E.g. ``"validity_aware_pfw"``.
    """
    return f"{policy}_{metric}"


def policy_columns(results: Mapping[str, ExecutorResult], metrics: Iterable[str]) -> dict[str, Any]:
    """Each of ``metrics`` for each executor in ``results``, grouped by metric, executors in order.

    Parameters
    ----------
    results : mapping of str to ExecutorResult
        One result per executor, keyed by name.
    metrics : iterable of str
        Keys of :data:`METRICS`.

    Returns
    -------
    dict
        ``{policy_column(name, metric): value}``, e.g. ``baseline_pfw``,
        ``validity_aware_pfw``, ``baseline_steps``, ...
    """
    out: dict[str, Any] = {}
    for metric in metrics:
        try:
            attribute = METRICS[metric]
        except KeyError:
            raise ParameterError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}") from None
        for name, result in results.items():
            out[policy_column(name, metric)] = getattr(result, attribute)
    return out



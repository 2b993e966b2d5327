"""The studies' tasks and the cvlib model provider, as inspect_ai's entry points ``cvbook`` and ``cvlib`` load them.

inspect names an extension's tasks after the package that defines them
(``cvbook``, the distribution): ``inspect eval cvbook/agent_study`` and
``inspect eval cvbook/notes_study``. Each task parameter is a ``-T name=value`` on inspect's
command line; the defaults are the pre-registered design, each study's second edition (see
:mod:`cvlib.evals.tasks`). The provider ``cvlib``
(:class:`cvlib.evals.provider.CvlibModelAPI`) is registered here too, so
``--model cvlib/smollm2-135m`` works.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.model import ModelAPI, modelapi

from cvlib.evals.bridge import AUTO, DEFAULT_RETRIES
from cvlib.evals.runners import NOTES_VARIANTS, ORDERS
from cvlib.evals.tasks import PLAN, agent_study_task, notes_study_task

__all__ = ["agent_study", "notes_study"]


@modelapi(name="cvlib")
def cvlib_provider() -> type[ModelAPI]:
    """The provider ``cvlib`` (its module, and the runtime, load only when a ``cvlib/...`` model is asked for)."""
    from cvlib.evals.provider import CvlibModelAPI

    return CvlibModelAPI


@task
def agent_study(orders: str = ",".join(map(str, ORDERS)), constraint: str = AUTO, retries: int = DEFAULT_RETRIES,
                threads: int = 1, evaluation: str = "pure") -> Task:
    """The agent study, second edition (a sample per task and option order; see :func:`cvlib.evals.tasks.agent_study_task`)."""
    return agent_study_task(orders, constraint, retries, threads, evaluation)


@task
def notes_study(variants: str = ",".join(NOTES_VARIANTS), repeats: str = PLAN, constraint: str = AUTO,
                retries: int = DEFAULT_RETRIES, threads: int = 1) -> Task:
    """The notes study, second edition (a sample per task, variant and repeat; see :func:`cvlib.evals.tasks.notes_study_task`)."""
    return notes_study_task(variants, repeats, constraint, retries, threads)

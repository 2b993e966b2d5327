"""Answers given again: a pure model's answer to a prompt it has already answered, without model time.

Under ``evaluation="pure"`` or ``"fresh"`` (:class:`~cvlib.models.settings.GenerationSettings`)
an answer depends on its prompt and settings alone, so a prompt put twice
(the ``told`` and ``enforced`` arms share every prompt up to the first refused
``EXECUTE``, and often their probes) needs computing once. :class:`PromptMemo`
wraps a model and keeps the answers of one group of calls; a call under
``cached`` evaluation always goes to the model, because its answer may depend
on what ran before it. ``cvlib models verify`` re-generates every recorded
call, reused ones included, so a reuse that were not identical would show.
"""

from __future__ import annotations

from collections.abc import Sequence

from cvlib.models.interface import LanguageModel
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity

__all__ = ["PromptMemo"]


class PromptMemo:
    """A model that answers a repeated pure prompt from its memory of the group (see the module docstring).

    Parameters
    ----------
    model : LanguageModel
        The model that computes an answer the memo does not hold.
    """

    def __init__(self, model: LanguageModel) -> None:
        self.model = model
        self._answers: dict[tuple[tuple[Message, ...], GenerationSettings], str] = {}
        #: Calls answered from memory since the last :meth:`reset`, and calls the model computed.
        self.reused = 0
        self.computed = 0

    @property
    def identity(self) -> ModelIdentity:
        """The wrapped model's identity."""
        return self.model.identity

    def prepare(self, settings: GenerationSettings) -> None:
        """Prepare the wrapped model.

        Parameters
        ----------
        settings : GenerationSettings
            The settings of the calls to come.
        """
        self.model.prepare(settings)

    def reset(self) -> None:
        """Start a new group: forget the answers and reset the wrapped model."""
        self._answers.clear()
        self.reused = self.computed = 0
        self.model.reset()

    def close(self) -> None:
        """Close the wrapped model."""
        self.model.close()

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The answer to ``messages``: remembered when the same pure prompt was answered in this group.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.
        settings : GenerationSettings
            How to generate.

        Returns
        -------
        str
        """
        if settings.evaluation == "cached":
            self.computed += 1
            return self.model.complete(messages, settings)
        key = (tuple((str(r), str(c)) for r, c in messages), settings)
        if key in self._answers:
            self.reused += 1
            return self._answers[key]
        answer = self.model.complete(messages, settings)
        self._answers[key] = answer
        self.computed += 1
        return answer

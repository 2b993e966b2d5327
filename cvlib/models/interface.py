"""The one interface every language model here has: chat turns and settings in, text out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from cvlib.models.settings import GenerationSettings, Message, ModelIdentity

__all__ = ["LanguageModel"]


@runtime_checkable
class LanguageModel(Protocol):
    """A model that answers a chat (:class:`~cvlib.models.llamacpp.LlamaCppModel`,
    :class:`~cvlib.models.recording.ReplayModel`, a :class:`~cvlib.models.recording.Recorder` around either).

    The caller never sees tokens or templates: the runtime applies the model's
    own chat template, so one prompt can be put to any model file.
    """

    @property
    def identity(self) -> ModelIdentity:
        """Which model answers (file name, SHA-256, runtime, runtime version)."""

    def generate(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The model's answer to ``messages`` under ``settings``.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns ``(role, content)``, roles ``system``, ``user``, ``assistant``.
        settings : GenerationSettings
            How to generate.

        Returns
        -------
        str
            The answer's text, without the stop string that ended it.
        """

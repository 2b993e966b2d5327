"""A model that answers from a recording: the ``replay`` backend (spec ``replay:PATH``).

The chapters read recordings, so the book builds and re-executes without a
model; a replayed model lets the same code that recorded a study run it again
from the lines, and refuses, in one line, any call the recording does not hold
(a changed prompt, other settings, another model).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from cvlib.models.errors import RecordingError, UnrecordedCallError
from cvlib.models.recording import call_key, read_recording
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = ["REPLAY_PREFIX", "ReplayBackend", "ReplayModel"]

#: What a replay spec starts with.
REPLAY_PREFIX = "replay:"


class ReplayModel:
    """A model that answers from a recording and refuses, in one line, any call the recording does not hold.

    Parameters
    ----------
    recording : str or os.PathLike
        A recording.
    model_sha256 : str, optional
        Which recorded model to be (its key: the SHA-256, or ``runtime:name`` for a server's model), when the
        recording holds more than one.
    """

    def __init__(self, recording: str | os.PathLike[str], model_sha256: str | None = None) -> None:
        self.path = Path(recording)
        records = read_recording(self.path)
        models = {r.identity.key: r.identity for r in records}
        if not models:
            raise RecordingError(f"recording {self.path.name!r} holds no call")
        if model_sha256 is None:
            if len(models) > 1:
                raise RecordingError(
                    f"recording {self.path.name!r} holds {len(models)} models; pass model_sha256, one of "
                    + ", ".join(sorted(models))
                )
            model_sha256 = next(iter(models))
        if model_sha256 not in models:
            raise UnrecordedCallError(f"recording {self.path.name!r} holds no call to the model {model_sha256}")
        self._identity = models[model_sha256]
        self._answers: dict[str, str] = {}
        for r in records:
            if r.identity.key == model_sha256:
                self._answers.setdefault(r.key, r.response)

    @property
    def identity(self) -> ModelIdentity:
        """The recorded model's identity, as recorded."""
        return self._identity

    def __len__(self) -> int:
        return len(self._answers)

    def prepare(self, settings: GenerationSettings) -> None:
        """Nothing to load.

        Parameters
        ----------
        settings : GenerationSettings
            Unused.
        """

    def reset(self) -> None:
        """Nothing to forget: a recorded answer does not depend on what was asked before."""

    def close(self) -> None:
        """Nothing to free."""

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The recorded answer to exactly this prompt and these settings.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.
        settings : GenerationSettings
            How the call was made.

        Returns
        -------
        str
        """
        turns = check_messages(messages)
        key = call_key(self._identity.key, settings, turns)
        try:
            return self._answers[key]
        except KeyError:
            last = turns[-1][1].replace("\n", " ")
            raise UnrecordedCallError(
                f"recording {self.path.name!r} holds no call with this prompt and these settings for "
                f"{self._identity.file_name} (last turn starts {last[:60]!r})"
            ) from None


class ReplayBackend:
    """Opens ``replay:PATH`` as a :class:`ReplayModel` (entry point ``replay``)."""

    name = "replay"
    accepts = "replay:PATH, a recording to answer from"

    def claims(self, spec: str) -> bool:
        """Whether ``spec`` starts with ``replay:``.

        Parameters
        ----------
        spec : str
            What the caller asked to open.

        Returns
        -------
        bool
        """
        return spec.startswith(REPLAY_PREFIX)

    def open(self, spec: str) -> ReplayModel:
        """The recording's model.

        Parameters
        ----------
        spec : str
            ``replay:PATH``.

        Returns
        -------
        ReplayModel
        """
        return ReplayModel(spec[len(REPLAY_PREFIX):])

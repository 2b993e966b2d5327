"""What a call to a language model is made of: the chat turns, the settings, and the model's identity.

Everything that can change a model's answer is a value here and is written
into every recorded call: the settings (greedy by default, the seed, how many
tokens, how many threads, the context size, where to stop) and the identity of
the model (its file's name and SHA-256, the runtime and its version). A
recorded answer can then be re-generated, or refused, on exactly those terms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cvlib.core.errors import ParameterError

__all__ = ["ROLES", "GenerationSettings", "Message", "ModelIdentity", "check_messages"]

#: A chat turn ``(role, content)``; the runtime applies the model's chat template.
Message = tuple[str, str]

#: The roles a chat turn may have.
ROLES = ("system", "user", "assistant")


#: How a runtime may evaluate a prompt (the ``evaluation`` of :class:`GenerationSettings`).
EVALUATIONS = ("cached", "pure", "fresh", "aligned")


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """How to generate one answer.

    Parameters
    ----------
    max_tokens : int
        At most this many tokens are generated.
    temperature : float
        0.0 is greedy decoding (the most likely token every time), the default:
        the answer then depends only on the prompt, the model and the runtime.
    seed : int
        Seed of the sampler (matters only when ``temperature`` > 0).
    threads : int
        CPU threads the runtime uses (one per worker process when recording in parallel).
    context_size : int
        Tokens of context the runtime allocates; a prompt must fit in it with the answer.
    stop : tuple of str
        Generation stops before the first of these strings (e.g. a newline, for one-line answers).
    grammar : str or None
        A llama.cpp grammar (GBNF) the answer must match, so a small model's choice is read, not guessed
        from free text; None: unconstrained. A backend that cannot honour it refuses the call.
    batch_size : int
        Tokens the runtime processes in one batch of a prompt. It changes how fast a prompt is read and,
        at a near-tie, can change a greedy answer (batches round differently), so it is recorded.
    evaluation : str
        ``cached`` (the default): the runtime reuses the computed prefix a prompt shares with the one before,
        in whatever batches it was computed, so at a near-tie an answer can depend on what ran before it.
        ``pure``: every token is computed alone (a batch of one), so a reused prefix holds exactly what a fresh
        evaluation would compute and the answer depends on the prompt and settings alone; slower to read a
        long new prompt. ``fresh``: every call reads its whole prompt from the first token in the runtime's
        usual batches, reusing nothing, so the answer depends on the prompt and settings alone too; cheaper
        than ``pure`` when consecutive prompts share little after their first difference (the notes study's
        arms differ before the function they end with). ``aligned``: every prompt is read in batches of
        ``batch_size`` tokens starting at multiples of it, and only whole batches a prompt shares with the one
        before are reused (:mod:`cvlib.models.aligned`), so the answer depends on the prompt and settings alone
        at a fraction of ``pure``'s cost when prompts grow by appending; a backend that cannot control its
        batches reads the whole prompt instead. Written only when not ``cached``.
    """

    max_tokens: int
    temperature: float = 0.0
    seed: int = 0
    threads: int = 1
    context_size: int = 2048
    stop: tuple[str, ...] = field(default=())
    grammar: str | None = None
    batch_size: int = 2048
    evaluation: str = "cached"

    def __post_init__(self) -> None:
        if self.evaluation not in EVALUATIONS:
            raise ParameterError(
                f"generation setting evaluation must be one of {', '.join(EVALUATIONS)}, got {self.evaluation!r}"
            )
        for name in ("max_tokens", "seed", "threads", "context_size", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParameterError(f"generation setting {name} must be an integer, got {value!r}")
        if self.max_tokens < 1 or self.threads < 1 or self.context_size < 16 or self.seed < 0 or self.batch_size < 1:
            raise ParameterError(
                f"generation settings out of range: max_tokens={self.max_tokens}, threads={self.threads}, "
                f"context_size={self.context_size}, seed={self.seed}, batch_size={self.batch_size}; expected "
                "max_tokens, threads, batch_size >= 1, context_size >= 16, seed >= 0"
            )
        if self.grammar is not None and (not isinstance(self.grammar, str) or "root" not in self.grammar):
            raise ParameterError(
                f"generation setting grammar must be a llama.cpp grammar text with a root rule, got {self.grammar!r:.80}"
            )
        if isinstance(self.temperature, bool) or not isinstance(self.temperature, int | float) or self.temperature < 0:
            raise ParameterError(f"generation setting temperature must be a number >= 0, got {self.temperature!r}")
        object.__setattr__(self, "temperature", float(self.temperature))
        stop = self.stop
        if isinstance(stop, str) or not all(isinstance(s, str) and s for s in stop):
            raise ParameterError(f"generation setting stop must be a sequence of non-empty strings, got {stop!r}")
        object.__setattr__(self, "stop", tuple(stop))

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready mapping (``stop`` as a list), as a recorded call holds them.

        ``grammar`` and ``batch_size`` are written only when they differ from their defaults, so the
        settings of a call recorded before they existed read back to the same mapping.

        Returns
        -------
        dict
        """
        out = asdict(self)
        out["stop"] = list(self.stop)
        if self.grammar is None:
            del out["grammar"]
        if self.batch_size == 2048:
            del out["batch_size"]
        if self.evaluation == "cached":
            del out["evaluation"]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GenerationSettings:
        """Settings read back from a recorded call.

        Parameters
        ----------
        data : Mapping
            What :meth:`to_dict` wrote.

        Returns
        -------
        GenerationSettings
        """
        known = {"max_tokens", "temperature", "seed", "threads", "context_size", "stop", "grammar", "batch_size",
                 "evaluation"}
        unknown = sorted(set(data) - known)
        if unknown or "max_tokens" not in data:
            raise ParameterError(
                f"recorded settings {dict(data)!r}: expected the keys {', '.join(sorted(known))} (max_tokens required)"
            )
        values = dict(data)
        values["stop"] = tuple(values.get("stop", ()))
        return cls(**values)


@dataclass(frozen=True, slots=True)
class ModelIdentity:
    """Which model answered, as far as its backend can prove it.

    A local file is content-addressed: its SHA-256 names the weights, whoever
    serves them. A model behind a server is known only by the name the server
    gives it and what the server reports of itself; that is recorded as it is,
    and marked as not content-addressed, so nobody mistakes it for a proof.

    Parameters
    ----------
    file_name : str
        The model file's name (not its path: a path says where, not what), or the name a server gives the model.
    sha256 : str
        SHA-256 of the file, hex: what makes two files the same model; ``""`` when it cannot be known.
    runtime : str
        The runtime's name (``xllamacpp``, ``openai-server``, or ``replay`` for an answer read from a recording).
    runtime_version : str
        The runtime's version (a server's build or fingerprint); greedy answers are byte-identical only for one
        runtime version.
    content_addressed : bool
        Whether ``sha256`` names the weights (a local file); False for a server's model.
    """

    file_name: str
    sha256: str
    runtime: str
    runtime_version: str
    content_addressed: bool = True

    @property
    def key(self) -> str:
        """What a recorded call is keyed by (the SHA-256, or ``runtime:name`` for a model that is not content-addressed)."""
        return self.sha256 if self.content_addressed else f"{self.runtime}:{self.file_name}"

    def to_dict(self) -> dict[str, Any]:
        """The identity as a JSON-ready mapping.

        Returns
        -------
        dict
        """
        return asdict(self)


def check_messages(messages: Sequence[Message]) -> tuple[Message, ...]:
    """``messages`` as a tuple of ``(role, content)`` pairs, or a one-line error naming the bad turn.

    Parameters
    ----------
    messages : sequence of (str, str)
        Chat turns, each a role in :data:`ROLES` and its text.

    Returns
    -------
    tuple of (str, str)
    """
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence) or not messages:
        raise ParameterError(f"messages must be a non-empty sequence of (role, content) pairs, got {messages!r:.80}")
    out: list[Message] = []
    for k, turn in enumerate(messages):
        if (
            not isinstance(turn, Sequence)
            or isinstance(turn, str)
            or len(turn) != 2
            or turn[0] not in ROLES
            or not isinstance(turn[1], str)
        ):
            raise ParameterError(
                f"message {k} is {turn!r:.80}; expected (role, content) with role one of {', '.join(ROLES)}"
            )
        out.append((str(turn[0]), turn[1]))
    return tuple(out)

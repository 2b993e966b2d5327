"""Any GGUF model file, run in-process by llama.cpp through ``xllamacpp``.

The runtime is loaded the first time an answer is asked for, with the threads
and context size of that call's settings (a later call with other values
reloads it). One slot, and the runtime's prompt cache on: consecutive prompts
that share a beginning (an agent's growing transcript) reuse the computed
prefix, which changes how long a call takes, never what it answers (greedy
answers were checked byte-identical with the cache on and off). The runtime's
own log is silenced.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cvlib.models.errors import ModelError, RuntimeMissingError
from cvlib.models.files import check_gguf, file_sha256
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = ["RUNTIME", "LlamaCppModel", "runtime_version"]

#: The runtime's name as recorded.
RUNTIME = "xllamacpp"


def _runtime() -> Any:
    try:
        import xllamacpp
    except ImportError:
        raise RuntimeMissingError(
            "the llama.cpp runtime is not installed; install it with `pip install -e .[models]` "
            "(or bash scripts/install_models.sh)"
        ) from None
    return xllamacpp


def runtime_version() -> str:
    """The installed ``xllamacpp`` version (a one-line error when it is missing).

    Returns
    -------
    str
    """
    return str(_runtime().__version__)


class LlamaCppModel:
    """A GGUF model file answered by llama.cpp in this process.

    Parameters
    ----------
    path : str or os.PathLike
        Any GGUF file (a bundled one from :func:`~cvlib.models.bundled.bundled_model`, or your own).
    sha256 : str, optional
        The file's SHA-256 when already known (a locator that checked it); computed otherwise.
    """

    def __init__(self, path: str | os.PathLike[str], *, sha256: str | None = None) -> None:
        self.path: Path = check_gguf(path)
        self._sha256 = sha256 or file_sha256(self.path)
        self._identity = ModelIdentity(self.path.name, self._sha256, RUNTIME, runtime_version())
        self._server: Any = None
        self._loaded_with: tuple[int, int] | None = None
        #: The runtime's timings of the last call (prompt and generated tokens, milliseconds), for benchmarks.
        self.last_timings: dict[str, Any] = {}

    @property
    def identity(self) -> ModelIdentity:
        """File name, SHA-256, runtime and its version."""
        return self._identity

    def load(self, threads: int = 1, context_size: int = 2048) -> None:
        """Load the model now with ``threads`` and ``context_size`` (else the first call loads it).

        Parameters
        ----------
        threads : int
            CPU threads for prompt processing and generation.
        context_size : int
            Tokens of context.
        """
        if self._loaded_with == (threads, context_size):
            return
        xllamacpp = _runtime()
        self.close()
        params = xllamacpp.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx = context_size
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.warmup = False
        params.verbosity = -1
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # the runtime raises its own types
            raise ModelError(f"llama.cpp could not load {self.path.name!r}: {exc}") from None
        self._loaded_with = (threads, context_size)

    def close(self) -> None:
        """Free the runtime (the next call loads it again)."""
        self._server = None
        self._loaded_with = None

    def generate(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The model's answer to ``messages`` under ``settings`` (see :class:`~cvlib.models.interface.LanguageModel`).

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
        turns = check_messages(messages)
        if not isinstance(settings, GenerationSettings):
            raise ModelError(f"settings must be GenerationSettings, got {type(settings).__name__}")
        self.load(settings.threads, settings.context_size)
        request: dict[str, Any] = {
            "messages": [{"role": role, "content": content} for role, content in turns],
            "max_tokens": settings.max_tokens,
            "temperature": settings.temperature,
            "seed": settings.seed,
            "cache_prompt": True,
        }
        if settings.stop:
            request["stop"] = list(settings.stop)
        if settings.temperature == 0.0:
            request["top_k"] = 1
        result = self._server.handle_chat_completions(request)
        if not isinstance(result, dict) or "choices" not in result:
            detail = result.get("error", result) if isinstance(result, dict) else result
            raise ModelError(f"llama.cpp refused the call to {self.path.name!r}: {str(detail)[:200]}")
        self.last_timings = dict(result.get("timings", {}))
        content = result["choices"][0]["message"].get("content") or ""
        return str(content)

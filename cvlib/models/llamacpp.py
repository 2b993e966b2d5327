"""Any GGUF model file, run in-process by llama.cpp through ``xllamacpp``: the ``llamacpp`` backend.

The runtime is loaded the first time an answer is asked for (or by
:meth:`LlamaCppModel.prepare`), with the threads, context size and batch size
of that call's settings (a later call with other values reloads it). One
slot, and the runtime's prompt cache on: consecutive prompts that share a
beginning (an agent's growing transcript, a task's arms that share their
system prompt and plan) reuse the computed prefix. That saves most of a
call's time, and at a near-tie it can change a greedy answer (a prefix
computed in other batches rounds differently), so a caller that needs
re-generation byte for byte calls :meth:`LlamaCppModel.reset` where a group of
calls starts (see :mod:`cvlib.models.interface`), or asks for ``pure`` or
``aligned`` evaluation, under which an answer depends on its prompt alone
(:mod:`cvlib.models.aligned`). The runtime's own log is silenced.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cvlib.models.aligned import aligned_reuse, needs_priming, priming_prompt
from cvlib.models.errors import ModelError, RuntimeMissingError
from cvlib.models.files import GGUF_MAGIC, check_gguf, file_sha256
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = ["RUNTIME", "LlamaCppBackend", "LlamaCppModel", "runtime_version"]

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
        self._loaded_with: tuple[int, int, int, str] | None = None
        #: Every runtime loaded so far, by (threads, context size, batch size, evaluation). Switching settings keeps the
        #: old one instead of freeing it: freeing a runtime in the middle of a run was seen to hang in its
        #: destructor (a thread it joins never ends), and the notes study alternates two context sizes.
        self._servers: dict[tuple[int, int, int, str], Any] = {}
        self._fresh = True
        #: The prompt tokens of the last ``aligned`` call, or None when the next one reads its prompt whole.
        self._previous_tokens: list[int] | None = None
        #: The runtime's timings of the last call (prompt and generated tokens, milliseconds), for benchmarks.
        self.last_timings: dict[str, Any] = {}

    @property
    def identity(self) -> ModelIdentity:
        """File name, SHA-256, runtime and its version."""
        return self._identity

    def prepare(self, settings: GenerationSettings) -> None:
        """Load the model now with the settings' threads, context size and batch size (else the first call loads it).

        Parameters
        ----------
        settings : GenerationSettings
            The settings of the calls to come.
        """
        wanted = (settings.threads, settings.context_size, settings.batch_size, settings.evaluation)
        if self._loaded_with == wanted:
            return
        if wanted in self._servers:
            self._server, self._loaded_with, self._fresh = self._servers[wanted], wanted, True
            self._previous_tokens = None
            return
        xllamacpp = _runtime()
        params = xllamacpp.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx = settings.context_size
        params.n_batch = settings.batch_size
        # Pure evaluation computes every token as a batch of its own, so a token's keys and values are the same
        # bytes whether they were computed in this prompt or reused from an earlier one (whose answer tokens were
        # computed one at a time too): a reused prefix is then provably what a fresh evaluation would give.
        params.n_ubatch = 1 if settings.evaluation == "pure" else min(settings.batch_size, 512)
        if settings.evaluation == "aligned":
            # Batches of exactly batch_size tokens, starting at multiples of it; nothing is restored from the
            # runtime's store of saved prompts, and no cached chunk is shifted to a new place: the only reuse
            # left is the prefix that :meth:`_complete_aligned` allows.
            params.n_ubatch = settings.batch_size
            params.cache_ram_mib = 0
            params.cache_idle_slots = False
            params.n_cache_reuse = 0
        params.n_parallel = 1
        params.cpuparams.n_threads = settings.threads
        params.cpuparams_batch.n_threads = settings.threads
        params.warmup = False
        params.verbosity = -1
        params.endpoint_metrics = True
        try:
            self._server = xllamacpp.Server(params)
            # The runtime's constructor returns before its task loop has started, and its destructor asks that
            # loop to stop: a runtime freed before the loop started (a recorder that found nothing left to do)
            # waited for it forever. A metrics request is answered by the loop, so once it returns the loop runs.
            self._server.handle_metrics()
        except Exception as exc:  # the runtime raises its own types
            raise ModelError(f"llama.cpp could not load {self.path.name!r}: {exc}") from None
        self._servers[wanted] = self._server
        self._loaded_with = wanted
        self._fresh = True
        self._previous_tokens = None

    def reset(self) -> None:
        """The next call reads its whole prompt (its computed prefix is not reused)."""
        self._fresh = True
        self._previous_tokens = None

    def close(self) -> None:
        """Free the runtime (the next call loads it again)."""
        self._server = None
        self._servers.clear()
        self._loaded_with = None

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The model's answer to ``messages`` under ``settings`` (see :class:`~cvlib.models.interface.LanguageModel`).

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.
        settings : GenerationSettings
            How to generate (a grammar is sent to the runtime, which constrains the answer to it).

        Returns
        -------
        str
        """
        turns = check_messages(messages)
        if not isinstance(settings, GenerationSettings):
            raise ModelError(f"settings must be GenerationSettings, got {type(settings).__name__}")
        self.prepare(settings)
        if settings.evaluation == "aligned":
            return self._complete_aligned(turns, settings)
        request = chat_request(turns, settings, cache_prompt=not self._fresh and settings.evaluation != "fresh")
        result = self._answered(self._server.handle_chat_completions(request))
        self._fresh = False
        content = result["choices"][0]["message"].get("content") or ""
        return str(content)

    def _answered(self, result: Any) -> dict[str, Any]:
        if not isinstance(result, dict) or "choices" not in result:
            detail = result.get("error", result) if isinstance(result, dict) else result
            raise ModelError(f"llama.cpp refused the call to {self.path.name!r}: {str(detail)[:200]}")
        self.last_timings = dict(result.get("timings", {}))
        return result

    def _complete_aligned(self, turns: Sequence[Message], settings: GenerationSettings) -> str:
        # The chat endpoint would tokenize the prompt itself and keep whatever prefix its cache shares; here the
        # prompt is built and tokenized as that endpoint does, the prefix to keep is decided by
        # cvlib.models.aligned, and the runtime is held to it (a priming call, then a check of what it kept).
        tokens = self.prompt_tokens(turns)
        previous = self._previous_tokens
        reuse = aligned_reuse(previous, tokens, settings.batch_size)
        if previous is not None and reuse and needs_priming(previous, tokens, reuse):
            primed = self._answered(
                self._server.handle_completions(
                    {
                        "prompt": priming_prompt(tokens, reuse),
                        "n_predict": 0,
                        "cache_prompt": True,
                        "temperature": 0.0,
                        "top_k": 1,
                    }
                )
            )
            self._check_kept(primed, reuse)
        request = completion_request(tokens, settings, cache_prompt=reuse > 0)
        result = self._answered(self._server.handle_completions(request))
        self._check_kept(result, reuse)
        self._previous_tokens = tokens
        self._fresh = False
        return str(result["choices"][0].get("text") or "")

    def _check_kept(self, result: dict[str, Any], reuse: int) -> None:
        kept = result.get("timings", {}).get("cache_n")
        if kept != reuse:
            raise ModelError(
                f"llama.cpp kept {kept} computed prompt tokens of {self.path.name!r} where aligned evaluation allows "
                f"{reuse}; the answer would depend on the calls before it"
            )

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The prompt's tokens as the chat endpoint builds them: the model's chat template, then its tokenizer.

        The runtime offers both only through its loopback HTTP listener (the in-process calls take a whole
        chat), so they are asked for there.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.

        Returns
        -------
        list of int
        """
        if self._server is None:
            raise ModelError("the runtime is not loaded; call prepare(settings) first")
        chat = [{"role": role, "content": content} for role, content in check_messages(messages)]
        prompt = self._listener("/apply-template", {"messages": chat})["prompt"]
        tokens = self._listener("/tokenize", {"content": prompt, "add_special": True, "parse_special": True})
        return [int(t) for t in tokens["tokens"]]

    def _listener(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            f"{self._server.listening_address}{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())
        except OSError as exc:
            raise ModelError(f"llama.cpp's loopback listener did not answer {path}: {exc}") from None


def chat_request(turns: Sequence[Message], settings: GenerationSettings, *, cache_prompt: bool) -> dict[str, Any]:
    """The chat-completions request llama.cpp's server (in-process or over HTTP) takes for one call.

    Parameters
    ----------
    turns : sequence of (str, str)
        Chat turns, checked.
    settings : GenerationSettings
        How to generate.
    cache_prompt : bool
        Whether the runtime may reuse the computed prefix of its previous prompt.

    Returns
    -------
    dict
    """
    request: dict[str, Any] = {
        "messages": [{"role": role, "content": content} for role, content in turns],
        "max_tokens": settings.max_tokens,
        "temperature": settings.temperature,
        "seed": settings.seed,
        "cache_prompt": cache_prompt,
    }
    if settings.stop:
        request["stop"] = list(settings.stop)
    if settings.temperature == 0.0:
        request["top_k"] = 1
    if settings.grammar is not None:
        request["grammar"] = settings.grammar
    return request


def completion_request(tokens: Sequence[int], settings: GenerationSettings, *, cache_prompt: bool) -> dict[str, Any]:
    """The raw-completion request for a prompt already tokenized (the chat request's settings, token ids as prompt).

    Parameters
    ----------
    tokens : sequence of int
        The prompt's tokens, chat template applied.
    settings : GenerationSettings
        How to generate.
    cache_prompt : bool
        Whether the runtime may keep the computed prefix of its previous prompt.

    Returns
    -------
    dict
    """
    request = chat_request((), settings, cache_prompt=cache_prompt)
    del request["messages"], request["max_tokens"]
    return {"prompt": list(tokens), "n_predict": settings.max_tokens, **request}


def _looks_like_gguf(spec: str) -> bool:
    if spec.lower().endswith(".gguf"):
        return True
    path = Path(spec).expanduser()
    try:
        with path.open("rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


class LlamaCppBackend:
    """Opens a bundled model's name or a path to any GGUF file as a :class:`LlamaCppModel` (entry point ``llamacpp``)."""

    name = "llamacpp"
    accepts = "a bundled model's name or a path to a GGUF file"

    def claims(self, spec: str) -> bool:
        """Whether ``spec`` is a bundled name or a GGUF path.

        Parameters
        ----------
        spec : str
            What the caller asked to open.

        Returns
        -------
        bool
        """
        from cvlib.models.bundled import BUNDLED

        return spec in BUNDLED or ("://" not in spec and _looks_like_gguf(spec))

    def open(self, spec: str) -> LlamaCppModel:
        """The model ``spec`` names, its file checked (a bundled one against its pinned SHA-256).

        Parameters
        ----------
        spec : str
            A bundled name or a GGUF path.

        Returns
        -------
        LlamaCppModel
        """
        from cvlib.models.bundled import BUNDLED, bundled_model

        if spec in BUNDLED:
            return LlamaCppModel(bundled_model(spec), sha256=BUNDLED[spec].sha256)
        return LlamaCppModel(spec)

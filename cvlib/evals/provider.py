"""cvlib's models as an inspect_ai provider: ``--model cvlib/smollm2-135m`` runs a bundled model in process.

Any spec :func:`cvlib.models.open_model` takes follows ``cvlib/``: a bundled
model's name, a GGUF file's path, even a server's URL. The model answers
with the project's own runtime, its grammar and its settings, so a study run
through inspect with this provider gives the answers the project's own
recorder gives (``tests/evals`` compares them call by call).

A call made by a study (through :class:`~cvlib.evals.bridge.InspectModel`)
carries its cvlib settings whole in ``extra_body["cvlib"]``, with whether the
model should read the prompt whole (the runner's reset). Any other inspect
task's call is read from inspect's own configuration: ``max_tokens``,
``temperature`` (greedy by default), ``seed``, ``stop_seqs``, and a llama.cpp
``grammar`` in ``extra_body``. ``-M threads=N`` and ``-M context_size=N`` set
the runtime's threads and context.

The runtime is one model in one process: calls are taken one at a time
(:meth:`CvlibModelAPI.max_connections` is 1), in a worker thread so inspect's
display stays live.
"""

from __future__ import annotations

import threading
from typing import Any

from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput

from cvlib.core.errors import ParameterError
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity

__all__ = ["DEFAULT_SETTINGS", "CvlibModelAPI"]

#: A call's settings where inspect's configuration says nothing (greedy, one thread, the studies' context).
DEFAULT_SETTINGS = GenerationSettings(max_tokens=256, temperature=0.0, seed=0, threads=1, context_size=4096)


def _int_arg(name: str, value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or isinstance(value, bool):
        raise ParameterError(f"model argument {name} must be a whole number >= 1, got {value!r}")
    return number


class CvlibModelAPI(ModelAPI):
    """An inspect model API over :func:`cvlib.models.open_model` (see the module docstring).

    Registered as ``cvlib`` by :mod:`cvbook.inspect_registry`, which imports this module only when the provider is used.

    Parameters
    ----------
    model_name : str
        What follows ``cvlib/``: any spec :func:`~cvlib.models.open_model` takes.
    base_url, api_key : str or None
        Unused (inspect passes them to every provider).
    config : GenerateConfig
        The eval's configuration.
    threads, context_size : int
        The runtime's threads and context size for calls that do not bring cvlib settings (``-M threads=2``).
    """

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, threads: int = 1, context_size: int = 4096,
                 **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[],
                         config=config or GenerateConfig())
        if model_args:
            raise ParameterError(f"cvlib provider: unknown model arguments {', '.join(sorted(model_args))}; "
                                 "expected threads, context_size")
        self.defaults = GenerationSettings(max_tokens=DEFAULT_SETTINGS.max_tokens, threads=_int_arg("threads", threads),
                                           context_size=_int_arg("context_size", context_size))
        self.model = open_model(model_name)
        self._lock = threading.Lock()

    @property
    def identity(self) -> ModelIdentity:
        """The model's identity as cvlib proves it (a GGUF file's SHA-256 and the runtime's version)."""
        return self.model.identity

    def max_connections(self) -> int:
        """One call at a time: one model in one process."""
        return 1

    def settings(self, config: GenerateConfig) -> tuple[GenerationSettings, bool]:
        """A call's cvlib settings, and whether it reads its prompt whole, from inspect's configuration.

        Parameters
        ----------
        config : GenerateConfig
            The call's configuration.

        Returns
        -------
        tuple of (GenerationSettings, bool)
        """
        extra = dict(config.extra_body or {})
        carried = extra.get("cvlib")
        if isinstance(carried, dict) and "settings" in carried:
            return GenerationSettings.from_dict(carried["settings"]), bool(carried.get("fresh", False))
        base = self.defaults
        return GenerationSettings(
            max_tokens=config.max_tokens or base.max_tokens,
            temperature=config.temperature if config.temperature is not None else base.temperature,
            seed=config.seed if config.seed is not None else base.seed,
            threads=base.threads,
            context_size=base.context_size,
            stop=tuple(config.stop_seqs or ()),
            grammar=extra.get("grammar"),
        ), extra.get("cache_prompt") is False

    def _complete(self, turns: list[Message], settings: GenerationSettings, fresh: bool) -> str:
        with self._lock:
            if fresh:
                self.model.reset()
            return self.model.complete(turns, settings)

    async def generate(self, input: list[Any], tools: list[Any], tool_choice: Any,
                       config: GenerateConfig) -> ModelOutput:
        """The model's answer to ``input`` (chat messages; tools are not offered to these models).

        Parameters
        ----------
        input : list of ChatMessage
            The conversation.
        tools, tool_choice
            Must be empty: the bundled models are not asked to call tools.
        config : GenerateConfig
            The call's configuration.

        Returns
        -------
        ModelOutput
        """
        import anyio.to_thread

        if tools:
            raise ParameterError("the cvlib provider does not offer tools to its models")
        settings, fresh = self.settings(config)
        turns = [(str(m.role), m.text) for m in input]
        text = await anyio.to_thread.run_sync(self._complete, turns, settings, fresh)
        return ModelOutput.from_content(model=self.model_name, content=text)

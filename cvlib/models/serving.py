"""A bundled model (or any GGUF file) behind llama.cpp's own HTTP server on this machine: ``cvlib models serve``.

The server is the runtime the project records with (xllamacpp, pinned), so
an OpenAI-compatible client (inspect's ``openai-api`` provider, the project's
``http://...#name`` backend) reaches the same model with the same grammar
support. The server names the model as the project does (``smollm2-135m``, or
a GGUF file's stem). It listens on the loopback address unless told otherwise; it has
``parallel`` slots, each with ``context_size`` tokens, so that many calls
can run at once (inspect's ``--max-connections``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.models.bundled import model_path
from cvlib.models.errors import ModelError
from cvlib.models.llamacpp import _runtime
from cvlib.models.naming import recording_stem

__all__ = ["ServerOptions", "serve_forever", "start_server"]


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to serve a model.

    Parameters
    ----------
    host : str
        The address to listen on (the loopback address by default: nothing outside this machine reaches it).
    port : int
        The port.
    threads : int
        CPU threads of the runtime.
    context_size : int
        Tokens of context per slot.
    parallel : int
        Slots: calls answered at the same time.
    """

    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 1
    context_size: int = 4096
    parallel: int = 1

    def __post_init__(self) -> None:
        for name, low in (("port", 1), ("threads", 1), ("context_size", 256), ("parallel", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ParameterError(f"server option {name} must be a whole number >= {low}, got {value!r}")
        if self.port > 65535:
            raise ParameterError(f"server option port must be at most 65535, got {self.port}")


def start_server(spec: str | os.PathLike[str], options: ServerOptions = ServerOptions()) -> Any:
    """Start llama.cpp's server for ``spec`` (a bundled name or a GGUF path); it serves until the returned object is freed.

    Parameters
    ----------
    spec : str or os.PathLike
        A bundled model's name or a GGUF file.
    options : ServerOptions
        Where and how to serve.

    Returns
    -------
    xllamacpp.Server
        Keep a reference for as long as it should serve.
    """
    path = model_path(spec)
    xllamacpp = _runtime()
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {recording_stem(spec)}  # the name /v1/models lists and a request names, never a path
    params.n_ctx = options.context_size * options.parallel  # llama.cpp splits the context among its slots
    params.n_parallel = options.parallel
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = options.threads
    params.hostnames = [options.host]
    params.port = options.port
    params.warmup = False
    params.verbosity = -1
    try:
        return xllamacpp.Server(params)
    except Exception as exc:  # the runtime raises its own types
        raise ModelError(f"llama.cpp could not serve {path.name!r} on {options.host}:{options.port}: {exc}") from None


def serve_forever(spec: str | os.PathLike[str], options: ServerOptions = ServerOptions(),
                  on_ready: Callable[[str], None] | None = None) -> None:
    """Serve ``spec`` until interrupted (Ctrl-C, or the process is ended).

    Parameters
    ----------
    spec : str or os.PathLike
        A bundled model's name or a GGUF file.
    options : ServerOptions
        Where and how to serve.
    on_ready : callable, optional
        Called with the base URL once the server has started (a bad model or option fails before it).
    """
    server = start_server(spec, options)
    if on_ready is not None:
        on_ready(f"http://{options.host}:{options.port}/v1")
    try:
        while True:
            time.sleep(3600)
    finally:
        del server

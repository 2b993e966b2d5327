"""A model behind an OpenAI-compatible server (llama.cpp's server, vLLM, Ollama, ...): the ``openai`` backend.

A spec is the server's base URL with the model's name after ``#``, e.g.
``http://127.0.0.1:8080/v1#qwen2.5-coder-1.5b``; without a name the server
must serve exactly one model. Only the standard library is used (urllib): a
study's calls are a few hundred bytes each, and nothing here needs more.

What a server's model is cannot be proven from outside: the identity records
the name the server gives it and the build it reports (llama.cpp's
``/props``), marked as not content-addressed. A grammar is sent as
``grammar`` (llama.cpp's field); a server that ignores it answers
unconstrained, which :func:`~cvlib.models.verify.verify_recording` would then
show as answers outside the grammar.

Every fault is one line and loses nothing: a recorder writes a run's lines only
after the run ends, so a call that fails (server not running, a connection
dropped mid-answer, an answer slower than the timeout, a response that is not
a chat completion) abandons the run, and resuming redoes it.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.models.errors import ModelError, ServerUnreachableError
from cvlib.models.llamacpp import chat_request
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = ["RUNTIME", "OpenAIServerBackend", "OpenAIServerModel", "parse_server_spec"]

#: The runtime's name as recorded.
RUNTIME = "openai-server"
#: Seconds a call may take before it is abandoned (an answer of a few tokens takes a second or two).
DEFAULT_TIMEOUT = 120.0


def parse_server_spec(spec: str) -> tuple[str, str | None, float]:
    """``(base URL, model name or None, timeout)`` from ``http://host:port/v1#name`` (``?timeout=S`` optional).

    Parameters
    ----------
    spec : str
        The server's URL.

    Returns
    -------
    tuple of (str, str or None, float)
    """
    parts = urllib.parse.urlsplit(spec)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParameterError(f"model server {spec!r} is not an http(s) URL; expected e.g. http://127.0.0.1:8080/v1#model-name")
    query = urllib.parse.parse_qs(parts.query)
    timeout = DEFAULT_TIMEOUT
    if "timeout" in query:
        try:
            timeout = float(query["timeout"][0])
        except ValueError:
            timeout = -1.0
        if not timeout > 0:
            raise ParameterError(f"model server {spec!r}: timeout must be a number of seconds > 0")
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return base, urllib.parse.unquote(parts.fragment) or None, timeout


class OpenAIServerModel:
    """A model answered by an OpenAI-compatible server over HTTP.

    Parameters
    ----------
    spec : str
        ``http://host:port/v1#model-name`` (see :func:`parse_server_spec`).
    """

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.base, self._name, self.timeout = parse_server_spec(spec)
        self._identity: ModelIdentity | None = None
        self._fresh = True
        #: The server's timings of the last call, when it reports them (llama.cpp does).
        self.last_timings: dict[str, Any] = {}

    # -- HTTP ---------------------------------------------------------------------------
    def _request(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        url = path if path.startswith(("http://", "https://")) else f"{self.base}/{path.lstrip('/')}"
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:200].decode("utf-8", "replace")
            raise ModelError(f"model server {self.base} answered HTTP {exc.code} to {path}: {detail}") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise ModelError(f"model server {self.base} gave no answer to {path} within {self.timeout:g} s") from None
            raise ServerUnreachableError(f"model server {self.base} cannot be reached ({exc.reason}); is it running?") from None
        except TimeoutError:
            raise ModelError(f"model server {self.base} gave no answer to {path} within {self.timeout:g} s") from None
        except (http.client.HTTPException, ConnectionError) as exc:
            raise ModelError(f"model server {self.base} dropped the connection during {path} ({type(exc).__name__})") from None
        try:
            return json.loads(body)
        except ValueError:
            raise ModelError(f"model server {self.base} sent a response to {path} that is not JSON: {body[:80]!r}") from None

    # -- the protocol ---------------------------------------------------------------------
    @property
    def identity(self) -> ModelIdentity:
        """The model's name on the server and the server's reported build; not content-addressed."""
        if self._identity is None:
            self._identity = self._ask_identity()
        return self._identity

    def _ask_identity(self) -> ModelIdentity:
        listing = self._request("models")
        names = [str(m.get("id")) for m in listing.get("data", []) if isinstance(m, dict)] if isinstance(listing, dict) else []
        if not names:
            raise ModelError(f"model server {self.base} lists no model at {self.base}/models")
        if self._name is None:
            if len(names) != 1:
                raise ParameterError(f"model server {self.base} serves {len(names)} models; name one after '#': {', '.join(names)}")
            self._name = names[0]
        elif self._name not in names:
            raise ParameterError(f"model server {self.base} does not serve {self._name!r}; it serves {', '.join(names)}")
        version = "unreported"
        try:
            root = self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base
            props = self._request(f"{root}/props")
            if isinstance(props, dict) and props.get("build_info"):
                version = str(props["build_info"])
        except ModelError:
            pass  # not every server has llama.cpp's /props
        return ModelIdentity(self._name, "", RUNTIME, version, content_addressed=False)

    def prepare(self, settings: GenerationSettings) -> None:
        """Reach the server and learn the model's identity (one line if it cannot be reached).

        Parameters
        ----------
        settings : GenerationSettings
            The settings of the calls to come (threads and context size are the server's own).
        """
        _ = self.identity

    def reset(self) -> None:
        """The next call asks the server not to reuse its computed prefix (``cache_prompt`` false)."""
        self._fresh = True

    def close(self) -> None:
        """Nothing to free: every call is its own HTTP request."""

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The server's answer to ``messages`` under ``settings`` (a grammar is sent as ``grammar``).

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
        identity = self.identity
        payload = chat_request(turns, settings, cache_prompt=not self._fresh and settings.evaluation == "cached")
        payload["model"] = identity.file_name
        result = self._request("chat/completions", payload)
        try:
            content = result["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelError(f"model server {self.base} sent a response that is not a chat completion: {str(result)[:120]}") from None
        self._fresh = False
        self.last_timings = dict(result.get("timings", {})) if isinstance(result.get("timings"), dict) else {}
        return str(content)


class OpenAIServerBackend:
    """Opens ``http(s)://host:port/v1#model-name`` as an :class:`OpenAIServerModel` (entry point ``openai``)."""

    name = "openai"
    accepts = "an OpenAI-compatible server's URL, e.g. http://127.0.0.1:8080/v1#model-name"

    def claims(self, spec: str) -> bool:
        """Whether ``spec`` is an http(s) URL.

        Parameters
        ----------
        spec : str
            What the caller asked to open.

        Returns
        -------
        bool
        """
        return spec.startswith(("http://", "https://"))

    def open(self, spec: str) -> OpenAIServerModel:
        """The server's model (nothing is sent until it is prepared or asked).

        Parameters
        ----------
        spec : str
            The server's URL.

        Returns
        -------
        OpenAIServerModel
        """
        return OpenAIServerModel(spec)

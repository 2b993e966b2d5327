"""An inspect_ai model as a cvlib :class:`~cvlib.models.interface.LanguageModel`: the studies' own runners, unchanged, inside inspect.

A study's runner is synchronous: it asks ``model.complete(messages,
settings)`` and reads the answer. Inside an inspect solver the model is
asynchronous (``await model.generate(...)``). :class:`InspectModel` joins
the two: the solver runs the runner in a worker thread
(``anyio.to_thread.run_sync``) and every ``complete`` hands its call back to
the event loop (``anyio.from_thread.run``), where inspect's retries, rate
limits, connection limit, log and progress display apply to it as to any
call. The runner never knows it is inside inspect.

Each call's answer is held to the call's grammar in the best way the
provider allows (:data:`WAYS`), and how it was held is kept per call
(:class:`CallWay`), so a recording says which answers a provider was made to
give and which it was only checked for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.evals.grammar import AnswerLanguage, GrammarError, answer_language
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

if TYPE_CHECKING:
    from inspect_ai.model import GenerateConfig, Model

__all__ = ["AUTO", "DEFAULT_RETRIES", "WAYS", "CallWay", "InspectModel", "choose_way", "provider_of"]

#: How an answer can be held to its grammar, best first — the runtime's own grammar (a llama.cpp server, the cvlib
#: provider), an API's structured output (a JSON schema: an enum, or a pattern), a strict parser with a bounded retry.
#: A call without a grammar is ``none``: the answer is free text (the notes study's code).
WAYS: tuple[str, ...] = ("grammar", "json_schema", "parser")
#: Let the provider decide (:func:`choose_way`).
AUTO = "auto"
#: A strict parser asks again at most this many times after an answer outside the grammar.
DEFAULT_RETRIES = 2
#: Extra tokens a JSON-schema answer may use for its wrapper ``{"answer": "..."}``.
_JSON_OVERHEAD = 24
#: Providers whose APIs take a JSON schema for the response (inspect's documentation of ``response_schema``).
_SCHEMA_PROVIDERS = frozenset({"openai", "google", "mistral", "vllm", "sglang"})
#: An ``openai-api`` service whose server is llama.cpp's (it takes ``grammar`` in the request body).
_LLAMACPP_SERVICES = frozenset({"llamacpp", "llama-cpp", "llama_cpp", "llama.cpp", "xllamacpp"})


@dataclass(frozen=True, slots=True)
class CallWay:
    """How one call's answer was held to its grammar.

    Parameters
    ----------
    way : str
        One of :data:`WAYS`, or ``none`` for a call without a grammar.
    attempts : int
        Calls made for this answer (more than one only for the parser's retries).
    admitted : bool
        Whether the answer handed to the study is a sentence of the grammar (always True for ``none``).
    response : str
        That answer.
    """

    way: str
    attempts: int
    admitted: bool
    response: str

    def runtime_fields(self) -> dict[str, str]:
        """The fields a recorded call's ``runtime`` gains (strings, as the recording format keeps them).

        Returns
        -------
        dict
        """
        return {"constraint": self.way, "attempts": str(self.attempts), "admitted": "true" if self.admitted else "false"}


def provider_of(model: Model) -> str:
    """The provider part of an inspect model's name (``openai-api/llamacpp/x`` -> ``openai-api/llamacpp``).

    Parameters
    ----------
    model : inspect_ai.model.Model
        The model.

    Returns
    -------
    str
    """
    name = str(model)
    parts = name.split("/")
    if parts[0] == "openai-api" and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def choose_way(model: Model, asked: str = AUTO) -> str:
    """The way answers are held for ``model``: ``asked``, or for ``auto`` the best the provider allows.

    Parameters
    ----------
    model : inspect_ai.model.Model
        The model.
    asked : str
        ``auto`` or one of :data:`WAYS`.

    Returns
    -------
    str
    """
    if asked != AUTO:
        if asked not in WAYS:
            raise ParameterError(f"constraint {asked!r} is not one of {AUTO}, {', '.join(WAYS)}")
        return asked
    provider = provider_of(model)
    if provider == "cvlib" or provider.split("/")[-1] in _LLAMACPP_SERVICES:
        return "grammar"
    if provider in _SCHEMA_PROVIDERS:
        return "json_schema"
    return "parser"


def _messages(turns: Sequence[Message]) -> list[Any]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[role](content=content) for role, content in turns]


def _cut_at_stop(text: str, stop: Sequence[str]) -> str:
    ends = [text.find(s) for s in stop if s in text]
    return text[: min(ends)] if ends else text


class InspectModel:
    """A :class:`~cvlib.models.interface.LanguageModel` whose calls are an inspect model's ``generate``.

    Call :meth:`complete` only from a worker thread started by ``anyio.to_thread.run_sync`` in the event
    loop that owns ``model`` (what :func:`cvlib.evals.tasks.study_solver` does).

    Parameters
    ----------
    model : inspect_ai.model.Model
        The model inspect evaluates.
    way : str
        ``auto`` or one of :data:`WAYS` (see :func:`choose_way`).
    retries : int
        The strict parser's retries after an answer outside the grammar.
    """

    def __init__(self, model: Model, way: str = AUTO, retries: int = DEFAULT_RETRIES) -> None:
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ParameterError(f"retries must be an integer >= 0, got {retries!r}")
        self.model = model
        self.way = choose_way(model, way)
        self.retries = retries
        self.calls: list[CallWay] = []
        #: Each call's prompt and settings (:func:`_call_key`), in call order beside :attr:`calls`.
        self.keys: list[str] = []
        self._fresh = True
        self._identity: ModelIdentity | None = None
        self._languages: dict[str, AnswerLanguage] = {}

    # -- the protocol ----------------------------------------------------------------------------------
    @property
    def identity(self) -> ModelIdentity:
        """The cvlib provider's own model (content-addressed), or the provider and model inspect names."""
        if self._identity is None:
            from cvlib.evals.provider import CvlibModelAPI

            api = self.model.api
            if isinstance(api, CvlibModelAPI):
                self._identity = api.identity
            else:
                from importlib.metadata import version

                name = str(self.model)
                self._identity = ModelIdentity(name, "", f"inspect/{provider_of(self.model)}", version("inspect_ai"),
                                               content_addressed=False)
        return self._identity

    def prepare(self, settings: GenerationSettings) -> None:
        """Nothing to do: inspect opens the model on its first call."""

    def reset(self) -> None:
        """The next call reads its whole prompt (``cache_prompt`` false on a llama.cpp server and the cvlib provider)."""
        self._fresh = True

    def close(self) -> None:
        """Nothing to free: inspect owns the model."""

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The answer to ``messages``, held to ``settings.grammar`` in this model's way (see the module docstring).

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
        import anyio.from_thread

        turns = check_messages(messages)
        call = anyio.from_thread.run(self._answer, turns, settings)
        self.calls.append(call)
        self.keys.append(_call_key([list(t) for t in turns], settings.to_dict()))
        self._fresh = False
        return call.response

    # -- one call ----------------------------------------------------------------------------------------
    def _language(self, grammar: str) -> AnswerLanguage:
        if grammar not in self._languages:
            self._languages[grammar] = answer_language(grammar)
        return self._languages[grammar]

    def config(self, settings: GenerationSettings, way: str) -> GenerateConfig:
        """The inspect configuration of one call under ``settings`` when its answer is held in ``way``.

        Parameters
        ----------
        settings : GenerationSettings
            The call's settings.
        way : str
            One of :data:`WAYS` or ``none``.

        Returns
        -------
        inspect_ai.model.GenerateConfig
        """
        from inspect_ai.model import GenerateConfig, ResponseSchema
        from inspect_ai.util import JSONSchema

        values: dict[str, Any] = {"max_tokens": settings.max_tokens, "temperature": settings.temperature,
                                  "seed": settings.seed}
        if settings.stop and way != "json_schema":
            values["stop_seqs"] = list(settings.stop)
        provider = provider_of(self.model)
        if provider == "cvlib":  # the in-process runtime takes the settings whole
            values["extra_body"] = {"cvlib": {"settings": settings.to_dict(), "fresh": self._fresh}}
        elif way == "grammar":  # llama.cpp's server: its grammar, its greedy sampler, its prompt cache
            # only a cached evaluation may reuse the server's prefix: a pure or fresh answer depends on its prompt alone
            reuse = not self._fresh and settings.evaluation == "cached"
            extra: dict[str, Any] = {"cache_prompt": reuse}
            if settings.grammar is not None:
                extra["grammar"] = settings.grammar
            if settings.temperature == 0.0:
                extra["top_k"] = 1
            values["extra_body"] = extra
        if way == "json_schema" and settings.grammar is not None:
            schema = self._language(settings.grammar).json_schema()
            values["max_tokens"] = settings.max_tokens + _JSON_OVERHEAD
            values["response_schema"] = ResponseSchema(name="answer", json_schema=JSONSchema.model_validate(schema),
                                                       strict=True)
        return GenerateConfig(**values)

    async def _generate(self, turns: Sequence[Message], settings: GenerationSettings, way: str) -> str:
        output = await self.model.generate(_messages(turns), config=self.config(settings, way))
        if output.error:
            from cvlib.models.errors import ModelError

            raise ModelError(f"{self.model} failed a call: {output.error}")
        return str(output.completion)

    async def _answer(self, turns: tuple[Message, ...], settings: GenerationSettings) -> CallWay:
        if settings.grammar is None:
            return CallWay("none", 1, True, await self._generate(turns, settings, "none"))
        way = self.way
        try:
            language = self._language(settings.grammar)
        except GrammarError:
            if way == "grammar":  # the runtime reads any grammar; nothing here can check its answer
                return CallWay(way, 1, True, await self._generate(turns, settings, way))
            raise
        if way == "grammar":
            text = await self._generate(turns, settings, way)
            return CallWay(way, 1, language.admits(text), text)
        if way == "json_schema":
            raw = await self._generate(turns, settings, way)
            text = _cut_at_stop(_json_answer(raw), settings.stop)
            return CallWay(way, 1, language.admits(text), text)
        asked, text = turns, ""
        for attempt in range(1, self.retries + 2):
            text = (await self._generate(asked, settings, way)).strip()
            if language.admits(text):
                return CallWay(way, attempt, True, text)
            asked = (*turns, ("assistant", text), ("user", _correction(text, language)))
        return CallWay(way, self.retries + 1, False, text)

    def annotate(self, lines: Sequence[str]) -> list[str]:
        """The runner's recorded lines with each answer's way in its ``runtime``, paired with the calls that made them.

        A runner may record an answer it did not ask the model for: the second editions answer a repeated pure
        prompt from memory (:class:`~cvlib.models.memo.PromptMemo`), so a cell can hold more lines than calls.
        Lines and calls are paired in order by prompt and settings; a line whose prompt is not the next call's
        must repeat an earlier call's prompt and answer, and is marked ``reused`` (no call, ``attempts`` 0).

        Parameters
        ----------
        lines : sequence of str
            The JSON lines the runner returned, one per answer, for the calls made through this model since it was made.

        Returns
        -------
        list of str
        """
        out = []
        made: dict[str, CallWay] = {}
        pending = 0
        for number, line in enumerate(lines, 1):
            data = json.loads(line)
            key = _call_key(data["prompt"], data["settings"])
            if pending < len(self.calls) and self.keys[pending] == key:
                call, reused = self.calls[pending], False
                made.setdefault(key, call)
                pending += 1
            elif key in made:
                call, reused = made[key], True
            else:
                raise ParameterError(f"recorded line {number} of {len(lines)} matches neither the next call to the model "
                                     "nor an earlier one; a study runner must record every call it makes, once, in order")
            if data["response"] != call.response:
                raise ParameterError(f"recorded response {data['response']!r:.40} is not the answer {call.response!r:.40}")
            fields = call.runtime_fields()
            if reused:
                fields["attempts"] = "0"
            data["runtime"] = {**data["runtime"], "via": "inspect", **fields, "reused": "true" if reused else "false"}
            out.append(json.dumps(data, ensure_ascii=False))
        if pending != len(self.calls):
            raise ParameterError(f"the runner recorded {pending} of the {len(self.calls)} calls made to the model; "
                                 "a study runner must record every call it makes, once, in order")
        return out


def _call_key(prompt: Any, settings: Any) -> str:
    """What pairs a recorded line with a call: its prompt and settings, as canonical JSON."""
    return json.dumps([prompt, settings], sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _json_answer(raw: str) -> str:
    """The ``answer`` of a structured-output reply; the raw text when it is not that object (the parser then refuses it)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw
    return str(data["answer"]) if isinstance(data, dict) and isinstance(data.get("answer"), str) else raw


def _correction(answer: str, language: AnswerLanguage) -> str:
    if language.choices is not None and len(language.choices) <= 12:
        allowed = "one of: " + ", ".join(language.choices)
    else:
        allowed = f"a line matching the regular expression {language.pattern}"
    return f"Your answer {answer[:60]!r} is not in the required form. Reply with exactly {allowed}. Nothing else."


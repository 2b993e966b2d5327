"""A small, deterministic reader of the transcript arm's prompts: the proof that every arm is told the same.

The second edition's claim is that the transcript arm holds, in raw form,
everything the labelled arms' states follow from. This module is that claim
as code: it reads a transcript-arm conversation as text (the opening's
horizons, every note, the current time) and derives each fact's validity
state by the rules of :mod:`cvlib.core.facts`, without the policy's objects.
A test runs every task of the study and checks, at every decision, that it
recovers exactly the states the labelled prompt shows; the probe's right
answer follows from it too.

The rules it applies, in order of the notes: an observation, a confirming
verification or a re-observation makes a fact ACTIVE; a newer value or a
rejecting verification SUPERSEDED; a doubt UNKNOWN; a check that could not be
made changes nothing. At the question's time ``t``, an ACTIVE fact whose
horizon is below ``t`` is STALE (a horizon is renewed only by a note that says
so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cvlib.core.errors import ParameterError
from cvlib.core.facts import ValidityState

__all__ = ["read_states", "read_unreliable"]

_ACTIVE, _STALE = ValidityState.ACTIVE, ValidityState.STALE
_SUPERSEDED, _UNKNOWN = ValidityState.SUPERSEDED, ValidityState.UNKNOWN

_FACTS_LINE = re.compile(r"^Facts: (?P<body>.*)\.$")
_FACT_HORIZON = re.compile(r"^(?P<fact>\S+) \((?:fresh until t=(?P<until>\d+)|no horizon)\)$")
_NOTE = re.compile(r"^t=(?P<tick>\d+): (?P<text>.*)$")
_QUESTION = re.compile(r"^t=(?P<tick>\d+)\. Step \d+ of \d+: ")
_RULES: tuple[tuple[re.Pattern[str], ValidityState | None], ...] = (
    (re.compile(r"^observed (?P<facts>.+)\.$"), _ACTIVE),
    (re.compile(r"^a newer value of (?P<facts>\S+) was observed\.$"), _SUPERSEDED),
    (re.compile(r"^a signal cast doubt on (?P<facts>\S+); what changed is not known\.$"), _UNKNOWN),
    (re.compile(r"^(?P<facts>\S+) was observed again\.$"), _ACTIVE),
    (re.compile(r"^verified (?P<facts>\S+): confirmed\.$"), _ACTIVE),
    (re.compile(r"^verified (?P<facts>\S+): it had changed\.$"), _SUPERSEDED),
    (re.compile(r"^verified (?P<facts>\S+): could not be checked\.$"), None),
    (re.compile(r"^verified (?P<facts>.+): nothing in doubt\.$"), None),
    (re.compile(r"^the action \S+ failed; the plan was rebuilt from current facts\.$"), None),
)
_NEW_HORIZON = re.compile(r"^(?P<fact>\S+) is fresh until t=(?P<until>\d+)\.$")
_NO_HORIZON = re.compile(r"^(?P<fact>\S+) has no horizon now\.$")


def _horizons(line: str) -> dict[str, int | None]:
    body = _FACTS_LINE.match(line)
    if body is None:
        return {}
    out: dict[str, int | None] = {}
    for part in body["body"].split("; "):
        m = _FACT_HORIZON.match(part)
        if m is None:
            raise ParameterError(f"cannot read the fact {part!r} of the opening's facts line")
        out[m["fact"]] = int(m["until"]) if m["until"] is not None else None
    return out


def _apply(text: str, states: dict[str, ValidityState], horizons: dict[str, int | None]) -> None:
    m = _NEW_HORIZON.match(text)
    if m is not None:
        horizons[m["fact"]] = int(m["until"])
        return
    m = _NO_HORIZON.match(text)
    if m is not None:
        horizons[m["fact"]] = None
        return
    for pattern, state in _RULES:
        m = pattern.match(text)
        if m is None:
            continue
        if state is not None:
            for fact in m["facts"].split(", "):
                states[fact] = state
        return
    raise ParameterError(f"cannot read the note {text!r}: it matches none of the transcript's note forms")


def read_states(messages: Sequence[tuple[str, str]]) -> dict[str, ValidityState]:
    """Each fact's validity state at the last question of a transcript-arm conversation, read from its text alone.

    Parameters
    ----------
    messages : sequence of (str, str)
        The chat turns sent for one decision (or probe) of the transcript arm: system, user, assistant, ..., user.

    Returns
    -------
    dict of str to ValidityState
        Every fact of the opening's facts line.
    """
    horizons: dict[str, int | None] = {}
    states: dict[str, ValidityState] = {}
    now: int | None = None
    for role, content in messages:
        if role != "user":
            continue
        for line in content.split("\n"):
            if not horizons and line.startswith("Facts: "):
                horizons = _horizons(line)
                continue
            note = _NOTE.match(line)
            if note is not None:
                _apply(note["text"], states, horizons)
                continue
            question = _QUESTION.match(line)
            if question is not None:
                now = int(question["tick"])
    if not horizons or now is None:
        raise ParameterError("not a second-edition transcript conversation: no facts line or no question")
    out: dict[str, ValidityState] = {}
    for fact in sorted(horizons):
        state = states.get(fact, _ACTIVE)
        until = horizons[fact]
        if state is _ACTIVE and until is not None and now > until:
            state = _STALE
        out[fact] = state
    return out


def read_unreliable(messages: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The probe's right answer as the reader derives it: the facts not ACTIVE now, sorted.

    Parameters
    ----------
    messages : sequence of (str, str)
        As :func:`read_states`.

    Returns
    -------
    tuple of str
    """
    return tuple(f for f, s in read_states(messages).items() if s is not _ACTIVE)

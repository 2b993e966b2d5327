"""Reading a model's answer in the agent loop: code parses, the model never grades itself.

An answer is one line: ``EXECUTE``, ``VERIFY <fact>`` or ``REPLAN``. Its
first word decides (case, markdown marks and punctuation around it are
forgiven; what follows is ignored, except that after ``VERIFY`` a fact's name
such as ``F2`` is read); an answer whose first word is none of the three does
not parse. The one rule for an answer that does not parse: it is counted, and
taken as ``EXECUTE`` (the agent carries on, as an agent loop does when the
model names no tool); in the gated arm the gate then applies to it as to any
``EXECUTE``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["ACTIONS", "Decision", "parse_decision"]

#: The three answers the agent loop accepts.
ACTIONS = ("EXECUTE", "VERIFY", "REPLAN")

_FIRST = re.compile(r"^[\s`*\"'>#-]*(EXECUTE|VERIFY|REPLAN)\b", re.IGNORECASE)
_FACT = re.compile(r"^[\s:<(`*\"']*(F\d+)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Decision:
    """An answer as code read it.

    Parameters
    ----------
    action : str
        ``EXECUTE``, ``VERIFY`` or ``REPLAN`` (``EXECUTE`` for an answer that did not parse).
    fact : str or None
        The fact a ``VERIFY`` named, if any.
    parsed : bool
        Whether the answer parsed.
    """

    action: str
    fact: str | None = None
    parsed: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The decision as recorded.

        Returns
        -------
        dict
        """
        return {"action": self.action, "fact": self.fact, "parsed": self.parsed}


def parse_decision(response: str) -> Decision:
    """The decision in ``response`` (its first line), or an unparsed ``EXECUTE``.

    Parameters
    ----------
    response : str
        The model's answer.

    Returns
    -------
    Decision
    """
    line = response.strip().splitlines()[0] if response.strip() else ""
    match = _FIRST.match(line)
    if match is None:
        return Decision("EXECUTE", None, parsed=False)
    action = match.group(1).upper()
    if action != "VERIFY":
        return Decision(action)
    fact = _FACT.match(line[match.end():])
    return Decision(action, fact.group(1).upper() if fact else None)

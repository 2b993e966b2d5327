"""The agent loop's prompts, rendered from what an executor may know and nothing else.

A prompt is a pure function of a :class:`Knowledge` snapshot: the plan's
structure, the budget and the clock, the believed state of each fact, when
the executor itself last observed each fact, and the executor's own
transcript (what it was told and what it did). Ground truth is not in the
snapshot, so it cannot reach a prompt; a property test runs two worlds with
the same belief and different truth and finds the same prompts.

Three arms differ in the prompt only:

* ``transcript``: the plan and every observation so far, in order, with their
  times; no validity states.
* ``labelled``: the same, with each fact's validity state written beside it.
* ``gated``: the labelled prompt, plus the gate: at a step whose facts are not
  all ACTIVE the prompt says EXECUTE is not allowed (and the executor enforces it).

The conversation grows by one user turn and one answer per decision, so each
new prompt begins with the previous one and the runtime reuses its computed
prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cvlib.core.errors import ParameterError
from cvlib.core.facts import ValidityState

__all__ = ["ARMS", "LEGACY", "Knowledge", "LegacyPrompts", "PlanLine", "blocked", "opening", "step_question", "system_prompt"]

#: The agent loop's arms, in the order of every comparison.
ARMS = ("transcript", "labelled", "gated")

_ACTIVE = ValidityState.ACTIVE

_SYSTEM = (
    "You are an agent carrying out a plan one step at a time. Every step rests on facts observed earlier; "
    "a step built on a fact that has since changed is wasted work, and an action built on one fails. "
    "EXECUTE does the step; VERIFY <fact> checks the step's facts at their source (costs {verify} step); "
    "REPLAN rebuilds the plan from current facts (costs {replan} steps)."
)
_LABELS = (
    " Each fact is shown with its validity state: ACTIVE (current evidence supports it), STALE (its freshness "
    "horizon passed), SUPERSEDED (a newer observation replaced it), UNKNOWN (a signal cast doubt on it)."
)
_GATE = " A step whose facts are not all ACTIVE cannot be executed: there reply VERIFY <fact> or REPLAN."
_REPLY = " Before each step reply with one line, one of:\nEXECUTE\nVERIFY <fact>\nREPLAN"


@dataclass(frozen=True, slots=True)
class PlanLine:
    """One step of the plan as the executor knows it: its position, name, kind and the facts it rests on."""

    position: int
    step_id: str
    kind: str
    facts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Everything a prompt may be built from at one decision: belief, the plan, the executor's own record.

    Parameters
    ----------
    plan : tuple of PlanLine
        The plan in execution order.
    budget : int
        The step budget.
    tick : int
        Steps spent so far (the clock).
    position : int
        The step about to be decided.
    states : Mapping of str to ValidityState
        The believed state of each fact of the plan.
    observed_at : Mapping of str to int
        When the executor last observed (or verified) each fact.
    new_notes : tuple of (int, str)
        What the executor was told or did since its last answer, with times.
    horizons : Mapping of str to int or None
        Each fact's freshness horizon (the last tick it counts as fresh; None: none), for prompts that show the
        raw evidence of every state (the study's second edition); empty for the first edition's prompts.
    """

    plan: tuple[PlanLine, ...]
    budget: int
    tick: int
    position: int
    states: Mapping[str, ValidityState]
    observed_at: Mapping[str, int]
    new_notes: tuple[tuple[int, str], ...]
    horizons: Mapping[str, int | None] = field(default_factory=dict)


def _check_arm(arm: str) -> str:
    if arm not in ARMS:
        raise ParameterError(f"unknown agent-loop arm {arm!r}; expected one of {', '.join(ARMS)}")
    return arm


def system_prompt(arm: str, verify_cost: int, replan_cost: int) -> str:
    """The system turn of an arm: the task, the three answers and their costs, and what the arm adds.

    Parameters
    ----------
    arm : str
        One of :data:`ARMS`.
    verify_cost : int
        Steps a verification costs (the rules').
    replan_cost : int
        Steps a replan costs (the run's).

    Returns
    -------
    str
    """
    text = _SYSTEM.format(verify=verify_cost, replan=replan_cost)
    if _check_arm(arm) != "transcript":
        text += _LABELS
    if arm == "gated":
        text += _GATE
    return text + _REPLY


def _facts(knowledge: Knowledge, facts: Sequence[str], arm: str) -> str:
    parts = []
    for f in facts:
        seen = knowledge.observed_at.get(f)
        when = f"observed t={seen}" if seen is not None else "never observed"
        if arm == "transcript":
            parts.append(f"{f} ({when})")
        else:
            parts.append(f"{f} ({when}, {knowledge.states[f].value})")
    return ", ".join(parts)


def blocked(knowledge: Knowledge) -> bool:
    """Whether the step about to be decided rests on a fact believed not ACTIVE (the gate's condition).

    Parameters
    ----------
    knowledge : Knowledge
        The snapshot.

    Returns
    -------
    bool
    """
    line = knowledge.plan[knowledge.position]
    return any(knowledge.states[f] is not _ACTIVE for f in line.facts)


def opening(knowledge: Knowledge) -> str:
    """The first user turn's head: the plan, one line per step, and the budget.

    Parameters
    ----------
    knowledge : Knowledge
        The snapshot at the first decision.

    Returns
    -------
    str
    """
    lines = [f"Plan, {len(knowledge.plan)} steps in order; budget {knowledge.budget} steps:"]
    lines += [f"{p.position + 1}. {p.step_id} {p.kind}, rests on {', '.join(p.facts) or 'no fact'}" for p in knowledge.plan]
    return "\n".join(lines)


def step_question(knowledge: Knowledge, arm: str) -> str:
    """A user turn: what happened since the last answer, then the step to decide and its facts.

    Parameters
    ----------
    knowledge : Knowledge
        The snapshot.
    arm : str
        One of :data:`ARMS`.

    Returns
    -------
    str
    """
    _check_arm(arm)
    line = knowledge.plan[knowledge.position]
    notes = [f"t={tick}: {text}" for tick, text in knowledge.new_notes]
    question = (
        f"t={knowledge.tick}. Step {line.position + 1} of {len(knowledge.plan)}: {line.step_id} ({line.kind}), "
        f"rests on {_facts(knowledge, line.facts, arm)}."
    )
    if arm == "gated" and blocked(knowledge):
        question += " Not all its facts are ACTIVE: EXECUTE is not allowed; reply VERIFY <fact> or REPLAN."
    return "\n".join([*notes, question, "Your reply:"])


@dataclass(frozen=True, slots=True)
class LegacyPrompts:
    """The first recording's prompts (issue 21): three arms, a system turn per arm, the gate's refusal in the question.

    Kept so the chapter built on that recording can still record a small file of its own with any
    model; the pre-registered study uses :class:`~cvlib.experiments.agent_study.study_prompts.StudyPrompts`.
    """

    arms: tuple[str, ...] = ARMS
    enforced: frozenset[str] = frozenset({"gated"})

    def system(self, arm: str, verify_cost: int, replan_cost: int) -> str:
        """The arm's system turn (:func:`system_prompt`)."""
        return system_prompt(arm, verify_cost, replan_cost)

    def first_question(self, knowledge: Knowledge, arm: str) -> str:
        """The first user turn: the plan, then the first step's question."""
        return opening(knowledge) + "\n" + step_question(knowledge, arm)

    def question(self, knowledge: Knowledge, arm: str) -> str:
        """A later user turn (:func:`step_question`)."""
        return step_question(knowledge, arm)

    def describe(self) -> dict[str, object]:
        """What a recorded decision says of its prompts."""
        return {"prompts": "legacy"}


#: The first recording's prompts.
LEGACY = LegacyPrompts()

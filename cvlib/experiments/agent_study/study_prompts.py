"""The pre-registered study's prompts: four arms that separate reading, being told and being stopped.

Every arm sees the same system turn and the same plan, in that order, so a
task's arms share the beginning of their first prompt and the runtime reads
it once (``data/model_trials/preregistration.md``). What differs comes after
the plan:

* ``transcript``: nothing; each step lists its facts with when they were observed.
* ``labelled``: a legend of the four validity states; each fact is shown with its state.
* ``told``: the labelled prompt plus the rule in words: do not execute a step that
  rests on a fact that is not ACTIVE. Nothing enforces it.
* ``enforced``: the same words as ``told``, and the executor refuses an ``EXECUTE``
  at such a step (it verifies instead). Its prompt is ``told``'s, byte for byte,
  so the two arms differ only in enforcement.

The answer options are listed in an order the study draws per task and
repeat (the greedy run lists them as EXECUTE, VERIFY, REPLAN), so a bias
toward the first option shows. A grammar limits every answer to the three
forms and the plan's own facts, so every model's choice is read, never
guessed; the competence probe asks which facts are not ACTIVE.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError
from cvlib.core.facts import ValidityState
from cvlib.experiments.agent_study.prompts import Knowledge

__all__ = [
    "OPTIONS",
    "STUDY_ARMS",
    "StudyPrompts",
    "decision_grammar",
    "not_active",
    "probe_grammar",
    "probe_question",
]

#: The study's arms, in the order a task's runs are recorded.
STUDY_ARMS: tuple[str, ...] = ("transcript", "labelled", "told", "enforced")
#: The answer options, in the greedy run's order.
OPTIONS: tuple[str, ...] = ("EXECUTE", "VERIFY", "REPLAN")

_ACTIVE = ValidityState.ACTIVE
_SYSTEM = (
    "You are an agent carrying out a plan one step at a time. Every step rests on facts observed earlier; a step "
    "built on a fact that has since changed is wasted work, and an action built on one fails. Before each step, "
    "reply with exactly one of: {options}."
)
_MEANING = {
    "EXECUTE": "EXECUTE does the step.",
    "VERIFY": "VERIFY <fact> checks the step's facts at their source (costs {verify} step).",
    "REPLAN": "REPLAN rebuilds the plan from current facts (costs {replan} steps).",
}
_SHOWN = {"EXECUTE": "EXECUTE", "VERIFY": "VERIFY <fact>", "REPLAN": "REPLAN"}
_LEGEND = (
    "Each fact is shown with its validity state: ACTIVE (current evidence supports it), STALE (its freshness "
    "horizon passed), SUPERSEDED (a newer observation replaced it), UNKNOWN (a signal cast doubt on it)."
)
_RULE = "Rule: do not EXECUTE a step that rests on a fact that is not ACTIVE; reply VERIFY <fact> or REPLAN there."
_ARM_BLOCK = {"transcript": "", "labelled": _LEGEND, "told": f"{_LEGEND}\n{_RULE}", "enforced": f"{_LEGEND}\n{_RULE}"}
_PROBE = {
    "transcript": "Before you reply: which facts of the plan has a later note said were replaced or cast in doubt, "
    "and not observed again since? Answer with their names separated by spaces, or NONE.",
    "labelled": "Before you reply: which facts of the plan are not ACTIVE now? Answer with their names separated by "
    "spaces, or NONE.",
}


def _arm(arm: str) -> str:
    if arm not in STUDY_ARMS:
        raise ParameterError(f"unknown study arm {arm!r}; expected one of {', '.join(STUDY_ARMS)}")
    return arm


def _facts(knowledge: Knowledge, facts: Sequence[str], labelled: bool) -> str:
    parts = []
    for f in facts:
        seen = knowledge.observed_at.get(f)
        when = f"observed t={seen}" if seen is not None else "never observed"
        parts.append(f"{f} ({when}, {knowledge.states[f].value})" if labelled else f"{f} ({when})")
    return ", ".join(parts)


def _opening(knowledge: Knowledge) -> str:
    lines = [f"Plan, {len(knowledge.plan)} steps in order; budget {knowledge.budget} steps:"]
    lines += [f"{p.position + 1}. {p.step_id} {p.kind}, rests on {', '.join(p.facts) or 'no fact'}" for p in knowledge.plan]
    return "\n".join(lines)


def _question(knowledge: Knowledge, arm: str, ending: str) -> str:
    line = knowledge.plan[knowledge.position]
    notes = [f"t={tick}: {text}" for tick, text in knowledge.new_notes]
    question = (
        f"t={knowledge.tick}. Step {line.position + 1} of {len(knowledge.plan)}: {line.step_id} ({line.kind}), "
        f"rests on {_facts(knowledge, line.facts, arm != 'transcript')}."
    )
    return "\n".join([*notes, question, ending])


def not_active(knowledge: Knowledge) -> tuple[str, ...]:
    """The plan's facts believed not ACTIVE: the probe's right answer.

    Parameters
    ----------
    knowledge : Knowledge
        The snapshot.

    Returns
    -------
    tuple of str
        Sorted.
    """
    return tuple(sorted(f for f, state in knowledge.states.items() if state is not _ACTIVE))


def probe_question(knowledge: Knowledge, arm: str, *, first: bool) -> str:
    """The competence probe in place of a step's question: which facts are not ACTIVE (asked in the arm's own terms).

    Parameters
    ----------
    knowledge : Knowledge
        The snapshot of the step the probe is put at.
    arm : str
        One of :data:`STUDY_ARMS`.
    first : bool
        Whether this is the run's first user turn (then the plan and the arm's block come first).

    Returns
    -------
    str
    """
    probe = _PROBE["transcript" if _arm(arm) == "transcript" else "labelled"]
    body = _question(knowledge, arm, probe)
    return StudyPrompts().head(knowledge, arm) + "\n" + body if first else body


def _alternatives(names: Iterable[str]) -> str:
    return " | ".join(f'"{name}"' for name in names)


def decision_grammar(facts: Iterable[str]) -> str:
    """The llama.cpp grammar of a decision on a plan with ``facts``: the three forms, a VERIFY naming one of them.

    Parameters
    ----------
    facts : iterable of str
        The plan's facts.

    Returns
    -------
    str
    """
    names = sorted(set(facts))
    if not names:
        raise ParameterError("a decision grammar needs the plan's facts; got none")
    return f'root ::= "EXECUTE" | "REPLAN" | "VERIFY " fact\nfact ::= {_alternatives(names)}'


def probe_grammar(facts: Iterable[str]) -> str:
    """The probe's grammar: NONE, or fact names separated by spaces.

    Parameters
    ----------
    facts : iterable of str
        The plan's facts.

    Returns
    -------
    str
    """
    names = sorted(set(facts))
    if not names:
        raise ParameterError("a probe grammar needs the plan's facts; got none")
    return f'root ::= "NONE" | fact (" " fact)*\nfact ::= {_alternatives(names)}'


@dataclass(frozen=True, slots=True)
class StudyPrompts:
    """The study's prompts with the answer options in ``order``.

    Parameters
    ----------
    order : tuple of str
        A permutation of :data:`OPTIONS`: the order the system turn lists them in.
    """

    order: tuple[str, ...] = OPTIONS
    arms: tuple[str, ...] = STUDY_ARMS
    enforced: frozenset[str] = frozenset({"enforced"})

    def __post_init__(self) -> None:
        if sorted(self.order) != sorted(OPTIONS):
            raise ParameterError(f"option order {self.order!r} is not a permutation of {', '.join(OPTIONS)}")
        object.__setattr__(self, "order", tuple(self.order))

    def system(self, arm: str, verify_cost: int, replan_cost: int) -> str:
        """The system turn: the same for every arm (it is the shared prefix).

        Parameters
        ----------
        arm : str
            One of :data:`STUDY_ARMS` (checked; it does not change the text).
        verify_cost, replan_cost : int
            Steps a verification and a replan cost.

        Returns
        -------
        str
        """
        _arm(arm)
        options = ", ".join(_SHOWN[o] for o in self.order)
        meanings = " ".join(_MEANING[o] for o in self.order).format(verify=verify_cost, replan=replan_cost)
        return _SYSTEM.format(options=options) + " " + meanings

    def head(self, knowledge: Knowledge, arm: str) -> str:
        """The first user turn's head: the plan (shared by every arm), then the arm's own block, if any.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot at the first decision.
        arm : str
            One of :data:`STUDY_ARMS`.

        Returns
        -------
        str
        """
        block = _ARM_BLOCK[_arm(arm)]
        return _opening(knowledge) + (f"\n{block}" if block else "")

    def first_question(self, knowledge: Knowledge, arm: str) -> str:
        """The first user turn: the plan, the arm's block and the first step's question.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot at the first decision.
        arm : str
            One of :data:`STUDY_ARMS`.

        Returns
        -------
        str
        """
        return self.head(knowledge, arm) + "\n" + self.question(knowledge, arm)

    def question(self, knowledge: Knowledge, arm: str) -> str:
        """A user turn: what happened since the last answer, then the step to decide and its facts.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot.
        arm : str
            One of :data:`STUDY_ARMS`.

        Returns
        -------
        str
        """
        return _question(knowledge, _arm(arm), "Your reply:")

    def describe(self) -> dict[str, object]:
        """What a recorded decision says of its prompts: the option order.

        Returns
        -------
        dict
        """
        return {"prompts": "study", "order": list(self.order)}

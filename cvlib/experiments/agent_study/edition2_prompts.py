"""The second edition's prompts: every arm is given the same evidence; the labelled arms add its reading.

The first edition's transcript arm was told less than the labelled arms: it
never saw a fact's freshness horizon, nor a change that happened before the
first decision, so on some tasks it could not know what the labels said
(issue 46). Here every arm shows, in raw form, everything a fact's state
follows from:

* the plan, and each fact's **freshness horizon** (the last time it counts as
  fresh), in the shared opening;
* every **note**: each observation with its time, each newer value, each doubt,
  each verification's result, each failed action and each new horizon,
  those before the first decision included (the policy keeps them when the
  prompt set asks for ``full_evidence``).

The labelled arms (``labelled``, ``told``, ``enforced``) add a legend and each
fact's derived state, and nothing else: removing the legend and the states
from a labelled prompt gives the transcript prompt, byte for byte, and
:mod:`cvlib.experiments.agent_study.evidence_reader` recovers every state the
labels show from the transcript prompt alone (both are tested on every task).

The answer options are listed in one of three cyclic orders
(:data:`OPTION_ORDERS`); every task and arm is decided under all three, so
the headline averages over order and a bias toward a position shows as a
difference between orders. The competence probe asks every arm the same
question, which the evidence answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from cvlib.core.errors import ParameterError
from cvlib.experiments.agent_study.prompts import Knowledge
from cvlib.experiments.agent_study.study_prompts import OPTIONS, STUDY_ARMS

__all__ = [
    "EVIDENCE_ARMS",
    "OPTION_ORDERS",
    "PROBE_QUESTION",
    "EvidencePrompts",
    "order_index",
]

#: The arms, in the order a group records them (the first edition's four).
EVIDENCE_ARMS: tuple[str, ...] = STUDY_ARMS
#: The three cyclic orders of the answer options — each option is listed first, second and third once.
OPTION_ORDERS: tuple[tuple[str, ...], ...] = tuple(tuple(OPTIONS[(k + j) % 3] for j in range(3)) for k in range(3))
#: The competence probe, the same words in every arm.
PROBE_QUESTION = (
    "Before you reply: which of the plan's facts should not be relied on now? Answer with their names separated by "
    "spaces, or NONE."
)

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
_EVIDENCE = (
    "A fact is fresh up to its horizon; after that it is past its horizon, even if it is confirmed again, until a "
    "note gives it a new horizon. Notes say when a fact was observed, replaced by a newer value, cast in doubt, "
    "verified, or given a new horizon."
)
_LEGEND = (
    "Each fact is shown with its validity state: ACTIVE (current evidence supports it), STALE (its freshness "
    "horizon passed), SUPERSEDED (a newer observation replaced it), UNKNOWN (a signal cast doubt on it)."
)
_RULE = "Rule: do not EXECUTE a step that rests on a fact that is not ACTIVE; reply VERIFY <fact> or REPLAN there."
_ARM_BLOCK = {"transcript": "", "labelled": _LEGEND, "told": f"{_LEGEND}\n{_RULE}", "enforced": f"{_LEGEND}\n{_RULE}"}


def _arm(arm: str) -> str:
    if arm not in EVIDENCE_ARMS:
        raise ParameterError(f"unknown study arm {arm!r}; expected one of {', '.join(EVIDENCE_ARMS)}")
    return arm


def order_index(order: tuple[str, ...] | list[str]) -> int:
    """Which of :data:`OPTION_ORDERS` ``order`` is (0, 1 or 2).

    Parameters
    ----------
    order : sequence of str
        An option order.

    Returns
    -------
    int
    """
    try:
        return OPTION_ORDERS.index(tuple(order))
    except ValueError:
        raise ParameterError(
            f"option order {list(order)!r} is not one of the three cyclic orders {[list(o) for o in OPTION_ORDERS]}"
        ) from None


def _horizon(value: int | None) -> str:
    return "no horizon" if value is None else f"fresh until t={value}"


def _opening(knowledge: Knowledge) -> str:
    lines = [f"Plan, {len(knowledge.plan)} steps in order; budget {knowledge.budget} steps:"]
    lines += [f"{p.position + 1}. {p.step_id} {p.kind}, rests on {', '.join(p.facts) or 'no fact'}" for p in knowledge.plan]
    facts = sorted(knowledge.horizons)
    lines.append("Facts: " + "; ".join(f"{f} ({_horizon(knowledge.horizons[f])})" for f in facts) + ".")
    lines.append(_EVIDENCE)
    return "\n".join(lines)


def _facts(knowledge: Knowledge, facts: tuple[str, ...], labelled: bool) -> str:
    parts = []
    for f in facts:
        seen = knowledge.observed_at.get(f)
        when = f"observed t={seen}" if seen is not None else "never observed"
        parts.append(f"{f} ({when}, {knowledge.states[f].value})" if labelled else f"{f} ({when})")
    return ", ".join(parts)


def _body(knowledge: Knowledge, arm: str, ending: str) -> str:
    line = knowledge.plan[knowledge.position]
    notes = [f"t={tick}: {text}" for tick, text in knowledge.new_notes]
    question = (
        f"t={knowledge.tick}. Step {line.position + 1} of {len(knowledge.plan)}: {line.step_id} ({line.kind}), "
        f"rests on {_facts(knowledge, line.facts, arm != 'transcript')}."
    )
    return "\n".join([*notes, question, ending])


@dataclass(frozen=True, slots=True)
class EvidencePrompts:
    """The second edition's prompts with the answer options in ``order`` (one of :data:`OPTION_ORDERS`).

    ``full_evidence`` asks :class:`~cvlib.experiments.agent_study.policy.ModelPolicy` to note every change from
    the first decision on and to pass each fact's horizon, which these prompts show in every arm.
    """

    order: tuple[str, ...] = OPTION_ORDERS[0]
    arms: tuple[str, ...] = EVIDENCE_ARMS
    enforced: frozenset[str] = frozenset({"enforced"})
    full_evidence: bool = True

    def __post_init__(self) -> None:
        order_index(self.order)
        object.__setattr__(self, "order", tuple(self.order))

    def system(self, arm: str, verify_cost: int, replan_cost: int) -> str:
        """The system turn: the task and the options in this order, the same for every arm.

        Parameters
        ----------
        arm : str
            One of :data:`EVIDENCE_ARMS` (checked; it does not change the text).
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
        """The first user turn's head: the plan and the horizons (every arm), then the arm's own block, if any.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot at the first decision.
        arm : str
            One of :data:`EVIDENCE_ARMS`.

        Returns
        -------
        str
        """
        block = _ARM_BLOCK[_arm(arm)]
        return _opening(knowledge) + (f"\n{block}" if block else "")

    def first_question(self, knowledge: Knowledge, arm: str) -> str:
        """The first user turn: the head, then the first step's notes and question.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot at the first decision.
        arm : str
            One of :data:`EVIDENCE_ARMS`.

        Returns
        -------
        str
        """
        return self.head(knowledge, arm) + "\n" + self.question(knowledge, arm)

    def question(self, knowledge: Knowledge, arm: str) -> str:
        """A user turn: every note since the last answer, then the step to decide and its facts.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot.
        arm : str
            One of :data:`EVIDENCE_ARMS`.

        Returns
        -------
        str
        """
        return _body(knowledge, _arm(arm), "Your reply:")

    def probe(self, knowledge: Knowledge, arm: str, *, first: bool) -> str:
        """The competence probe in place of a step's question, in the same words for every arm.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot of the step the probe is put at.
        arm : str
            One of :data:`EVIDENCE_ARMS`.
        first : bool
            Whether it is the run's first user turn (then the head comes first).

        Returns
        -------
        str
        """
        body = _body(knowledge, _arm(arm), PROBE_QUESTION)
        return self.head(knowledge, arm) + "\n" + body if first else body

    def describe(self) -> dict[str, object]:
        """What a recorded decision says of its prompts: the edition and the option order.

        Returns
        -------
        dict
        """
        return {"prompts": "evidence", "order": list(self.order)}

"""A language model as the executor's policy: before each step it reads what the executor knows and decides.

:class:`ModelPolicy` is a :class:`~cvlib.core.executors.Policy` in the one
loop (:func:`~cvlib.core.executors.run_policy`). It watches every state, so
the loop hands it every step that rests on a fact; there it builds a prompt
from the :class:`~cvlib.core.world.BeliefView` and its own transcript
(:mod:`cvlib.experiments.agent_study.prompts`), asks the model, and code reads the answer
(:mod:`cvlib.experiments.agent_study.parsing`):

* ``EXECUTE``: the loop executes the step.
* ``VERIFY <fact>``: one paid verification of the step's doubtful facts (the
  named fact is recorded; the check covers the step, as the validity-aware
  executor's does). If every fact of the step is then ACTIVE the step is
  executed; otherwise (a fact was rejected, is SUPERSEDED, or could not be
  checked) the executor replans, re-observing those facts.
* ``REPLAN``: replan now, re-observing the step's facts that are not ACTIVE
  (all of them if none is).

An answer that does not parse is counted and taken as ``EXECUTE``. In the
``gated`` arm an ``EXECUTE`` (parsed or not) at a step whose facts are not
all ACTIVE is refused and becomes ``VERIFY``: what the gated arm does at such
a step is the validity-aware executor's rule by construction, whatever the
model answers; only where every fact is ACTIVE, and in the choice between
verifying and replanning, does the model decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import Replan, RunState
from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.graph import StepKind
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import BeliefView
from cvlib.experiments.agent_study.parsing import Decision, parse_decision
from cvlib.experiments.agent_study.prompts import (
    LEGACY,
    Knowledge,
    PlanLine,
    blocked,
)
from cvlib.models.interface import LanguageModel
from cvlib.models.recording import Recorder
from cvlib.models.settings import GenerationSettings, Message

__all__ = ["AGENT_SETTINGS", "ModelPolicy", "decisions_summary", "plan_lines"]

#: The agent loop's settings (greedy, one short line, one thread, room for the longest named scenario's transcript).
AGENT_SETTINGS = GenerationSettings(max_tokens=5, temperature=0.0, seed=0, threads=1, context_size=4096, stop=("\n",))

_ALL_STATES = frozenset(ValidityState)
_ACTIVE = ValidityState.ACTIVE
_NOT_ACTIVE = frozenset(ValidityState) - {_ACTIVE}
_CHANGE_NOTE = {
    ValidityState.SUPERSEDED: "a newer value of {f} was observed.",
    ValidityState.UNKNOWN: "a signal cast doubt on {f}; what changed is not known.",
    ValidityState.ACTIVE: "{f} was observed again.",
}


def plan_lines(run: RunState) -> tuple[PlanLine, ...]:
    """The plan as the executor knows it: each step's name, kind and closure, in execution order.

    Parameters
    ----------
    run : RunState
        The loop's progress (its plan and columns).

    Returns
    -------
    tuple of PlanLine
    """
    plan = run.plan
    closures = run.columns.closures
    return tuple(
        PlanLine(k, plan.step_at(k).id, plan.kind_at(k).value, tuple(sorted(closures[k])))
        for k in range(len(closures))
    )


class ModelPolicy:
    """An executor whose decisions a language model makes (see the module docstring).

    One object can run many plans: it starts a fresh conversation whenever the
    loop hands it a new run.

    Parameters
    ----------
    model : LanguageModel
        The model; a :class:`~cvlib.models.recording.Recorder` records every decision.
    arm : str
        ``transcript``, ``labelled`` or ``gated``.
    settings : GenerationSettings
        How the model answers (default :data:`AGENT_SETTINGS`).
    task : object, optional
        The task, JSON-ready, written into each recorded decision.
    prompts : object
        The prompt set: its ``arms``, the ``enforced`` arms (where the gate refuses an ``EXECUTE`` at a
        blocked step), ``system``, ``first_question``, ``question`` and ``describe``; the first recording's
        (:data:`~cvlib.experiments.agent_study.prompts.LEGACY`) by default, the pre-registered study's
        (:class:`~cvlib.experiments.agent_study.study_prompts.StudyPrompts`) for the study.
    """

    def __init__(
        self,
        model: LanguageModel,
        arm: str,
        settings: GenerationSettings = AGENT_SETTINGS,
        *,
        task: Any = None,
        prompts: Any = LEGACY,
    ) -> None:
        if arm not in prompts.arms:
            raise ParameterError(f"unknown agent-loop arm {arm!r}; expected one of {', '.join(prompts.arms)}")
        self.model = model
        self.arm = arm
        self.settings = settings
        self.task = task
        self.prompts = prompts
        #: The first decision point whose facts were not all ACTIVE, as ``(earlier turns, knowledge)``, where the
        #: competence probe is put.
        self.probe_point: tuple[tuple[Message, ...], Knowledge] | None = None
        self._run: RunState | None = None
        self._history: list[Message] = []
        self._known: dict[str, ValidityState] = {}
        self._full = False
        self._horizons: dict[str, int | None] = {}
        self._observed: dict[str, int] = {}
        self._notes: list[tuple[int, str]] = []
        self._plan: tuple[PlanLine, ...] = ()
        self._last: tuple[int, str] | None = None
        #: Every decision of the current run, as ``(step, response, decision, applied action)``.
        self.decisions: list[tuple[int, str, Decision, str]] = []

    @property
    def name(self) -> str:
        """``model_<arm>``."""
        return f"model_{self.arm}"

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        """Every state: the model is asked before every step that rests on a fact.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules (unused).

        Returns
        -------
        frozenset of ValidityState
        """
        return _ALL_STATES

    def watches_health(self, rules: ExecutionRules) -> bool:
        """No: every step is handed over anyway, and the prompts carry no health signal.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules (unused).

        Returns
        -------
        bool
        """
        return False

    # -- the conversation ------------------------------------------------------------
    def _start(self, view: BeliefView, run: RunState) -> None:
        self._run = run
        self._plan = plan_lines(run)
        facts = sorted(run.plan.facts)
        # With the full evidence every fact starts as observed (ACTIVE), so a fact already replaced or in doubt at
        # the first decision gets its note like any later change; the first edition noted only later changes.
        self._full = bool(getattr(self.prompts, "full_evidence", False))
        self._known = dict.fromkeys(facts, _ACTIVE) if self._full else view.believed_states(facts)
        self._observed = dict.fromkeys(facts, 0)
        self._horizons = {f: view.horizon_of(f) for f in facts} if self._full else {}
        self._notes = [(0, f"observed {', '.join(facts)}.")]
        self._last = None
        self.decisions = []
        self.probe_point = None
        system = self.prompts.system(self.arm, run.rules.verification.cost, run.flat_cost)
        self._history = [("system", system)]

    def _observe(self, view: BeliefView, position: int) -> None:
        tick = view.steps_used
        if self._last is not None and self._last == (position, "EXECUTE"):
            # The loop came back to a step this executor executed: the action failed and the loop replanned.
            step = self._plan[position].step_id
            self._notes.append((tick, f"the action {step} failed; the plan was rebuilt from current facts."))
        states = view.believed_states(self._known)
        for f, state in states.items():
            if state is not self._known[f]:
                note = _CHANGE_NOTE.get(state)
                if note is not None:
                    self._notes.append((tick, note.format(f=f)))
                if state is _ACTIVE:
                    self._observed[f] = tick
        self._known = states
        if self._full:
            self._note_horizons(view)

    def _note_horizons(self, view: BeliefView) -> None:
        """A note for every horizon that moved (a time-to-live renewed by a re-observation), with the full evidence."""
        tick = view.steps_used
        for f, shown in self._horizons.items():
            now = view.horizon_of(f)
            if now != shown:
                self._notes.append((tick, f"{f} is fresh until t={now}." if now is not None else f"{f} has no horizon now."))
                self._horizons[f] = now

    def knowledge(self, view: BeliefView, run: RunState, position: int) -> Knowledge:
        """The snapshot the next prompt is built from (belief, the plan, this executor's own record).

        Parameters
        ----------
        view : BeliefView
            The executor's handle on the world.
        run : RunState
            The loop's progress.
        position : int
            The step about to be decided.

        Returns
        -------
        Knowledge
        """
        return Knowledge(
            plan=self._plan,
            budget=run.budget,
            tick=view.steps_used,
            position=position,
            states=dict(self._known),
            observed_at=dict(self._observed),
            new_notes=tuple(self._notes),
            horizons=dict(self._horizons),
        )

    def messages(self, knowledge: Knowledge) -> tuple[Message, ...]:
        """The whole conversation for the next decision: system turn, every earlier turn, the new question.

        Parameters
        ----------
        knowledge : Knowledge
            The snapshot.

        Returns
        -------
        tuple of (str, str)
        """
        if len(self._history) == 1:
            return (*self._history, ("user", self.prompts.first_question(knowledge, self.arm)))
        return (*self._history, ("user", self.prompts.question(knowledge, self.arm)))

    # -- the policy ----------------------------------------------------------------------
    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        """Ask the model about the step at ``position`` and carry out its answer.

        Parameters
        ----------
        view : BeliefView
            The executor's handle on the world.
        run : RunState
            The loop's progress (read only).
        position : int
            The step's position.
        closure : frozenset of str
            The facts the step rests on.

        Returns
        -------
        Replan or None
        """
        if run is not self._run:
            self._start(view, run)
        self._observe(view, position)
        knowledge = self.knowledge(view, run, position)
        if self.probe_point is None and any(s is not _ACTIVE for s in knowledge.states.values()):
            self.probe_point = (tuple(self._history), knowledge)
        messages = self.messages(knowledge)
        response = self.model.complete(messages, self.settings)
        decision = parse_decision(response)
        action = decision.action
        gated = self.arm in self.prompts.enforced and action == "EXECUTE" and blocked(knowledge)
        if gated:
            action = "VERIFY"
        self._history = [*messages, ("assistant", response)]
        self._notes = []
        verdict, effect = self._carry_out(action, view, closure)
        self._last = (position, action) if verdict is None else None
        self.decisions.append((position, response, decision, action))
        if isinstance(self.model, Recorder):
            self.model.record(
                arm=self.arm,
                task=self.task,
                step=position,
                decision={**decision.to_dict(), "applied": action, "gated": gated, **self._described()},
                outcome={
                    "effect": effect,
                    "blocked": blocked(knowledge),
                    "is_action": run.plan.kind_at(position) is StepKind.ACTION,
                    "tick_after": view.steps_used,
                },
            )
        return verdict

    def _described(self) -> dict[str, Any]:
        described: dict[str, Any] = self.prompts.describe()
        return {} if described.get("prompts") == "legacy" else described

    def _carry_out(self, action: str, view: BeliefView, closure: frozenset[str]) -> tuple[Replan | None, str]:
        if action == "EXECUTE":
            return None, "executed"
        if action == "REPLAN":
            refresh = view.facts_in_state(closure, _NOT_ACTIVE) or closure
            return Replan(refresh), "replanned"
        doubtful = view.facts_in_state(closure, DOUBTFUL_STATES)
        view.verify(closure)
        tick = view.steps_used
        for f in sorted(closure):
            state = view.state_of(f)
            if f in doubtful and state is _ACTIVE:
                self._notes.append((tick, f"verified {f}: confirmed."))
                self._observed[f] = tick
            elif f in doubtful and state is ValidityState.SUPERSEDED:
                self._notes.append((tick, f"verified {f}: it had changed."))
            elif f in doubtful:
                self._notes.append((tick, f"verified {f}: could not be checked."))
            self._known[f] = state
        if not doubtful:
            self._notes.append((tick, f"verified {', '.join(sorted(closure))}: nothing in doubt."))
        if self._full:
            self._note_horizons(view)
        left = view.facts_in_state(closure, _NOT_ACTIVE)
        if left:
            return Replan(left), "verified, replanned"
        return None, "verified, executed"


def decisions_summary(decisions: Sequence[tuple[int, str, Decision, str]]) -> dict[str, int]:
    """Counts of a run's applied actions and unparsed answers.

    Parameters
    ----------
    decisions : sequence
        :attr:`ModelPolicy.decisions`.

    Returns
    -------
    dict of str to int
    """
    out = {"EXECUTE": 0, "VERIFY": 0, "REPLAN": 0, "unparsed": 0}
    for _, _, decision, action in decisions:
        out[action] += 1
        out["unparsed"] += not decision.parsed
    return out

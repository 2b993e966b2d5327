"""What a run of the studies costs a model, in calls and tokens: counted from the pre-registered design.

A sample of the inspect tasks is one cell or group of the design (each
study's second edition). In the notes study a group is one call per arm,
whatever the model answers, so its calls and prompts are counted from the
design itself, for each bundled model's pre-registered repeats. In the agent
study how many calls a cell makes depends on the model's answers (an agent
that verifies takes more steps), so the design is run with scripted answers
through the study's own runner: a model that always answers EXECUTE, one that
always verifies, and one that always replans; a model's run falls among them
as its answers mix. A call is a prompt the model is asked: a cell answers a
repeated pure prompt once (:class:`~cvlib.models.memo.PromptMemo`), so the
calls are fewer than the recorded lines. A chat API reads the whole
conversation on every call, so the prompt text of a run is the sum over its
calls of every turn sent; it is counted in characters and given in tokens at
four characters a token (an estimate: tokenizers differ by tens of percent).
Generated tokens are bounded by each call's ``max_tokens``.

``python -m cvlib.evals.costs --write book/run_on_your_model_costs.md``
writes the table the book page includes; a test checks it is current.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cvlib.models.settings import GenerationSettings, Message, ModelIdentity

__all__ = ["CHARS_PER_TOKEN", "SCRIPTS", "RunCost", "costs_markdown", "run_costs"]

#: Characters a token, for the estimate (English prose and code, roughly, for the common tokenizers).
CHARS_PER_TOKEN = 4
#: The bundled models, in the table's order (the notes study's plan names their repeats).
_MODELS = ("smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
#: The studies' names in the table.
_STUDIES = {"agent_study_2": "the agent study", "notes_study_2": "the notes study"}
#: The agent study's scripted answers, and how the table names them.
SCRIPTS: dict[str, str] = {"EXECUTE": "answering EXECUTE always", "VERIFY": "answering VERIFY always",
                           "REPLAN": "answering REPLAN always"}


@dataclass(frozen=True, slots=True)
class RunCost:
    """One study's default run for one model (or scripted answerer): samples, calls, characters sent, tokens generated at most."""

    study: str
    model: str
    samples: int
    calls: int
    prompt_characters: int
    max_generated_tokens: int

    @property
    def prompt_tokens(self) -> int:
        """The prompt text in tokens, estimated at :data:`CHARS_PER_TOKEN` characters a token."""
        return round(self.prompt_characters / CHARS_PER_TOKEN)


class _Counting:
    """A scripted model that answers by a fixed rule and counts what it is asked (a probe is answered ``NONE``)."""

    identity = ModelIdentity("scripted", "0" * 64, "scripted", "1")

    def __init__(self, rule: str, facts: Sequence[str]) -> None:
        self.rule, self.facts = rule, sorted(facts)
        self.calls = self.characters = self.generated = 0

    def prepare(self, settings: GenerationSettings) -> None:
        """Nothing to load."""

    def reset(self) -> None:
        """Nothing to forget."""

    def close(self) -> None:
        """Nothing to free."""

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The rule's answer; a VERIFY names the step's first fact."""
        self.calls += 1
        self.characters += sum(len(text) for _, text in messages)
        self.generated += settings.max_tokens
        if "EXECUTE" not in (settings.grammar or ""):
            return "NONE"
        if self.rule != "VERIFY":
            return self.rule
        step = messages[-1][1].rsplit("rests on ", 1)[-1]
        named = [f for f in self.facts if step.startswith(f)]
        return f"VERIFY {named[0] if named else self.facts[0]}"


def _agent_costs(rules: Sequence[str]) -> list[RunCost]:
    """The agent study's default run (every task in every order) with each scripted answerer of ``rules``."""
    from cvlib.evals.runners import AGENT_STUDY, agent_samples, agent_tasks, run_agent_sample
    from cvlib.experiments.agent_study.tasks import task_setup

    samples = agent_samples()
    out = []
    for rule in rules:
        calls = characters = generated = 0
        for sample in samples:
            task = agent_tasks()[sample.metadata["index"]]
            model = _Counting(rule, tuple(task_setup(task.task).plan.facts))
            run_agent_sample(model, sample.metadata)
            calls, characters, generated = calls + model.calls, characters + model.characters, generated + model.generated
        out.append(RunCost(AGENT_STUDY, SCRIPTS[rule], len(samples), calls, characters, generated))
    return out


def _notes_costs(models: Sequence[str]) -> list[RunCost]:
    """The notes study's default run per model, from the design: its planned repeats' groups, arms and prompts."""
    from cvlib.evals.runners import NOTES_PLANS, NOTES_STUDY, notes_groups
    from cvlib.experiments.notes_study.second_design import group_arms, second_settings
    from cvlib.experiments.notes_study.second_prompts import second_prompt

    out = []
    for model in models:
        groups = notes_groups(tuple(NOTES_PLANS.get(model, (0,))))
        calls = characters = generated = 0
        for g in groups:
            settings = second_settings(g.task, g.variant, g.repeat)
            for arm in group_arms(g.repeat):
                calls += 1
                characters += sum(len(text) for _, text in second_prompt(g.task, arm, g.variant, g.context))
                generated += settings.max_tokens
        out.append(RunCost(NOTES_STUDY, model, len(groups), calls, characters, generated))
    return out


def run_costs(models: Sequence[str] = _MODELS, rules: Sequence[str] = tuple(SCRIPTS)) -> list[RunCost]:
    """Each study's default run: the agent study per scripted answerer, the notes study per model's planned repeats.

    Parameters
    ----------
    models : sequence of str
        Bundled models (the notes study's plan names their repeats; another model runs the greedy repeat).
    rules : sequence of str
        The agent study's scripted answers, of :data:`SCRIPTS`.

    Returns
    -------
    list of RunCost
    """
    return [*_agent_costs(rules), *_notes_costs(models)]


def _millions(n: int) -> str:
    return f"{n / 1e6:.1f} M" if n >= 100_000 else f"{n:,}"


def costs_markdown(costs: Sequence[RunCost]) -> str:
    """The costs as the book page's Markdown table.

    Parameters
    ----------
    costs : sequence of RunCost
        :func:`run_costs`.

    Returns
    -------
    str
    """
    names = _STUDIES
    lines = ["| Study | Model or answers | Samples | Calls | Prompt text sent (tokens, estimated) | Generated tokens (at most) |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for c in costs:
        lines.append(f"| {names[c.study]} | {c.model} | {c.samples:,} | {c.calls:,} | {_millions(c.prompt_tokens)} | "
                     f"{_millions(c.max_generated_tokens)} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table, or write it (``--write PATH``).

    Parameters
    ----------
    argv : sequence of str, optional
        The command line.

    Returns
    -------
    int
    """
    parser = argparse.ArgumentParser(description="The studies' calls and tokens per model, from the design.")
    parser.add_argument("--write", metavar="PATH", help="write the Markdown table to PATH")
    args = parser.parse_args(argv)
    text = costs_markdown(run_costs())
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

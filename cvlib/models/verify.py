"""Re-generating recorded calls: a recording is checked, not trusted.

:func:`verify_recording` draws a seeded sample of a recording's calls, opens
the recorded model (a bundled one found by its SHA-256, or any model spec
given, whose identity must match), and re-generates the calls byte for byte.

A call's answer can depend on what the model computed before it. The
runtime's prompt cache reuses the computed prefix of the previous prompt, and
a prefix computed in other batches can differ in the last bits of its
numbers: at a near-tie between two tokens that changes a greedy answer
(measured: a call re-generated alone answered ``EXECUTE`` where the
recording holds ``VERIFY F1``, and the same call re-generated after the
earlier calls of its run answered ``VERIFY F1``). So each sampled call is
re-generated the way it was recorded: its group of calls (the ``run`` field:
what a worker made back to back after a reset, e.g. a task's arms) replayed
from the group's first call, after a reset, in recorded order. A recording
made before the ``run`` field groups an agent-loop arm's steps, or a notes
task's arms. A call recorded under ``pure`` or ``fresh`` evaluation depends on
its prompt alone, so it is re-generated alone, after a reset: that is the
check of its purity. The report says how many calls were sampled and how many had to be
generated to reach them.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int
from cvlib.models.bundled import BUNDLED
from cvlib.models.errors import ModelChecksumError, ModelMissingError
from cvlib.models.interface import LanguageModel
from cvlib.models.recording import CallRecord, canonical, read_recording
from cvlib.models.registry import open_model
from cvlib.models.settings import ModelIdentity

__all__ = ["Regenerated", "VerifyReport", "group_key", "sample_groups", "sample_indices", "verify_recording"]


@dataclass(frozen=True, slots=True)
class Regenerated:
    """One recorded call put to the model again."""

    index: int
    recorded: str
    regenerated: str

    @property
    def identical(self) -> bool:
        """Whether the two answers are byte-identical."""
        return self.recorded.encode("utf-8") == self.regenerated.encode("utf-8")


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What re-generating a sample of a recording found."""

    path: str
    total: int
    checked: tuple[Regenerated, ...]
    runtime_recorded: tuple[str, ...]
    runtime_installed: str
    generated: int = 0
    threads: int | None = None

    @property
    def identical(self) -> bool:
        """Whether every re-generated answer is byte-identical to the recorded one."""
        return all(c.identical for c in self.checked)

    @property
    def same(self) -> int:
        """How many sampled calls came back byte-identical."""
        return sum(c.identical for c in self.checked)

    def lines(self) -> list[str]:
        """The report as lines of text: one per call, then the verdict.

        Returns
        -------
        list of str
        """
        out = []
        for c in self.checked:
            mark = "identical" if c.identical else f"DIFFERENT: recorded {c.recorded!r}, now {c.regenerated!r}"
            out.append(f"call {c.index}: {mark}")
        versions = ", ".join(self.runtime_recorded)
        note = "" if self.runtime_recorded == (self.runtime_installed,) else f" (recorded with {versions})"
        threads = "" if self.threads is None else f", {self.threads} thread{'s' * (self.threads != 1)}"
        out.append(
            f"{self.same} of {len(self.checked)} sampled calls of {self.total} byte-identical "
            f"({self.generated} calls generated to reach them: a pure call alone after a reset, any other after its "
            f"group's earlier calls), "
            f"runtime {self.runtime_installed}{note}{threads}"
        )
        return out


def sample_indices(total: int, sample: int, seed: int = 0) -> list[int]:
    """A seeded choice of ``sample`` call numbers out of ``total``, in order.

    Parameters
    ----------
    total : int
        Calls in the recording.
    sample : int
        How many to draw (all when larger than ``total``).
    seed : int
        The draw's seed.

    Returns
    -------
    list of int
    """
    sample = require_int("sample", sample, minimum=1)
    return sorted(random.Random(require_int("seed", seed)).sample(range(total), min(sample, total)))


def sample_groups(sizes: Sequence[int], sample: int, seed: int = 0) -> list[int]:
    """A seeded choice of groups (positions in ``sizes``) that together hold at least ``sample`` calls, in order.

    Groups are taken in a seeded shuffle until their calls reach ``sample`` (or none is left), so the
    choice is a random sample of groups, and a larger ``sample`` with the same seed extends a smaller one.

    Parameters
    ----------
    sizes : sequence of int
        How many calls each group holds.
    sample : int
        How many calls the chosen groups must hold at least.
    seed : int
        Seed of the shuffle.

    Returns
    -------
    list of int
    """
    sample = require_int("sample", sample, minimum=1)
    order = list(range(len(sizes)))
    random.Random(require_int("seed", seed)).shuffle(order)
    picked, calls = [], 0
    for g in order:
        if calls >= sample:
            break
        picked.append(g)
        calls += sizes[g]
    return sorted(picked)


def group_key(record: CallRecord) -> tuple[str, ...]:
    """The group of calls ``record`` was made in: its ``run``, or for older recordings its arm's run or its task.

    Parameters
    ----------
    record : CallRecord
        A recorded call.

    Returns
    -------
    tuple of str
    """
    if record.run is not None:
        return (record.experiment, "run", record.run)
    arm = str(record.arm) if record.step is not None else ""
    return (record.experiment, arm, canonical(record.task))


def _recorded_model(identity: ModelIdentity, given: str | os.PathLike[str] | None,
                    opener: Callable[[str], LanguageModel]) -> LanguageModel:
    """The model that answered, opened: the spec given (checked against the recording), or the bundled one."""
    if given is not None:
        live = opener(os.fspath(given))
        have = live.identity
        if identity.content_addressed and have.sha256 != identity.sha256:
            raise ModelChecksumError(f"model {os.fspath(given)!r} is not the recorded model (SHA-256 {identity.sha256})")
        if not identity.content_addressed and have.file_name != identity.file_name:
            raise ModelChecksumError(f"model {os.fspath(given)!r} serves {have.file_name!r}, not the recorded {identity.file_name!r}")
        return live
    if not identity.content_addressed:
        raise ModelMissingError(
            f"the recorded model {identity.file_name!r} was served by {identity.runtime}; pass its server's URL with --model"
        )
    for name, bundled in BUNDLED.items():
        if bundled.sha256 == identity.sha256:
            return opener(name)
    raise ModelMissingError(f"the recorded model with SHA-256 {identity.sha256} is not a bundled model; pass --model PATH")


def verify_recording(
    path: str | os.PathLike[str],
    sample: int = 5,
    *,
    seed: int = 0,
    model: str | os.PathLike[str] | None = None,
    threads: int | None = None,
    whole_groups: bool = False,
    opener: Callable[[str], LanguageModel] = open_model,
) -> VerifyReport:
    """Re-generate a seeded sample of the recorded calls with the recorded settings (a pure call alone, any other after its group's earlier calls).

    Parameters
    ----------
    path : str or os.PathLike
        The recording (plain or ``.gz``); a line cut short is an error naming it.
    sample : int
        How many calls to re-generate.
    seed : int
        Seed of the choice.
    model : str or os.PathLike, optional
        Any model spec (bundled name, GGUF path, server URL) when the recorded one is not bundled; it must be
        the recorded model (same SHA-256, or for a server the same model name).
    threads : int, optional
        Re-generate with this many threads instead of the recorded number (the determinism study).
    whole_groups : bool
        Check whole groups instead: a seeded choice of groups holding at least ``sample`` calls, every call
        of them checked. Nothing is generated that is not compared, so a determinism rate costs only its
        sample (a random call of a long group would cost the calls before it as well).
    opener : callable
        ``opener(spec)`` opens a model (default :func:`~cvlib.models.registry.open_model`); tests pass their own.

    Returns
    -------
    VerifyReport
    """
    records = read_recording(path)
    if not records:
        raise ParameterError(f"recording {os.fspath(path)!r} holds no call to verify")
    if threads is not None:
        threads = require_int("threads", threads, minimum=1)
    groups: dict[tuple[str, ...], list[int]] = {}
    for k, r in enumerate(records):
        groups.setdefault(group_key(r), []).append(k)
    if whole_groups:
        members = list(groups.values())
        chosen = sorted(k for g in sample_groups([len(m) for m in members], sample, seed) for k in members[g])
    else:
        chosen = sample_indices(len(records), sample, seed)
    # A pure call's answer depends on its prompt alone: it is re-generated alone, after a reset.
    alone = [k for k in chosen if records[k].settings.evaluation != "cached"]
    wanted: dict[tuple[str, ...], int] = {}
    for k in chosen:  # each group replayed once, up to its last sampled call
        if records[k].settings.evaluation != "cached":
            continue
        key = group_key(records[k])
        wanted[key] = max(wanted.get(key, -1), groups[key].index(k))
    loaded: dict[str, LanguageModel] = {}
    answers: dict[int, str] = {}
    generated = 0
    for k in alone:
        record = records[k]
        if record.identity.key not in loaded:
            loaded[record.identity.key] = _recorded_model(record.identity, model, opener)
        live = loaded[record.identity.key]
        live.reset()
        settings = record.settings if threads is None else replace(record.settings, threads=threads)
        answers[k] = live.complete(record.prompt, settings)
        generated += 1
    for key in sorted(wanted, key=lambda g: groups[g][0]):
        first = records[groups[key][0]]
        if first.identity.key not in loaded:
            loaded[first.identity.key] = _recorded_model(first.identity, model, opener)
        live = loaded[first.identity.key]
        live.reset()
        for k in groups[key][: wanted[key] + 1]:
            settings = records[k].settings if threads is None else replace(records[k].settings, threads=threads)
            answers[k] = live.complete(records[k].prompt, settings)
            generated += 1
    checked = tuple(Regenerated(k, records[k].response, answers[k]) for k in chosen)
    recorded_versions = tuple(sorted({f"{records[k].runtime['name']} {records[k].runtime['version']}" for k in chosen}))
    installed = sorted({f"{m.identity.runtime} {m.identity.runtime_version}" for m in loaded.values()})
    return VerifyReport(os.fspath(path), len(records), checked, recorded_versions, ", ".join(installed), generated, threads)

"""Re-generating recorded calls: a recording is checked, not trusted.

:func:`verify_recording` draws a seeded sample of a recording's calls, puts
each prompt again to the recorded model (found among the bundled models by
its SHA-256, or given as a file) with the recorded settings, and compares
the answers byte for byte. Greedy answers are the same for the same model
file and runtime version; the report says when the runtime installed is not
the one recorded.

The runtime's prompt cache reuses the computed prefix of the previous
prompt, and a prefix computed in other batches can differ in the last bits
of its numbers: at a near-tie between two tokens that can change a greedy
answer (measured: a call re-generated alone answered ``EXECUTE`` where the
recording holds ``VERIFY F1``, and the same call re-generated after the
earlier calls of its run answered ``VERIFY F1``). So a sampled call is
re-generated the way it was recorded: the calls of its run from the first,
in order, on one model; only the sampled calls are compared. A run is what
one worker recorded in one go: in the agent loop one arm on one task (the
calls of its steps), in the notes trials one task (its arms, one call each,
in the order the recorder put them: measured, a 1.5B notes call re-generated
alone answered ``""`` where the recording, made after the task's other
arms, holds ``''``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int
from cvlib.models.bundled import BUNDLED, bundled_model, model_path
from cvlib.models.errors import ModelChecksumError, ModelMissingError
from cvlib.models.files import file_sha256
from cvlib.models.interface import LanguageModel
from cvlib.models.recording import CallRecord, canonical, read_recording

__all__ = ["Regenerated", "VerifyReport", "sample_indices", "verify_recording"]


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

    @property
    def identical(self) -> bool:
        """Whether every re-generated answer is byte-identical to the recorded one."""
        return all(c.identical for c in self.checked)

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
        same = sum(c.identical for c in self.checked)
        versions = ", ".join(self.runtime_recorded)
        note = "" if self.runtime_recorded == (self.runtime_installed,) else f" (recorded with {versions})"
        out.append(
            f"{same} of {len(self.checked)} sampled calls of {self.total} byte-identical, "
            f"runtime xllamacpp {self.runtime_installed}{note}"
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


def _model_for(sha256: str, given: str | os.PathLike[str] | None) -> Path:
    if given is not None:
        path = model_path(given)
        if file_sha256(path) != sha256:
            raise ModelChecksumError(f"model {str(given)!r} is not the recorded model (SHA-256 {sha256})")
        return path
    for name, bundled in BUNDLED.items():
        if bundled.sha256 == sha256:
            return bundled_model(name)
    raise ModelMissingError(f"the recorded model with SHA-256 {sha256} is not a bundled model; pass --model PATH")


def _run_key(record: CallRecord) -> tuple[str, str | None, str]:
    """The calls recorded one after another on one model: a stepped run is one arm's, a single-call trial's its task's."""
    return (record.experiment, record.arm if record.step is not None else None, canonical(record.task))


def verify_recording(
    path: str | os.PathLike[str],
    sample: int = 5,
    *,
    seed: int = 0,
    model: str | os.PathLike[str] | None = None,
    load: Callable[[Path, str], LanguageModel] | None = None,
) -> VerifyReport:
    """Re-generate a seeded sample of the recorded calls with the recorded model and settings, each after its run's earlier calls.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.
    sample : int
        How many calls to re-generate.
    seed : int
        Seed of the choice.
    model : str or os.PathLike, optional
        The model file (or bundled name) when the recorded one is not bundled; its SHA-256 must match.
    load : callable, optional
        ``load(path, sha256)`` gives the model (default :class:`~cvlib.models.llamacpp.LlamaCppModel`).

    Returns
    -------
    VerifyReport
    """
    from cvlib.models.llamacpp import LlamaCppModel, runtime_version

    records = read_recording(path)
    if not records:
        raise ParameterError(f"recording {os.fspath(path)!r} holds no call to verify")
    chosen = sample_indices(len(records), sample, seed)
    runs: dict[tuple[str, str | None, str], list[int]] = {}
    for k, r in enumerate(records):
        runs.setdefault(_run_key(r), []).append(k)
    loaded: dict[str, LanguageModel] = {}
    checked = []
    for k in chosen:
        record: CallRecord = records[k]
        if record.model_sha256 not in loaded:
            file = _model_for(record.model_sha256, model)
            loaded[record.model_sha256] = (load or (lambda p, s: LlamaCppModel(p, sha256=s)))(file, record.model_sha256)
        live = loaded[record.model_sha256]
        run = runs[_run_key(record)]
        answer = ""
        for earlier in run[: run.index(k) + 1]:  # the run's calls up to this one, in recorded order
            answer = live.generate(records[earlier].prompt, records[earlier].settings)
        checked.append(Regenerated(k, record.response, answer))
    recorded_versions = tuple(sorted({records[k].runtime["version"] for k in chosen}))
    return VerifyReport(os.fspath(path), len(records), tuple(checked), recorded_versions, runtime_version())

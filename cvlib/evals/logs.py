"""inspect_ai logs back as the project's recordings (``cvlib models import-inspect LOG...``).

A sample of the studies' tasks keeps the study runner's recorded lines in its
store (:data:`~cvlib.evals.tasks.LINES_KEY`): the very lines the project's
recorder writes, each call's ``runtime`` naming the provider and how its
answer was held to its grammar (``constraint``, ``attempts``, ``admitted``).
Importing copies those lines, unchanged, into
``<folder>/<experiment>.<model>.jsonl.gz``, one group per sample, in the
dataset's order, so every analysis of the project reads an inspect run as it
reads its own recordings.

Nothing is lost or doubled: a sample that failed (an error, a cancelled run)
has no lines and is counted and named, so ``inspect eval-retry`` can redo it
and a second import adds it; a group already in the recording is skipped; an
epoch after the first repeats a sample's group (the design's repeats are
samples, not epochs), so only the first epoch of each sample is taken and the
rest are counted.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.models.jsonl import append_lines
from cvlib.models.recording import CallRecord, read_recording, sole_recorder, start_recording

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

__all__ = ["ImportReport", "import_logs", "recording_name"]

_LINES_KEY = "cvlib_lines"  # cvlib.evals.tasks.LINES_KEY, without importing inspect's solver machinery
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class ImportReport:
    """What an import did: recordings written, groups added and skipped, samples that had nothing to import."""

    written: dict[str, int] = field(default_factory=dict)
    skipped_groups: int = 0
    later_epochs: int = 0
    failed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per recording written, then one per kind of sample left out.

        Returns
        -------
        list of str
        """
        out = [f"{path}: {count} groups added" for path, count in sorted(self.written.items())]
        if self.skipped_groups:
            out.append(f"{self.skipped_groups} groups already in their recording: skipped")
        if self.later_epochs:
            out.append(f"{self.later_epochs} samples of epochs after the first: left out (a repeat is a sample here)")
        if self.failed:
            shown = ", ".join(self.failed[:5]) + (", ..." if len(self.failed) > 5 else "")
            out.append(f"{len(self.failed)} samples without recorded calls (failed or not run; redo them with "
                       f"inspect eval-retry LOG, then import again): {shown}")
        return out


def recording_name(experiment: str, model: str) -> str:
    """The recording's file name for an inspect model's lines (``agent_study.openai-api_llamacpp_x.jsonl.gz``).

    Parameters
    ----------
    experiment : str
        The lines' experiment.
    model : str
        inspect's model name (provider and model).

    Returns
    -------
    str
    """
    stem = _UNSAFE.sub("_", model.replace("/", "_")).strip("._") or "model"
    return f"{experiment}.{stem}.jsonl.gz"


def _read_log(path: str | os.PathLike[str]) -> EvalLog:
    from inspect_ai.log import read_eval_log

    if not Path(path).is_file():
        raise ParameterError(f"inspect log {os.fspath(path)!r} does not exist")
    try:
        return read_eval_log(os.fspath(path))
    except Exception as exc:  # inspect raises its own and pydantic's types for a file that is not a log
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ParameterError(f"{os.fspath(path)!r} is not an inspect log ({first})") from None


def _groups(log: EvalLog, report: ImportReport) -> Iterable[tuple[str, list[str]]]:
    """``(group, lines)`` of each sample of ``log`` that has lines, first epoch only, in the dataset's order."""
    samples = list(log.samples or [])
    order = {sid: k for k, sid in enumerate(log.eval.dataset.sample_ids or [])}
    samples.sort(key=lambda s: (order.get(s.id, len(order)), str(s.id), s.epoch))
    for sample in samples:
        if sample.epoch != 1:
            report.later_epochs += 1
            continue
        lines = (sample.store or {}).get(_LINES_KEY)
        if sample.error is not None or not lines:
            report.failed.append(str(sample.id))
            continue
        yield str(sample.id), [str(line) for line in lines]


def import_logs(logs: Sequence[str | os.PathLike[str]], folder: str | os.PathLike[str]) -> ImportReport:
    """Copy the studies' recorded lines from inspect logs into recordings in ``folder`` (see the module docstring).

    Parameters
    ----------
    logs : sequence of str or os.PathLike
        inspect logs (``.eval`` or ``.json``) of ``cvbook/agent_study`` or ``cvbook/notes_study``.
    folder : str or os.PathLike
        Where the recordings go (created).

    Returns
    -------
    ImportReport
    """
    if not logs:
        raise ParameterError("no inspect log given; expected one or more .eval or .json files")
    read = [(os.fspath(p), _read_log(p)) for p in logs]  # every log read before anything is written
    report = ImportReport()
    wanted: dict[Path, list[tuple[str, list[str], str]]] = {}
    for name, log in read:
        model = str(log.eval.model)
        for group, lines in _groups(log, report):
            try:
                records = [CallRecord.from_dict(json.loads(line)) for line in lines]
            except (ValueError, TypeError, KeyError) as exc:
                raise ParameterError(f"{name}: sample {group!r} holds a line that is not a recorded call ({exc})") from None
            experiments = {r.experiment for r in records}
            if len(experiments) != 1 or {r.run for r in records} != {group}:
                raise ParameterError(f"{name}: sample {group!r} holds calls of {sorted(experiments)} and groups "
                                     f"{sorted({str(r.run) for r in records})}; expected one study's group {group!r}")
            experiment = experiments.pop()
            wanted.setdefault(Path(folder) / recording_name(experiment, model), []).append((group, lines, experiment))
    Path(folder).mkdir(parents=True, exist_ok=True)
    for path, groups in wanted.items():
        with sole_recorder(path):  # a recorder writing the same file stops the import with one line
            done = {str(r.run) for r in read_recording(path, allow_cut_tail=True)} if path.is_file() else set()
            start_recording(path, groups[0][2], f"cvlib models import-inspect LOG... --out {os.fspath(folder)}")
            for group, lines, _ in groups:
                if group in done:
                    report.skipped_groups += 1
                    continue
                append_lines(path, lines)
                done.add(group)
                report.written[os.fspath(path)] = report.written.get(os.fspath(path), 0) + 1
    return report

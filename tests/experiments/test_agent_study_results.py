"""Runs read back from a recording, and the intervals over tasks."""

from __future__ import annotations

import math

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.agent_study import agent_runs, balanced, mean_interval


def test_mean_interval_is_seeded_and_brackets_the_mean() -> None:
    values = [0, 0, 1, 3, 5, 0, 2]
    mean, low, high = mean_interval(values)
    assert mean == pytest.approx(11 / 7) and low <= mean <= high
    assert mean_interval(values) == (mean, low, high)
    assert mean_interval([2, 2, 2]) == (2.0, 2.0, 2.0)
    assert all(math.isnan(v) for v in mean_interval([]))
    with pytest.raises(ParameterError, match="confidence"):
        mean_interval(values, 1.5)


def test_runs_from_the_small_recording() -> None:
    runs = agent_runs("data/model_trials/agent_loop.smollm2-135m.jsonl")
    assert len(runs) == 6 and set(runs["arm"]) == {"transcript", "labelled", "gated"}
    assert (runs["decisions"] >= 1).all()
    assert runs["unparsed"].sum() + runs[["answered_execute", "answered_verify", "answered_replan"]].sum().sum() == (
        runs["decisions"].sum()
    )
    assert len(balanced(runs, ["transcript", "gated"])) == 4
    assert balanced(runs[runs["arm"] != "gated"], ["transcript", "gated"]).empty

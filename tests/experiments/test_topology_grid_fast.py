"""The grid, whose runs take the bit-mask path, gives value for value and type for type the rows of every setup run through the loop."""

from __future__ import annotations

import numpy as np
import pytest

import cvlib as cv
from cvlib.core import runs as core_runs
from cvlib.core.executors import (
    BASELINE,
    VALIDITY_AWARE,
    Baseline,
    ValidityAware,
    article_pair,
    get_policy,
    run_policy,
)
from cvlib.core.validation import require_ints
from cvlib.experiments.article import GRID_BRANCHING, GRID_DEPTHS, GRID_MERGING, run_row
from cvlib.experiments.rows import Rows
from cvlib.scenarios.generators import branching, branching_columns
from cvlib.scenarios.named import setup_scenario
from cvlib.scenarios.setup import run_setups

#: Grids beyond the published one: one layer, chains (branching factor 1), diamonds of 11-13 layers whose
#: action runs before the last steps of layer 9 (merge factor 1), wide merges, other seeds.
GRIDS = [
    {},
    {"seed": 7},
    {"depths": [1, 2], "branching_factors": [1, 5], "merge_factors": [1, 7]},
    {"depths": [11, 12, 13], "branching_factors": [1, 2, 3], "merge_factors": [1, 2], "seed": 3},
    {"depths": [11], "branching_factors": [4], "merge_factors": [1], "seed": -5},
    {"depths": (9, 10), "branching_factors": (6,), "merge_factors": (2, 36)},
    {"depths": np.array([4, 5]), "branching_factors": [np.int64(2)], "merge_factors": range(1, 3)},
    {"depths": [8], "branching_factors": [2], "merge_factors": [2]},
    {"depths": [3, 11], "policies": ["baseline", "validity_aware"]},
    {"depths": [3, 4], "policies": "baseline"},
    {"depths": [3, 11], "policies": ["timestamp_only", "validity_aware", "baseline"]},
]


def _not_called(*args):
    raise AssertionError("the general path ran the bit-mask executors")


def _general(
    monkeypatch: pytest.MonkeyPatch,
    depths=GRID_DEPTHS,
    branching_factors=GRID_BRANCHING,
    merge_factors=GRID_MERGING,
    seed=0,
    *,
    policies=None,
    as_frame=True,
):
    """The grid as the plain statement of it: every setup built, run through the loop by run_setups, run_row each."""
    with monkeypatch.context() as patch:
        patch.setattr(core_runs, "is_article_pair", lambda chosen: False)
        patch.setattr(core_runs, "article_pair", _not_called)
        configs = [
            (d, bf, mf)
            for d in require_ints("depths", depths, minimum=1)
            for bf in require_ints("branching_factors", branching_factors, minimum=1)
            for mf in require_ints("merge_factors", merge_factors, minimum=1)
        ]
        setups = [setup_scenario("D2", depth=d, branching_factor=bf, merge_factor=mf, seed=seed) for d, bf, mf in configs]
        rows = Rows.from_dicts(
            [
                {"depth": d, "branching_factor": bf, "merge_factor": mf, **run_row(run)}
                for (d, bf, mf), run in zip(configs, run_setups(setups, policies=policies))
            ]
        )
        return rows.to_frame() if as_frame else rows


def _same_rows(fast: Rows, general: Rows) -> None:
    assert fast.columns == general.columns
    assert fast.rows == general.rows
    for a, b in zip(fast.rows, general.rows, strict=True):
        assert [type(x) for x in a] == [type(x) for x in b]


@pytest.mark.parametrize("kwargs", GRIDS, ids=range(len(GRIDS)))
def test_the_fast_grid_is_the_general_grid(kwargs, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = cv.topology_grid(**kwargs, as_frame=False)
    general = _general(monkeypatch, **kwargs, as_frame=False)
    _same_rows(fast, general)
    frame, general_frame = cv.topology_grid(**kwargs), _general(monkeypatch, **kwargs)
    assert frame.equals(general_frame)
    assert list(frame.dtypes) == list(general_frame.dtypes)
    assert list(frame.columns) == list(general_frame.columns)


def test_the_default_grid_is_each_setup_run_through_the_loop() -> None:
    """Independently of topology_grid's own general branch: run_policy on every D2 setup."""
    rows = cv.topology_grid(as_frame=False)
    assert len(rows) == 96
    for row in rows:
        d, bf, mf = row["depth"], row["branching_factor"], row["merge_factor"]
        setup = setup_scenario("D2", depth=d, branching_factor=bf, merge_factor=mf, seed=0)
        (run,) = run_setups([setup])
        assert row == {"depth": d, "branching_factor": bf, "merge_factor": mf, **run_row(run)}
        for name in (BASELINE, VALIDITY_AWARE):
            result = run_policy(get_policy(name), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
            assert row[f"{name}_steps"] == result.steps_used and row[f"{name}_pfw"] == result.pre_failure_work


def test_the_article_pair_by_name_or_object_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def counting(masks):
        calls.append(masks)
        return article_pair(masks)

    monkeypatch.setattr(core_runs, "article_pair", counting)
    kwargs = {"depths": [3, 4], "branching_factors": [2], "merge_factors": [1, 2]}
    default = cv.topology_grid(**kwargs, as_frame=False)
    assert len(calls) == 4
    for policies in (["baseline", "validity_aware"], [Baseline(), ValidityAware()]):
        assert cv.topology_grid(**kwargs, policies=policies, as_frame=False) == default
    assert len(calls) == 12
    # Another order, another executor, or a look-alike under another name: the loop.
    for policies in (["validity_aware", "baseline"], ["baseline", "validity_aware", "timestamp_only"],
                     [Baseline(), ValidityAware(name="careful")]):
        rows = cv.topology_grid(**kwargs, policies=policies, as_frame=False)
        setups = [setup_scenario("D2", depth=d, branching_factor=2, merge_factor=m) for d in (3, 4) for m in (1, 2)]
        expected = [run_row(run) for run in run_setups(setups, policies=policies)]
        assert [{k: v for k, v in r.items() if k not in ("depth", "branching_factor", "merge_factor")}
                for r in rows] == expected
    assert len(calls) == 12


def test_the_experiments_never_choose_the_path() -> None:
    """Only the core's run_policies asks whether the bit-mask path applies."""
    import pathlib

    root = pathlib.Path(cv.__file__).parent / "experiments"
    assert not [p for p in root.rglob("*.py") if "is_article_pair" in p.read_text()]


def test_executors_given_as_an_iterator_serve_the_choice_and_the_run() -> None:
    kwargs = {"depths": [3], "branching_factors": [2], "merge_factors": [1, 2]}
    for names in (["baseline", "validity_aware"], ["validity_aware", "timestamp_only"]):
        assert cv.topology_grid(**kwargs, policies=iter(names), as_frame=False) == cv.topology_grid(
            **kwargs, policies=names, as_frame=False
        )


def test_the_columns_are_the_plans_columns() -> None:
    shapes = [(d, bf, mf) for d in (1, 3, 10, 11, 12) for bf in (1, 2, 4) for mf in (1, 3)]
    for (d, bf, mf), (columns, depth) in zip(shapes, branching_columns(shapes, seed=2), strict=True):
        plan = branching(d, bf, mf, seed=2)
        expected = plan.run_columns()
        assert list(columns.closures) == list(expected.closures)
        assert columns.actions == expected.actions and columns.run_starts == expected.run_starts
        assert columns.run_closures == expected.run_closures
        assert depth == plan.invalidation_depth("F1")


BAD = [
    {"depths": [0]},
    {"depths": ["3"]},
    {"depths": [True]},
    {"branching_factors": [2.5]},
    {"merge_factors": [-1]},
    {"depths": 5},
    {"seed": "zero"},
    {"seed": 1.0},
    {"seed": True},
    {"depths": [3, 400], "branching_factors": [30]},
    {"policies": ["no_such_executor"]},
    {"policies": ["baseline", "baseline"]},
    {"depths": [3, 400], "branching_factors": [30], "policies": ["no_such_executor"]},
    {"depths": []},
    {"depths": [], "seed": "zero", "policies": ["no_such_executor"]},
    {"seed": "zero", "policies": ["no_such_executor"]},
    {"seed": 2**70, "policies": []},
    {"policies": 5},
]


@pytest.mark.parametrize("kwargs", BAD, ids=range(len(BAD)))
def test_bad_input_gets_the_general_paths_error(kwargs, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(cv.CvlibError) as general:
        _general(monkeypatch, **kwargs, as_frame=False)
    with pytest.raises(cv.CvlibError) as fast:
        cv.topology_grid(**kwargs, as_frame=False)
    assert type(fast.value) is type(general.value)
    assert str(fast.value) == str(general.value)
    assert "\n" not in str(fast.value)


def test_the_size_limit_applies_to_every_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    kwargs = {"depths": [3, 8], "branching_factors": [4], "merge_factors": [1]}
    with cv.size_limits(steps=100):
        with pytest.raises(cv.CvlibError) as general:
            _general(monkeypatch, **kwargs)
        with pytest.raises(cv.CvlibError) as fast:
            cv.topology_grid(**kwargs)
    assert str(fast.value) == str(general.value) and "limit is 100" in str(fast.value)


#: Single D2 runs: the published shapes, past ten layers, chains, budgets given, later breaks, other seeds.
SINGLE = [
    {},
    {"depth": 3, "branching_factor": 1, "merge_factor": 1},
    {"depth": 12, "branching_factor": 3, "merge_factor": 1, "seed": 4},
    {"depth": 11, "branching_factor": 2, "merge_factor": 2, "change_tick": 5},
    {"depth": 8, "branching_factor": 4, "merge_factor": 4, "change_tick": 9},
    {"depth": 6, "branching_factor": 2, "merge_factor": 3, "budget": 0},
    {"depth": 6, "branching_factor": 2, "merge_factor": 3, "budget": 11},
    {"depth": 5, "branching_factor": 3, "merge_factor": 1, "budget": 10_000, "change_tick": 2},
    {"depth": 1},
]


@pytest.mark.parametrize("params", SINGLE, ids=range(len(SINGLE)))
@pytest.mark.parametrize("policies", [None, ["validity_aware", "baseline"], ["baseline", "timestamp_only"]])
@pytest.mark.parametrize("rules", [None, cv.ExecutionRules(budget_rule="strict")])
def test_a_single_d2_run_is_its_setup_run_through_the_loop(params, policies, rules, monkeypatch) -> None:
    run = cv.run_scenario("D2", policies=policies, rules=rules, **params)
    with monkeypatch.context() as patch:
        patch.setattr(core_runs, "is_article_pair", lambda chosen: False)
        expected = setup_scenario("D2", **params).run(policies=policies, rules=rules)
    assert run == expected
    assert run.to_dict() == expected.to_dict()
    assert [type(v) for v in run.to_dict()["structure"].values()] == [
        type(v) for v in expected.to_dict()["structure"].values()
    ]


SINGLE_BAD = [
    {"depth": 0},
    {"depth": "3"},
    {"branching_factor": 2.5},
    {"merge_factor": -1},
    {"seed": "zero"},
    {"change_tick": -1},
    {"budget": -2},
    {"depth": 400, "branching_factor": 30},
    {"width": 3},
]


@pytest.mark.parametrize("params", SINGLE_BAD, ids=range(len(SINGLE_BAD)))
def test_a_single_d2_run_refuses_what_its_setup_refuses(params) -> None:
    with pytest.raises(cv.CvlibError) as built:
        setup_scenario("D2", **params)
    with pytest.raises(cv.CvlibError) as laid_out:
        cv.run_scenario("D2", **params)
    assert type(laid_out.value) is type(built.value)
    assert str(laid_out.value) == str(built.value)
    assert "\n" not in str(laid_out.value)


def test_a_single_run_is_laid_out_and_its_setup_built_only_for_the_loop(monkeypatch) -> None:
    from cvlib.scenarios import named

    built = []
    real = named._topology

    def counting(*args):
        built.append(args)
        return real(*args)

    monkeypatch.setattr(named, "_topology", counting)
    cv.run_scenario("D2", depth=5)
    assert built == []  # the article's two on the bit-mask path: no plan graph, no setup
    cv.run_scenario("D2", depth=5, policies=["baseline", "timestamp_only"])
    assert len(built) == 1

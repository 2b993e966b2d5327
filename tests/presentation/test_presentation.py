"""The reader-journey helpers: parameter checks, the printed rerun command, and spec pages in words."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Optional

import pytest
import yaml

import cvlib as cv
from cvlib.core.errors import ParameterError, SpecError
from cvlib.presentation import spec_page as sp
from cvlib.presentation.parameters import check_parameters, check_value, describe, resolve_annotation
from cvlib.presentation.rerun import Expectation, prose_value, run_it_yourself, shell_value

ROOT = Path(__file__).resolve().parents[2]
TWO_SUPPLIERS = ROOT / "data" / "scenarios" / "two_suppliers.yaml"


# -- check_parameters ------------------------------------------------------------------------------


def namespace(**values):
    """A notebook namespace: the annotated parameters and their values (as papermill left them)."""
    annotations = {name: kind for name, (kind, _) in values.items()}
    return {"__annotations__": annotations, **{name: value for name, (_, value) in values.items()}}


def test_typed_values_pass_unchanged():
    ns = namespace(depth=(int, 6), rate=(float, 0.5), name=(str, "A"), flag=(bool, True), depths=(list[int], [1, 2]))
    check_parameters(ns)
    assert (ns["depth"], ns["rate"], ns["name"], ns["flag"], ns["depths"]) == (6, 0.5, "A", True, [1, 2])


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (list[int], "[1, 2, 4]", [1, 2, 4]),
        (list[float], "[0.1, 1]", [0.1, 1.0]),
        (list[str], "[requests, flask]", ["requests", "flask"]),
        (list[list[int]], "[[6, 1, 1], [4, 4, 4]]", [[6, 1, 1], [4, 4, 4]]),
        (dict[str, int], "{a: 1, b: 2}", {"a": 1, "b": 2}),
        (int, "6", 6),  # papermill's -r passes raw text
        ("Optional[int]", "7", 7),
    ],
)
def test_text_for_a_list_or_mapping_is_read_as_yaml(kind, text, expected):
    ns = namespace(p=(kind, text))
    check_parameters(ns)
    assert ns["p"] == expected


def test_float_parameter_accepts_an_integer_as_a_float():
    ns = namespace(share=(float, 1))
    check_parameters(ns)
    assert ns["share"] == 1.0 and isinstance(ns["share"], float)


def test_optional_accepts_none():
    ns = namespace(budget=("Optional[int]", None))
    check_parameters(ns)
    assert ns["budget"] is None


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        (list[int], "[13, 12, x]", "parameter p[2] must be an integer, got str 'x'"),
        (list[int], "[13, 12", "parameter p must be a list of integers, got the text '[13, 12', which is not valid YAML"),
        (list[int], 5, "parameter p must be a list of integers, got int 5"),
        (int, 6.0, "parameter p must be an integer, got float 6.0"),
        (int, True, "parameter p must be an integer, got bool True"),
        (int, "six", "parameter p must be an integer, got str 'six'"),
        (str, 7, "parameter p must be a string, got int 7; to pass a number as text use papermill's -r p VALUE"),
        (bool, "maybe", "parameter p must be true or false, got str 'maybe'"),
        (list[list[int]], "[[1, 2], 3]", "parameter p[1] must be a list of integers, got int 3"),
        (dict[str, int], "[1]", "parameter p must be a mapping, got list [1]"),
        ("Optional[int]", "x", "parameter p must be an integer or None, got str 'x'"),
    ],
)
def test_a_wrong_value_names_the_parameter(kind, value, message):
    ns = namespace(p=(kind, value))
    with pytest.raises(ParameterError) as err:
        check_parameters(ns)
    assert str(err.value).startswith(message), str(err.value)


def test_nothing_is_replaced_when_one_parameter_is_bad():
    ns = namespace(depths=(list[int], "[1, 2]"), depth=(int, "six"))
    with pytest.raises(ParameterError):
        check_parameters(ns)
    assert ns["depths"] == "[1, 2]"


def test_bounds_name_the_parameter_and_the_item():
    ns = namespace(grid_depths=(list[int], "[3, 0]"), rate=(float, 1.5))
    with pytest.raises(ParameterError, match=r"^parameter grid_depths\[1\] must be >= 1, got 0$"):
        check_parameters(ns, minimum={"grid_depths": 1})
    ns = namespace(rate=(float, 1.5))
    with pytest.raises(ParameterError, match=r"^parameter rate must be <= 1, got 1.5$"):
        check_parameters(ns, maximum={"rate": 1})


def test_a_bound_on_an_unknown_parameter_is_an_error():
    with pytest.raises(ParameterError, match="a bound is given for 'depht', which is not a parameter"):
        check_parameters(namespace(depth=(int, 1)), minimum={"depht": 1})


def test_no_annotations_is_an_error():
    with pytest.raises(ParameterError, match="no annotated parameters found"):
        check_parameters({"depth": 4})


def test_annotations_papermill_writes_resolve():
    assert resolve_annotation("b", "Optional[int]") == Optional[int]  # noqa: UP045 (papermill writes this spelling)
    with pytest.raises(ParameterError, match="cannot read its annotation 'Frobnicate'"):
        resolve_annotation("b", "Frobnicate")
    assert describe(list[list[int]]) == "a list of lists of integers"
    assert check_value("x", [1, 2], list) == [1, 2]


# -- the printed rerun command ----------------------------------------------------------------------


def papermill_reads(word: str):
    """What papermill's ``-p NAME VALUE`` delivers for one shell word (its own type resolution)."""
    from papermill.cli import _resolve_type

    (value,) = shlex.split(word)
    return _resolve_type(value)


@pytest.mark.parametrize(
    "value", [6, 0.25, 1.0, "strict", "data/my specs/x.yaml", [1, 2, 4], [0.1, 0.2], ["requests", "flask"], [[6, 1, 1]], {"a": 1}]
)
def test_shell_value_round_trips_through_the_shell_papermill_and_the_check(value):
    delivered = papermill_reads(shell_value(value))
    kind = {int: int, float: float, str: str}.get(type(value))
    if kind is None:
        kind = dict[str, int] if isinstance(value, dict) else (
            list[list[int]] if isinstance(value[0], list) else list[type(value[0])]
        )
    assert check_value("p", delivered, kind) == value


def rerun(**overrides):
    args = dict(
        chapter="value_change",
        changes={"depth": 6},
        current={"depth": 4},
        expect=Expectation("A_baseline_pfw", "the baseline's doomed work", 2, "rises", "steps"),
    )
    args.update(overrides)
    chapter, changes = args.pop("chapter"), args.pop("changes")
    return run_it_yourself(chapter, changes, **args)


def test_rerun_renders_command_sentence_and_metadata():
    r = rerun()
    assert r.command == "papermill notebooks/value_change.ipynb _runs/value_change.ipynb -p depth 6"
    assert r.sentence == "With `depth` 6 instead of 4, the baseline's doomed work rises above the 2 steps shown on this page."
    data, meta = r._repr_mimebundle_()
    assert "```bash\npapermill notebooks/value_change.ipynb _runs/value_change.ipynb -p depth 6\n```" in data["text/markdown"]
    assert "source .venv/bin/activate" in data["text/markdown"]
    assert meta["cvbook"]["rerun"] == {
        "commands": [r.command], "output": "_runs/value_change.ipynb", "key": "A_baseline_pfw",
        "moves": "rises", "now": 2, "already_applied": False, "stated_seconds": r.stated_seconds,
    }
    json.dumps(meta)  # storable in the notebook


def test_rerun_lists_yaml_spelling_prepared_commands_and_kept_parameters():
    r = rerun(
        chapter="two_suppliers", changes={"budget": 15, "projects": ["flask"]}, current={"budget": 16, "projects": []},
        source="spec_page", keep={"spec": "data/scenarios/two_suppliers.yaml"}, yaml=True, before=["echo ready"],
    )
    assert r.commands == (
        "echo ready",
        "papermill notebooks/spec_page.ipynb _runs/two_suppliers.ipynb -p spec data/scenarios/two_suppliers.yaml "
        "-p budget 15 -y 'projects: [\"flask\"]'",
    )
    assert "`budget` 15 instead of 16 and `projects` [flask] instead of []" in r.sentence


def test_rerun_on_a_page_already_run_with_the_changes_says_so():
    assert "already" not in rerun().sentence
    assert "was itself run with these values" in rerun(current={"depth": 6}).sentence


def test_rerun_refuses_a_command_that_changes_nothing():
    with pytest.raises(ParameterError, match="must change at least one parameter"):
        rerun(changes={})
    with pytest.raises(ParameterError, match="no current value given for depth"):
        rerun(current={})


@pytest.mark.parametrize(
    ("moves", "before", "after", "holds"),
    [("rises", 2, 4, True), ("rises", 2, 2, False), ("falls", 3.0, 2.5, True), ("falls", 3, 4, False),
     ("changes", "8, 7, 6", "10, 9", True), ("changes", "a", "a", False)],
)
def test_expectation_holds(moves, before, after, holds):
    assert Expectation("k", "w", before, moves).holds(before, after) is holds


def test_expectation_refuses_a_direction_for_words():
    with pytest.raises(ParameterError, match="only a number can rise or fall"):
        Expectation("k", "w", "8, 7, 6", "rises")
    with pytest.raises(ParameterError, match="moves must be one of rises, falls, changes"):
        Expectation("k", "w", 1, "grows")


def test_prose_values():
    assert prose_value([1, 2]) == "[1, 2]"
    assert prose_value(["a"]) == "[a]"
    assert prose_value(0.7368734230000005) == "0.7369"
    assert prose_value(1.0) == "1"


# -- spec pages -------------------------------------------------------------------------------------


def test_page_name_comes_from_the_file_name():
    assert sp.page_name("data/scenarios/two_suppliers.yaml") == "two_suppliers"
    with pytest.raises(SpecError, match="its file name must be letters, digits"):
        sp.page_name("/tmp/my spec.yaml")


def test_spec_path_shown_relative_inside_the_repository_and_absolute_outside(tmp_path):
    assert sp.resolve_spec_path("data/scenarios/two_suppliers.yaml", ROOT) == (TWO_SUPPLIERS, "data/scenarios/two_suppliers.yaml")
    assert sp.resolve_spec_path(str(TWO_SUPPLIERS), ROOT)[1] == "data/scenarios/two_suppliers.yaml"
    outside = tmp_path / "x.yaml"
    assert sp.resolve_spec_path(str(outside), ROOT) == (outside.resolve(), str(outside.resolve()))


def test_title_and_description_come_from_the_spec_with_the_name_as_fallback():
    page = sp.load_spec_page(TWO_SUPPLIERS, root=ROOT)
    raw = yaml.safe_load(TWO_SUPPLIERS.read_text())
    assert (page.title, page.description) == (raw["title"], raw["description"])
    assert sp.page_text({"name": "n"}) == ("n", "")
    assert sp.page_text({"name": "n", "title": "A  long\n title"}) == ("A long title", "")


@pytest.mark.parametrize("key", ["title", "description"])
@pytest.mark.parametrize("value", [7, "", "   ", ["a"]])
def test_spec_title_and_description_must_be_text(tmp_path, key, value):
    raw = yaml.safe_load(TWO_SUPPLIERS.read_text())
    raw[key] = value
    with pytest.raises(SpecError, match=f"'{key}' must be a non-empty string"):
        cv.setup_from_spec(raw)


def test_budget_override_and_the_rerun_budget_changes_completions():
    page = sp.load_spec_page(TWO_SUPPLIERS, root=ROOT)
    run = page.setup.run()
    found = sp.findings(run)
    budget, completed = sp.rerun_budget(page.setup, found["S_completed"])
    assert completed != found["S_completed"]
    tighter = sp.load_spec_page(TWO_SUPPLIERS, budget=budget, root=ROOT).setup.run()
    assert sp.findings(tighter)["S_completed"] == completed and tighter.baseline.budget == budget


def test_outcomes_by_budget_and_its_words():
    setup = sp.load_spec_page(TWO_SUPPLIERS, root=ROOT).setup
    table = sp.outcomes_by_budget(setup)
    assert table.budget.tolist() == sp.default_budgets(setup)
    row = table.set_index("budget").loc[setup.budget]
    run = setup.run()
    assert (row.baseline_completed, row.validity_aware_completed) == (run.baseline.completed, run.validity_aware.completed)
    words = sp.budget_words(table)
    window = table[~table.baseline_completed & table.validity_aware_completed].budget.tolist()
    assert f"only the validity-aware executor completes at budgets of {sp.budget_list(window)}" in words


@pytest.mark.parametrize(
    ("budgets", "text"),
    [([5], "5"), ([5, 4], "5 and 4"), ([7, 6, 5, 3], "7 to 5 and 3"), ([17, 16, 15, 14, 12, 10, 9], "17 to 14, 12, 10 and 9")],
)
def test_budget_list(budgets, text):
    assert sp.budget_list(budgets) == text


def test_words_for_counts():
    assert [sp.times_words(n) for n in (0, 1, 2, 5)] == ["never", "once", "twice", "5 times"]
    assert [sp.count_words(n, "verification") for n in (0, 1, 3)] == ["no verifications", "1 verification", "3 verifications"]
    assert sp.comparison_words(9, 6) == "3 steps fewer than the baseline"
    assert sp.comparison_words(6, 7) == "1 step more than the baseline"
    assert sp.comparison_words(5, 5) == "the same number of steps as the baseline"


def test_event_words_follow_the_spec():
    setup = sp.load_spec_page(TWO_SUPPLIERS, root=ROOT).setup
    assert sp.event_words(setup) == (
        "at tick 1 a signal casts doubt on fact F1 (a false alarm), after tick 4 fact F2 goes stale "
        "and at tick 6 fact F2 is replaced"
    )


def test_event_words_tell_silent_changes_outages_and_the_rules_time_to_live():
    from cvlib.core.values import replace

    setup = sp.load_spec_page(ROOT / "data" / "scenarios" / "warehouse_outage.yaml", root=ROOT).setup
    setup = replace(
        setup,
        silent_changes=(cv.SilentChange(6, "F1"),),
        resource_events=(*setup.resource_events, cv.ResourceEvent(7, "warehouse", up=True)),
    )
    assert sp.event_words(setup) == (
        "at tick 3 resource warehouse goes down (fact F2 rests on it), after tick 4 every fact not re-verified goes "
        "stale (time-to-live 4), at tick 6 fact F1 changes with no signal and at tick 7 resource warehouse comes back"
    )


# -- the spec format page documents every key ------------------------------------------------------------

PAGE = (ROOT / "book" / "spec_format.md").read_text(encoding="utf-8")


def test_spec_format_page_documents_every_key():
    from cvlib.scenarios.spec import _TOP_KEYS

    for key in sorted(_TOP_KEYS):
        assert f"\n`{key}`" in PAGE, f"book/spec_format.md does not document the top-level key {key!r}"
    for key in ["id", "value", "valid_until", "generator", "params", "steps", "kind", "requires", "after",
                "tick", "fact", "new_value", "ground_truth_changed"]:
        assert f"`{key}`" in PAGE, f"book/spec_format.md does not document {key!r}"
    for generator in cv.spec.PLAN_GENERATORS:
        assert f"`{generator}`" in PAGE, f"book/spec_format.md does not document the generator {generator!r}"
    for key in [*cv.spec.RULE_KEYS, *cv.spec.VERIFICATION_KEYS, "resource", "up", "num_actions", "also_requires"]:
        assert f"`{key}`" in PAGE, f"book/spec_format.md does not document {key!r}"


def test_spec_format_page_example_is_a_valid_spec(tmp_path):
    example = PAGE.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "hotel_then_flight.yaml"
    path.write_text(example, encoding="utf-8")
    run = cv.run_spec(path)
    assert run.baseline.completed and run.validity_aware.completed
    assert sp.load_spec_page(path, root=ROOT).title == "Hotel, then flight"

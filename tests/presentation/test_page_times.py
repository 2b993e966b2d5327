"""A book page's command blocks state their times, as the test that runs them measured, and say why when they cannot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.presentation import page_times
from cvlib.presentation.page_times import (
    PAGE_BLOCKS,
    PageBlock,
    block_commands,
    console_blocks,
    page_times_markdown,
    record_page_seconds,
    recorded_block_seconds,
)
from cvlib.presentation.rerun import record_chapter_seconds, write_measured_seconds
from cvlib.repository import project_root

PAGE = """# A page

```console
tool serve --port 1 &
tool run --model a \\
  --limit 2
```

Some prose.

```console
cloud run --key x
```

```python
print("not a command block")
```
"""
BLOCKS = (PageBlock("local", "tool serve"), PageBlock("cloud", "cloud run", "it needs an account"))


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(PAGE_BLOCKS, "a_page", BLOCKS)
    return "a_page"


def test_a_block_is_its_commands_as_a_shell_reads_them() -> None:
    assert console_blocks(PAGE) == [("tool serve --port 1 &", "tool run --model a --limit 2"), ("cloud run --key x",)]


def test_each_declared_block_is_found_by_its_first_command(declared: str) -> None:
    assert block_commands(declared, PAGE) == {"local": ("tool serve --port 1 &", "tool run --model a --limit 2"),
                                              "cloud": ("cloud run --key x",)}


def test_a_block_the_page_does_not_declare_is_an_error(declared: str) -> None:
    with pytest.raises(ParameterError, match="the console block starting 'other thing' is not declared"):
        block_commands(declared, PAGE + "\n```console\nother thing\n```\n")
    with pytest.raises(ParameterError, match="0 console blocks start with 'cloud run'; expected exactly one"):
        block_commands(declared, PAGE.replace("cloud run", "sky run").replace("```console\nsky", "```text\nsky"))
    with pytest.raises(ParameterError, match="page 'nowhere' declares no command blocks"):
        block_commands("nowhere", PAGE)


def test_a_time_is_the_one_measured_for_exactly_these_commands(declared: str) -> None:
    commands = ["tool serve --port 1 &", "tool run --model a --limit 2"]
    times = {"pages": {declared: {"local": {"commands": commands, "seconds": 61.2}}}}
    assert recorded_block_seconds(declared, "local", commands, times) == 61.2
    assert recorded_block_seconds(declared, "local", [*commands[:1], "tool run --model b"], times) is None
    assert recorded_block_seconds(declared, "cloud", ["cloud run --key x"], times) is None


def test_the_include_states_each_time_rounded_up_or_why_there_is_none(declared: str) -> None:
    commands = ["tool serve --port 1 &", "tool run --model a --limit 2"]
    text = page_times_markdown(declared, PAGE, {"pages": {declared: {"local": {"commands": commands, "seconds": 61.2}}}})
    assert "<!-- local -->\nIt takes about 1 min 15 s on two cores.\n<!-- /local -->" in text
    assert "<!-- cloud -->\nNot timed here: it needs an account.\n<!-- /cloud -->" in text
    other = page_times_markdown(declared, PAGE, {"pages": {declared: {"local": {"commands": ["x"], "seconds": 1.0}}}})
    assert "<!-- local -->\nNot timed yet: these commands have not been measured.\n<!-- /local -->" in other


def test_recording_keeps_the_chapters_and_other_pages(tmp_path: Path, declared: str) -> None:
    path = tmp_path / "command_times.json"
    path.write_text(json.dumps({"about": "old", "cores": 2, "chapters": {"c": {"commands": ["p"], "seconds": 3.0}},
                                "pages": {"other": {"b": {"commands": ["q"], "seconds": 4.0}}}}), encoding="utf-8")
    assert record_page_seconds(declared, {"local": (("tool serve --port 1 &",), 12.345)}, path) == path
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["chapters"] == {"c": {"commands": ["p"], "seconds": 3.0}}
    assert record["pages"] == {"a_page": {"local": {"commands": ["tool serve --port 1 &"], "seconds": 12.3}},
                               "other": {"b": {"commands": ["q"], "seconds": 4.0}}}
    assert "pages" in record["about"]



def test_recording_chapters_keeps_the_pages_and_leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "command_times.json"
    pages = {"other": {"b": {"commands": ["q"], "seconds": 4.0}}}
    path.write_text(json.dumps({"about": "old", "cores": 2, "pages": pages}), encoding="utf-8")
    record_chapter_seconds({"z": (("p",), 2.04), "a": (("r",), 1.0)}, path)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert list(record["chapters"]) == ["a", "z"] and record["chapters"]["z"] == {"commands": ["p"], "seconds": 2.0}
    assert record["pages"] == pages
    assert [p.name for p in tmp_path.iterdir()] == ["command_times.json"]


def test_a_record_section_must_be_named(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="section must name"):
        write_measured_seconds((), {}, tmp_path / "command_times.json")
    assert not list(tmp_path.iterdir())

def test_every_block_of_the_page_is_declared_and_its_include_current() -> None:
    page = (project_root() / "book" / "run_on_your_model.md").read_text(encoding="utf-8")
    names = block_commands("run_on_your_model", page)
    assert list(names) == [b.name for b in PAGE_BLOCKS["run_on_your_model"]]
    for name in names:  # the page includes each block's sentence right after the block
        assert f":start-after: <!-- {name} -->\n:end-before: <!-- /{name} -->" in page, name
    written = (project_root() / "book" / "run_on_your_model_times.md").read_text(encoding="utf-8")
    assert written == page_times_markdown("run_on_your_model", page), \
        "rewrite it: python -m cvlib.presentation.page_times run_on_your_model --write book/run_on_your_model_times.md"


def test_the_command_prints_the_include(capsys: pytest.CaptureFixture[str]) -> None:
    assert page_times.main(["run_on_your_model"]) == 0
    page = (project_root() / "book" / "run_on_your_model.md").read_text(encoding="utf-8")
    assert capsys.readouterr().out == page_times_markdown("run_on_your_model", page)

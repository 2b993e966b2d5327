"""``python -m benchmarks.commands``: its table marks a block over its stated time, and a wrong name is refused."""

from __future__ import annotations

import pytest

from benchmarks.commands import Timed, main, table


def test_the_table_marks_a_block_over_the_margin_and_a_failed_one() -> None:
    rows = table([Timed("quick", ("true",), 10.0, 15), Timed("slow", ("true",), 40.0, 25),
                  Timed("broken", ("false",), 1.0, 5, "exit 1"), Timed("new", ("true",), 3.0, None)]).splitlines()
    assert rows[1].split() == ["quick", "15", "s", "10.0s", "0.67"]
    assert rows[2].endswith("1.60  over")
    assert rows[3].endswith("FAILED")
    assert rows[4].endswith("(no time stated for these commands)")


def test_an_unknown_block_is_refused_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--only", "no_such_chapter"])
    assert stopped.value.code == 2
    assert "unknown block 'no_such_chapter'; expected a chapter of _toc.yml or one of in-process, loopback, report" \
        in capsys.readouterr().err

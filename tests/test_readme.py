"""The README's ten-line example runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    return blocks[0]


def test_readme_example_is_at_most_ten_lines_of_code() -> None:
    code = [line for line in _example().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(code) <= 10


def test_readme_example_prints_what_it_claims() -> None:
    source = _example()
    expected = [m.group(1).strip() for m in re.finditer(r"\)\s*#\s*(.+)$", source, flags=re.M) if "print(" in m.string[: m.start() + 1].splitlines()[-1]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "README.md", "exec"), {})
    printed = [line.strip() for line in out.getvalue().splitlines()]
    assert printed == expected

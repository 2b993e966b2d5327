"""The README's ten-line example runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


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


# -- the README's commands ------------------------------------------------------------------------

ROOT = README.parent
BIN = Path(__import__("sys").executable).parent


def _shell_lines() -> list[str]:
    """Every command line of the README's bash blocks, comments stripped."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def test_the_two_set_up_commands_come_first() -> None:
    assert _shell_lines()[:2] == ["bash scripts/book.sh", "bash scripts/test.sh"]


def test_the_readme_says_how_to_reach_the_tools() -> None:
    text = README.read_text()
    assert "source .venv/bin/activate" in _shell_lines()
    assert "`.venv/bin/`" in text


def test_every_script_and_file_the_readme_names_exists() -> None:
    text = README.read_text()
    for script in re.findall(r"bash (scripts/\w+\.sh)", text):
        assert (ROOT / script).is_file(), f"README runs {script}, which does not exist"
    for path in re.findall(r"`((?:book|notebooks|data|scripts|\.github/workflows)/[\w./-]+\.\w+)`", text):
        if "NAME" not in path:  # a placeholder the text explains
            assert (ROOT / path).exists(), f"README names {path}, which does not exist"
    for tool in re.findall(r"\.venv/bin/([\w-]+)", text):
        if tool != "activate":
            assert (BIN / tool).exists(), f"README calls .venv/bin/{tool}, which the set-up does not install"


def test_every_book_sh_option_the_readme_uses_is_one_build_py_takes() -> None:
    import subprocess
    import sys

    help_text = subprocess.run(
        [sys.executable, str(ROOT / "book" / "build.py"), "--help"], capture_output=True, text=True, check=True
    ).stdout
    used = {opt for line in _shell_lines() if line.startswith("bash scripts/book.sh") for opt in re.findall(r"--[\w-]+", line)}
    used |= set(re.findall(r"bash scripts/book\.sh (--[\w-]+)", README.read_text()))
    assert {"--only", "--spec", "--no-execute", "--verbose"} <= used, f"README documents only {sorted(used)}"
    for option in used - {"--help"}:
        assert option in help_text, f"README uses bash scripts/book.sh {option}, which book/build.py does not take"


def test_every_papermill_command_in_the_readme_names_real_parameters() -> None:
    import papermill

    commands = [line for line in _shell_lines() if line.startswith("papermill ")]
    assert commands
    for command in commands:
        import shlex

        words = shlex.split(command)
        notebook = next(w for w in words[1:] if w.endswith(".ipynb"))
        assert (ROOT / notebook).is_file(), command
        known = papermill.inspect_notebook(str(ROOT / notebook))
        if "--help-notebook" in words:
            continue
        assert words[2].startswith("_runs/"), f"README command does not write into _runs/: {command}"
        names = [words[i + 1] for i, w in enumerate(words) if w == "-p"]
        names += [words[i + 1].split(":", 1)[0] for i, w in enumerate(words) if w == "-y"]
        assert names, command
        for name in names:
            assert name in known, f"README passes {name!r} to {notebook}, which has no such parameter"


# -- the worked example policy: shipped as a file, imported by the printed commands ------------------------

EXAMPLE = ROOT / "examples" / "skittish_policy.py"
WRITE_EXECUTOR = ROOT / "book" / "write_executor.md"


def _run_as_printed(line: str) -> subprocess.CompletedProcess[str]:
    """Run one printed command line in bash from the repository's root, with the set-up's tools on PATH."""
    import os

    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)  # the line sets what it needs
    return subprocess.run(["bash", "-c", line], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_worked_example_policy_is_the_file_the_page_shows() -> None:
    blocks = re.findall(r"```python\n(# skittish_policy\.py\n.*?)```", WRITE_EXECUTOR.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "book/write_executor.md shows one module headed '# skittish_policy.py'"
    assert EXAMPLE.read_text(encoding="utf-8") == blocks[0], "examples/skittish_policy.py differs from the page's text"


def test_the_readme_and_page_commands_that_import_the_example_run_as_printed() -> None:
    lines = [line for line in _shell_lines() if "skittish_policy:Skittish" in line]
    page_blocks = re.findall(r"```bash\n(.*?)```", WRITE_EXECUTOR.read_text(encoding="utf-8"), flags=re.S)
    lines += [
        line.strip()
        for block in page_blocks
        for line in block.splitlines()
        if "skittish_policy:Skittish" in line and line.strip().startswith("PYTHONPATH=examples cvlib")
    ]
    assert len(lines) >= 2, f"expected the README's and the page's commands, found {lines}"
    for line in lines:
        result = _run_as_printed(line)
        assert result.returncode == 0, f"{line!r} exited {result.returncode}: {result.stderr.strip()[-300:]}"
        assert "skittish" in result.stdout, f"{line!r} printed no skittish column:\n{result.stdout}"


def test_the_printed_command_fails_without_the_example_on_the_path() -> None:
    """The check above can fail: without PYTHONPATH=examples the module is not found."""
    line = next(line for line in _shell_lines() if "skittish_policy:Skittish" in line)
    result = _run_as_printed(line.replace("PYTHONPATH=examples ", ""))
    assert result.returncode != 0 and "skittish_policy" in result.stderr

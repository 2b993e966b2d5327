"""The ``cvlib`` command line: run scenarios, check the law, list what exists.

Whatever goes wrong, the command says so in one line on stderr and exits
with a status a script can test:

* 2, a usage error: an unknown command or option, a malformed ``-p``, an
  unknown scenario or parameter, a value out of range or a plan above the
  size limit (everything the user typed);
* 1, a runtime error: a spec file that cannot be read or is not valid, a sweep
  that cannot go on, the machine running out of memory, or a bug, for which
  the line ends with "run with --debug for the traceback".

The commands are built on click (``cvlib.presentation._cli_click``), so
that ``--help`` and options behave the way shell users expect. Importing
click costs about as much as starting Python, so this module, the program's
entry point, serves the two commands people type most, a well-formed
``cvlib run`` and ``cvlib --help``, without it: it reads their arguments
itself and prints exactly what click would. Anything else, and anything it
is not sure of (an unknown option, a malformed value, a narrow terminal, shell
completion), goes to click, which then says what it always says.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from cvlib.presentation._cli_shared import (
    DEBUG_HELP,
    LAZY_GROUPS,
    PROGRAM_HELP,
    STATE,
    SUMMARIES,
    guarded,
    run_command,
)

TYPE_CHECKING = False  # typing itself is not imported: it would cost a fast command a tenth of its start
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, NoReturn


#: The options of the top-level group, as ``cvlib --help`` lists them.
_TOP_OPTIONS = (
    ("--version", "Show the version and exit."),
    ("--debug", DEBUG_HELP),
    ("-h, --help", "Show this message and exit."),
)
_HELP_FLAGS = frozenset({"-h", "--help"})


def click_app() -> Any:
    """The click group of every command (imported on first use: see the module's docstring).

    Returns
    -------
    object
        The ``click.Group`` named ``main``.
    """
    from cvlib.presentation._cli_click import main as app

    return app


def _short_help(text: str, limit: int) -> str:
    """A command's line in the help: its first sentence, cut to ``limit`` characters as click cuts it."""
    words = text.partition("\n\n")[0].split()
    if not words:
        return ""
    for i, word in enumerate(words):
        if word.endswith(".") and (i == len(words) - 1 or not words[i + 1][0].islower()):
            words = words[: i + 1]
            break
    line = " ".join(words)
    if len(line) <= limit:
        return line
    if limit < 3:
        return "..."
    import textwrap

    return textwrap.shorten(line, limit, placeholder="...", break_on_hyphens=False)


def _wrap(text: str, width: int, indent: str = "", later: str | None = None) -> list[str]:
    import textwrap

    later = indent if later is None else later
    return textwrap.TextWrapper(width, initial_indent=indent, subsequent_indent=later, replace_whitespace=False).wrap(text)


def _definitions(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Terms and their texts, indented two spaces, the texts in one wrapped column (click's definition list)."""
    first = min(max(len(term) for term, _ in rows), 30) + 2
    lines = []
    for term, text in rows:
        wrapped = _wrap(text, max(width - first - 2, 10)) if text else []
        if not wrapped:
            lines.append(f"  {term}")
            continue
        if len(term) <= first - 2:
            lines.append(f"  {term}{' ' * (first - len(term))}{wrapped[0]}")
        else:
            lines += [f"  {term}", f"{' ' * (first + 2)}{wrapped[0]}"]
        lines += [f"{' ' * (first + 2)}{line}" for line in wrapped[1:]]
    return lines


def top_help(prog: str, width: int) -> str | None:
    """``cvlib --help`` as click prints it, laid out ``width`` columns wide; None where only click knows.

    Click lays the help out for the terminal (at most 78 columns, at least
    50); this is the same layout, drawn from the same texts
    (``cvlib.presentation._cli_shared``), and a test holds the two equal
    at several widths.

    Parameters
    ----------
    prog : str
        The program's name, as the usage line shows it.
    width : int
        The layout's width (see :func:`help_width`).

    Returns
    -------
    str or None
        The help, without its final newline; None when the program's name
        is too long for the usage line's usual layout.
    """
    usage = f"Usage: {prog} "
    if width < len(usage) + 20:
        return None
    commands = {**SUMMARIES, **{name: summary for name, (_, _, summary) in LAZY_GROUPS.items()}}
    limit = width - 6 - max(map(len, commands))
    rows = [(name, _short_help(commands[name], limit)) for name in sorted(commands)]
    lines = [
        *_wrap("[OPTIONS] COMMAND [ARGS]...", width, usage, " " * len(usage)),
        "",
        *_wrap(PROGRAM_HELP, width, "  "),
        "",
        "Options:",
        *_definitions(_TOP_OPTIONS, width),
        "",
        "Commands:",
        *_definitions(rows, width),
    ]
    return "\n".join(lines)


def help_width() -> int:
    """The width click would lay help out in: the terminal's, 2 columns in from its edge, between 50 and 78.

    Click's test runner (and anything else that sets click's ``FORCED_WIDTH``)
    fixes it instead; click is only consulted when it is already loaded.

    Returns
    -------
    int
    """
    forced = getattr(sys.modules.get("click.formatting"), "FORCED_WIDTH", None)
    if forced is not None:
        return int(forced)
    import shutil

    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def _program_name(prog_name: str | None) -> str | None:
    """The name click would show for the program, or None when only click can tell (run with ``python -m``)."""
    if prog_name is not None:
        return prog_name
    package = getattr(sys.modules.get("__main__"), "__package__", None)
    return None if package else os.path.basename(sys.argv[0])


def _fast_help(argv: Sequence[str], prog_name: str | None) -> Callable[[], None] | None:
    """``cvlib --help`` (or ``-h``, with ``--debug`` anywhere), or None for anything else."""
    if not argv or not set(argv) <= _HELP_FLAGS | {"--debug"} or not set(argv) & _HELP_FLAGS:
        return None
    prog = _program_name(prog_name)
    if prog is None:
        return None
    text = top_help(prog, help_width())
    if text is None:
        return None
    return lambda: print(text)


def _fast_run(argv: Sequence[str]) -> Callable[[], None] | None:
    """A well-formed ``cvlib [--debug] run NAME [-p K=V]... [--json] [--policy P]... [--max-steps N] [--debug]``.

    Returns the command to run, or None for anything else, which click then
    reads (and, for a mistake, reports as it always does).
    """
    position = 0
    debug = False
    while position < len(argv) and argv[position] == "--debug":
        debug, position = True, position + 1
    if argv[position:position + 1] != ["run"]:
        return None
    names: list[str] = []
    pairs: list[str] = []
    policies: list[str] = []
    as_json = False
    max_steps: int | None = None
    rest = iter(argv[position + 1:])
    for arg in rest:
        if arg in ("-p", "--param", "--policy", "--max-steps"):
            value = next(rest, None)
            if value is None or value.startswith("-") or (arg in ("-p", "--param") and "=" not in value):
                return None
            if arg == "--policy":
                policies.append(value)
            elif arg == "--max-steps":
                if not value.isascii() or not value.isdigit() or int(value) < 1:
                    return None
                max_steps = int(value)
            else:
                pairs.append(value)
        elif arg == "--json":
            as_json = True
        elif arg == "--debug":
            debug = True
        elif arg.startswith("-"):
            return None
        else:
            names.append(arg)
    if len(names) != 1:
        return None

    def command() -> None:
        STATE["debug"] = debug
        run_command(names[0], pairs, as_json, policies, max_steps, bad_pair=_never)

    return command


def _never(pair: str) -> NoReturn:  # pragma: no cover - the fast door takes no -p without '='
    raise AssertionError(f"-p {pair!r} reached the fast door")


class _Program:
    """The ``cvlib`` program: callable as click's commands are (``main()``, ``main.main(args, prog_name)``)."""

    #: The name click's test runner shows for the program, as it did when this was the click group itself.
    name = "main"

    def __call__(self, *args: Any, **extra: Any) -> Any:
        """Run the program (see :meth:`main`)."""
        return self.main(*args, **extra)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line on ``args`` (default: the process's arguments) and exit with its status.

        Parameters
        ----------
        args : sequence of str, optional
            The arguments after the program's name.
        prog_name : str, optional
            The name the help shows.
        complete_var : str, optional
            Click's shell-completion variable.
        standalone_mode : bool
            False returns instead of exiting (then click runs everything).
        **extra
            Passed to click's context.

        Returns
        -------
        Any
            Only without ``standalone_mode``; otherwise it exits.
        """
        argv = list(sys.argv[1:] if args is None else args)
        plain = standalone_mode and complete_var is None and not extra
        if plain and not any(key.endswith("_COMPLETE") for key in os.environ):
            fast = _fast_help(argv, prog_name) or _fast_run(argv)
            if fast is not None:
                STATE["debug"] = False
                guarded(fast)
        return click_app().main(args, prog_name, complete_var, standalone_mode, **extra)


#: The ``cvlib`` program (the console script's entry point).
main = _Program()


if __name__ == "__main__":  # pragma: no cover
    main(prog_name="cvlib")  # the name users type, also when run as python -m cvlib.presentation.cli

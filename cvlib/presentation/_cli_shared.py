"""What both doors of the command line share: exit statuses, one-line errors, the help texts, the run's printout.

The command line has a light door (:mod:`cvlib.presentation.cli`, which
serves ``cvlib run`` and ``cvlib --help`` without importing click) and a
full one (:mod:`cvlib.presentation._cli_click`, click, for everything
else). Whatever they must say alike lives here, so the two cannot drift:
the statuses and the one-line error of every failure, each command's
summary, and what ``cvlib run`` prints. Nothing here imports click or runs
a scenario at import time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from cvlib.core.errors import CvlibError, ParameterError

TYPE_CHECKING = False  # typing itself is not imported: it would cost a fast command a tenth of its start
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, NoReturn

    from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

#: Exit status of a usage error (what was typed is wrong).
USAGE_ERROR = 2
#: Exit status of a runtime error (what was typed is fine; running it failed).
RUNTIME_ERROR = 1
#: Exit status after Ctrl-C, as shells report a SIGINT.
INTERRUPTED = 130

#: Whether ``--debug`` was given to the command being run.
STATE = {"debug": False}

#: The program's own help, the top of ``cvlib --help``.
PROGRAM_HELP = "Context validity: what acting on stale facts costs, and what checking first buys back."
#: ``--debug``'s help, on every command.
DEBUG_HELP = "Let an error show its full traceback instead of one line."
#: The first paragraph of each command's help: its line in ``cvlib --help``.
SUMMARIES: dict[str, str] = {
    "law": "Check the closed-form PFW law on the 15 published cases; exit 1 on any mismatch.",
    "list": "List the named scenarios with their parameters and defaults.",
    "policies": "List the registered executors (policies), including those installed packages announce.",
    "run": "Run scenario NAME on the executors being compared (by default the article's two).",
    "spec": "Run the scenario described by the spec file PATH (YAML or JSON).",
}
#: Command groups imported only when named, so that ``cvlib run A`` does not pay for the notes gate's parsers:
#: name -> (module, attribute, the first paragraph of the group's help, for ``cvlib --help``).
LAZY_GROUPS: dict[str, tuple[str, str, str]] = {
    "notes": ("cvlib.notes.cli", "notes", "Code-anchored notes: shown to an agent only while approved, HIGH and FRESH."),
    "models": ("cvlib.presentation.study_cli", "models", "Language-model recordings: re-generate recorded calls and compare."),
    "study": ("cvlib.presentation.study_cli", "study", "The studies' report card from a folder of recordings."),
}


def one_line(message: str) -> str:
    """``message`` on one line: its lines joined, runs of blanks kept as typed within a line.

    YAML parsers and some OS errors write several lines; a command's error
    must stay one line so that ``2>&1 | tail -1`` and log scrapers see all of it.

    Parameters
    ----------
    message : str
        Any error text.

    Returns
    -------
    str
    """
    parts = [part.strip() for part in str(message).splitlines() if part.strip()]
    return " ".join(parts) if parts else "(no message)"


def shown_text(err: BaseException) -> str:
    """An exception's message for one line: at most about 200 characters.

    Parameters
    ----------
    err : BaseException
        Any exception.

    Returns
    -------
    str
    """
    text = one_line(str(err))
    return text if len(text) <= 200 else f"{text[:180]}... ({len(text):,} characters)"


def fail(message: str, status: int) -> NoReturn:
    """Print ``error: MESSAGE`` as one line on stderr and exit with ``status``.

    Parameters
    ----------
    message : str
        What went wrong.
    status : int
        The exit status.

    Returns
    -------
    NoReturn
        It exits.
    """
    print(f"error: {one_line(message)}", file=sys.stderr, flush=True)
    sys.exit(status)


def _traceback_if_debug() -> None:
    """With ``--debug``, the traceback goes to stderr before the one-line message."""
    if STATE["debug"]:
        import traceback

        traceback.print_exc()


def guarded(body: Callable[[], Any]) -> NoReturn:
    """Run a command's ``body`` and exit: its status, or a failure as one line and the status of its kind.

    Bad parameter values are usage errors (2); a bad file, sweep or notes
    repository, the machine running out of memory or a bug are runtime
    errors (1), a bug's line ending with "run with --debug for the traceback".

    Parameters
    ----------
    body : callable
        The command; what it returns is the exit status when it is an integer.

    Returns
    -------
    NoReturn
        It exits.
    """
    try:
        status = body()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        fail("interrupted", INTERRUPTED)
    except CvlibError as err:
        _traceback_if_debug()
        fail(str(err), USAGE_ERROR if isinstance(err, ParameterError) else RUNTIME_ERROR)
    except MemoryError:
        _traceback_if_debug()
        fail("out of memory; try smaller parameters (run with --debug for the traceback)", RUNTIME_ERROR)
    except OSError as err:
        _traceback_if_debug()
        where = f" ({err.filename})" if getattr(err, "filename", None) else ""
        fail(f"{err.strerror or type(err).__name__}{where}", RUNTIME_ERROR)
    except Exception as err:
        _traceback_if_debug()
        fail(f"unexpected {type(err).__name__}: {shown_text(err)}; run with --debug for the traceback", RUNTIME_ERROR)
    sys.exit(status if isinstance(status, int) else 0)


def parse_params(name: str, pairs: Sequence[str], bad_pair: Callable[[str], NoReturn]) -> dict[str, Any]:
    """Scenario NAME's ``-p KEY=VALUE`` overrides, each read by the parameter's own type.

    Parameters
    ----------
    name : str
        A named scenario.
    pairs : sequence of str
        The ``KEY=VALUE`` texts.
    bad_pair : callable
        Raises the door's own usage error for a text without ``=``.

    Returns
    -------
    dict
        Parameter name -> value.
    """
    from cvlib.scenarios.named import get_scenario

    definition = get_scenario(name)
    known = {p.name: p for p in definition.params}
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            bad_pair(pair)
        key, value = pair.split("=", 1)
        key = key.strip()
        if key not in known:
            definition.resolve({key: None})  # raises the standard "no parameter" error
        if key in params:
            raise ParameterError(f"{key} is given twice (-p {key}=...); give each parameter once")
        params[key] = known[key].parse(value)
    return params


_ROWS = (
    ("completed", "completed"),
    ("steps used", "steps_used"),
    ("budget", "budget"),
    ("replans", "replans"),
    ("verifications", "verifications"),
    ("pre-failure work", "pre_failure_work"),
    ("decisions", "decisions_total"),
    ("stale decisions", "decisions_on_stale_deps"),
    ("SCUR", "scur"),
)


def run_table(run: ScenarioRun) -> str:
    """A run's executors side by side, one column each, for a terminal.

    Parameters
    ----------
    run : ScenarioRun
        What ran.

    Returns
    -------
    str
    """
    results = [(name.replace("_", "-"), r.to_dict()) for name, r in run.results.items()]
    width = max(len(label) for label, _ in _ROWS)
    columns = [max(10, len(header)) for header, _ in results]
    lines = [f"{'':<{width}}" + "".join(f"  {header:>{w}}" for (header, _), w in zip(results, columns))]
    for label, key in _ROWS:
        fmt = (lambda x: f"{x:.2f}") if key == "scur" else str
        lines.append(f"{label:<{width}}" + "".join(f"  {fmt(d[key]):>{w}}" for (_, d), w in zip(results, columns)))
    return "\n".join(lines)


def run_header(run: ScenarioRun) -> str:
    """The line over a run's table: the scenario and its parameters, with the budget the executors had.

    A budget left to be computed (``budget=None``) is shown as the number
    the run computed, with how, so the header agrees with the table below it.

    Parameters
    ----------
    run : ScenarioRun
        What ran.

    Returns
    -------
    str
    """
    used = {r.budget for r in run.results.values()}
    shown = []
    for key, value in run.params.items():
        if key == "budget" and value is None and len(used) == 1:
            shown.append(f"budget={used.pop()} computed from the plan")
        else:
            shown.append(f"{key}={value!r}")
    return f"scenario {run.scenario} ({', '.join(shown)})"


def timestamp_only_as_baseline(run: ScenarioRun) -> bool:
    """Whether this run's columns include the timestamp-only executor and the baseline, to be compared.

    Parameters
    ----------
    run : ScenarioRun
        What ran.

    Returns
    -------
    bool
    """
    return {"timestamp_only", "baseline"} <= set(run.results)


def run_notes(run: ScenarioRun, setup: ScenarioSetup) -> list[str]:
    """Lines for under a run's table: each column that cannot differ from another, and why the run knows it.

    The timestamp-only executor doubts a fact only once it is past its
    validity horizon (the rules' ``ttl`` or the fact's ``valid_until``), and
    then only to verify it. In a scenario where no fact has a horizon, or
    whose rules never verify, it can never act, so it runs exactly as the
    baseline does; a reader seeing two identical columns is told so rather
    than left to wonder whether the executor works.

    Parameters
    ----------
    run : ScenarioRun
        What ran.
    setup : ScenarioSetup
        The scenario it ran on (its facts and rules).

    Returns
    -------
    list of str
        One line per such column; empty when every column could differ.
    """
    if not timestamp_only_as_baseline(run):
        return []
    from cvlib.core.rules import ORIGINAL

    rules = setup.rules or ORIGINAL
    if rules.verify_policy == "never":
        why = "the rules never verify (verify_policy=never), and verifying is all it does"
    elif rules.ttl is None and all(fact.valid_until is None for fact in setup.facts):
        why = f"no fact in scenario {run.scenario} has one (the rules set no ttl, no fact a valid_until)"
    else:
        return []
    return [
        "note: timestamp-only cannot differ from baseline here: it doubts a fact only once the fact is past its "
        f"time-to-live, and {why}."
    ]


def chosen_policies(policy_names: Sequence[str]) -> list[str] | None:
    """The ``--policy`` values, checked before anything runs (None when none were given).

    Parameters
    ----------
    policy_names : sequence of str
        What was typed, in order.

    Returns
    -------
    list of str or None
    """
    if not policy_names:
        return None
    from cvlib.core.executors import resolve_policies

    resolve_policies(policy_names)  # an unknown name fails here, in one line listing the registered ones
    return list(policy_names)


def run_command(
    name: str,
    pairs: Sequence[str],
    as_json: bool,
    policy_names: Sequence[str],
    max_steps: int | None,
    bad_pair: Callable[[str], NoReturn],
) -> None:
    """``cvlib run``: run scenario ``name`` and print its table (or JSON), with a note on columns that cannot differ.

    Parameters
    ----------
    name : str
        A named scenario.
    pairs : sequence of str
        ``KEY=VALUE`` parameter overrides.
    as_json : bool
        Print the run as JSON instead of a table.
    policy_names : sequence of str
        The executors, in order (none: the article's two).
    max_steps : int or None
        Largest plan to build, in steps.
    bad_pair : callable
        Raises the door's usage error for a parameter text without ``=``.
    """
    from cvlib.scenarios import named  # looked up now, so what runs is the module's current runner
    from cvlib.scenarios.sizes import size_limits

    chosen = chosen_policies(policy_names)
    params = parse_params(name, pairs, bad_pair)
    with size_limits(steps=max_steps):
        result = named.run_scenario(name, policies=chosen, **params)
    if as_json:
        import json

        print(json.dumps(result.to_dict(), indent=2, sort_keys=True))
        return
    print(run_header(result))
    print(run_table(result))
    if timestamp_only_as_baseline(result):
        for line in run_notes(result, named.setup_scenario(name, **params)):
            print(line)

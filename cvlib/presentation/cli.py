"""The ``cvlib`` command line: run scenarios, check the law, list what exists.

Built on click so that ``--help`` and options behave the way shell users
expect. Whatever goes wrong, the command says so in one line on stderr and
exits with a status a script can test:

* 2, a usage error: an unknown command or option, a malformed ``-p``, an
  unknown scenario or parameter, a value out of range or a plan above the
  size limit (everything the user typed);
* 1, a runtime error: a spec file that cannot be read or is not valid, a sweep
  that cannot go on, the machine running out of memory, or a bug, for which
  the line ends with "run with --debug for the traceback".
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import click

from cvlib.core.errors import CvlibError, ParameterError
from cvlib.core.executors import law_policies, policy_column, resolve_policies
from cvlib.core.executors import policies as registered_policies
from cvlib.core.validation import parse_int, shown
from cvlib.scenarios.named import SCENARIOS, get_scenario, run_scenario
from cvlib.scenarios.sizes import size_limits

#: Exit status of a usage error (what was typed is wrong).
USAGE_ERROR = 2
#: Exit status of a runtime error (what was typed is fine; running it failed).
RUNTIME_ERROR = 1
#: Exit status after Ctrl-C, as shells report a SIGINT.
INTERRUPTED = 130

_STATE = {"debug": False}


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


def _fail(message: str, status: int) -> None:
    click.echo(f"error: {one_line(message)}", err=True)
    sys.exit(status)


def _traceback_if_debug() -> None:
    """With ``--debug``, the traceback goes to stderr before the one-line message."""
    if _STATE["debug"]:
        traceback.print_exc()


def shown_text(err: BaseException) -> str:
    """An exception's message for one line: at most about 200 characters."""
    text = one_line(str(err))
    return text if len(text) <= 200 else f"{text[:180]}... ({len(text):,} characters)"


def _status_of(err: CvlibError) -> int:
    """Bad parameter values are usage errors; a bad file, sweep or notes repository is a runtime error."""
    return USAGE_ERROR if isinstance(err, ParameterError) else RUNTIME_ERROR


#: Command groups imported only when named or listed, so that ``cvlib run A`` does not pay for the notes
#: gate's parsers. Name -> (module, attribute).
_LAZY_GROUPS: dict[str, tuple[str, str]] = {
    "notes": ("cvlib.notes.cli", "notes"),
    "models": ("cvlib.models.cli", "models"),
}


class _CvlibGroup(click.Group):
    """The top-level group: every failure becomes one line on stderr and an exit status."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The commands defined here and the lazily imported groups, by name."""
        return sorted({*super().list_commands(ctx), *_LAZY_GROUPS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A command by name, importing a lazy group's module the first time it is asked for."""
        if cmd_name in _LAZY_GROUPS and cmd_name not in self.commands:
            module, attribute = _LAZY_GROUPS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; with ``standalone_mode`` (the default) exit with the status described above."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        _STATE["debug"] = False
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except SystemExit:
            raise
        except click.UsageError as err:
            hint = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
            _fail(err.format_message().rstrip(".") + hint, USAGE_ERROR)
        except click.ClickException as err:
            _fail(err.format_message(), err.exit_code)
        except click.exceptions.Abort:
            _fail("interrupted", INTERRUPTED)
        except KeyboardInterrupt:
            _fail("interrupted", INTERRUPTED)
        except CvlibError as err:
            _traceback_if_debug()
            _fail(str(err), _status_of(err))
        except MemoryError:
            _traceback_if_debug()
            _fail("out of memory; try smaller parameters (run with --debug for the traceback)", RUNTIME_ERROR)
        except OSError as err:
            _traceback_if_debug()
            where = f" ({err.filename})" if getattr(err, "filename", None) else ""
            _fail(f"{err.strerror or type(err).__name__}{where}", RUNTIME_ERROR)
        except Exception as err:
            _traceback_if_debug()
            _fail(f"unexpected {type(err).__name__}: {shown_text(err)}; run with --debug for the traceback", RUNTIME_ERROR)
        sys.exit(status if isinstance(status, int) else 0)


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        _STATE["debug"] = True


def _debug_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--debug``, accepted before or after the command name."""
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Let an error show its full traceback instead of one line.",
    )(command)


class _AsciiInt(click.ParamType):
    """An integer option written in ASCII digits (click's INT would read ``٣`` as 3)."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Read ``value`` with :func:`~cvlib.core.validation.parse_int`; a bad one is a usage error."""
        if isinstance(value, int):
            return value
        try:
            return parse_int("the value", value, minimum=1)
        except ParameterError as err:
            self.fail(str(err), param, ctx)


def _max_steps_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--max-steps",
        type=_AsciiInt(),
        default=None,
        metavar="N",
        help="Largest plan to build, in steps (default 10,000,000, or $CVLIB_MAX_STEPS).",
    )(command)


def _policy_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--policy",
        "policy_names",
        multiple=True,
        metavar="NAME",
        help="An executor to run (repeatable, in order): a registered name (`cvlib policies` lists them) "
        "or module:attribute; default the article's two.",
    )(command)


def _chosen(policy_names: tuple[str, ...]) -> list[str] | None:
    """The ``--policy`` values, checked before anything runs (None when none were given)."""
    if not policy_names:
        return None
    resolve_policies(policy_names)  # an unknown name fails here, in one line listing the registered ones
    return list(policy_names)


@click.group(cls=_CvlibGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cvlib")
@_debug_option
def main() -> None:
    """Context validity: what acting on stale facts costs, and what checking first buys back."""


@main.command("list")
@_debug_option
def list_scenarios() -> None:
    """List the named scenarios with their parameters and defaults."""
    for definition in SCENARIOS.values():
        click.echo(f"{definition.name}: {definition.description}")
        for p in definition.params:
            click.echo(f"    {p.name} = {p.default!r}  ({p.help})")


@main.command("policies")
@_debug_option
def list_policies() -> None:
    """List the registered executors (policies), including those installed packages announce."""
    for name, policy in registered_policies().items():
        doc = (type(policy).__doc__ or "").strip().splitlines()
        click.echo(f"{name}: {doc[0] if doc else type(policy).__name__}")


def _parse_params(name: str, pairs: tuple[str, ...]) -> dict[str, Any]:
    definition = get_scenario(name)
    known = {p.name: p for p in definition.params}
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"expected key=value, got {shown(pair)}", param_hint="'--param' / '-p'")
        key, value = pair.split("=", 1)
        key = key.strip()
        if key not in known:
            definition.resolve({key: None})  # raises the standard "no parameter" error
        if key in params:
            raise ParameterError(f"{key} is given twice (-p {key}=...); give each parameter once")
        params[key] = known[key].parse(value)
    return params


def _table(run) -> str:
    rows = [
        ("completed", "completed"),
        ("steps used", "steps_used"),
        ("budget", "budget"),
        ("replans", "replans"),
        ("verifications", "verifications"),
        ("pre-failure work", "pre_failure_work"),
        ("decisions", "decisions_total"),
        ("stale decisions", "decisions_on_stale_deps"),
        ("SCUR", "scur"),
    ]
    results = [(name.replace("_", "-"), r.to_dict()) for name, r in run.results.items()]
    width = max(len(label) for label, _ in rows)
    columns = [max(10, len(header)) for header, _ in results]
    lines = [f"{'':<{width}}" + "".join(f"  {header:>{w}}" for (header, _), w in zip(results, columns))]
    for label, key in rows:
        fmt = (lambda x: f"{x:.2f}") if key == "scur" else str
        lines.append(f"{label:<{width}}" + "".join(f"  {fmt(d[key]):>{w}}" for (_, d), w in zip(results, columns)))
    return "\n".join(lines)


_RUN_HELP = f"""Run scenario NAME on the executors being compared (by default the article's two).

NAME is one of {", ".join(SCENARIOS)}; `cvlib list` describes each, with its
parameters and their defaults. Override a parameter with -p, e.g.
`cvlib run A -p depth=6 -p change_tick=2`. Choose the executors with
--policy, repeated, in order: a registered name (`cvlib policies`) or
module:attribute, e.g. `cvlib run A --policy baseline --policy timestamp_only`.
"""


@main.command("run", help=_RUN_HELP)
@click.argument("name")
@click.option("--param", "-p", "pairs", multiple=True, metavar="KEY=VALUE", help="Override a scenario parameter.")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON instead of a table.")
@_policy_option
@_max_steps_option
@_debug_option
def run(name: str, pairs: tuple[str, ...], as_json: bool, policy_names: tuple[str, ...], max_steps: int | None) -> None:
    chosen = _chosen(policy_names)
    with size_limits(steps=max_steps):
        result = run_scenario(name, policies=chosen, **_parse_params(name, pairs))
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in result.params.items())
    click.echo(f"scenario {result.scenario} ({params})")
    click.echo(_table(result))


@main.command("law")
@_policy_option
@_debug_option
def law(policy_names: tuple[str, ...]) -> None:
    """Check the closed-form PFW law on the 15 published cases; exit 1 on any mismatch.

    The law predicts the baseline's doomed work; each --policy adds that executor's PFW as a column.
    """
    from cvlib.experiments.law_check import law_rows  # only this command runs the law's cases

    chosen = _chosen(policy_names)
    rows = law_rows(policies=chosen)
    extra = tuple(policy_column(p.name, "pfw") for p in law_policies(chosen)[1:])
    keys = ("case", "closure_size", "change_tick", "expected_pfw", "actual_pfw", "match", *extra)
    click.echo(_text_table(rows, keys))
    matches = sum(1 for row in rows if row["match"])
    click.echo(f"\n{matches} of {len(rows)} cases match the closed-form law")
    if matches != len(rows):
        sys.exit(1)


def _text_table(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> str:
    """Rows as right-aligned columns under their keys, for a terminal."""
    cells = [[str(row[k]) for k in keys] for row in rows]
    widths = [max(len(k), *(len(line[i]) for line in cells)) for i, k in enumerate(keys)]
    lines = [" ".join(k.rjust(w) for k, w in zip(keys, widths))]
    lines += [" ".join(c.rjust(w) for c, w in zip(line, widths)) for line in cells]
    return "\n".join(lines)


@main.command("spec")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON instead of a table.")
@click.option(
    "--trust-code",
    is_flag=True,
    help="Let the file's policies name module:attribute executors, importing their code "
    "(a spec file is data: without this it names registered executors only).",
)
@_policy_option
@_max_steps_option
@_debug_option
def spec(path: str, as_json: bool, trust_code: bool, policy_names: tuple[str, ...], max_steps: int | None) -> None:
    """Run the scenario described by the spec file PATH (YAML or JSON).

    A spec file is one mapping with the keys: name (required); title and
    description (for its book page); facts (required: a list of id, value and
    optional valid_until); plan (required: a generator, chain (num_actions
    for a staged chain), branching, multi_branch, layered, fan_out or random,
    with its params, or explicit steps with id, kind, requires and after);
    events (a list of tick, fact, kind replace or ambiguous, new_value,
    ground_truth_changed); silent_changes (a list of tick and fact, changes
    no signal announces); supports (fact id -> the resource it rests on);
    resource_events (a list of tick, resource and up, false for an outage);
    rules (execution rules: recovery, budget_rule, verification, verify_policy,
    prior_change, ttl, ttl_refresh, checker, launder); at_risk; budget (null
    computes it); and policies (registered executors to compare; --policy
    overrides it, and --trust-code lets it name module:attribute ones).

    Examples: data/scenarios/two_suppliers.yaml (a page of the book) and
    data/scenarios/warehouse_outage.yaml (rules and an outage). The book page "The spec file
    format" (book/spec_format.md) documents every key, and
    `bash scripts/book.sh --spec PATH` turns a spec file into a page of the book.
    """
    from cvlib.scenarios.spec import run_spec  # only this command reads spec files (and YAML)

    chosen = _chosen(policy_names)
    with size_limits(steps=max_steps):
        result = run_spec(path, policies=chosen, trust_code=trust_code)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True, default=str))
        return
    click.echo(f"spec {result.scenario}")
    click.echo(_table(result))


# `cvlib notes ...` and `cvlib models ...` (language-model recordings) are added when first named: see _LAZY_GROUPS.

if __name__ == "__main__":  # pragma: no cover
    main(prog_name="cvlib")  # the name users type, also when run as python -m cvlib.presentation.cli

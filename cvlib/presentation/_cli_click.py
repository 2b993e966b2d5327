"""The full door of the ``cvlib`` command line: every command, built on click.

Built on click so that ``--help`` and options behave the way shell users
expect. :mod:`cvlib.presentation.cli` imports this module only when a
command needs it (anything but a plain ``cvlib run`` or ``cvlib --help``),
so the common cases start without paying for click. What the two doors
must say alike (statuses, one-line errors, help summaries, the run's
printout) comes from :mod:`cvlib.presentation._cli_shared`.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import click

from cvlib.core.errors import ParameterError
from cvlib.core.executors import law_policies, policy_column
from cvlib.core.executors import policies as registered_policies
from cvlib.core.validation import parse_int, shown
from cvlib.presentation._cli_shared import (
    DEBUG_HELP,
    INTERRUPTED,
    LAZY_GROUPS,
    PROGRAM_HELP,
    STATE,
    SUMMARIES,
    USAGE_ERROR,
    chosen_policies,
    fail,
    guarded,
    run_command,
    run_table,
)
from cvlib.scenarios.named import SCENARIOS
from cvlib.scenarios.sizes import size_limits


class _CvlibGroup(click.Group):
    """The top-level group: every failure becomes one line on stderr and an exit status."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The commands defined here and the lazily imported groups, by name."""
        return sorted({*super().list_commands(ctx), *LAZY_GROUPS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A command by name, importing a lazy group's module the first time it is asked for."""
        if cmd_name in LAZY_GROUPS and cmd_name not in self.commands:
            module, attribute, _ = LAZY_GROUPS[cmd_name]
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
        """Run the command line; with ``standalone_mode`` (the default) exit with the status of what happened."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        STATE["debug"] = False

        def body() -> Any:
            try:
                return super(_CvlibGroup, self).main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except click.UsageError as err:
                hint = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
                fail(err.format_message().rstrip(".") + hint, USAGE_ERROR)
            except click.ClickException as err:
                fail(err.format_message(), err.exit_code)
            except click.exceptions.Abort:
                fail("interrupted", INTERRUPTED)

        guarded(body)


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        STATE["debug"] = True


def _debug_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--debug``, accepted before or after the command name."""
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help=DEBUG_HELP,
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


@click.group(cls=_CvlibGroup, help=PROGRAM_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cvbook", prog_name="cvlib")
@_debug_option
def main() -> None:
    pass


@main.command("list", help=SUMMARIES["list"])
@_debug_option
def list_scenarios() -> None:
    for definition in SCENARIOS.values():
        click.echo(f"{definition.name}: {definition.description}")
        for p in definition.params:
            click.echo(f"    {p.name} = {p.default!r}  ({p.help})")


@main.command("policies", help=SUMMARIES["policies"])
@_debug_option
def list_policies() -> None:
    for name, policy in registered_policies().items():
        doc = (type(policy).__doc__ or "").strip().splitlines()
        click.echo(f"{name}: {doc[0] if doc else type(policy).__name__}")


_RUN_HELP = f"""{SUMMARIES["run"]}

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
    run_command(name, pairs, as_json, policy_names, max_steps, bad_pair=_bad_pair)


def _bad_pair(pair: str) -> NoReturn:
    raise click.BadParameter(f"expected key=value, got {shown(pair)}", param_hint="'--param' / '-p'")


@main.command(
    "law",
    help=f"{SUMMARIES['law']}\n\nThe law predicts the baseline's doomed work; each --policy adds that executor's PFW as "
    "a column.",
)
@_policy_option
@_debug_option
def law(policy_names: tuple[str, ...]) -> None:
    from cvlib.experiments.law_check import law_rows  # only this command runs the law's cases

    chosen = chosen_policies(policy_names)
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


_SPEC_HELP = f"""{SUMMARIES["spec"]}

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


@main.command("spec", help=_SPEC_HELP)
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
    from cvlib.scenarios.spec import run_spec  # only this command reads spec files (and YAML)

    chosen = chosen_policies(policy_names)
    with size_limits(steps=max_steps):
        result = run_spec(path, policies=chosen, trust_code=trust_code)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True, default=str))
        return
    click.echo(f"spec {result.scenario}")
    click.echo(run_table(result))


# `cvlib notes ...` and `cvlib models ...` (language-model recordings) are added when first named: see LAZY_GROUPS.

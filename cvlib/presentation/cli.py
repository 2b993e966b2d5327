"""The ``cvlib`` command line: run scenarios, check the law, list what exists.

Built on click so that usage errors, ``--help`` and exit codes behave the way
shell users expect; library errors are turned into one-line messages instead
of tracebacks.
"""

from __future__ import annotations

import json
import sys
from functools import wraps
from typing import Any

import click

from cvlib.core.errors import CvlibError
from cvlib.experiments.law_check import law_rows
from cvlib.notes.cli import notes
from cvlib.scenarios.named import SCENARIOS, get_scenario, run_scenario
from cvlib.scenarios.spec import run_spec


def _friendly(command):
    """Turn a CvlibError into ``error: message`` and exit status 2."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any):
        try:
            return command(*args, **kwargs)
        except CvlibError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cvlib")
def main() -> None:
    """Context validity: what acting on stale facts costs, and what checking first buys back."""


@main.command("list")
def list_scenarios() -> None:
    """List the named scenarios with their parameters and defaults."""
    for definition in SCENARIOS.values():
        click.echo(f"{definition.name}: {definition.description}")
        for p in definition.params:
            click.echo(f"    {p.name} = {p.default!r}  ({p.help})")


def _parse_params(name: str, pairs: tuple[str, ...]) -> dict[str, Any]:
    definition = get_scenario(name)
    known = {p.name: p for p in definition.params}
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint="--param")
        key, value = pair.split("=", 1)
        key = key.strip()
        if key not in known:
            definition.resolve({key: None})  # raises the standard "no parameter" error
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
    b, v = run.baseline.to_dict(), run.validity_aware.to_dict()
    width = max(len(label) for label, _ in rows)
    lines = [f"{'':<{width}}  {'baseline':>10}  {'validity-aware':>14}"]
    for label, key in rows:
        fmt = (lambda x: f"{x:.2f}") if key == "scur" else str
        lines.append(f"{label:<{width}}  {fmt(b[key]):>10}  {fmt(v[key]):>14}")
    return "\n".join(lines)


_RUN_HELP = f"""Run scenario NAME on both executors.

NAME is one of {", ".join(SCENARIOS)}; `cvlib list` describes each, with its
parameters and their defaults. Override a parameter with -p, e.g.
`cvlib run A -p depth=6 -p change_tick=2`.
"""


@main.command("run", help=_RUN_HELP)
@click.argument("name")
@click.option("--param", "-p", "pairs", multiple=True, metavar="KEY=VALUE", help="Override a scenario parameter.")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON instead of a table.")
@_friendly
def run(name: str, pairs: tuple[str, ...], as_json: bool) -> None:
    result = run_scenario(name, **_parse_params(name, pairs))
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True))
        return
    params = ", ".join(f"{k}={v!r}" for k, v in result.params.items())
    click.echo(f"scenario {result.scenario} ({params})")
    click.echo(_table(result))


@main.command("law")
@_friendly
def law() -> None:
    """Check the closed-form PFW law on the 15 published cases; exit 1 on any mismatch."""
    rows = law_rows()
    keys = ("case", "closure_size", "change_tick", "expected_pfw", "actual_pfw", "match")
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
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON instead of a table.")
@_friendly
def spec(path: str, as_json: bool) -> None:
    """Run the scenario described by the spec file PATH (YAML or JSON).

    A spec file is one mapping with the keys: name (required); title and
    description (for its book page); facts (required: a list of id, value and
    optional valid_until); plan (required: a generator, chain, branching or
    multi_branch, with its params, or explicit steps with id, kind, requires
    and after); events (a list of tick, fact, kind replace or ambiguous,
    new_value, ground_truth_changed); at_risk; and budget (null computes it).

    Example: data/scenarios/two_suppliers.yaml. The book page "The spec file
    format" (book/spec_format.md) documents every key, and
    `bash scripts/book.sh --spec PATH` turns a spec file into a page of the book.
    """
    result = run_spec(path)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True, default=str))
        return
    click.echo(f"spec {result.scenario}")
    click.echo(_table(result))


main.add_command(notes)

if __name__ == "__main__":  # pragma: no cover
    main()

"""``cvlib models import-inspect LOG...`` and ``cvlib study report DIR``: a reader's own run, from inspect's logs to a report card.

``cvlib models`` is the model package's group (:mod:`cvlib.models.cli`),
given here the one command that needs the studies: importing an inspect log
reads the studies' lines (:mod:`cvlib.evals.logs`), which the model package
must not know. Both commands fail with one line and an exit status, as every
command does.
"""

from __future__ import annotations

import click

from cvlib.models.cli import models


@models.command("import-inspect")
@click.argument("logs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", "out", default="_runs/inspect", show_default=True, metavar="DIR",
              help="The folder the recordings go to (agent_study.<model>.jsonl.gz, notes_study.<model>.jsonl.gz).")
def import_inspect(logs: tuple[str, ...], out: str) -> None:
    """Turn inspect logs of cvbook/agent_study and cvbook/notes_study into the project's recordings.

    Each sample's calls are copied as the study's runner recorded them (with the provider, the model,
    the settings and how each answer was held to its grammar); a group already in a recording is
    skipped, and a failed sample is named so that `inspect eval-retry` can redo it.
    """
    from cvlib.evals.logs import import_logs

    report = import_logs(logs, out)
    for line in report.lines():
        click.echo(line)


@click.group("study", context_settings={"help_option_names": ["-h", "--help"]})
def study() -> None:
    """The studies' report card from a folder of recordings."""


@study.command("report")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--out", "out", default=None, metavar="DIR", help="Where the card goes (default: FOLDER/report).")
@click.option("--resamples", default=2000, show_default=True, help="Bootstrap resamples of each interval (seed 0).")
def report(folder: str, out: str | None, resamples: int) -> None:
    """Write the report card (report.md, report.html and figures) of the recordings in FOLDER.

    Levels per arm beside the references, the pre-registered paired contrasts with their intervals,
    the probe and the option-order bias (agent study); the shares of stale edits per arm and variant
    and their contrasts (notes study). The book is not built.
    """
    from cvlib.core.errors import ParameterError
    from cvlib.presentation.study_report import write_report

    if resamples < 100:
        raise ParameterError(f"--resamples {resamples}: expected at least 100")
    card = write_report(folder, out, resamples=resamples)
    click.echo(f"{card.markdown}\n{card.html}")

"""``cvlib models``: check recordings against the models that made them.

``cvlib models verify FILE --sample N`` re-generates a seeded sample of N
recorded calls with the recorded model and settings (each after the earlier
calls of its run, in order, as it was recorded) and exits 0 only if every
answer is byte-identical (1 if any differs; 2 for bad input, one line).
"""

from __future__ import annotations

import sys

import click


@click.group("models", context_settings={"help_option_names": ["-h", "--help"]})
def models() -> None:
    """Language-model recordings: re-generate recorded calls and compare."""


@models.command("verify")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--sample", "-n", default=5, show_default=True, help="How many recorded calls to re-generate.")
@click.option("--seed", default=0, show_default=True, help="Seed of the choice of calls.")
@click.option("--model", "model", default=None, metavar="GGUF", help="The model file, when the recorded one is not bundled.")
def verify(path: str, sample: int, seed: int, model: str | None) -> None:
    """Re-generate N recorded calls of PATH (a seeded choice); exit 0 only if every answer is byte-identical."""
    from cvlib.models.verify import verify_recording

    report = verify_recording(path, sample, seed=seed, model=model)
    for line in report.lines():
        click.echo(line)
    sys.exit(0 if report.identical else 1)

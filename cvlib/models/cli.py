"""``cvlib models``: check recordings against the models that made them.

``cvlib models verify FILE --sample N`` re-generates a seeded sample of N
recorded calls with the recorded model and settings (each after the earlier
calls of its group, in order, as it was recorded). Exit codes, so that CI can
tell a changed answer from a missing model: 0 every answer byte-identical;
1 an answer differs; 2 bad input (a damaged recording, a bad option), one
line; 3 the model cannot be had (runtime or model package missing, file
missing or different, server unreachable), one line.
"""

from __future__ import annotations

import sys

import click

#: Exit codes of ``cvlib models verify``.
IDENTICAL, DIFFERENT, BAD_INPUT, MODEL_UNAVAILABLE = 0, 1, 2, 3


@click.group("models", context_settings={"help_option_names": ["-h", "--help"]})
def models() -> None:
    """Language-model recordings: re-generate recorded calls and compare."""


@models.command("verify")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--sample", "-n", default=5, show_default=True, help="How many recorded calls to re-generate.")
@click.option("--seed", default=0, show_default=True, help="Seed of the choice of calls.")
@click.option("--model", "model", default=None, metavar="SPEC",
              help="The recorded model, when it is not bundled: a GGUF path, or a server URL (http://host:port/v1#name).")
@click.option("--threads", default=None, type=int, help="Re-generate with this many threads (default: as recorded).")
@click.option("--whole-groups", is_flag=True,
              help="Check a seeded choice of whole groups holding at least N calls, every call of them (nothing generated goes unchecked).")
def verify(path: str, sample: int, seed: int, model: str | None, threads: int | None, whole_groups: bool) -> None:
    """Re-generate N recorded calls of PATH (a seeded choice).

    Exit 0 if every answer is byte-identical, 1 if one differs, 2 for bad input or a damaged
    recording, 3 if the model cannot be had.
    """
    from cvlib.core.errors import CvlibError, ParameterError
    from cvlib.models.errors import ModelChecksumError, ModelMissingError, RecordingError, RuntimeMissingError
    from cvlib.models.verify import verify_recording

    try:
        report = verify_recording(path, sample, seed=seed, model=model, threads=threads, whole_groups=whole_groups)
    except (ModelMissingError, ModelChecksumError, RuntimeMissingError) as exc:
        click.echo(f"Error: the model cannot be had: {exc}", err=True)
        sys.exit(MODEL_UNAVAILABLE)
    except (RecordingError, ParameterError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(BAD_INPUT)
    except CvlibError as exc:  # a model that answered badly (a server's fault): not a verdict on the answers
        click.echo(f"Error: {exc}", err=True)
        sys.exit(MODEL_UNAVAILABLE)
    for line in report.lines():
        click.echo(line)
    sys.exit(IDENTICAL if report.identical else DIFFERENT)


@models.command("compact")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
def compact_command(path: str) -> None:
    """Rewrite a finished .jsonl.gz recording as one gzip member (smaller; the same lines)."""
    from cvlib.core.errors import CvlibError
    from cvlib.models.jsonl import compact

    try:
        size = compact(path)
    except CvlibError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(BAD_INPUT)
    click.echo(f"{path}: {size:,} bytes")


@models.command("serve")
@click.argument("model", metavar="MODEL")
@click.option("--port", default=8080, show_default=True, help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (loopback: this machine only).")
@click.option("--threads", default=1, show_default=True, help="CPU threads of the runtime.")
@click.option("--context-size", default=4096, show_default=True, help="Tokens of context per slot.")
@click.option("--parallel", default=1, show_default=True, help="Slots: calls answered at once (a client's --max-connections).")
def serve_command(model: str, port: int, host: str, threads: int, context_size: int, parallel: int) -> None:
    """Serve MODEL (a bundled name or a GGUF path) with llama.cpp's OpenAI-compatible server until interrupted.

    The base URL is http://HOST:PORT/v1; the server takes llama.cpp grammars (GBNF) in a request's body.
    """
    from cvlib.core.errors import CvlibError
    from cvlib.models.serving import ServerOptions, serve_forever

    try:
        options = ServerOptions(host=host, port=port, threads=threads, context_size=context_size, parallel=parallel)
        serve_forever(model, options, lambda url: click.echo(f"serving {model} at {url} (Ctrl-C stops it)", err=True))
    except CvlibError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(BAD_INPUT)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)

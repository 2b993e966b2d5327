"""The book's chapters: one module per chapter, and the few calls every chapter makes.

A chapter's notebook stays thin: it sets its parameters, calls its module in
this package (named after the chapter: ``chapters/fidelity_experiment_a.py``
for ``notebooks/fidelity_experiment_a.ipynb``) for its glue, tables, figures
and defaults, and writes prose around them. The side packages (the fidelity
experiments, the notes gate, the model studies) keep the science and export
plain results; how those results are written for a reader lives here, in one
place per chapter, so a new chapter means one notebook and one module.

Every chapter also makes the same three calls, kept here so that they read
as one line each in a notebook:

* :func:`check_parameters` right after the parameters cell (papermill's values
  checked against their annotated types);
* :func:`run_it_yourself` for the "Run it yourself" block;
* :func:`version_footer` in the last cell (tagged ``nbval-ignore-output``,
  since its output names versions that change under nbval's rerun).
"""

from __future__ import annotations

import platform
from importlib import metadata

from cvlib.presentation.parameters import check_parameters
from cvlib.presentation.rerun import Expectation, run_it_yourself

__all__ = ["DEFAULT_PACKAGES", "Expectation", "check_parameters", "run_it_yourself", "version_footer", "version_line"]

#: The packages a chapter's results depend on besides Python and cvlib.
DEFAULT_PACKAGES: tuple[str, ...] = ("pandas", "matplotlib")


def version_line(*packages: str) -> str:
    """The sentence that says which versions computed a chapter.

    A reader comparing their rerun with the book needs the versions that
    produced it; the sentence names Python, cvlib and the given packages in
    that order, read from the installed distributions rather than imported,
    so it costs no import of a package the chapter did not use.

    Parameters
    ----------
    *packages
        Distribution names after Python and cvlib; :data:`DEFAULT_PACKAGES`
        when none is given.

    Returns
    -------
    str
        ``"Computed with Python 3.12.3, cvlib 0.2.0, pandas 2.2.2, ..."``.

    Raises
    ------
    ModuleNotFoundError
        A named package is not installed (``importlib.metadata.PackageNotFoundError``).
    """
    names = packages or DEFAULT_PACKAGES
    parts = [f"Python {platform.python_version()}", f"cvlib {metadata.version('cvbook')}"]
    parts += [f"{name} {metadata.version(name)}" for name in names]
    return "Computed with " + ", ".join(parts)


def version_footer(*packages: str) -> None:
    """Print :func:`version_line` as the chapter's last output.

    Parameters
    ----------
    *packages
        As for :func:`version_line`.

    Returns
    -------
    None
        The line goes to standard output, the cell's only output, broken
        between words to the width of the text column (a printed line is
        never wrapped by the page: it would scroll).
    """
    import textwrap

    from cvlib.presentation.rerun import COLUMN_CHARS

    print(textwrap.fill(version_line(*packages), COLUMN_CHARS))

"""Where the repository's data lives, wherever a notebook runs from.

Papermill runs the notebooks from ``notebooks/`` while nbval re-runs the
executed copies from ``book/chapters/``, so a relative ``../data`` is right in
one place and wrong in the other. Notebooks ask :func:`data_path` instead.

This is book plumbing, not part of the model, so it sits beside the layered
packages rather than in the core: the presentation layer and the robustness
harness use it, and ``.importlinter`` forbids the core, the scenarios and the
side packages to.
"""

from __future__ import annotations

import os
from pathlib import Path

from cvlib.core.errors import CvlibError

_MARKERS = ("_toc.yml", "pyproject.toml")


def project_root(start: Path | None = None) -> Path:
    """The cvbook checkout, found so that notebooks run from ``notebooks/``, ``book/chapters/`` or anywhere inside.

    ``$CVBOOK_ROOT`` if set, else the nearest folder up from ``start`` holding
    ``data/`` and ``_toc.yml`` or ``pyproject.toml``, else the checkout the
    package is installed from.

    Parameters
    ----------
    start : pathlib.Path, optional
        Where to start looking; default the working directory.

    Returns
    -------
    pathlib.Path
    """
    env = os.environ.get("CVBOOK_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "data").is_dir() and any((folder / m).is_file() for m in _MARKERS):
            return folder
    fallback = Path(__file__).resolve().parents[1]  # cvlib/repository.py -> the checkout
    if (fallback / "data").is_dir():
        return fallback
    raise CvlibError(
        f"cannot find the cvbook data folder from {str(here)!r}; run from inside the checkout or set CVBOOK_ROOT"
    )


def data_path(*parts: str) -> Path:
    """A path under the checkout's ``data/`` folder, e.g. ``data_path("scenarios", "x.yaml")``.

    Parameters
    ----------
    *parts : str
        Path components below ``data/``.

    Returns
    -------
    pathlib.Path
    """
    return project_root() / "data" / Path(*parts)

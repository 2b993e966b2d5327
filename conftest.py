"""Repository-wide pytest configuration: how nbval compares the executed notebooks.

``pytest --nbval book/chapters/`` re-executes each committed notebook and
compares every output with the committed one, so the book cannot drift from
the code. Outputs are kept deterministic at the source (seeded randomness,
rounded floats, no timings, dates, paths or addresses), so almost nothing has
to be skipped. What is skipped, and why:

* images (``image/png``, ``image/jpeg``): nbval skips these itself, because
  the bytes of a rendered figure depend on the platform's font and
  anti-aliasing libraries, not on the numbers drawn;
* SVG figures (``image/svg+xml``, the book's figure format, and each
  figure's narrow drawing for a phone, ``application/vnd.cvbook.narrow-figure+svg``):
  their bytes depend on matplotlib's version (glyph outlines, path
  simplification) for the same reason, and nbval does not know they are images;
* the same images when they are *glued* (myst-nb ``glue`` stores a glued
  output under ``application/papermill.record/<mime type>``, a type nbval
  does not know is an image), for the same reason;
* output metadata, tracebacks and execution counts: nbval's defaults.

Glued numbers and strings (``application/papermill.record/text/plain``) and
tables (``text/html``, ``text/plain``) stay compared: they are the results.
"""

from __future__ import annotations

#: Figures: platform-dependent bytes, like the PNG and JPEG images nbval already skips.
GLUED_IMAGE_TYPES = (
    "image/svg+xml",
    "application/vnd.cvbook.narrow-figure+svg",  # cvlib.presentation.narrow_figures.NARROW_MIME
    "application/papermill.record/image/png",
    "application/papermill.record/image/jpeg",
    "application/papermill.record/image/svg+xml",
    "application/papermill.record/application/vnd.cvbook.narrow-figure+svg",
)


def pytest_collection_modifyitems(session, config, items) -> None:
    """Add the glued image types to the skip list of every collected notebook."""
    seen = set()
    for item in items:
        notebook = item.parent
        skip = getattr(notebook, "skip_compare", None)
        if skip is None or id(notebook) in seen:
            continue
        seen.add(id(notebook))
        notebook.skip_compare = tuple(skip) + tuple(t for t in GLUED_IMAGE_TYPES if t not in skip)


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: runs a notebook or another multi-second job (deselect with -m 'not slow')")

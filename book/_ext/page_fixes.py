"""Two fixes to the HTML that Jupyter Book 1.x's default stack writes, found by the browser tests.

Each makes every page log an error in the browser console, which a reader's
developer tools show and ``tests/browser`` rightly fails on:

* sphinx-thebe 0.3.1 adds its inline configuration script
  (``const THEBE_JS_URL = ...``) after the HTML builder has read the registry,
  so under Sphinx 7 the same script lands twice in every page and the second
  copy throws "Identifier 'THEBE_JS_URL' has already been declared". We drop
  exact duplicates from the page's script list (same file or same inline body,
  same attributes); distinct scripts are untouched. (sphinx-togglebutton's
  inline selector script is doubled the same way, harmlessly.)
* pydata-sphinx-theme 0.17 reads the colour mode from the template variable
  ``default_mode``, which nothing sets under sphinx-book-theme, and logs
  "Got invalid theme mode: . Resetting to auto." We set the value it falls back
  to anyway, ``auto`` (follow the reader's system setting), unless the book's
  ``html_context`` already chose one.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _key(script: Any) -> tuple:
    attributes = getattr(script, "attributes", {}) or {}
    # An inline script's filename is None when added to the builder and "" when
    # it comes from the registry: the same script either way.
    filename = getattr(script, "filename", str(script)) or ""
    return (filename, tuple(sorted((k, str(v)) for k, v in attributes.items())))


def _fix_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if scripts:
        seen: set[tuple] = set()
        unique = []
        for script in scripts:
            key = _key(script)
            if key not in seen:
                seen.add(key)
                unique.append(script)
        scripts[:] = unique
    if not context.get("default_mode"):
        context["default_mode"] = "auto"


def setup(app: Sphinx) -> dict[str, Any]:
    # After the themes and sphinx-thebe have added to the context.
    app.connect("html-page-context", _fix_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

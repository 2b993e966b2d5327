"""Readable enums on the API pages.

Autodoc documents an :class:`enum.Enum` subclass like any class, so its
signature is Enum's own machinery, ``ValidityState(value, names=None, *,
module=None, qualname=None, type=None, start=1, boundary=None)``, and its
members are listed only if each has a doc comment. A reader wants the
opposite: no call signature (an enum is not constructed by hand) and every
member with its value. This extension drops the signature of every enum and
adds a *Members* list to its docstring, generated from the enum itself, so it
cannot drift.
"""

from __future__ import annotations

import enum
from typing import Any

from sphinx.application import Sphinx


def _is_enum(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, enum.Enum)


def _signature(app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None,
               return_annotation: str | None) -> tuple[str, str | None] | None:
    if what == "class" and _is_enum(obj):
        return "", None
    return None


def _docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    if what != "class" or not _is_enum(obj):
        return
    members = list(obj.__members__.items())
    if not members:
        return
    lines += ["", ".. rubric:: Members", ""]
    for member_name, member in members:
        value = member.value
        shown = repr(value) if not isinstance(value, enum.Enum) else member_name
        lines.append(f"* ``{member_name}`` = ``{shown}``")
    lines.append("")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-signature", _signature)
    app.connect("autodoc-process-docstring", _docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

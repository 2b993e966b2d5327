"""Let docstrings cross-reference cvlib's public names the way notebooks spell them.

Notebooks and docstrings write ``cvlib.run_baseline`` or ``cvlib.notes.Note``
(the names a package re-exports), while the API reference documents each
object once, under the module that defines it (``cvlib.executors.run_baseline``,
``cvlib.notes.gate.Note``). A reference to the re-exported spelling would
otherwise render as plain code without a link (or, under ``-n``, fail the
build). On a missing Python reference, this extension imports the module the
target names (or the module the reference was written in, for a short name),
looks the object up, and resolves the reference to the entry of the object it
really is. Anything it cannot place is left missing, so ``-n`` still reports it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

PACKAGE = "cvlib"


def _import(modname: str) -> Any | None:
    if modname != PACKAGE and not modname.startswith(PACKAGE + "."):
        return None
    try:
        return importlib.import_module(modname)
    except ImportError:
        return None


def _modules() -> dict[str, Any]:
    package = importlib.import_module(PACKAGE)
    found = {PACKAGE: package}
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        module = _import(info.name)
        if module is not None:
            found[info.name] = module
    return found


def canonical(target: str) -> str | None:
    """``cvlib.pkg.NAME`` -> the full name the object is documented under, or None."""
    modname, _, name = target.rpartition(".")
    module = _import(modname)
    if module is None or not hasattr(module, name):
        return None
    obj = getattr(module, name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        full = f"{obj.__module__}.{obj.__qualname__}"
        return full if full != target else None
    # A constant has no __module__: find the module that assigns it.
    for other, mod in sorted(_modules().items()):
        if other != modname and vars(mod).get(name) is obj and not inspect.ismodule(obj):
            defined = getattr(mod, "__all__", None)
            if defined is None or name in defined:
                return f"{other}.{name}"
    return None


def _resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element) -> nodes.Element | None:
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    candidates = [target]
    if node.get("py:module") and not target.startswith(PACKAGE + "."):
        candidates.append(f"{node['py:module']}.{target}")
    domain = env.get_domain("py")
    for candidate in candidates:
        full = canonical(candidate)
        if full is None:
            continue
        alias = node.deepcopy()
        alias["reftarget"] = full
        alias["refspecific"] = False
        resolved = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], full, alias, contnode)
        if resolved is not None:
            return resolved
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

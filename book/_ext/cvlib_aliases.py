"""Let docstrings cross-reference cvlib's public names the way notebooks spell them.

Notebooks and docstrings write ``cvlib.run_baseline``, ``cvlib.errors.ParameterError``
or ``cvlib.notes.Note`` (the names a package re-exports, and the short module
names ``import cvlib as cv`` offers, such as ``cv.errors``), while the API
reference documents each object once, under the module that defines it
(``cvlib.core.executors.run_baseline``, ``cvlib.core.errors.ParameterError``,
``cvlib.notes.gate.Note``). A reference to such a spelling would otherwise
render as plain code without a link (or, under ``-n``, fail the build).

On a missing Python reference, this extension looks the target up in this
order and links to the entry of the object it really is:

1. the module the target names, imported as written or reached as an attribute
   of ``cvlib`` (``cvlib.errors`` is ``cvlib.core.errors``);
2. the module the reference was written in, for a short name;
3. the names ``cvlib`` itself exports (``cvlib.scenarios.ScenarioRun`` is the
   exported ``cvlib.ScenarioRun``);
4. a class or function that exactly one cvlib module defines, whatever path
   the reference wrote (modules move; names that stay unique still resolve);
5. for a module reference, the one cvlib module with that last name.

An object that has no entry of its own (a constant without a ``#:`` doc
comment, a helper class left out of its module's ``__all__``) links to the
entry of the module that defines it.

A short name in a docstring (``Ledger``) means what that name means in the
module the docstring belongs to, as in Python: before Sphinx resolves
references, such a name is rewritten to the full name of the object the
module holds under it, so a class of the same name elsewhere in the package
cannot make the reference ambiguous.

A numpydoc type written in words (``iterable of str``, ``optional``,
``mapping of str to Trace``) reaches Sphinx as a class reference to each
word; such a target that cannot be a Python name (lowercase words, or words
with spaces) is prose, and renders as the text it is.

Anything it cannot place (a name that no longer exists, or a name two modules
define) is left missing, so ``-n`` still reports it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform

PACKAGE = "cvlib"


def _import(modname: str) -> ModuleType | None:
    """The module ``modname``: imported, or reached as a module attribute of its parent."""
    if modname != PACKAGE and not modname.startswith(PACKAGE + "."):
        return None
    try:
        return importlib.import_module(modname)
    except ImportError:
        pass
    parent, _, last = modname.rpartition(".")
    owner = _import(parent) if parent else None
    value = getattr(owner, last, None) if owner is not None else None
    return value if inspect.ismodule(value) else None


@cache
def _modules() -> dict[str, ModuleType]:
    package = importlib.import_module(PACKAGE)
    found = {PACKAGE: package}
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        try:
            found[info.name] = importlib.import_module(info.name)
        except ImportError:
            continue
    return found


def _place(obj: Any, name: str, written: ModuleType | None = None) -> str | None:
    """The full name ``obj`` is documented under (a constant: where ``written`` assigns it, if it does)."""
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    # A constant has no __module__: find the module that assigns it.
    if written is not None and not hasattr(written, "__path__") and vars(written).get(name) is obj:
        return f"{written.__name__}.{name}"
    for other, mod in sorted(_modules().items()):
        if vars(mod).get(name) is obj and not hasattr(mod, "__path__"):
            defined = getattr(mod, "__all__", None)
            if defined is None or name in defined:
                return f"{other}.{name}"
    return None


def canonical(target: str) -> str | None:
    """``cvlib.pkg.NAME`` (or ``cvlib.pkg.Class.method``) -> the full name it is documented under, or None."""
    parts = target.split(".")
    # the longest prefix that is a module, then attributes down from it
    for cut in range(len(parts) - 1, 0, -1):
        module = _import(".".join(parts[:cut]))
        if module is None:
            continue
        obj: Any = module
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                break
        if obj is None:
            break
        if len(parts) - cut > 1:  # a method or attribute of a class
            owner = _place(getattr(module, parts[cut]), parts[cut])
            full = owner and ".".join([owner, *parts[cut + 1 :]])
        else:
            full = _place(obj, parts[-1], module)
        return full if full and full != target else None
    return None


def _exported(target: str) -> str | None:
    """A stale module path to a name the package exports: ``cvlib.old.NAME`` -> where NAME lives."""
    package = importlib.import_module(PACKAGE)
    name = target.rsplit(".", 1)[-1]
    if name in getattr(package, "__all__", ()):
        return canonical(f"{PACKAGE}.{name}")
    return None


def _defined_once(target: str) -> str | None:
    """A stale module path to a class or function that exactly one cvlib module defines."""
    name = target.rsplit(".", 1)[-1]
    found = {
        f"{obj.__module__}.{obj.__qualname__}"
        for mod in _modules().values()
        for obj in [vars(mod).get(name)]
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__.startswith(PACKAGE + ".")
    }
    return found.pop() if len(found) == 1 else None


def _module_by_last_name(target: str) -> str | None:
    last = target.rsplit(".", 1)[-1]
    matches = [name for name in _modules() if name.rsplit(".", 1)[-1] == last and name != target]
    return matches[0] if len(matches) == 1 else None


#: Words numpydoc type descriptions use that name no class: "iterable of str", "mapping of str to int".
_TYPE_WORDS = frozenset(
    "iterable iterator generator sequence mapping collection optional callable container array-like scalar default "
    "label scenario parameters tuple of pairs triples".split()
)


def _is_type_prose(target: str) -> bool:
    """Whether a py:class target is words of a numpydoc type description rather than a Python name."""
    words = target.replace("(", " ").replace(")", " ").split()
    if not words:
        return False
    if len(words) > 1:  # "str to Trace": a phrase, not a name
        return all(w.isidentifier() for w in words)
    return target in _TYPE_WORDS


def _resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element) -> nodes.Element | None:
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if node.get("reftype") == "class" and _is_type_prose(target):
        return contnode
    candidates = [canonical(target)]
    if node.get("py:module") and not target.startswith(PACKAGE + "."):
        candidates.append(canonical(f"{node['py:module']}.{target}"))
    candidates.append(_exported(target if "." in target else f"{PACKAGE}.{target}"))
    candidates.append(_defined_once(target))
    if node.get("reftype") == "mod":
        candidates.append(_module_by_last_name(target))
    domain = env.get_domain("py")
    for full in candidates:
        if full is None:
            continue
        alias = node.deepcopy()
        alias["reftarget"] = full
        alias["refspecific"] = False
        resolved = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], full, alias, contnode)
        if resolved is None and node.get("reftype") != "mod":
            # an object without an entry of its own: link to its module's
            resolved = domain.resolve_xref(env, node["refdoc"], app.builder, "mod", full.rpartition(".")[0], alias, contnode)
        if resolved is not None:
            return resolved
    if node.get("reftype") in ("data", "const", "attr"):
        # a constant nobody documented: link to the entry of the module the reference names (or is written in)
        module = target.rpartition(".")[0] if "." in target else node.get("py:module", "")
        for name in (module, getattr(_import(module), "__name__", None)):
            if name:
                alias = node.deepcopy()
                alias["reftarget"], alias["refspecific"] = name, False
                resolved = domain.resolve_xref(env, node["refdoc"], app.builder, "mod", name, alias, contnode)
                if resolved is not None:
                    return resolved
    return None


class ShortNamesInModule(SphinxPostTransform):
    """Rewrite a short py reference to the full name of what its module holds under that name."""

    default_priority = 5  # before Sphinx's ReferencesResolver (10)

    def run(self, **kwargs: Any) -> None:
        domain = self.env.get_domain("py")
        for node in self.document.findall(pending_xref):
            if node.get("refdomain") != "py" or node.get("reftype") == "mod":
                continue
            target, module = node.get("reftarget", ""), node.get("py:module")
            if not module or not module.startswith(PACKAGE + ".") or "." in target or not target.isidentifier():
                continue
            full = canonical(f"{module}.{target}")
            if full and full in domain.objects:
                node["reftarget"] = full
                node["refspecific"] = False


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", _resolve)
    app.add_post_transform(ShortNamesInModule)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

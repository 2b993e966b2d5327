"""Every public function and method of the library's layers documents its parameters and what it returns.

numpydoc style (``Parameters`` / ``Returns`` or ``Yields`` sections), as the
API pages render it. A function that takes nothing needs no Parameters
section; one annotated to return None needs no Returns section. The side
packages (notes, fidelity) and the presentation layer keep their own style
checks (tests/repository/test_api_reference.py).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

PACKAGES = ("cvlib.core", "cvlib.scenarios", "cvlib.experiments")


def _public_callables() -> list[tuple[str, object]]:
    found = []
    for package in PACKAGES:
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
            for name in names:
                obj = getattr(module, name, None)
                if getattr(obj, "__module__", None) != module.__name__:
                    continue
                if inspect.isfunction(obj):
                    found.append((f"{module.__name__}.{name}", obj))
                elif inspect.isclass(obj):
                    for attr, value in vars(obj).items():
                        if not attr.startswith("_") and inspect.isfunction(value):
                            found.append((f"{module.__name__}.{name}.{attr}", value))
    return found


CALLABLES = _public_callables()


def test_there_is_something_to_check() -> None:
    assert len(CALLABLES) > 150


@pytest.mark.parametrize(("name", "function"), CALLABLES, ids=[n for n, _ in CALLABLES])
def test_numpydoc_sections(name: str, function: object) -> None:
    doc = inspect.getdoc(function) or ""
    assert doc, f"{name} has no docstring"
    signature = inspect.signature(function)  # type: ignore[arg-type]
    takes = [p for p in signature.parameters if p not in ("self", "cls")]
    if takes:
        assert "\nParameters\n----------\n" in f"\n{doc}", f"{name} takes {takes} but has no Parameters section"
    returns = signature.return_annotation
    if returns not in (None, "None", inspect.Signature.empty):
        assert "\nReturns\n-------\n" in f"\n{doc}" or "\nYields\n------\n" in f"\n{doc}", (
            f"{name} returns {returns} but has no Returns section"
        )

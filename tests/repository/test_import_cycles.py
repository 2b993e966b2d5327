"""No two modules of cvlib import each other, however indirectly, and whatever the import is for.

``lint-imports`` checks cycles between sibling modules of the packages named in
``.importlinter``; this test asks the import graph itself (grimp, which
import-linter is built on) about every pair of modules in cvlib: for each
import ``a -> b`` it looks for a way back from ``b`` to ``a``. Imports made only
for type hints count, and so do imports inside functions (grimp reads both),
so a circle cannot be hidden under ``if TYPE_CHECKING:`` or in a function body.
"""

from __future__ import annotations

import configparser
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def import_circles(graph: grimp.ImportGraph, package: str) -> list[tuple[str, ...]]:
    """Every import circle among the modules of ``package``, each once, shortest way round, sorted.

    Parameters
    ----------
    graph : grimp.ImportGraph
        The import graph (built with type-checking imports included).
    package : str
        Only modules of this package (and the package itself) are looked at.

    Returns
    -------
    list of tuple of str
        Each circle as the modules on it, starting with its smallest name and
        ending where it started (``("a", "b", "a")``).
    """
    def inside(name: str) -> bool:
        return name == package or name.startswith(package + ".")

    found: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(m for m in graph.modules if inside(m)):
        for imported in sorted(m for m in graph.find_modules_directly_imported_by(importer) if inside(m)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is None:
                continue
            loop = (importer, *back)  # importer -> imported -> ... -> importer
            ring = loop[:-1]
            start = ring.index(min(ring))
            found.setdefault(frozenset(ring), (*ring[start:], *ring[:start], ring[start]))
    return sorted(found.values())


def _graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_the_circle_finder_finds_a_two_module_circle_and_a_longer_one_once_each() -> None:
    graph = _graph(("p.a", "p.b"), ("p.b", "p.a"), ("p.c", "p.d"), ("p.d", "p.e"), ("p.e", "p.c"),
                   ("p.e", "q.x"), ("q.x", "p.e"))
    assert import_circles(graph, "p") == [("p.a", "p.b", "p.a"), ("p.c", "p.d", "p.e", "p.c")]


def test_the_circle_finder_finds_no_circle_in_a_layered_graph() -> None:
    graph = _graph(("p.top", "p.mid"), ("p.mid", "p.low"), ("p.top", "p.low"), ("p.low", "p"))
    assert import_circles(graph, "p") == []


def test_the_circle_finder_counts_a_package_and_its_own_module() -> None:
    assert import_circles(_graph(("p", "p.a"), ("p.a", "p")), "p") == [("p", "p.a", "p")]


def test_no_module_of_cvlib_is_on_an_import_circle() -> None:
    graph = grimp.build_graph("cvlib", exclude_type_checking_imports=False, cache_dir=None)
    circles = import_circles(graph, "cvlib")
    assert circles == [], "import circles in cvlib:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_no_cycles_contract_covers_every_package_and_counts_type_hint_imports() -> None:
    """The contract once missed three circles: each was closed by an import under ``if TYPE_CHECKING:``."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    assert config["importlinter"].getboolean("exclude_type_checking_imports") is False
    contract = config["importlinter:contract:no-cycles"]
    assert contract["type"] == "acyclic_siblings"
    ancestors = contract["ancestors"].split()
    assert "cvlib" in ancestors, "the root package's own modules and packages must be checked against each other"
    assert int(contract.get("depth", "10")) >= max(len(p.relative_to(ROOT).parts) for p in (ROOT / "cvlib").rglob("*.py"))


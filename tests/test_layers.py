"""The layers of docs/architecture.md hold: the import-linter contract of pyproject.toml, and no import cycle between
clarion's packages (imports inside functions count)."""

from __future__ import annotations

from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")

ROOT = Path(__file__).resolve().parents[1]


def _package_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("clarion")
    packages = sorted(m for m in graph.find_children("clarion"))
    edges: dict[str, set[str]] = {p: set() for p in packages}
    for a in packages:
        for b in packages:
            if a != b and graph.direct_import_exists(importer=a, imported=b, as_packages=True):
                edges[a].add(b)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_between_packages():
    assert _cycles(_package_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layers_contract_holds():
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0

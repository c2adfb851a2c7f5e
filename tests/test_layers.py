"""The layers of src/outflank, as docs/development.md draws them ("Layers"):
every import goes to the importer's layer or one before it, and no modules
import each other in a circle.

The imports are read from the sources (ast), wherever they stand: at the top
of a module or inside a function (where a circle would only be hidden), and
``importlib.import_module("outflank.engine")`` or a table of module names to
import (``COMMANDS``) count as imports too. Importing ``outflank.a.b`` from
outside package ``outflank.a`` also runs ``outflank/a/__init__.py``, so it
counts as an import of ``outflank.a`` too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "src"
MAP = ROOT / "docs" / "development.md"
PACKAGE = "outflank"
NATIVE = re.compile(r"outflank\._core_\w+$")  # the C core's compiled builds (setup.py)


def modules(src: Path = SOURCES) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _with_parents(target: str, importer: str) -> Iterator[str]:
    """``target`` and the packages whose ``__init__`` importing it runs: those
    above it that ``importer`` is not itself inside."""
    yield target
    parts = target.split(".")
    for n in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:n])
        if importer == package or importer.startswith(package + "."):
            break
        yield package


def _named_modules(node: ast.AST) -> list[str]:
    """The modules a node names for importlib: ``import_module("outflank.x")``,
    or a table of module names (``["outflank.commands.perft", ...]``)."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called == "import_module":
            node = ast.List([node.args[0]])
    if isinstance(node, ast.List | ast.Tuple | ast.Set) and node.elts:
        values = [getattr(elt, "value", None) for elt in node.elts]
        if all(isinstance(v, str) and v.startswith(PACKAGE + ".") for v in values):
            return values
    return []


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports, by dotted name."""
    package = name if _is_package(path) else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        named = _named_modules(node)
        if named:
            found = named  # imported by importlib.import_module, now or later
        elif isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            # ``from X import m`` imports module X.m if there is one, else names of X
            found = [
                full if full in known or NATIVE.match(full) else base
                for full in (f"{base}.{alias.name}" for alias in node.names)
            ]
        else:
            continue
        for target in found:
            if NATIVE.match(target) or not (target == PACKAGE or target.startswith(PACKAGE + ".")):
                continue
            assert target in known, f"{name} imports {target}, which is not in the package"
            targets.update(_with_parents(target, name))
    targets.discard(name)
    return targets


def graph(src: Path = SOURCES) -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports."""
    known = modules(src)
    return {name: imports(name, path, known) for name, path in known.items()}


def layer_map(text: str) -> dict[str, int]:
    """The table of development.md's "Layers" section: entry -> layer number.

    An entry names a module under ``outflank.`` (``board``, ``book.store``),
    and with it the modules below it that no longer entry names; the entry
    ``outflank`` is the package's own ``__init__``."""
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    entries: dict[str, int] = {}
    for row in re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", section, re.MULTILINE):
        for entry in re.findall(r"`([\w.]+)`", row[1]):
            assert entry not in entries, f"{entry} is in two layers"
            entries[entry] = int(row[0])
    return entries


def layer_of(name: str, entries: dict[str, int]) -> int | None:
    """The layer of module ``name``: its longest entry in the map."""
    if name == PACKAGE:
        return entries.get(PACKAGE)
    parts = name.split(".")[1:]
    for n in range(len(parts), 0, -1):
        entry = ".".join(parts[:n])
        if entry in entries and entry != PACKAGE:
            return entries[entry]
    return None


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def upward(edges: dict[str, set[str]], entries: dict[str, int]) -> list[str]:
    """Each import of a later layer, as a line."""
    out = []
    for name in sorted(edges):
        mine = layer_of(name, entries)
        for target in sorted(edges[name]):
            theirs = layer_of(target, entries)
            if mine is not None and theirs is not None and theirs > mine:
                out.append(f"{name} (layer {mine}) imports {target} (layer {theirs})")
    return out


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return graph()


@pytest.fixture(scope="module")
def entries() -> dict[str, int]:
    return layer_map(MAP.read_text(encoding="utf-8"))


def test_every_module_has_a_layer(edges: dict[str, set[str]], entries: dict[str, int]) -> None:
    missing = [name for name in sorted(edges) if layer_of(name, entries) is None]
    assert not missing, f"add to the layer map of docs/development.md: {missing}"
    names = set(edges)
    stale = [entry for entry in entries if entry != PACKAGE and f"{PACKAGE}.{entry}" not in names]
    assert not stale, f"the layer map names modules that do not exist: {stale}"


def test_imports_go_down_the_layers(edges: dict[str, set[str]], entries: dict[str, int]) -> None:
    assert upward(edges, entries) == []


def test_no_import_circles(edges: dict[str, set[str]]) -> None:
    assert circles(edges) == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A circle and an upward import in a small package are found, with the
    implicit import of a package's ``__init__``."""
    pkg = tmp_path / PACKAGE
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text("def f():\n    from outflank import top\n")
    (pkg / "top.py").write_text("import importlib\nimportlib.import_module('outflank.low.deep')\n")
    (pkg / "low" / "__init__.py").write_text("from . import deep\n")
    (pkg / "low" / "deep.py").write_text("from .. import base\nx = 1\n")
    edges = graph(tmp_path)
    assert edges["outflank.top"] == {"outflank.low", "outflank.low.deep"}
    assert circles(edges) == [
        ["outflank.base", "outflank.low", "outflank.low.deep", "outflank.top"]
    ]
    entries = layer_map("\n## Layers\n| 1 | `base`, `low` |\n| 2 | `top` |\n## Next\n")
    assert upward(edges, entries) == ["outflank.base (layer 1) imports outflank.top (layer 2)"]

"""The architecture holds: import contracts (``.importlinter``), no private names across
modules, and no import circle between any two of assay's modules.

The contracts are import-linter's (``lint-imports``): the layers cli > warm > executor >
emit, report, evaluate, judge > profiling > planner > comparison > dialects > config,
grammar, monitoring > errors > ir; the IR, the planner and a comparison's pure part import
nothing else of the project but the IR, a profile's pure part nothing but the IR and the
planner, monitoring nothing but the IR and the errors; pyspark only in emit and the
executor; no import circles between the modules of any package.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"


def test_import_contracts_hold() -> None:
    pytest.importorskip("importlinter", reason="import-linter is in the 'test' extra")
    # A fresh interpreter with this checkout's sources first, so grimp reads them (and not
    # another installed copy of assay).
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", LINT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"lint-imports failed:\n{done.stdout}\n{done.stderr}"


def _private_imports() -> list[str]:
    """``from assay.x import _name`` anywhere in the package (a module using another
    module's private name)."""
    found = []
    for path in sorted((SRC / "assay").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assay"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        where = f"{path.relative_to(SRC)}:{node.lineno}"
                        found.append(f"{where}: from {node.module} import {alias.name}")
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    assert _private_imports() == []


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in (SRC / "assay").rglob("*.py")}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    """The assay modules one module imports: every ``import`` statement, at module level,
    in a class or in a function body alike; ``if TYPE_CHECKING:`` blocks too, or not."""

    def __init__(self, module: str, package: str, type_checking: bool) -> None:
        self.module, self.package, self.type_checking = module, package, type_checking
        self.found: set[str] = set()

    def _add(self, name: str) -> None:
        while name and name not in MODULES:  # `from assay.x import name`: the module assay.x
            name = name.rpartition(".")[0]
        if name and name != self.module:
            self.found.add(name)

    def visit_If(self, node: ast.If) -> None:
        if _type_checking(node.test) and not self.type_checking:
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")
            base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
        for alias in node.names:
            # `from assay.executor import validators` imports the module assay.executor.validators
            full = f"{base}.{alias.name}"
            self._add(full if full in MODULES else base)


def _import_graph(type_checking: bool) -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        visitor = _Imports(module, package, type_checking)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        graph[module] = visitor.found
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm):
    each is a set of modules every one of which imports, through the others, itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = {stack.pop()}
            while v not in component:
                component.add(stack.pop())
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _shown(cycles: set[frozenset[str]], graph: dict[str, set[str]]) -> str:
    return "\n".join(
        "  " + ", ".join(f"{a} -> {b}" for a in sorted(c) for b in sorted(graph[a] & c))
        for c in sorted(cycles, key=sorted)
    )


def test_no_import_cycle_between_modules_at_run_time() -> None:
    """No two of assay's modules import each other, directly or through others, counting
    every import that can run: at module level and inside functions (a lazy import is
    still a circle: it only moves the failure from import time to call time). Imports
    under ``if TYPE_CHECKING:`` never run and are left out here (see the next test).

    Packages are modules like any other (``assay.api`` is its ``__init__.py``); the import
    of a package's ``__init__`` that Python makes before one of its modules is not
    counted, nor ``importlib`` calls (``assay.__getattr__``'s lazy names). Stricter than
    the ``acyclic_siblings`` contract, which counts circles between siblings only.
    """
    graph = _import_graph(type_checking=False)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + _shown(cycles, graph)


def test_no_import_cycle_between_modules_even_through_type_checking_imports() -> None:
    """As above, with the imports under ``if TYPE_CHECKING:`` counted too: a module that
    names another's types only for the checker still depends on it, and a circle there
    means a type lives in the wrong module (move it below both, as
    ``executor.prepared_comparison.PreparedComparison`` and ``ir.compare.DEFAULT_SAMPLE_SIZE``
    were)."""
    graph = _import_graph(type_checking=True)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + _shown(cycles, graph)

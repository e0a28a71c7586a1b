"""Only the Spark Connect API: no SparkContext, py4j, RDDs, cache or persist in the package,
and pyspark imported only where plans are emitted or run."""

from __future__ import annotations

import ast
from pathlib import Path

import assay

PACKAGE = Path(assay.__file__).parent
FORBIDDEN_NAMES = {"SparkContext", "RDD"}
FORBIDDEN_ATTRS = {"SparkContext", "rdd", "cache", "persist", "_jvm", "_jsc", "sparkContext"}
PYSPARK_ALLOWED = {"emit", "executor"}


SERVER_SIDE = {PACKAGE / "executor" / "session" / "connect_driver.py"}
"""The warm server's driver program: spark-submit runs it next to the server's JVM, where
classic pyspark is what starts the Connect service; the client only reads its path and
its ready line."""


def sources() -> list[Path]:
    return sorted(set(PACKAGE.rglob("*.py")) - SERVER_SIDE)


def test_the_server_side_driver_imports_pyspark_only_when_it_runs():
    for path in SERVER_SIDE:
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        modules = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
        modules += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
        assert not [m for m in modules if m.split(".")[0] in ("pyspark", "py4j")], path


def _is_functools(node: ast.expr) -> bool:
    """``functools.cache`` memoises a Python function; it is not a DataFrame's cache."""
    return isinstance(node, ast.Name) and node.id == "functools"


def test_no_classic_spark_anywhere():
    """Names in code (not prose): no SparkContext, py4j, RDDs, cache or persist."""
    offenders = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            bad = (isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES) or (
                isinstance(node, ast.Attribute)
                and node.attr in FORBIDDEN_ATTRS
                and not _is_functools(node.value)
            )
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            if bad or any(m.split(".")[0] == "py4j" for m in modules):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (type names only, which
    STYLE.md G17 allows outside emit/ and executor/)."""
    hidden = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    return [n for n in ast.walk(tree) if id(n) not in hidden]


def test_pyspark_only_in_emit_and_executor():
    offenders = []
    for path in sources():
        layer = path.relative_to(PACKAGE).parts[0]
        for node in runtime_nodes(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            if any(n.split(".")[0] == "pyspark" for n in names) and layer not in PYSPARK_ALLOWED:
                offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes inside ``if TYPE_CHECKING:`` blocks (imports that never run)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            inside |= {id(n) for child in node.body for n in ast.walk(child)}
    return inside


def test_pyspark_connect_only():
    """What runs is the Connect client; the parent classes pyspark types its Connect
    functions with may be named for type checkers only."""
    for path in sources():
        tree = ast.parse(path.read_text())
        typing_only = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pyspark.sql"):
                assert node.module.startswith(("pyspark.sql.connect", "pyspark.sql.types")), (
                    path,
                    node.module,
                )

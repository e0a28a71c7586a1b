"""The package's size limits: no module over 500 lines, no function over 60 lines (counted
from its first decorator to its last line). No Spark: the sources are read with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import assay

PACKAGE = Path(assay.__file__).parent
MODULE_LINES = 500
FUNCTION_LINES = 60


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def where(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines, from its first decorator (or its ``def``) to its last line."""
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    assert node.end_lineno is not None
    return node.end_lineno - start + 1


def long_functions(path: Path, text: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = function_lines(node)
            if lines > FUNCTION_LINES:
                found.append(f"{where(path)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_the_package_is_found():
    assert (PACKAGE / "__init__.py").is_file()
    assert len(sources()) > 100


def test_no_module_is_over_500_lines():
    long = []
    for path in sources():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MODULE_LINES:
            long.append(f"{where(path)}:1 ({lines} lines)")
    assert not long, f"modules over {MODULE_LINES} lines:\n" + "\n".join(long)


def test_no_function_is_over_60_lines():
    long = [f for path in sources() for f in long_functions(path, path.read_text("utf-8"))]
    assert not long, f"functions over {FUNCTION_LINES} lines:\n" + "\n".join(long)


def test_a_function_is_counted_from_its_first_decorator():
    body = "\n".join(f"    x{i} = {i}" for i in range(58))
    text = f"@a\n@b\ndef f():\n{body}\n"  # 2 decorators + def + 58 lines: 61
    (found,) = long_functions(PACKAGE / "example.py", text)
    assert found == "assay/example.py:3 f (61 lines)"
    assert long_functions(PACKAGE / "example.py", text.replace("@b\n", "")) == []

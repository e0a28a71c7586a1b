"""The architecture holds: import contracts (``.importlinter``) and no private names across modules.

The contracts are import-linter's (``lint-imports``): the layers cli > executor > emit,
report, evaluate, preflight > planner > plugins > dialects > config, grammar, shell >
errors > ir; the IR and the planner import nothing else of the project; pyspark only in
emit and the executor; no import circles between the modules of any package.
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

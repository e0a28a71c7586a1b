"""No plan assay builds uses a higher-order function with a Python lambda.

A lambda's variable is named with a fresh expression id in every plan, so the generated
code differs from run to run and Spark compiles it anew for every plan (two classes for
the detail plan, run interpreted until the JIT catches up: ~0.2 s of a small run). The
forms without a lambda (``array_compact``, a field's array of an array of structs) say
the same and are cached by Spark's code generator."""

from __future__ import annotations

import ast
from pathlib import Path

import assay

HIGHER_ORDER = {"filter", "exists", "forall", "transform", "aggregate", "reduce", "zip_with",
                "map_filter", "transform_keys", "transform_values", "map_zip_with", "array_sort"}  # fmt: skip


def _lambda_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in HIGHER_ORDER
            and any(
                isinstance(a, ast.Lambda) for a in [*node.args, *(k.value for k in node.keywords)]
            )
        ):
            found.append(f"{path}:{node.lineno} {node.func.attr}")
    return found


def test_no_higher_order_function_with_a_lambda_in_any_plan() -> None:
    root = Path(assay.__file__).parent
    found = [hit for path in sorted(root.rglob("*.py")) for hit in _lambda_calls(path)]
    assert found == []


def test_the_check_finds_one(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text(
        "import pyspark.sql.functions as F\nF.filter(F.col('a'), lambda x: x.isNotNull())\n"
    )
    assert _lambda_calls(path) == [f"{path}:2 filter"]

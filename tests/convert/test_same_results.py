"""The converted config gives the original's results (Spark): rule by rule, the same
identity, verdict, value and counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import assay
from assay.conversion import convert_files
from assay.dialects.base import LoadOptions

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
ORDERS = str(EX / "data" / "orders.parquet")
CUSTOMERS = str(EX / "data" / "customers.parquet")

pytestmark = pytest.mark.spark

CASES: dict[str, tuple[Path, dict[str, Any]]] = {
    "native": (EX / "orders.yaml", {}),
    "dqx": (EX / "dqx" / "checks.yml", {"source": ORDERS}),
    "soda": (EX / "soda" / "checks.yml", {"source": f"orders={ORDERS}", "inputs": {"customers": CUSTOMERS}}),
    "gx": (EX / "great_expectations" / "orders_suite.json", {"source": ORDERS}),
}  # fmt: skip


def lines(result: Any) -> list[tuple[Any, ...]]:
    """Each result's identity, verdict, value and counts, by table and rule (the tables of
    a run are handed over as they finish, an order two runs need not share)."""
    return sorted(
        (r.table, r.rule_index, r.rule_type, r.rule_name, r.identity, r.passed, r.severity,
         r.metric_value, r.failed_count, r.row_count, r.blocking, r.waiver, r.details)
        for r in result.results
    )  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_converted_file_gives_the_same_results(case: str, tmp_path: Path, spark) -> None:
    path, options = CASES[case]
    out = tmp_path / "converted.yaml"
    out.write_text(convert_files([path], options=LoadOptions(**options), out=out))
    original = assay.run(str(path), spark=spark, **options)
    converted = assay.run(str(out), spark=spark)
    assert lines(converted) == lines(original)
    assert len(original.results) > 5

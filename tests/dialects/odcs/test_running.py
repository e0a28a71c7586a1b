"""A data contract runs as one plan per table (Spark): 100 checks of the example orders
are one aggregate plan when they pass, and the detail plan besides when one fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.api.explaining import explain_tables
from tests.dialects.helpers import DATA, load, run
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

COLUMNS = {
    "order_id": ("integer", {"minimum": 1}),
    "customer_id": ("integer", {"minimum": 1, "maximum": 200}),
    "email": ("string", {"maxLength": 64, "minLength": 5}),
    "status": ("string", {"maxLength": 9}),
    "quantity": ("integer", {"minimum": 1, "maximum": 20}),
    "amount": ("number", {"minimum": 0, "maximum": 1000}),
    "coupon": ("string", {"maxLength": 6}),
}


def hundred_checks(failing: bool) -> dict:
    """An ODCS contract of the orders with 100 checks (one failing on 3 rows when asked)."""
    properties = []
    for name, (kind, options) in COLUMNS.items():
        quality = [
            {"metric": "nullValues", "mustBeLessOrEqualTo": 700},
            {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 70},
            {"metric": "missingValues", "arguments": {"missingValues": [""]},
             "mustBeLessOrEqualTo": 700},
            {"metric": "duplicateValues", "mustBeLessOrEqualTo": 1000},
            {"type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE {property} IS NULL",
             "mustBeLessOrEqualTo": 700},
            {"type": "sql", "query": "SELECT COUNT(DISTINCT {property}) FROM {object}",
             "mustBeGreaterThan": 0},
            {"type": "sql", "query": "SELECT COUNT(*) FROM {object}", "mustBe": 1000},
            {"metric": "nullValues", "mustBeBetween": [0, 900]},
            {"metric": "missingValues", "unit": "percent", "mustBeLessOrEqualTo": 90},
            {"type": "sql", "query": "SELECT COUNT({property}) FROM {object}",
             "mustBeGreaterOrEqualTo": 300},
        ]  # fmt: skip
        if kind == "string":
            quality.append({"metric": "invalidValues", "arguments": {"pattern": "."},
                            "mustBeLessOrEqualTo": 0})  # fmt: skip
        properties.append({"name": name, "logicalType": kind, "logicalTypeOptions": options,
                           "quality": quality})  # fmt: skip
    properties[0]["primaryKey"] = True
    properties[2]["required"] = True
    if failing:
        properties[2]["logicalTypeOptions"]["pattern"] = "@"  # 3 e-mails have none
    schema_quality = [
        {"metric": "rowCount", "mustBeGreaterThan": 0},
        {"metric": "rowCount", "mustNotBe": 0},
        {"metric": "rowCount", "mustBeBetween": [1, 5000]},
        {"metric": "duplicateValues", "arguments": {"properties": ["order_id", "email"]},
         "mustBe": 0},
        {"type": "sql", "query": "SELECT MAX(quantity) FROM {object}", "mustBeLessOrEqualTo": 20},
        {"type": "sql", "query": "SELECT MIN(amount) FROM {object}", "mustBeGreaterThan": 0},
    ]  # fmt: skip
    return {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "orders", "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "s", "type": "local", "path": str(DATA / "orders.parquet"),
                     "format": "parquet"}],
        "schema": [{"name": "orders", "properties": properties, "quality": schema_quality}],
    }  # fmt: skip


def written(tmp_path: Path, failing: bool) -> Path:
    path = tmp_path / f"contract_{failing}.yaml"
    path.write_text(yaml.safe_dump(hundred_checks(failing), sort_keys=False))
    return path


@pytest.mark.parametrize("failing", [False, True])
def test_a_hundred_checks_are_one_plan(spark, tmp_path, failing):
    suite = load(written(tmp_path, failing), for_run=True)
    (table,) = suite.tables
    assert len(table.rules) == 100 + failing
    (explained,) = explain_tables(suite)
    assert explained.spark_plans == 1
    got = run(spark, suite)
    failed = [r for r in got.results if not r["passed"]]
    assert [r["rule"]["type"] for r in failed] == (["odcs:pattern"] if failing else [])
    assert got.summary["spark_plans"] == (2 if failing else 1)
    for result in got.results[:3] + failed:
        validate_event(result)
    if failing:
        assert failed[0]["failed_count"] == 3
        assert failed[0]["details"]["odcs"]["result"] == "failed"

"""``assay convert`` of the live oracle's suite (every expectation assay runs, with
``mostly``, conditions, quantiles, queries and strftime formats): a native config that
loads to the same IR and explains to the same plans (no Spark); and the expectations of
this dialect that keep one plan do so."""

from __future__ import annotations

import json
from pathlib import Path

from assay.dialects.base import LoadOptions
from assay.dialects.load import load_suite
from tests.convert.test_round_trip import explained, round_trip
from tests.dialects.great_expectations.test_oracle import SUITE

ORDERS = str(Path(__file__).resolve().parents[3] / "examples" / "data" / "orders.parquet")


def test_the_oracle_suite_converts_to_the_same_ir_and_plans(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE, indent=1))
    text = round_trip([suite], {"source": ORDERS}, None, tmp_path / "converted.yaml")
    assert "unexpected_rows_expectation" in text and "strftime_format" in text


def test_the_new_expectations_fold_into_the_one_aggregate_plan(tmp_path: Path) -> None:
    """A foldable query, the quantiles, the proportion and a strftime format: one plan
    (the aggregate; the detail plan only when a row rule fails)."""
    items = [
        {"type": "unexpected_rows_expectation",
         "kwargs": {"unexpected_rows_query": "SELECT * FROM {batch} WHERE amount < 0"}},
        {"type": "expect_column_quantile_values_to_be_between",
         "kwargs": {"column": "amount", "quantile_ranges": {"quantiles": [0.25, 0.75],
                                                            "value_ranges": [[0, 10], [10, None]]}}},
        {"type": "expect_column_proportion_of_non_null_values_to_be_between",
         "kwargs": {"column": "status", "min_value": 0.9}},
        {"type": "expect_column_values_to_match_strftime_format",
         "kwargs": {"column": "status", "strftime_format": "%Y-%m-%d"}},
    ]  # fmt: skip
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "s", "expectations": items}))
    (text,) = explained(load_suite([suite], options=LoadOptions(source=ORDERS)))
    assert "spark plans: 1 (+1 detail plan if a row-level rule fails)" in text, text
    # the quantiles: one summary of the column for both, as GX's one approxQuantile call
    assert text.count("percentile_approx(") == 1
    assert "percentile_approx(CAST(amount AS DOUBLE), array(0.25, 0.75), 2147483647)" in text

"""Rows of a duplicated key are paired by their values as the comparison compares them:
with a column of another type on each side (a number against a string, a date against
a string), the pairs are those a SQL join on the coerced values finds, and the
duplicated-key result equals the unique-key one. Sample values keep a decimal's digits."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import assay

pytestmark = pytest.mark.spark


def _counts(spark, source, target, source_schema, target_schema):
    result = assay.compare(
        spark.createDataFrame(source, source_schema),
        spark.createDataFrame(target, target_schema),
        keys=["id"],
    )
    return result, {k: result.counts[k] for k in ("compared", "matched", "mismatched")}


def _sql_matching_pairs(spark, source, target, source_schema, target_schema) -> int:
    """Pairs a SQL join on the key and the (coerced) value finds."""
    spark.createDataFrame(source, source_schema).createOrReplaceTempView("pair_s")
    spark.createDataFrame(target, target_schema).createOrReplaceTempView("pair_t")
    query = "SELECT count(*) FROM pair_s s JOIN pair_t t ON s.id <=> t.id AND s.v <=> t.v"
    return spark.sql(query).collect()[0][0]


CASES = {
    "int against string": (
        [(1, 9), (1, 10)],
        [(1, "10"), (1, "9")],
        "id int, v int",
        "id int, v string",
    ),
    "date against string": (
        [(1, dt.date(2024, 1, 9)), (1, dt.date(2024, 1, 10))],
        [(1, "2024-1-10"), (1, "2024-1-9")],
        "id int, v date",
        "id int, v string",
    ),
    "decimal against string": (
        [(1, Decimal("9.5")), (1, Decimal("10.25"))],
        [(1, "10.25"), (1, "9.5")],
        "id int, v decimal(10,2)",
        "id int, v string",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_duplicated_key_pairs_by_the_compared_values(spark, case):
    source, target, s_schema, t_schema = CASES[case]
    _, counts = _counts(spark, source, target, s_schema, t_schema)
    assert _sql_matching_pairs(spark, source, target, s_schema, t_schema) == 2
    assert counts == {"compared": 2, "matched": 2, "mismatched": 0}
    # the same values with unique keys
    unique_s = [(i, v) for i, (_, v) in enumerate(source)]
    unique_t = [(1 - i, v) for i, (_, v) in enumerate(target)]
    _, unique = _counts(spark, unique_s, unique_t, s_schema, t_schema)
    assert unique == counts


def test_mismatched_samples_keep_a_decimal_s_digits(spark):
    schema = "id int, v decimal(38,18)"
    source = [(1, Decimal("1.000000000000000001")), (2, Decimal("2.5"))]
    target = [(1, Decimal("1.000000000000000002")), (2, Decimal("2.5"))]
    result, counts = _counts(spark, source, target, schema, schema)
    assert counts == {"compared": 2, "matched": 1, "mismatched": 1}
    (sample,) = result.samples["mismatched"]
    assert sample["source"] == Decimal("1.000000000000000001")
    assert sample["target"] == Decimal("1.000000000000000002")
    line = result.to_dict()["samples"]["mismatched"][0]
    assert (line["source"], line["target"]) == ("1.000000000000000001", "1.000000000000000002")


def test_missing_samples_keep_a_decimal_s_digits(spark):
    schema = "id int, v decimal(38,18)"
    source = [(1, Decimal("1.000000000000000001"))]
    result, _ = _counts(spark, source, [], schema, schema)
    (row,) = result.to_dict()["samples"]["missing_in_target"]
    assert row["source"]["v"] == "1.000000000000000001"


def test_keys_of_two_types_are_numbered_and_joined_as_compared(spark):
    """An ``int`` key against a ``string`` one: ``'1'`` and ``'01'`` are both the key 1
    (as Spark's ``1 <=> '01'``), so each source row is in one pair, not one per
    spelling of its key."""
    source = [(1, "a"), (1, "b"), (2, "c")]
    target = [("1", "a"), ("01", "b"), ("2", "c")]
    result = assay.compare(
        spark.createDataFrame(source, "id int, v string"),
        spark.createDataFrame(target, "id string, v string"),
        keys=["id"],
    )
    counts = result.counts
    assert (counts["source_rows"], counts["target_rows"]) == (3, 3)
    assert (counts["compared"], counts["matched"], counts["unmatched"]) == (3, 3, 0)
    assert counts["duplicate_keys"] == {"source": 1, "target": 1}

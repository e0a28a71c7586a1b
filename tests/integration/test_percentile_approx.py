"""An approximate percentile (``accuracy: N``) on data spread over several partitions:
the value assay reports is Spark's ``percentile_approx``, a value of the column whose
rank is within floor(n / N + 1/2) of ceil(quantile * n) (docs/rules.md), so exact only
when N > 2n; ``N >= n`` is not enough."""

from __future__ import annotations

import math
import random

import pytest

import assay

pytestmark = pytest.mark.spark

PARTITIONS = 4


def rank_error(values: list[float], quantile: float, got: float) -> int:
    """How far the rank of ``got`` (its nearest one among equal values) is from the
    target rank ceil(quantile * n), at least 1."""
    ordered = sorted(values)
    target = max(1, math.ceil(quantile * len(ordered)))
    ranks = [k + 1 for k, v in enumerate(ordered) if v == got]
    assert ranks, f"{got} is not a value of the column"
    return min(abs(k - target) for k in ranks)


def bound(n: int, accuracy: int) -> int:
    """The documented rank error: floor(n / accuracy + 1/2), in integers."""
    return (2 * n + accuracy) // (2 * accuracy)


def spread(spark, values: list[float]):
    """One row per value, hashed by id over :data:`PARTITIONS` partitions."""
    rows = [(k, v) for k, v in enumerate(values)]
    return spark.createDataFrame(rows, "id long, v double").repartition(PARTITIONS, "id")


def medians(spark, values: list[float], *accuracies: int) -> list[float]:
    rules = [
        {"type": "median", "column": "v", "accuracy": a, "must_be": "< 1000"} for a in accuracies
    ]
    result = assay.validate(spread(spark, values), rules, sample_size=0)
    return [r.metric_value for r in result.results]


EIGHT = [-9.0, -5.0, -2.0, 3.0, 4.0, 6.0, 7.0, 8.0]


def test_an_accuracy_above_the_row_count_is_not_exact(spark):
    df = spread(spark, EIGHT)
    assert len({r.p for r in df.selectExpr("spark_partition_id() AS p").collect()}) > 1
    spark_says = df.selectExpr("percentile_approx(v, 0.5, 10) AS m").collect()[0].m
    # the exact median by nearest rank is 3 (rank 4); Spark answers rank 3's value
    assert medians(spark, EIGHT, 10) == [spark_says] == [-2.0]
    assert rank_error(EIGHT, 0.5, -2.0) == 1 == bound(8, 10)


def test_an_accuracy_above_twice_the_row_count_is_exact(spark):
    assert medians(spark, EIGHT, 17, 100) == [3.0, 3.0]


def test_the_rank_error_stays_within_the_documented_bound(spark):
    rng = random.Random(20261204)
    accuracies = (1, 2, 3, 7, 10, 25, 60, 150)
    quantiles = (0, 0.1, 0.25, 0.5, 0.75, 0.9, 1)
    worst = {}
    for n in (5, 8, 13, 40, 97, 300):
        values = [float(rng.randint(-n, n)) for _ in range(n)]
        rules = [
            {"type": "percentile", "column": "v", "quantile": q, "accuracy": a, "must_be": "< 1000"}
            for a in accuracies
            for q in quantiles
        ]
        result = assay.validate(spread(spark, values), rules, sample_size=0)
        for rule, got in zip(rules, result.results, strict=True):
            error = rank_error(values, rule["quantile"], got.metric_value)
            assert error <= bound(n, rule["accuracy"]), (n, rule, got.metric_value)
            key = (n, rule["accuracy"])
            worst[key] = max(worst.get(key, 0), error)
    # the bound is not slack: reached, and past n / accuracy rounded down, somewhere
    assert any(e == bound(n, a) > 0 for (n, a), e in worst.items())
    assert any(e > n // a for (n, a), e in worst.items())

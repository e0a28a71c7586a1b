"""data-validator's checks on real data: nulls, NaN, infinities, decimals, dates, values
exactly at every bound and tolerance edge, an empty table. Expected values are computed
here in Python from the rows, following the semantics docs/rules.md states (Spark orders
NaN above every number)."""

from __future__ import annotations

import datetime as dt
import math
import statistics
from decimal import ROUND_HALF_UP, Decimal

import pytest

from tests.helpers import assert_case, expected_passed, run_config, write_config

pytestmark = pytest.mark.spark

D, T = dt.date, dt.datetime
NAN, INF = float("nan"), float("inf")
COLUMNS = (
    "id long, amount double, qty int, price decimal(10,2), low int, high int, name string,"
    " code string, day date, ts timestamp"
)
ROWS = [
    (1, 10.0, 5, Decimal("1.10"), 0, 10, "ann", "A1", D(2024, 1, 1), T(2024, 1, 1, 0, 0)),
    (2, 0.0, 0, Decimal("2.20"), 0, 0, "bob", "B22", D(2024, 1, 2), T(2024, 1, 1, 12, 0)),
    (3, -0.5, -1, Decimal("-3.30"), 5, 5, "carla", "C", D(2024, 1, 3), T(2024, 1, 1, 12, 0, 1)),
    (4, None, None, None, None, None, None, None, None, None),
    (5, NAN, 7, Decimal("0.00"), 1, 2, "", "D4", D(2024, 1, 2), T(2023, 12, 31, 23, 59)),
    (6, INF, 10, Decimal("2.20"), 10, 20, "dan", "e5", D(2023, 12, 31), T(2024, 1, 2)),
    (7, -INF, 3, Decimal("0.01"), 3, 3, "dan", "F66", D(2024, 1, 1), T(2024, 1, 1, 6)),
    (8, 5.0, 10, Decimal("1.00"), 0, 10, "eve", None, D(2024, 1, 2), T(2024, 1, 1, 9)),
]
N = len(ROWS)
IDX = {name.split()[0]: i for i, name in enumerate(COLUMNS.split(", "))}


def col(name: str) -> list:
    return [r[IDX[name]] for r in ROWS]


def spark_lt(a, b) -> bool:
    """Spark's order: NaN is larger than every number (and equal to itself)."""
    a_nan = isinstance(a, float) and math.isnan(a)
    b_nan = isinstance(b, float) and math.isnan(b)
    if a_nan or b_nan:
        return not a_nan and b_nan
    return a < b


def spark_le(a, b) -> bool:
    return not spark_lt(b, a)


def count(pred, name: str, other: str | None = None) -> int:
    if other is None:
        return sum(1 for v in col(name) if pred(v))
    return sum(1 for v, w in zip(col(name), col(other), strict=True) if pred(v, w))


def outside(v, low=None, high=None, inclusive=False) -> bool:
    """data-validator rangeCheck: failing when not in the range; nulls pass."""
    if v is None:
        return False
    bad = False
    if low is not None:
        bad |= spark_lt(v, low) if inclusive else spark_le(v, low)
    if high is not None:
        bad |= spark_lt(high, v) if inclusive else spark_le(high, v)
    return bad


QTY_SUM = sum(v for v in col("qty") if v is not None)
PRICE_SUM = sum(v for v in col("price") if v is not None)
NEGATIVE_QTY = count(lambda v: v is not None and v < 0, "qty")  # 1 of 8: -1 (the null passes)
LENGTHS = [len(v) for v in col("name") if v is not None]

# (rule, severity, failed_count, metric_value)
CASES = [
    # negativeCheck: `column < 0` (data-validator's code): nulls and NaN pass, -Infinity fails
    (
        "{type: negativeCheck, column: amount}",
        "fail",
        count(lambda v: v is not None and v < 0, "amount"),
        None,
    ),
    ("{type: negative_check, column: qty}", "fail", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: 2}", "pass", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: 0.12}", "fail", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: 0.125}", "pass", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: 0.1}", "fail", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: '12.5%'}", "pass", NEGATIVE_QTY, None),
    ("{type: negative_check, column: qty, tolerance: '12.4%'}", "fail", NEGATIVE_QTY, None),
    (
        "{type: negative_check, column: price}",
        "fail",
        count(lambda v: v is not None and v < 0, "price"),
        None,
    ),
    ("{type: negative_check, column: id}", "pass", 0, None),
    # rangeCheck: exclusive by default, inclusive: true includes both bounds; nulls pass
    (
        "{type: rangeCheck, column: qty, min_value: 0, max_value: 10}",
        "fail",
        count(lambda v: outside(v, 0, 10), "qty"),
        None,
    ),
    (
        "{type: range_check, column: qty, min_value: 0, max_value: 10, inclusive: true}",
        "fail",
        count(lambda v: outside(v, 0, 10, True), "qty"),
        None,
    ),
    (
        "{type: range_check, column: qty, min_value: -1, max_value: 10, inclusive: true}",
        "pass",
        0,
        None,
    ),
    ("{type: range_check, column: qty, min_value: -2, max_value: 11}", "pass", 0, None),
    (
        "{type: range_check, column: amount, min_value: -1, max_value: 5}",
        "fail",
        count(lambda v: outside(v, -1, 5), "amount"),
        None,
    ),
    (
        "{type: range_check, column: amount, min_value: -1}",
        "fail",
        count(lambda v: outside(v, -1), "amount"),
        None,
    ),  # only -inf: NaN is above any min
    (
        "{type: range_check, column: qty, min_value: '`low', max_value: '`high`', inclusive: true}",
        "fail",
        count(lambda v, w: v is not None and w is not None and v < w, "qty", "low")
        + count(lambda v, w: v is not None and w is not None and v > w, "qty", "high"),
        None,
    ),
    (
        "{type: range_check, column: high, min_value: '`low'}",
        "fail",
        count(lambda v, w: v is not None and w is not None and v <= w, "high", "low"),
        None,
    ),
    (
        "{type: range_check, column: day, min_value: 2024-01-01, max_value: 2024-01-03,"
        " inclusive: true}",
        "fail",
        count(lambda v: outside(v, D(2024, 1, 1), D(2024, 1, 3), True), "day"),
        None,
    ),
    (
        "{type: range_check, column: ts, max_value: '2024-01-01T12:00:00'}",
        "fail",
        count(lambda v: outside(v, None, T(2024, 1, 1, 12)), "ts"),
        None,
    ),
    (
        "{type: range_check, column: name, min_value: b, max_value: dan, inclusive: true}",
        "fail",
        count(lambda v: outside(v, "b", "dan", True), "name"),
        None,
    ),
    # stringLengthCheck: both bounds inclusive; nulls pass
    (
        "{type: stringLengthCheck, column: name, min_length: 1, max_length: 3}",
        "fail",
        count(lambda v: v is not None and not 1 <= len(v) <= 3, "name"),
        None,
    ),
    ("{type: string_length_check, column: name, min_length: 0, max_length: 5}", "pass", 0, None),
    ("{type: string_length_check, column: name, max_length: 4}", "fail", 1, None),
    # stringRegexCheck: searched anywhere (anchor it); nulls pass
    (
        "{type: stringRegexCheck, column: code, regex: '^[A-Z][0-9]+$'}",
        "fail",
        count(
            lambda v: v is not None and not (v[0].isupper() and v[1:].isdigit() and v[1:]), "code"
        ),
        None,
    ),
    ("{type: string_regex_check, column: code, regex: '[0-9]', tolerance: 1}", "pass", 1, None),
    # rowCount
    (f"{{type: rowCount, min_num_rows: {N}}}", "pass", None, N),
    (f"{{type: rowCount, min_num_rows: {N + 1}}}", "fail", None, N),
    # uniqueCheck: the combination; rows with a null key are ignored
    ("{type: uniqueCheck, columns: [low, high]}", "fail", 2, None),
    ("{type: uniqueCheck, columns: [id]}", "pass", 0, None),
    # columnSumCheck: exclusive unless inclusive
    (f"{{type: columnSumCheck, column: qty, min_value: {QTY_SUM}}}", "fail", None, QTY_SUM),
    (
        f"{{type: column_sum_check, column: qty, min_value: {QTY_SUM}, inclusive: true}}",
        "pass",
        None,
        QTY_SUM,
    ),
    (
        f"{{type: column_sum_check, column: qty, min_value: {QTY_SUM - 1},"
        f" max_value: {QTY_SUM + 1}}}",
        "pass",
        None,
        QTY_SUM,
    ),
    (f"{{type: column_sum_check, column: qty, max_value: {QTY_SUM}}}", "fail", None, QTY_SUM),
    (
        f"{{type: column_sum_check, column: qty, max_value: {QTY_SUM}, inclusive: true}}",
        "pass",
        None,
        QTY_SUM,
    ),
    (
        f"{{type: column_sum_check, column: price, min_value: {PRICE_SUM}, inclusive: true}}",
        "pass",
        None,
        PRICE_SUM,
    ),
    (
        f"{{type: column_sum_check, column: price, min_value: {PRICE_SUM - Decimal('0.01')},"
        f" max_value: {PRICE_SUM}}}",
        "fail",
        None,
        PRICE_SUM,
    ),  # exact decimal edge
    ("{type: column_sum_check, column: amount, min_value: 0}", "fail", None, None),  # NaN sum
    # columnMaxCheck: typed equality
    ("{type: columnMaxCheck, column: qty, value: 10}", "pass", None, 10),
    ("{type: column_max_check, column: qty, value: 9}", "fail", None, 10),
    ("{type: column_max_check, column: qty, value: 10.0}", "pass", None, 10),
    ("{type: column_max_check, column: price, value: 2.2}", "pass", None, Decimal("2.20")),
    ("{type: column_max_check, column: name, value: eve}", "pass", None, None),
    ("{type: column_max_check, column: name, value: Eve}", "fail", None, None),
    ("{type: column_max_check, column: day, value: 2024-01-03}", "pass", None, None),
    ("{type: column_max_check, column: day, value: '2024-01-03'}", "pass", None, None),
    ("{type: column_max_check, column: ts, value: '2024-01-02T00:00:00'}", "pass", None, None),
    ("{type: column_max_check, column: ts, value: 2024-01-01 23:59:59}", "fail", None, None),
    # colstats: informational
    ("{type: colstats, column: qty}", "pass", None, None),
    ("{type: colstats, column: price}", "pass", None, None),
    ("{type: colstats, column: amount}", "pass", None, None),
]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("dv") / "dv.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


def config(path: str, rules: list[str], extra: str = "") -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    return f"""
tables:
  - name: dv
    source: {{path: "{path}"}}
    keys: [id]
{extra}    rules:
{body}
"""


@pytest.fixture(scope="module")
def fused(spark, data, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("dvfused"), config(data, [c[0] for c in CASES]))
    return run_config(spark, cfg)


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[c[0][:70] for c in CASES])
def test_check(fused, index, case):
    text, severity, failed, value = case
    got = fused.result("dv", index)
    assert_case(got, severity, failed, value, N, expected_passed(text, severity))


def test_plans_of_the_fused_table(fused):
    # aggregate + histogram + detail (some row-level rules fail)
    assert fused.tables()["dv"]["spark_plans"] == 3


def test_negative_check_samples_show_negatives_only(fused):
    assert fused.result("dv", 1)["samples"] == [{"id": 3, "qty": -1}]


def test_range_check_with_a_column_bound_shows_both_columns(fused):
    samples = fused.result("dv", 17)["samples"]
    assert samples == [
        {"id": 2, "high": 0, "low": 0},
        {"id": 3, "high": 5, "low": 5},
        {"id": 7, "high": 3, "low": 3},
    ]


def test_column_max_check_message_shows_both_values(fused):
    assert fused.result("dv", 39)["message"] == "max(qty) = 10; must equal 9"
    assert fused.result("dv", 43)["message"] == "max(name) = 'eve'; must equal 'Eve'"


def histogram(values: list[float]) -> list[tuple[float, float, int]]:
    """data-validator's equi-width histogram, computed here independently."""
    low, high = min(values), max(values)
    width = (high - low) / 10
    counts = [0] * 10
    for v in values:
        counts[0 if width == 0 else min(9, math.floor((v - low) / width))] += 1
    edges = [low + i * width for i in range(10)] + [high]
    return [(edges[i], edges[i + 1], counts[i]) for i in range(10)]


@pytest.mark.parametrize(("index", "name"), [(48, "qty"), (49, "price")])
def test_colstats_values_and_histogram(fused, index, name):
    values = [float(v) for v in col(name) if v is not None]
    details = fused.result("dv", index)["details"]
    assert details["count"] == len(values)
    if name == "price":
        # Spark averages a decimal exactly, rounded to 4 more digits than the column's scale
        decimals = [v for v in col(name) if v is not None]
        mean = (sum(decimals) / len(decimals)).quantize(Decimal("0.000001"), ROUND_HALF_UP)
        assert details["mean"] == float(mean)
    else:
        assert details["mean"] == pytest.approx(statistics.fmean(values), rel=1e-12)
    assert details["min"] == min(values) and details["max"] == max(values)
    assert details["stdDev"] == pytest.approx(statistics.stdev(values), rel=1e-12)
    bins = [(b["lowerBound"], b["upperBound"], b["count"]) for b in details["histogram"]["bins"]]
    assert bins == histogram(values)
    assert sum(c for _, _, c in bins) == len(values)


def test_colstats_with_nan_and_infinities_has_no_histogram(fused):
    details = fused.result("dv", 50)["details"]
    assert details["count"] == 7
    assert details["max"] is None  # NaN (Spark: the largest double) is not valid JSON: null
    assert details["min"] is None  # -Infinity
    assert details["histogram"] is None


def test_empty_table(spark, data, tmp_path):
    rules = [
        "{type: negativeCheck, column: qty}",
        "{type: rangeCheck, column: qty, min_value: 0, max_value: 1}",
        "{type: stringLengthCheck, column: name, min_length: 1}",
        "{type: stringRegexCheck, column: code, regex: x}",
        "{type: rowCount, min_num_rows: 1}",
        "{type: uniqueCheck, columns: [id]}",
        "{type: columnSumCheck, column: qty, max_value: 10}",
        "{type: columnMaxCheck, column: qty, value: 10}",
        "{type: colstats, column: qty}",
    ]
    out = run_config(spark, write_config(tmp_path, config(data, rules, "    filter: id < 0\n")))
    got = [(r["severity"], r["failed_count"], r["metric_value"]) for r in out.results]
    assert got == [
        ("pass", 0, None),
        ("pass", 0, None),
        ("pass", 0, None),
        ("pass", 0, None),
        ("fail", None, 0),
        ("pass", 0, None),
        ("fail", None, None),  # the sum of no value is no value
        ("fail", None, None),
        ("pass", None, None),
    ]
    assert "no value" in out.results[6]["message"] and "no value" in out.results[7]["message"]
    assert out.results[8]["details"] == {
        "count": 0,
        "mean": None,
        "min": None,
        "max": None,
        "stdDev": None,
        "histogram": None,
    }
    # no column to bucket: the histogram plan is skipped
    assert out.tables()["dv"]["spark_plans"] == 1


def test_colstats_of_a_constant_column(spark, data, tmp_path):
    out = run_config(
        spark,
        write_config(
            tmp_path,
            config(data, ["{type: colstats, column: low}"], "    filter: id = 2 OR id = 8\n"),
        ),
    )
    details = out.results[0]["details"]
    assert (details["count"], details["min"], details["max"], details["stdDev"]) == (
        2,
        0.0,
        0.0,
        0.0,
    )
    assert [b["count"] for b in details["histogram"]["bins"]] == [2] + [0] * 9

"""Great Expectations itself as the oracle: one suite (``SUITE``, GX 1.x JSON) run by GX
1.24.1 (an ephemeral context, a Spark data source, a dataframe asset, one validation per
table on the test server's Spark Connect session) and by assay on the same parquet data,
tricky on purpose (NULL, NaN, infinities, empty and blank strings, unicode, mixed case,
duplicates, DECIMAL(38,18), dates and timestamps, a column name with a space, an empty
table). For every expectation GX's ``success`` is assay's ``passed``, and GX's result
numbers (``unexpected_count``, ``unexpected_percent``, ``observed_value``,
``element_count``, ``missing_count``) are assay's ``details.great_expectations``, but for
the differences of ``DIFFERS`` (docs/dialects.md, "Great Expectations suites").

GX's answers are recorded in ``oracle.json`` (tests/dialects/recorded.py), keyed by the
data, the suite, GX's and pyspark's versions and the code that calls GX: while the key
holds, only assay runs; when it does not, GX runs live (the test warns that the recording
is stale, and ``test_recording_is_current`` fails until it is re-recorded with
``ASSAY_RECORD_ORACLES=1 python -m pytest tests/dialects/great_expectations/test_oracle.py``)."""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.dialects import recorded
from tests.dialects.helpers import load, run
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

NAME = "first name"
SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("s", pa.string()),
        ("n", pa.int32()),
        ("x", pa.float64()),
        ("dec", pa.decimal128(38, 18)),
        ("d", pa.date32()),
        ("t", pa.timestamp("us", tz="UTC")),
        (NAME, pa.string()),
        ("n2", pa.int32()),
        ("s2", pa.string()),
        ("b", pa.bool_()),
        ("ds", pa.string()),
    ]
)
_T = dt.datetime(2025, 2, 24, 1, 0, tzinfo=dt.UTC)
_BIG = Decimal("1234567890123.123456789012345678")
_TINY = Decimal("0.000000000000000001")
COLUMNS: dict[str, list[Any]] = {
    "id": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "s": ["a", "", " ", "Ünï", "A", "b", None, "a", "ab", None],
    "n": [1, 10, None, -3, 2, 3, 2, None, 2, 0],
    "x": [1.5, math.nan, None, math.inf, -0.0, -math.inf, 2.0, 1.5, None, 0.25],
    "dec": [Decimal("1.5"), Decimal("-0.001"), None, _BIG, _TINY, Decimal("2.25"), None,
            Decimal("1.5"), Decimal("3"), Decimal("0")],
    "d": [dt.date(2025, 1, 1), dt.date(2024, 12, 31), None, dt.date(2025, 2, 1),
          dt.date(2025, 1, 15), dt.date(2025, 1, 15), dt.date(1970, 1, 1), None,
          dt.date(2999, 12, 31), dt.date(2025, 1, 31)],
    "t": [_T, _T.replace(year=2024), None, _T.replace(hour=0), _T, _T.replace(year=2999),
          _T.replace(day=1), None, _T, _T.replace(microsecond=1)],
    NAME: ["Ann", "ann", "ANN", "Bob", None, "Zoë", "", "bob", "Ann", "  "],
    "n2": [0, 10, 1, None, 3, 2, 1, None, 2, 0],
    "s2": ["a", "", None, "Ünï", "a", "b", None, "A", "ab", "x"],
    "b": [True, False, None, True, True, False, None, True, True, True],
    "ds": ["2019-04-01", "2019-02-29", "2020-02-29", None, "\u0662\u0660\u0661\u0669-04-01",
           "2019-4-1", "1977-05-55", "2019-04-01T10:00:60", "2000-02-29 ", "0000-01-01"],
}  # fmt: skip
ROWS = [dict(zip(COLUMNS, values, strict=True)) for values in zip(*COLUMNS.values(), strict=True)]


def _e(kind: str, **kwargs: Any) -> dict[str, Any]:
    return {"type": f"expect_{kind}", "kwargs": kwargs}


def _rows(query: str) -> dict[str, Any]:
    return {"type": "unexpected_rows_expectation", "kwargs": {"unexpected_rows_query": query}}


def _spark(condition: str) -> dict[str, str]:
    return {"row_condition": condition, "condition_parser": "spark"}


SUITE_ITEMS: list[dict[str, Any]] = [
    # nulls
    _e("column_values_to_not_be_null", column="s"),
    _e("column_values_to_not_be_null", column="s", mostly=0.8),
    _e("column_values_to_not_be_null", column=NAME, **_spark("n > 0")),
    _e("column_values_to_be_null", column="x", mostly=0.1),
    _e("column_values_to_be_null", column="n", **_spark("id > 7")),
    # uniqueness
    _e("column_values_to_be_unique", column="n"),
    _e("column_values_to_be_unique", column="s", mostly=0.7),
    _e("column_values_to_be_unique", column=NAME),
    _e("column_values_to_be_unique", column="x"),
    _e("column_values_to_be_unique", column="dec", **_spark("id < 8")),
    _e("compound_columns_to_be_unique", column_list=["s", "n"]),
    _e("compound_columns_to_be_unique", column_list=["s", "n"],
       ignore_row_if="any_value_is_missing"),
    _e("compound_columns_to_be_unique", column_list=["s2", "b"], ignore_row_if="never",
       mostly=0.5),
    # bounds of values
    _e("column_values_to_be_between", column="n", min_value=0, max_value=3),
    _e("column_values_to_be_between", column="n", min_value=0, max_value=3, strict_min=True,
       strict_max=True, mostly=0.5),
    _e("column_values_to_be_between", column="x", min_value=0),
    _e("column_values_to_be_between", column="x", max_value=2, strict_max=True),
    _e("column_values_to_be_between", column="dec", min_value=0, max_value=3),
    _e("column_values_to_be_between", column="dec", min_value=-1e-3, strict_min=True),
    _e("column_values_to_be_between", column="d", min_value="2025-01-01", max_value="2025-02-01"),
    _e("column_values_to_be_between", column="t", min_value="2025-01-01T00:00:00",
       strict_min=True),
    _e("column_values_to_be_between", column="n", max_value=2, **_spark("`first name` = 'Ann'")),
    _e("column_values_to_be_between", column="n", min_value=1,
       row_condition='col("x") > 0', condition_parser="great_expectations"),
    _e("column_values_to_be_between", column="n", min_value=1, **_spark("id > 100")),
    # sets
    _e("column_values_to_be_in_set", column="s", value_set=["a", "b", "A", None]),
    _e("column_values_to_be_in_set", column="n", value_set=[1, 2, 3], mostly=0.6),
    _e("column_values_to_be_in_set", column="x", value_set=[1.5, 2.0, 0]),
    _e("column_values_to_be_in_set", column="b", value_set=[True]),
    _e("column_values_to_be_in_set", column="dec", value_set=[1.5, 3, 0]),
    _e("column_values_to_not_be_in_set", column="s", value_set=["", " "]),
    _e("column_values_to_not_be_in_set", column=NAME, value_set=["Ann", "ann"], mostly=0.5),
    # patterns
    _e("column_values_to_match_regex", column="s", regex="^[a-z]+$"),
    _e("column_values_to_match_regex", column=NAME, regex="^\\p{Lu}"),
    _e("column_values_to_match_regex", column="s", regex=""),
    _e("column_values_to_not_match_regex", column="s", regex="\\s"),
    _e("column_values_to_not_match_regex", column=NAME, regex="(?i)^ann$", mostly=0.6),
    _e("column_values_to_match_regex_list", column="s", regex_list=["^a", "b$"]),
    _e("column_values_to_match_regex_list", column="s", regex_list=["^a", "b$"], match_on="all"),
    _e("column_values_to_not_match_regex_list", column=NAME, regex_list=["^A", "o"]),
    # lengths
    _e("column_value_lengths_to_be_between", column="s", min_value=1, max_value=2),
    _e("column_value_lengths_to_be_between", column=NAME, min_value=3),
    _e("column_value_lengths_to_be_between", column="s", max_value=0),
    _e("column_value_lengths_to_equal", column="s", value=1),
    _e("column_value_lengths_to_equal", column=NAME, value=3, mostly=0.5),
    # the table
    _e("table_row_count_to_be_between", min_value=1, max_value=100),
    _e("table_row_count_to_be_between", min_value=11),
    _e("table_row_count_to_be_between", max_value=10),
    _e("table_row_count_to_be_between", max_value=3, **_spark("n > 1")),
    _e("table_row_count_to_equal", value=10),
    _e("column_to_exist", column=NAME),
    _e("column_to_exist", column="First name"),
    _e("table_columns_to_match_ordered_list", column_list=list(COLUMNS)),
    _e("table_columns_to_match_ordered_list", column_list=list(reversed(COLUMNS))),
    _e("table_columns_to_match_set", column_set=["s", "n", "id"]),
    _e("table_columns_to_match_set", column_set=["s", "n", "id"], exact_match=True),
    _e("table_columns_to_match_set", column_set=[*COLUMNS, "extra"], exact_match=False),
    # aggregates
    _e("column_mean_to_be_between", column="n", min_value=0, max_value=5),
    _e("column_mean_to_be_between", column="x", min_value=0),
    _e("column_mean_to_be_between", column="dec", max_value=1e30, strict_max=True),
    _e("column_mean_to_be_between", column="x", min_value=0, **_spark("x < 100 AND x > -100")),
    _e("column_median_to_be_between", column="n", min_value=1, max_value=2),
    _e("column_median_to_be_between", column="dec", min_value=1),
    _e("column_min_to_be_between", column="n", max_value=0),
    _e("column_min_to_be_between", column="x", min_value=-1, strict_min=True),
    _e("column_max_to_be_between", column="x", max_value=1e308),
    _e("column_max_to_be_between", column="n", min_value=10, max_value=10),
    _e("column_sum_to_be_between", column="dec", min_value=0),
    _e("column_sum_to_be_between", column="n", max_value=17, strict_max=True),
    _e("column_sum_to_be_between", column="x", min_value=0),
    _e("column_stdev_to_be_between", column="n", min_value=1),
    _e("column_stdev_to_be_between", column="x", min_value=0),
    _e("column_stdev_to_be_between", column="dec", max_value=1),
    _e("column_unique_value_count_to_be_between", column="s", min_value=5, max_value=7),
    _e("column_unique_value_count_to_be_between", column=NAME, max_value=6),
    _e("column_proportion_of_unique_values_to_be_between", column="n", min_value=0.5),
    _e("column_proportion_of_unique_values_to_be_between", column="s", max_value=1,
       strict_max=True),
    # column pairs
    _e("column_pair_values_a_to_be_greater_than_b", column_A="n", column_B="n2"),
    _e("column_pair_values_a_to_be_greater_than_b", column_A="n", column_B="n2", or_equal=True),
    _e("column_pair_values_a_to_be_greater_than_b", column_A="n", column_B="n2", or_equal=True,
       ignore_row_if="either_value_is_missing", mostly=0.5),
    _e("column_pair_values_to_be_equal", column_A="s", column_B="s2"),
    _e("column_pair_values_to_be_equal", column_A="s", column_B="s2", ignore_row_if="neither"),
    # several columns of a row
    _e("select_column_values_to_be_unique_within_record", column_list=["s", "s2", NAME]),
    _e("select_column_values_to_be_unique_within_record", column_list=["n", "n2"],
       ignore_row_if="never", mostly=0.5),
    _e("select_column_values_to_be_unique_within_record", column_list=["n", "n2"],
       ignore_row_if="any_value_is_missing"),
    _e("multicolumn_sum_to_equal", column_list=["n", "n2"], sum_total=5),
    _e("multicolumn_sum_to_equal", column_list=["n", "n2"], sum_total=5, ignore_row_if="never",
       mostly=0.1),
    _e("multicolumn_sum_to_equal", column_list=["x", "n"], sum_total=2.5,
       ignore_row_if="any_value_is_missing"),
    _e("multicolumn_sum_to_equal", column_list=["dec", "n2"], sum_total=1.5),
    # types
    _e("column_values_to_be_of_type", column="n", type_="IntegerType"),
    _e("column_values_to_be_of_type", column="dec", type_="DecimalType"),
    _e("column_values_to_be_of_type", column="t", type_="TimestampType"),
    _e("column_values_to_be_of_type", column="id", type_="IntegerType"),
    _e("column_values_to_be_of_type", column=NAME, type_="NumericType"),
    _e("column_values_to_be_of_type", column="d", type_="DatetimeType"),
    _e("column_values_to_be_in_type_list", column="x", type_list=["DoubleType", "float", "FLOAT"]),
    _e("column_values_to_be_in_type_list", column="s", type_list=["IntegralType", "AtomicType"]),
    _e("column_values_to_be_in_type_list", column="b", type_list=["StringType", "int"]),
    _e("column_values_to_be_in_type_list", column="b", type_list=None),
    # the proportion of non-null values: 0 without rows
    _e("column_proportion_of_non_null_values_to_be_between", column="s", min_value=0.8),
    _e("column_proportion_of_non_null_values_to_be_between", column="x", max_value=0.8,
       strict_max=True),
    _e("column_proportion_of_non_null_values_to_be_between", column="n", max_value=0,
       **_spark("n IS NULL")),
    _e("column_proportion_of_non_null_values_to_be_between", column="b", min_value=0,
       max_value=0.5, **_spark("id > 100")),
    _e("column_proportion_of_non_null_values_to_be_between", column=NAME),
    # quantiles: approxQuantile without relative error
    _e("column_quantile_values_to_be_between", column="n",
       quantile_ranges={"quantiles": [0, 0.25, 0.5, 0.75, 1],
                        "value_ranges": [[-3, -3], [0, 1], [2, 2], [2, 3], [None, 10]]}),
    _e("column_quantile_values_to_be_between", column="x",
       quantile_ranges={"quantiles": [0.1, 0.5, 0.9], "value_ranges": [[None, 0], [0, 2], [2, None]]}),
    _e("column_quantile_values_to_be_between", column="dec", allow_relative_error=False,
       quantile_ranges={"quantiles": [0.5], "value_ranges": [[1.5, 1.5001]]}),
    _e("column_quantile_values_to_be_between", column="n2",
       quantile_ranges={"quantiles": [0.3, 0.6], "value_ranges": [[1, 2], [2.00001, 3]]},
       **_spark("id > 2")),
    # the rows a query returns
    _rows("SELECT * FROM {batch} WHERE n > 2"),
    _rows("SELECT id FROM {batch} WHERE s = 'zz' ;\n"),
    _rows("SELECT s, count(*) FROM {batch} GROUP BY s HAVING count(*) > 1"),
    # Python's strptime
    _e("column_values_to_match_strftime_format", column="ds", strftime_format="%Y-%m-%d"),
    _e("column_values_to_match_strftime_format", column="ds",
       strftime_format="%Y-%m-%dT%H:%M:%S", mostly=0.1),
    _e("column_values_to_match_strftime_format", column="ds", strftime_format="%Y-%m-%d ",
       **_spark("id > 3")),
    _e("column_values_to_match_strftime_format", column=NAME, strftime_format="%y"),
    # distinct values and sets
    _e("column_distinct_values_to_be_in_set", column="s", value_set=["a", "b", "A", ""]),
    _e("column_distinct_values_to_be_in_set", column="n", value_set=[1, 2, 3], **_spark("id > 3")),
    _e("column_distinct_values_to_be_in_set", column="dec", value_set=[1.5, 0, None]),
    _e("column_distinct_values_to_be_in_set", column="x", value_set=[1.5, 2.0, 0.25]),
    _e("column_distinct_values_to_contain_set", column="s", value_set=["a", "zz"]),
    _e("column_distinct_values_to_contain_set", column="n", value_set=[2, 10, 99, 2]),
    _e("column_distinct_values_to_contain_set", column=NAME, value_set=["Ann", "ann"],
       row_condition='col("id") < 3', condition_parser="great_expectations"),
    _e("column_distinct_values_to_equal_set", column="b", value_set=[True, False]),
    _e("column_distinct_values_to_equal_set", column="n2", value_set=[0, 1, 2, 3, 10]),
    _e("column_distinct_values_to_equal_set", column="s2", value_set=["a", "b", "x"]),
    _e("column_most_common_value_to_be_in_set", column="s", value_set=["a"]),
    _e("column_most_common_value_to_be_in_set", column="n2", value_set=[0]),
    _e("column_most_common_value_to_be_in_set", column="n2", value_set=[0, 5], ties_okay=True),
    _e("column_most_common_value_to_be_in_set", column=NAME, value_set=["Ann"], **_spark("id > 1")),
    _e("column_pair_values_to_be_in_set", column_A="n", column_B="n2",
       value_pairs_set=[[1, 0], [10, 10], [None, 1], [2, 2]]),
    _e("column_pair_values_to_be_in_set", column_A="s", column_B="s2",
       value_pairs_set=[["a", "a"], ["", ""], [None, None]], ignore_row_if="neither", mostly=0.5),
    _e("column_pair_values_to_be_in_set", column_A="s", column_B="s2",
       value_pairs_set=[["a", "a"]], ignore_row_if="either_value_is_missing"),
    # the table's columns
    _e("table_column_count_to_be_between", min_value=12, max_value=12),
    _e("table_column_count_to_be_between", max_value=11),
    _e("table_column_count_to_equal", value=11),
    # GX 1.x's newer ones
    _e("column_type_to_be", column="dec", type_="DecimalType"),
    _e("column_type_to_be", column="First Name", type_="StringType"),
    _e("column_type_to_be", column="n", type_="LongType"),
    _e("multicolumn_values_to_be_equal", column_list=["n", "n2"]),
    _e("multicolumn_values_to_be_equal", column_list=["s", "s2"], ignore_row_if="never",
       mostly=0.3),
    _e("multicolumn_values_to_be_equal", column_list=["s", "s2"],
       ignore_row_if="any_value_is_missing"),
]  # fmt: skip
SUITE = {
    "name": "oracle",
    "expectations": [{**item, "meta": {"n": i}} for i, item in enumerate(SUITE_ITEMS)],
}
NUMBERS = ("unexpected_count", "unexpected_percent", "observed_value", "element_count",
           "missing_count")  # fmt: skip
_CONDITIONED = [i for i, item in enumerate(SUITE_ITEMS) if "row_condition" in item["kwargs"]
                and item["type"] not in ("expect_column_values_to_not_be_null",
                                         "expect_column_values_to_be_null")
                and item["type"].startswith("expect_column_values_")]  # fmt: skip
_MIN_X = SUITE_ITEMS.index(_e("column_min_to_be_between", column="x", min_value=-1,
                              strict_min=True))  # fmt: skip
_QUANTILES_X = next(i for i, item in enumerate(SUITE_ITEMS) if item["kwargs"].get("column") == "x"
                    and item["type"] == "expect_column_quantile_values_to_be_between")  # fmt: skip
_MOST_COMMON = [i for i, item in enumerate(SUITE_ITEMS)
                if item["type"] == "expect_column_most_common_value_to_be_in_set"]  # fmt: skip
DIFFERS: dict[tuple[str, int, str], str] = {
    **{(table, i, "observed_value"): "expect_column_most_common_value_to_be_in_set: assay's "
       "query says whether it holds, not which values are the most common"
       for table in ("tricky", "empty") for i in _MOST_COMMON},
    ("tricky", _MIN_X, "observed_value"): "assay's events are JSON, which has no infinity: the "
    "minimum -inf is null in details.great_expectations (and metric_value)",
    ("tricky", _QUANTILES_X, "observed_value"): "assay's events are JSON, which has no "
    "infinity: the quantiles -inf and inf are null in details.great_expectations (and "
    "metric_value); judged as the infinities they are",
    **{(table, i, key): "a column-map expectation with a row_condition: assay counts the rows "
       "it considers, not those the condition keeps, so GX's element_count and missing_count "
       "are left out" for table in ("tricky", "empty") for i in _CONDITIONED
       for key in ("element_count", "missing_count")},
}  # fmt: skip
"""(table, expectation index, number) -> why assay's answer deliberately differs from GX's
(docs/dialects.md); a difference listed that no longer occurs fails the test."""


@functools.cache
def _gx() -> tuple[Any, Any]:
    """GX's batch definition (an ephemeral context, a Spark data source, a dataframe
    asset) and the suite, made once for both tables."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    asset = context.data_sources.add_spark(name="oracle").add_dataframe_asset(name="data")
    return asset.add_batch_definition_whole_dataframe("whole"), gx.ExpectationSuite(**SUITE)


def _gx_results(spark, path: Path) -> dict[int, dict[str, Any]]:
    """GX's result of each expectation (by its ``meta.n``): success and its numbers."""
    batches, suite = _gx()
    df = spark.read.parquet(str(path))
    batch = batches.get_batch(batch_parameters={"dataframe": df})
    try:
        validated = batch.validate(suite, result_format="SUMMARY")
    finally:
        df.unpersist()
    found: dict[int, dict[str, Any]] = {}
    for result in validated.results:
        assert not _raised(result.exception_info or {}), result.exception_info
        numbers = {k: result.result[k] for k in NUMBERS if k in result.result}
        found[result.expectation_config.meta["n"]] = {"success": result.success, **numbers}
    return found


def _raised(info: dict[str, Any]) -> bool:
    """Whether GX raised computing an expectation (its exception info is flat, or by
    metric)."""
    if "raised_exception" in info:
        return bool(info["raised_exception"])
    return any(_raised(v) for v in info.values() if isinstance(v, dict))


def _same(ours: Any, theirs: Any) -> bool:
    """Equal, but GX's floats: a float GX computes (a mean, a standard deviation, a
    percentage) is close (rel 1e-12) to assay's; a DECIMAL aggregate, which assay keeps
    exact (a string), is the float GX makes of it."""
    if isinstance(theirs, float) and isinstance(ours, str):
        return float(Decimal(ours)) == theirs
    if isinstance(theirs, float) and isinstance(ours, (int, float)) and ours is not True:
        return math.isclose(ours, theirs, rel_tol=1e-12)
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return ours is theirs
    return ours == theirs  # an int GX gives (a proportion of no value: 0) is assay's 0.0


RECORDING = Path(__file__).with_name("oracle.json")
TIMEZONE = "UTC"
TABLES = {"tricky": ROWS, "empty": []}


def _inputs(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What GX's answers on ``rows`` depend on (the recording's key)."""
    return {
        "data": recorded.rows_digest(SCHEMA, rows),
        "suite": SUITE,
        "numbers": NUMBERS,
        "versions": recorded.versions("great_expectations", "pyspark", "pyarrow"),
        "code": recorded.sources(_gx, _gx_results, _raised),
        "timezone": TIMEZONE,
    }


def test_recording_is_current():
    cases = {table: _inputs(rows) for table, rows in TABLES.items()}
    recorded.assert_current(
        RECORDING, cases, "GX", "tests/dialects/great_expectations/test_oracle.py"
    )


def compare(spark, folder: Path, table: str, rows: list[dict[str, Any]]) -> dict[tuple, str]:
    """Each difference of assay's answer from GX's, by (table, expectation index, what)."""
    path = folder / f"{table}.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)
    suite_file = folder / "suite.json"
    suite_file.write_text(json.dumps(SUITE, indent=1))
    spark.conf.set("spark.sql.session.timeZone", TIMEZONE)
    found = recorded.answers(
        RECORDING,
        table,
        _inputs(rows),
        lambda: {str(n): recorded.plain(answer) for n, answer in _gx_results(spark, path).items()},
    )
    gx_found = {int(n): answer for n, answer in found.items()}
    events = run(spark, load(suite_file, source=str(path), for_run=True))
    results = events.results
    # one aggregate plan (the unexpected rows query that does not fold is a branch of it),
    # and the detail plan when a row rule failed
    assert events.tables()["oracle"]["spark_plans"] == (2 if rows else 1)
    assert [r["rule_index"] for r in results] == list(range(len(SUITE_ITEMS)))
    differ: dict[tuple, str] = {}
    for i, (item, result) in enumerate(zip(SUITE_ITEMS, results, strict=True)):
        validate_event(result)
        theirs = gx_found[i]
        ours = (result.get("details") or {}).get("great_expectations") or {}
        what = f"{item['type']} {item['kwargs']}"
        if result["passed"] != theirs["success"]:
            differ[table, i, "success"] = f"{what}: passed {result['passed']}, GX {theirs}"
        for key in NUMBERS:
            if key in theirs and not (key in ours and _same(ours[key], theirs[key])):
                said = f"assay {ours.get(key, '(none)')!r}, GX {theirs[key]!r}"
                differ[table, i, key] = f"{what}: {key} {said}"
    return differ


@pytest.mark.parametrize("table", list(TABLES))
def test_assay_answers_as_gx(spark, tmp_path, monkeypatch, table):
    # GX builds its metrics with pyspark.sql.functions, which build Spark Connect
    # columns only in Connect mode
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    differ = compare(spark, tmp_path, table, TABLES[table])
    expected = {k: v for k, v in DIFFERS.items() if k[0] == table}
    unexplained = [text for key, text in differ.items() if key not in expected]
    assert not unexplained, "\n".join(unexplained)
    agreeing = [f"{key}: {why}" for key, why in expected.items() if key not in differ]
    assert not agreeing, "now agrees with GX: remove from DIFFERS\n" + "\n".join(agreeing)

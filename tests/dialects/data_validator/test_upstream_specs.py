"""target/data-validator's own ScalaTest specs, ported: the data each spec builds, written
as data-validator YAML checks, and the verdicts, counts and config-check refusals it
asserts. Every case names its upstream spec file and test (``describe`` > ``it``) under
src/test/scala/com/target/data_validator/ of github.com/target/data-validator.

Run checks go through the run API against the shared Spark server; config checks that
need the schema go through preflight (:func:`assay.judge.preflight.check_table`) with the
spec's schema; one CLI case shows the exit code and the located message.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.errors import ConfigErrors
from assay.ir.values import Tolerance
from assay.judge.preflight import check_table
from tests.dialects.helpers import errors, load, run
from tests.helpers import assay_cli as assay
from tests.helpers import validate_event

S, I8, I16, I32, I64, F64 = (
    pa.string(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.float64()
)  # fmt: skip
SPARK_TYPE = {S: "string", I8: "tinyint", I16: "smallint", I32: "int", I64: "bigint", F64: "double"}


def data(tmp_path: Path, columns: dict[str, tuple[pa.DataType, list[Any]]], name="t") -> Path:
    """A parquet file with exactly these Spark types (string, tinyint, smallint, int,
    bigint, double), as the spec's ``StructType``/``mkDf`` builds them."""
    path = tmp_path / f"{name}.parquet"
    table = pa.table({c: pa.array(v, type=t) for c, (t, v) in columns.items()})
    pq.write_table(table, path)
    return path


def config(
    tmp_path: Path,
    source: Path,
    checks: list[str],
    *,
    keys: int = 1,
    errors_to_report: int = 1,
    detailed: bool = False,
    extra: str = "",
) -> Path:
    body = "\n".join(f"      - {c}" for c in checks)
    path = tmp_path / "dv.yaml"
    path.write_text(
        f"numKeyCols: {keys}\nnumErrorsToReport: {errors_to_report}\n"
        f"detailedErrors: {str(detailed).lower()}\n{extra}"
        f"tables:\n  - parquetFile: {source}\n    checks:\n{body}\n"
    )
    return path


def results(spark, path: Path) -> list[dict[str, Any]]:
    got = run(spark, load(path))
    for event in got.events:
        validate_event(event)
    return got.results


def verdicts(spark, path: Path) -> list[tuple[str, int | None]]:
    return [(r["severity"], r["failed_count"]) for r in results(spark, path)]


def preflight(tmp_path: Path, columns: dict[str, pa.DataType], checks: list[str]) -> str:
    """The config-check problems of ``checks`` against a table with these columns ("" when
    none): data-validator's ``configCheck``, made before any scan."""
    path = config(tmp_path, tmp_path / "unused.parquet", checks)
    try:
        (table,) = load(path).tables
    except ConfigErrors as e:
        return str(e)
    schema = [(c, SPARK_TYPE[t]) for c, t in columns.items()]
    return "\n".join(str(p) for p in check_table(table, schema, ()))


def refused(tmp_path: Path, checks: list[str]) -> str:
    """The config-check errors found without the table (``assay check`` reports them)."""
    return errors(config(tmp_path, tmp_path / "unused.parquet", checks))


# --- UniqueCheckSpec --------------------------------------------------------------------------

UNIQUE = {
    "item": (S, ["Eggs", "Milk", "Eggs", "Eggs"]),
    "location": (I32, [1, 1, 1, 2]),
    "price": (F64, [4.00, 10.27, 5.00, 2.00]),
}


@pytest.mark.spark
def test_unique_check_spec_costly_check(spark, tmp_path):
    # UniqueCheckSpec > costlyCheck > "finds error" / "finds error with multiple columns" /
    # "no error": "1 duplicates found!" counts duplicated values, not the 3 rows of Eggs.
    path = config(
        tmp_path,
        data(tmp_path, UNIQUE),
        [
            "{type: uniqueCheck, columns: [item]}",
            "{type: uniqueCheck, columns: [item, location]}",
            "{type: uniqueCheck, columns: [price]}",
        ],
    )
    assert verdicts(spark, path) == [("fail", 1), ("fail", 1), ("pass", 0)]


def test_unique_check_spec_config_check(tmp_path):
    # UniqueCheckSpec > configCheck > "good columns" / "bad column"
    columns = {c: t for c, (t, _) in UNIQUE.items()}
    assert preflight(tmp_path, columns, ["{type: uniqueCheck, columns: [item, location]}"]) == ""
    text = preflight(tmp_path, columns, ["{type: uniqueCheck, columns: [item, city]}"])
    assert "'city' does not exist" in text and "tables[0].checks[0]" in text


@pytest.mark.spark
def test_unique_check_groups_nulls_as_a_value(spark, tmp_path):
    # UniqueCheck.costlyCheck is df.groupBy(cols).count().where("count > 1").count():
    # Spark's groupBy puts nulls in one group, so two null keys are one duplicated value.
    source = data(
        tmp_path,
        {"k": (S, ["a", None, None, "b", "b", "c"]), "n": (I32, [1, None, None, None, None, 2])},
    )
    path = config(
        tmp_path,
        source,
        ["{type: uniqueCheck, columns: [k]}", "{type: uniqueCheck, columns: [k, n]}"],
        detailed=True,
        errors_to_report=10,
    )
    (one, two) = results(spark, path)
    assert (one["severity"], one["failed_count"]) == ("fail", 2)  # null and "b"
    assert (two["severity"], two["failed_count"]) == ("fail", 2)  # (null, null) and (b, null)
    assert sorted(map(json.dumps, one["samples"])) == sorted(
        map(json.dumps, [{"k": None}, {"k": None}, {"k": "b"}, {"k": "b"}])
    )


# --- NullCheckSpec, ValidatorBaseSpec > ValidatorNullCheck -----------------------------------


@pytest.mark.spark
@pytest.mark.parametrize(
    ("items", "threshold", "expected"),
    [
        (["item1", "item2", "item3"], None, ("pass", 0)),  # "success"
        (["item1", "item2", "item3", None], None, ("fail", 1)),  # "fails"
        (["item1", "item2", "item3", None], "1", ("pass", 1)),  # "threshold success"
        (["item1", "item2", "item3", None, None], "1", ("fail", 2)),  # "threshold failure"
    ],
)
def test_null_check_spec_functionality(spark, tmp_path, items, threshold, expected):
    # NullCheckSpec > functionality
    check = "{type: nullCheck, column: item"
    check += f", threshold: '{threshold}'}}" if threshold else "}"
    path = config(tmp_path, data(tmp_path, {"item": (S, items)}), [check])
    assert verdicts(spark, path) == [expected]


@pytest.mark.spark
def test_validator_base_spec_null_check(spark, tmp_path):
    # ValidatorBaseSpec > ValidatorNullCheck > "should not error on non-null data" /
    # "should error on null data"
    good = data(tmp_path, {"name": (S, ["Doug", "Collin"]), "age": (I32, [50, 32])}, "good")
    bad = data(tmp_path, {"name": (S, ["Doug", None]), "age": (I32, [50, 32])}, "bad")
    check = ["{type: nullCheck, column: name}"]
    assert verdicts(spark, config(tmp_path, good, check, keys=3)) == [("pass", 0)]
    assert verdicts(spark, config(tmp_path, bad, check, keys=3)) == [("fail", 1)]


def test_null_check_spec_config_check(tmp_path):
    # NullCheckSpec > check configuration > "Column Exists" / "Column doesn't exist";
    # ValidatorBaseSpec > "should fail configCheck on unknown column"
    columns = {"item": S, "price": F64}
    assert preflight(tmp_path, columns, ["{type: nullCheck, column: item}"]) == ""
    assert "'junk' does not exist" in preflight(
        tmp_path, columns, ["{type: nullCheck, column: junk}"]
    )


def test_null_and_negative_check_spec_config_parsing(tmp_path):
    # NullCheckSpec / NegativeCheckSpec > config parsing > "optional threshold": 10.0%
    for kind in ("nullCheck", "negativeCheck"):
        path = config(
            tmp_path, tmp_path / "x.parquet", [f"{{type: {kind}, column: foo, threshold: 10.0%}}"]
        )
        (table,) = load(path).tables
        assert table.rules[0].check.tolerance == Tolerance("dv_percent", Decimal("10.0"), "10.0%")
        assert table.rules[0].threshold == "10.0%"


# --- NegativeCheckSpec, RowBasedSpec > NegativeCheck -----------------------------------------


@pytest.mark.spark
@pytest.mark.parametrize(
    ("prices", "threshold", "expected"),
    [
        ([1.99, 1.50, 2.50], None, ("pass", 0)),  # "success"
        ([1.99, -1.50, 2.50], None, ("fail", 1)),  # "fails"
        ([1.99, -1.50, 2.50], "1", ("pass", 1)),  # "threshold success"
        ([1.99, -1.50, -2.50], "1", ("fail", 2)),  # "threshold failure"
    ],
)
def test_negative_check_spec_functionality(spark, tmp_path, prices, threshold, expected):
    # NegativeCheckSpec > functionality
    check = "{type: negativeCheck, column: price"
    check += f", threshold: '{threshold}'}}" if threshold else "}"
    path = config(tmp_path, data(tmp_path, {"price": (F64, prices)}), [check])
    assert verdicts(spark, path) == [expected]


def test_negative_check_spec_config_check(tmp_path):
    # NegativeCheckSpec > check configuration > "Column Exists" / "Column doesn't exist" /
    # "Column exists but is wrong type"; RowBasedSpec > "should fail when column DataType
    # is StringType"
    assert preflight(tmp_path, {"price": F64}, ["{type: negativeCheck, column: price}"]) == ""
    assert "'junk' does not exist" in preflight(
        tmp_path, {"price": F64}, ["{type: negativeCheck, column: junk}"]
    )
    text = preflight(tmp_path, {"item": S}, ["{type: negativeCheck, column: item}"])
    assert "column item is string, but this rule needs a number" in text


NEGATIVE = {"key": S, "key2": S, "data": I32}


@pytest.mark.spark
def test_row_based_spec_negative_check(spark, tmp_path):
    # RowBasedSpec > NegativeCheck > "should fail with negative data" / "should not fail
    # with non negative data" / "check on Double should work" / "should produce events
    # with correct keyColumn data" (keyColumns key, key2: the failing row's keys and value)
    negative = data(
        tmp_path,
        {
            "key": (S, ["negative", "zero", "positive"]),
            "key2": (S, ["one", "zero", "one"]),
            "data": (I32, [-1, 0, 1]),
        },
        "negative",
    )
    positive = data(
        tmp_path,
        {
            "key": (S, ["zero", "positive", "more positive"]),
            "key2": (S, ["one", "one", "two"]),
            "data": (I32, [0, 1, 2]),
        },
        "positive",
    )
    doubles = data(tmp_path, {"d": (F64, [-1.0, 0.0, 1.0])}, "doubles")
    check = ["{type: negativeCheck, column: data}"]
    assert verdicts(spark, config(tmp_path, negative, check)) == [("fail", 1)]
    assert verdicts(spark, config(tmp_path, positive, check)) == [("pass", 0)]
    assert verdicts(spark, config(tmp_path, doubles, ["{type: negativeCheck, column: d}"])) == [
        ("fail", 1)
    ]
    keyed = config(tmp_path, negative, check, keys=1, detailed=True, errors_to_report=10)
    keyed.write_text(
        keyed.read_text().replace("    checks:", "    keyColumns: [key, key2]\n    checks:")
    )
    (result,) = results(spark, keyed)
    assert result["samples"] == [{"key": "negative", "key2": "one", "data": -1}]


@pytest.mark.spark
def test_negative_check_lets_nulls_pass(spark, tmp_path):
    # NegativeCheck.colTest is LessThan(column, 0): a null is not counted (data-validator's
    # README says a null fails; its code, which gives the verdicts, does not).
    path = config(
        tmp_path,
        data(tmp_path, {"n": (I32, [None, -3, 4, None])}),
        ["{type: negativeCheck, column: n}"],
    )
    assert verdicts(spark, path) == [("fail", 1)]


# --- RowBasedSpec > threshold tests ----------------------------------------------------------


@pytest.mark.parametrize(
    "threshold",
    ["10", "0.10", "10%", "10.0%", "150%", "1.", "1.%", "5 %", "5  ", "007"],
)
def test_row_based_spec_thresholds_accepted(tmp_path, threshold):
    # RowBasedSpec > threshold tests > validate different way of specifying thresholds:
    # "absolute 10", "less then 1.0", "10%", plus what THRESHOLD_NUMBER_REGEX
    # ^([0-9]+\.*[0-9]*)\s*%{0,1}$ also accepts: above 100%, "1.", spaces before '%'.
    path = config(
        tmp_path,
        tmp_path / "x.parquet",
        [f"{{type: nullCheck, column: c, threshold: '{threshold}'}}"],
    )
    (table,) = load(path).tables
    assert table.rules[0].threshold == threshold


@pytest.mark.parametrize(
    ("threshold", "fragment"),
    [
        ("'peanuts'", "Threshold `peanuts` not parsable."),  # "bad value"
        ("'-10'", "Threshold `-10` not parsable."),  # "is negative"
        ("'-0.1'", "Threshold `-0.1` not parsable."),  # "is negative fraction"
        ("'-10%'", "Threshold `-10%` not parsable."),  # "is negative percent"
        (
            "'-2.3 %'",
            "Threshold `-2.3 %` not parsable.",
        ),  # "negative percentage should be rejected"
        ("'2.3 %%%'", "Threshold `2.3 %%%` not parsable."),  # "multiple '%' should be rejected"
        ("' 5'", "Threshold ` 5` not parsable."),  # no leading space in the regex
        ("'.5'", "Threshold `.5` not parsable."),  # a digit first
        ("'1..5'", "Threshold `1..5` is not a number"),  # the regex takes it, toDouble fails
        ("10", "threshold must be a quoted string, got an integer"),  # circe ignores it
        ("0.5", "threshold must be a quoted string, got a number"),
    ],
)
def test_row_based_spec_thresholds_refused(tmp_path, threshold, fragment):
    # RowBasedSpec > threshold tests: "bad value" ... "multiple '%' should be rejected"
    text = refused(tmp_path, [f"{{type: nullCheck, column: c, threshold: {threshold}}}"])
    assert fragment in text and "tables[0].checks[0].threshold" in text


@pytest.mark.parametrize(
    ("threshold", "rows", "allowed"),
    [
        ("10", 10000, 10),  # calMaxErrors() > "absolute 10"
        ("0.10", 10000, 1000),  # "less then 1.0"
        ("10%", 10000, 1000),  # "10%"
        ("10%", 100, 10),  # " works with extra spacing before percentage sign"
        ("10%", 99, 9),  # "check for integer division"
        ("0.57", 100, 56),  # 0.57 * 100 = 56.99999999999999 in doubles, truncated
        ("57%", 100, 57),  # 57 * (100 / 100.0) = 57.0
        ("1.9", 10, 1),  # a number >= 1 is a row count, truncated
        ("150%", 10, 15),
        ("0", 10, 0),
    ],
)
def test_row_based_spec_calc_error_count_threshold(tmp_path, threshold, rows, allowed):
    # RowBasedSpec > threshold tests > calMaxErrors(): calcErrorCountThreshold
    path = config(
        tmp_path,
        tmp_path / "x.parquet",
        [f"{{type: nullCheck, column: c, threshold: '{threshold}'}}"],
    )
    (table,) = load(path).tables
    assert table.rules[0].check.tolerance.allowed(rows) == allowed


@pytest.mark.spark
def test_thresholds_judge_in_data_validator_arithmetic(spark, tmp_path):
    # 57 nulls in 100 rows: "0.57" allows (0.57 * 100).toLong = 56 (fail), "57%" allows
    # (57 * (100 / 100.0)).toLong = 57 (pass), "56.9" allows 56 (fail), "150%" 150 (pass)
    source = data(tmp_path, {"c": (S, [None] * 57 + ["x"] * 43)})
    checks = [
        f"{{type: nullCheck, column: c, threshold: '{t}'}}" for t in ("0.57", "57%", "56.9", "150%")
    ]
    assert verdicts(spark, config(tmp_path, source, checks)) == [
        ("fail", 57), ("pass", 57), ("fail", 57), ("pass", 57)
    ]  # fmt: skip


# --- RangeCheckSpec ---------------------------------------------------------------------------

RANGE_ROWS = {
    "item": (S, ["Eggs", "Milk", "Bread", "Cereal"]),
    "min": (F64, [2.99, 5.35, 1.00, 1.00]),
    "avg": (F64, [4.00, 7.42, 0.99, 1.10]),
    "max": (F64, [5.99, 10.27, 1.01, 1.01]),
}
RANGE = {c: t for c, (t, _) in RANGE_ROWS.items()}


@pytest.mark.parametrize(
    ("check", "fragment"),
    [
        # configCheck > "error if min and max are not defined"
        ("{type: rangeCheck, column: item}", "Must defined minValue or maxValue or both."),
        # configCheck > "error if min and max are different types"
        (
            "{type: rangeCheck, column: avg, minValue: 0, maxValue: ten}",
            "Unsupported type in 0, 'ten'",
        ),
        # configCheck > "error if col type is not equal value type" (strings, not columns)
        (
            "{type: rangeCheck, column: min, minValue: one, maxValue: '100'}",
            "Range constraint types not compatible with column 'min'",
        ),
        # configCheck > "minValue less than maxValue fails configCheck"
        (
            "{type: rangeCheck, column: avg, minValue: 110, maxValue: 100}",
            "minValue (110) must be less than maxValue (100)",
        ),
        # ... and equal bounds, even inclusive (checkMinLessThanMax: min >= max)
        (
            "{type: rangeCheck, column: avg, minValue: 5, maxValue: 5, inclusive: true}",
            "minValue (5) must be less than maxValue (5)",
        ),
        # substitute vars > "bad inclusive variable fails configCheck"
        (
            "{type: rangeCheck, column: min, minValue: 0, inclusive: 12345}",
            "Inclusive flag is defined, but is not a boolean, inclusive: 12345",
        ),
        ("{type: rangeCheck, column: min, minValue: true}", "Unsupported type in True"),
    ],
)
def test_range_check_spec_config_check_refusals(tmp_path, check, fragment):
    text = refused(tmp_path, [check])
    assert fragment in text and "tables[0].checks[0]" in text


def test_range_check_spec_config_check_against_the_schema(tmp_path):
    # configCheck > "error if column is not found in df"; Support column names for
    # min/max value > "specifying column names for min/max value" / "bad minValue column"
    # / "bad maxValue column"
    assert "'bad_column_name' does not exist" in preflight(
        tmp_path, RANGE, ["{type: rangeCheck, column: bad_column_name, minValue: 0}"]
    )
    good = "{type: rangeCheck, column: avg, minValue: '`min', maxValue: '`max', inclusive: true}"
    assert preflight(tmp_path, RANGE, [good]) == ""
    bad_min = (
        "{type: rangeCheck, column: avg, minValue: '`minColumn', maxValue: '`max', inclusive: true}"
    )
    assert "'minColumn' does not exist" in preflight(tmp_path, RANGE, [bad_min])
    bad_max = (
        "{type: rangeCheck, column: avg, minValue: '`min', maxValue: '`maxColumn', inclusive: true}"
    )
    assert "'maxColumn' does not exist" in preflight(tmp_path, RANGE, [bad_max])


@pytest.mark.parametrize(
    ("column_type", "check", "ok"),
    [
        (I8, "{type: rangeCheck, column: c, minValue: 0, maxValue: 100}", True),
        (I8, "{type: rangeCheck, column: c, maxValue: 300}", False),  # toByte fails
        (I32, "{type: rangeCheck, column: c, minValue: 0.5}", False),  # toInt of 0.5
        (I32, "{type: rangeCheck, column: c, minValue: 2.0}", True),  # a whole number
        (I64, "{type: rangeCheck, column: c, maxValue: 9007199254740993}", True),
        (F64, "{type: rangeCheck, column: c, minValue: 0.5}", True),
        (S, "{type: rangeCheck, column: c, minValue: 1}", False),  # accepted, then crashes
        (S, "{type: rangeCheck, column: c, minValue: '`d'}", True),  # string vs double: wider
    ],
)
def test_range_check_bound_must_fit_the_column_type(tmp_path, column_type, check, ok):
    # ValidatorBase.checkValue -> areNumberTypesCompatible (byte, short, int, long: toX;
    # double any number; no float, decimal or date) and checkValueString (a `column with
    # a wider common type)
    text = preflight(tmp_path, {"c": column_type, "d": F64}, [check])
    if ok:
        assert text == ""
    else:
        assert "Range constraint types not compatible with column" in text, text
        assert "tables[0].checks[0]" in text


@pytest.mark.spark
def test_range_check_spec_runs(spark, tmp_path):
    # Basic Range check > "finds errors in data": max in (6, 10) fails all 4 rows;
    # Support column names > "full example": avg <= min or avg >= max fails 2 (Bread,
    # Cereal); with inclusive: true, avg < min or avg > max also 2.
    path = config(
        tmp_path,
        data(tmp_path, RANGE_ROWS),
        [
            "{type: rangeCheck, column: max, minValue: 6, maxValue: 10}",
            "{type: rangeCheck, column: avg, minValue: '`min', maxValue: '`max'}",
            "{type: rangeCheck, column: avg, minValue: '`min', maxValue: '`max', inclusive: true}",
            "{type: rangeCheck, column: max, minValue: 1.01, threshold: 10%}",
        ],
        detailed=True,
    )
    got = results(spark, path)
    assert [(r["severity"], r["failed_count"]) for r in got] == [
        ("fail", 4), ("fail", 2), ("fail", 2), ("fail", 2)
    ]  # fmt: skip
    # "report.json works" / "detailed errors works": a sample with the key column
    assert got[1]["samples"] == [{"item": "Bread", "avg": 0.99, "min": 1.0, "max": 1.01}]


# --- StringLengthCheckSpec --------------------------------------------------------------------

LENGTH_ROWS = {
    "item": (S, ["Item1", "Item23", "I", ""]),
    "baseprice": (F64, [2.99, 5.35, 1.00, 1.00]),
}


@pytest.mark.parametrize(
    ("check", "fragment"),
    [
        # configCheck > "error if min and max are not defined"
        ("{type: stringLengthCheck, column: item}", "Must define minLength or maxLength or both."),
        # configCheck > "error if min and max are different types"
        (
            "{type: stringLengthCheck, column: item, minLength: 0, maxLength: ten}",
            "Unsupported type in 0, 'ten'",
        ),
        # configCheck > "minLength less than maxLength fails configCheck"
        (
            "{type: stringLengthCheck, column: item, minLength: 20, maxLength: 10}",
            "minLength (20) must be less than or equal to maxLength (10)",
        ),
        # accepted by configCheck, then createLiteral(IntegerType, ...) fails at run time
        ("{type: stringLengthCheck, column: item, minLength: ten}", "minLength must be an integer"),
        ("{type: stringLengthCheck, column: item, maxLength: 2.5}", "maxLength must be an integer"),
    ],
)
def test_string_length_check_spec_config_check_refusals(tmp_path, check, fragment):
    text = refused(tmp_path, [check])
    assert fragment in text and "tables[0].checks[0]" in text


def test_string_length_check_spec_config_check_against_the_schema(tmp_path):
    # configCheck > "error if column is not found in df" / "error if col type is not String"
    columns = {c: t for c, (t, _) in LENGTH_ROWS.items()}
    assert "'bad_column_name' does not exist" in preflight(
        tmp_path, columns, ["{type: stringLengthCheck, column: bad_column_name, minLength: 0}"]
    )
    text = preflight(
        tmp_path, columns, ["{type: stringLengthCheck, column: baseprice, minLength: 1}"]
    )
    assert "column baseprice is double, but this rule needs a string" in text


@pytest.mark.spark
def test_string_length_check_spec_runs(spark, tmp_path):
    # StringLengthCheckSpec > "String length check fails numErrorsToReport:1" (5..6: 2),
    # "... minLength = maxLength" (5..5: 3), "only minLength" (5: 2), "only maxLength"
    # (2: 2), "passes for minLength and maxLength" (0..6), "only minLength" (0), "only
    # maxLength" (6); plus data-validator's own readings: equal bounds, a negative bound,
    # a whole float, a length read from another column
    source = data(tmp_path, {**LENGTH_ROWS, "n": (I32, [5, 5, 0, 0])})
    checks = [
        "{type: stringLengthCheck, column: item, minLength: 5, maxLength: 6}",
        "{type: stringLengthCheck, column: item, minLength: 5, maxLength: 5}",
        "{type: stringLengthCheck, column: item, minLength: 5}",
        "{type: stringLengthCheck, column: item, maxLength: 2}",
        "{type: stringLengthCheck, column: item, minLength: 0, maxLength: 6}",
        "{type: stringLengthCheck, column: item, minLength: 0}",
        "{type: stringLengthCheck, column: item, maxLength: 6}",
        "{type: stringLengthCheck, column: item, minLength: -1, maxLength: 5.0}",
        "{type: stringLengthCheck, column: item, maxLength: '`n'}",
    ]
    assert verdicts(spark, config(tmp_path, source, checks)) == [
        ("fail", 2), ("fail", 3), ("fail", 2), ("fail", 2),
        ("pass", 0), ("pass", 0), ("pass", 0), ("fail", 1), ("fail", 2),
    ]  # fmt: skip


# --- StringRegexCheckSpec ---------------------------------------------------------------------

REGEX_ROWS = {
    "item": (S, ["Item1", "Item23", "I", None, None]),
    "baseprice": (F64, [2.99, 5.35, 1.0, 1.0, 2.0]),
}


def test_string_regex_check_spec_config_check(tmp_path):
    # configCheck > "error if regex is not defined" / "error if column is not found in df"
    # / "error if col type is not String"
    assert "Must define a regex." in refused(tmp_path, ["{type: stringRegexCheck, column: item}"])
    assert "regex must be a string" in refused(
        tmp_path, ["{type: stringRegexCheck, column: item, regex: 5}"]
    )
    columns = {c: t for c, (t, _) in REGEX_ROWS.items()}
    assert "'bad_column_name' does not exist" in preflight(
        tmp_path, columns, ["{type: stringRegexCheck, column: bad_column_name, regex: 'I%'}"]
    )
    text = preflight(
        tmp_path, columns, ["{type: stringRegexCheck, column: baseprice, regex: 'I%'}"]
    )
    assert "column baseprice is double, but this rule needs a string" in text


@pytest.mark.spark
def test_string_regex_check_spec_runs(spark, tmp_path):
    # "String regex check fails : numFailures=1" (^It: 1 of 5, nulls pass), "numFailures=2"
    # (^Item2: 2), "String regex check passes 1" (^I), "passes 2" (\w)
    checks = [
        "{type: stringRegexCheck, column: item, regex: '^It'}",
        "{type: stringRegexCheck, column: item, regex: '^Item2'}",
        "{type: stringRegexCheck, column: item, regex: '^I'}",
        "{type: stringRegexCheck, column: item, regex: '\\w'}",
    ]
    got = results(spark, config(tmp_path, data(tmp_path, REGEX_ROWS), checks))
    assert [(r["severity"], r["failed_count"], r["row_count"]) for r in got] == [
        ("fail", 1, 5), ("fail", 2, 5), ("pass", 0, 5), ("pass", 0, 5)
    ]  # fmt: skip


# --- ColumnBasedSpec > columnMaxCheck ---------------------------------------------------------

MAX_ROWS = {
    "key": (S, ["one", "two", "three"]),
    "data": (S, ["2018/10/01", "2018/10/02", "2018/10/31"]),
    "number": (I32, [3, 2, 1]),
    "byte": (I8, [10, 20, 30]),
    "double": (F64, [2.0, 3.5, 1.7]),
}
MAX = {c: t for c, (t, _) in MAX_ROWS.items()}


@pytest.mark.spark
def test_column_based_spec_column_max_check(spark, tmp_path):
    # ColumnBasedSpec > columnMaxCheck: "should not fail when value matches max column
    # value" / "should fail when value doesn't match max column value" / "... numeric
    # column matches" / "... doesn't match" / "... expected value is 0" / "... double
    # column matches" / "... doesn't match": the max found is reported in the column's type
    checks = [
        "{type: columnMaxCheck, column: data, value: 2018/10/31}",
        "{type: columnMaxCheck, column: data, value: 2018/11/01}",
        "{type: columnMaxCheck, column: number, value: 3}",
        "{type: columnMaxCheck, column: number, value: 100}",
        "{type: columnMaxCheck, column: number, value: 0}",
        "{type: columnMaxCheck, column: double, value: 3.5}",
        "{type: columnMaxCheck, column: double, value: 5.0}",
        "{type: columnMaxCheck, column: byte, value: 30}",
    ]
    got = results(spark, config(tmp_path, data(tmp_path, MAX_ROWS), checks))
    assert [(r["severity"], r["metric_value"]) for r in got] == [
        ("pass", None), ("fail", None), ("pass", 3), ("fail", 3), ("fail", 3),
        ("pass", 3.5), ("fail", 3.5), ("pass", 30),
    ]  # fmt: skip
    assert got[1]["details"] == {"expected": "2018/11/01", "actual": "2018/10/31"}
    assert got[3]["details"] == {"expected": 100, "actual": 3}
    assert got[6]["details"] == {"expected": 5.0, "actual": 3.5}


@pytest.mark.parametrize(
    ("check", "fragment"),
    [
        # "should fail when column doesn't exist"
        ("{type: columnMaxCheck, column: junk, value: 2018/10/31}", "'junk' does not exist"),
        # "should fail when byte column and value overflows"
        ("{type: columnMaxCheck, column: byte, value: 1000}", "column byte (tinyint), value 1000"),
        # "should fail when byte column and string value"
        ("{type: columnMaxCheck, column: byte, value: bit}", "column byte (tinyint), value 'bit'"),
        # checkTypes: a fraction for an int column, a number for a string column
        ("{type: columnMaxCheck, column: number, value: 2.5}", "column number (int), value 2.5"),
        ("{type: columnMaxCheck, column: data, value: 5}", "column data (string), value 5"),
        ("{type: columnMaxCheck, column: data, value: true}", "column data (string), value true"),
    ],
)
def test_column_based_spec_column_max_check_config_check(tmp_path, check, fragment):
    text = preflight(tmp_path, MAX, [check])
    assert fragment in text and "tables[0].checks[0]" in text


def test_column_max_check_refuses_the_column_types_data_validator_refuses(tmp_path):
    # ValidatorBase.areTypesCompatible: float and decimal columns are "Unexpected type",
    # dates and timestamps "not implemented"; a boolean column passes the config check
    # and then always fails ("ColumnMaxCheck is not supported for data type BooleanType")
    schema = [("f", "float"), ("d", "decimal(10,2)"), ("day", "date"), ("b", "boolean")]
    checks = [
        "{type: columnMaxCheck, column: f, value: 1.5}",
        "{type: columnMaxCheck, column: d, value: 1.5}",
        "{type: columnMaxCheck, column: day, value: 2024-01-01}",
        "{type: columnMaxCheck, column: b, value: true}",
    ]
    path = config(tmp_path, tmp_path / "x.parquet", checks)
    (table,) = load(path).tables
    problems = check_table(table, schema, ())
    assert [p.origin.path for p in problems] == [f"tables[0].checks[{i}]" for i in range(4)]
    assert "always fails" in (problems[3].hint or "")


# --- ColumnSumCheckSpec -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "fragment"),
    [
        # checkConfig > "'minValue' and 'maxValue' not present"
        (
            "{type: columnSumCheck, column: foo}",
            "columnSumCheck needs 'minValue', 'maxValue' or both",
        ),
        # "'inclusive' is a bad value"
        (
            "{type: columnSumCheck, column: foo, minValue: 1, inclusive: bar}",
            "Inclusive flag is defined, but is not a boolean, inclusive: 'bar'",
        ),
        # "'minValue' not less than 'maxValue'" (also when inclusive)
        (
            "{type: columnSumCheck, column: foo, minValue: 2.0, maxValue: 1.0}",
            "must be less than maxValue",
        ),
        (
            "{type: columnSumCheck, column: foo, minValue: 2, maxValue: 2, inclusive: true}",
            "must be less than maxValue",
        ),
        # "'minValue' and 'maxValue' must be numbers"
        ("{type: columnSumCheck, column: foo, minValue: x, maxValue: y}", "expected a number"),
    ],
)
def test_column_sum_check_spec_config_check_refusals(tmp_path, check, fragment):
    text = refused(tmp_path, [check])
    assert fragment in text and "tables[0].checks[0]" in text


def test_column_sum_check_spec_config_check_against_the_schema(tmp_path):
    # "'column' does not exist" / "'column' exists but is wrong type"; a decimal column
    # passes data-validator's config check but its quickCheck throws "Unsupported type"
    assert "'foo' does not exist" in preflight(
        tmp_path, {"bar": F64}, ["{type: columnSumCheck, column: foo, minValue: 0}"]
    )
    text = preflight(tmp_path, {"foo": S}, ["{type: columnSumCheck, column: foo, minValue: 0}"])
    assert "column foo is string, but this rule needs a number" in text
    path = config(
        tmp_path, tmp_path / "x.parquet", ["{type: columnSumCheck, column: d, minValue: 0}"]
    )
    (table,) = load(path).tables
    (problem,) = check_table(table, [("d", "decimal(10,2)")], ())
    assert "column d is decimal(10,2)" in str(problem) and "fails at run time" in (
        problem.hint or ""
    )


@pytest.mark.spark
def test_column_sum_check_spec_quick_check(spark, tmp_path):
    # ColumnSumCheckSpec > quickCheck: each test's column (doubles, ints, longs, shorts,
    # bytes as mkDf builds them) and bounds
    source = data(
        tmp_path,
        {
            "d3": (F64, [1.0, 2.0, 1.5]),
            "i123": (I32, [1, 2, 3]),
            "l123": (I64, [1, 2, 3]),
            "s121": (I16, [1, 2, 1]),
            "b121": (I8, [1, 2, 1]),
            "l111": (I64, [1, 1, 1]),
            "d111": (F64, [1.0, 1.0, 1.0]),
            "i11m": (I32, [1, 1, -1]),
            "i111": (I32, [1, 1, 1]),
        },
    )
    two = data(tmp_path, {"i11": (I32, [1, 1])}, "two")
    checks = [
        "{type: columnSumCheck, column: d3, minValue: 0}",  # "lower bound success"
        "{type: columnSumCheck, column: i123, minValue: 6}",  # "lower bound failure"
        "{type: columnSumCheck, column: l123, minValue: 6, inclusive: true}",  # "... inclusive success"
        "{type: columnSumCheck, column: s121, maxValue: 10.0}",  # "upper bound success with short"
        "{type: columnSumCheck, column: b121, maxValue: 10.0}",  # "... with byte"
        "{type: columnSumCheck, column: l111, maxValue: 1.0}",  # "upper bound failure"
        "{type: columnSumCheck, column: d111, maxValue: 3, inclusive: true}",  # "... inclusive success"
        "{type: columnSumCheck, column: i11m, minValue: 0, maxValue: 3}",  # "upper and lower bound success"
        "{type: columnSumCheck, column: i111, minValue: 10, maxValue: 20, inclusive: true}",
    ]
    assert [(r["severity"], r["metric_value"]) for r in results(spark, config(tmp_path, source, checks))] == [
        ("pass", 4.5), ("fail", 6), ("pass", 6), ("pass", 4), ("pass", 4), ("fail", 3),
        ("pass", 3.0), ("pass", 1), ("fail", 3),
    ]  # fmt: skip
    pair = [
        "{type: columnSumCheck, column: i11, minValue: 0, maxValue: 2}",  # "upper and lower bound failure"
        "{type: columnSumCheck, column: i11, minValue: 0, maxValue: 2, inclusive: true}",  # "upper bound and lower inclusive success"
    ]
    assert [(r["severity"], r["metric_value"]) for r in results(spark, config(tmp_path, two, pair))] == [
        ("fail", 2), ("pass", 2)
    ]  # fmt: skip


# --- ValidatorBaseSpec > ValidatorMinNumRows --------------------------------------------------


@pytest.mark.spark
def test_validator_base_spec_min_num_rows(spark, tmp_path):
    # ValidatorMinNumRows > "quickCheck() should fail when rowCount < minNumRows" (10 of
    # 2) / "should succeed when rowCount > minNumRows" (1); minNumRows through a variable
    # (ConfigVarSpec: getVarSubJson substitutes it as JSON)
    source = data(tmp_path, {"name": (S, ["Doug", "Collin"]), "age": (I32, [50, 32])})
    extra = "vars:\n  - {name: N, value: 2}\n"
    checks = [
        "{type: rowCount, minNumRows: 10}",
        "{type: rowCount, minNumRows: 1}",
        "{type: rowCount, minNumRows: $N}",
    ]
    got = results(spark, config(tmp_path, source, checks, keys=3, extra=extra))
    assert [(r["severity"], r["metric_value"]) for r in got] == [
        ("fail", 2),
        ("pass", 2),
        ("pass", 2),
    ]


@pytest.mark.parametrize("value", ["badinput", "-10", "0", "1.5", "true"])
def test_validator_base_spec_min_num_rows_config_check(tmp_path, value):
    # ValidatorMinNumRows > "configCheck() should fail for minNumRows as non-numeric" /
    # "... for negative minNumRows": "minNumRows must be a natural number"
    text = refused(tmp_path, [f"{{type: rowCount, minNumRows: {value}}}"])
    assert (
        "minNumRows must be a natural number" in text and "tables[0].checks[0].minNumRows" in text
    )


# --- ColStatsSpec -----------------------------------------------------------------------------

COLSTATS_A = list(range(2, 22))
COLSTATS_B = [
    0.3922, 0.4765, 0.1918, 0.0536, 0.4949, 0.5810, 0.2978, 0.0729, 0.868, 0.325,
    0.305, 0.217, 0.193, 0.405, 0.443, 0.103, 0.435, 0.953, 0.519, 0.958,
]  # fmt: skip


@pytest.mark.spark
def test_col_stats_spec(spark, tmp_path):
    # ColStatsSpec > "should run ColStats alongside other row and column based checks
    # without error" / "should generate the appropriate ColStats entries in report.json"
    source = data(tmp_path, {"a": (I64, COLSTATS_A), "b": (F64, COLSTATS_B)})
    checks = [
        "{type: colstats, column: a}",
        "{type: colstats, column: b}",
        "{type: nullCheck, column: a}",
        "{type: nullCheck, column: b}",
        "{type: columnSumCheck, column: a, minValue: 0}",
        "{type: columnSumCheck, column: b, minValue: 0}",
    ]
    got = results(
        spark, config(tmp_path, source, checks, keys=0, errors_to_report=5, detailed=True)
    )
    assert [r["severity"] for r in got] == ["pass"] * 6
    a, b = got[0]["details"], got[1]["details"]
    assert (a["count"], a["mean"], a["min"], a["max"]) == (20, 11.5, 2.0, 21.0)
    assert a["stdDev"] == 5.916079783099616
    edges_a = [2.0, 3.9, 5.8, 7.699999999999999, 9.6, 11.5, 13.399999999999999,
               15.299999999999999, 17.2, 19.099999999999998, 21.0]  # fmt: skip
    assert [(x["lowerBound"], x["upperBound"], x["count"]) for x in a["histogram"]["bins"]] == [
        (edges_a[i], edges_a[i + 1], 2) for i in range(10)
    ]
    assert (b["count"], b["min"], b["max"]) == (20, 0.0536, 0.958)
    # 0.414235 is the sum of two partitions' sums in data-validator's run; summed in one
    # pass the same doubles give 0.41423499999999996 (either is data-validator's answer)
    assert b["mean"] == pytest.approx(0.414235, rel=1e-15, abs=0)
    assert b["stdDev"] == 0.26725316654123255
    edges_b = [0.0536, 0.14404, 0.23448, 0.32492, 0.41535999999999995, 0.5057999999999999,
               0.59624, 0.68668, 0.7771199999999999, 0.8675599999999999, 0.958]  # fmt: skip
    counts_b = [3, 3, 2, 3, 4, 2, 0, 0, 0, 3]
    assert [(x["lowerBound"], x["upperBound"], x["count"]) for x in b["histogram"]["bins"]] == [
        (edges_b[i], edges_b[i + 1], counts_b[i]) for i in range(10)
    ]


# --- the CLI: a config-check refusal is exit 2 with file:line and the config path --------------


@pytest.mark.spark
def test_a_value_that_does_not_fit_the_column_exits_2_before_any_scan(server, tmp_path):
    # ColumnBasedSpec > "should fail when byte column and value overflows", through the CLI
    source = data(tmp_path, MAX_ROWS)
    path = config(
        tmp_path,
        source,
        ["{type: nullCheck, column: key}", "{type: columnMaxCheck, column: byte, value: 300}"],
    )
    before = server.sql_executions()
    proc = assay("run", str(path), "--remote", server.url)
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{path}:8 tables[0].checks[1]" in proc.stderr
    assert "column byte (tinyint), value 300" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "DATA_VALIDATOR_STATUS=FAIL"
    assert server.sql_executions() == before


# --- ConfigVarSpec ----------------------------------------------------------------------------


def test_config_var_spec_substitution_in_values_and_env_names(tmp_path, monkeypatch):
    # ConfigVarSpec > NameValue > "var sub in value" ("${four} score" -> "4 score");
    # NameEnv > "var sub in env value" (env "JAVA_${h}" with h=HOME reads JAVA_HOME)
    monkeypatch.setenv("JAVA_HOME", "/opt/jdk")
    extra = (
        "vars:\n  - {name: four, value: '4'}\n  - {name: foo, value: '${four} score'}\n"
        "  - {name: h, value: HOME}\n  - {name: java_home, env: 'JAVA_${h}'}\n"
    )
    checks = ["{type: stringRegexCheck, column: c, regex: '$foo|$java_home'}"]
    (table,) = load(config(tmp_path, tmp_path / "x.parquet", checks, extra=extra)).tables
    assert dict(table.rules[0].params)["regex"] == "4 score|/opt/jdk"


def test_config_var_spec_substitution_fails_when_the_value_does_not_exist(tmp_path):
    # ConfigVarSpec > NameValue / NameEnv > "var sub fails when value doesn't exist"
    extra = "vars:\n  - {name: java_home, env: 'JAVA_${h}'}\n"
    text = errors(
        config(tmp_path, tmp_path / "x.parquet", ["{type: rowCount, minNumRows: 1}"], extra=extra)
    )
    assert 'unknown variable "h"' in text


# --- ConfigParserSpec -------------------------------------------------------------------------

TEST_CONFIG = """\
numKeyCols: 2
numErrorsToReport: 742
email:
  smtpHost: smtpHost
  subject: subject
  from: FROM
  to:
   - TO
detailedErrors: true
vars:
  - name: foo
    value: bar

outputs:
  - filename: /user/home/sample.json

  - pipe: /apps/dv2kafka.py
    ignoreError: true
tables:
  - db: foo
    table: bar
    keyColumns:
      - one
      - two
    checks:
      - type: rowCount
        minNumRows: 10294
      - type: nullCheck
        column: mdse_item_i
  - orcFile: LocalFile.orc
    condition: "foo < 10"
    checks:
      - type: nullCheck
        column: start_d
  - parquetFile: LocFile.parquet
    condition: "bar < 10"
    checks:
      - type: nullCheck
        column: end_d
  - format: llama
    checks:
      - type: nullCheck
        column: start_d
    options:
      key: value
    loadData:
      - data.llama
"""


def test_config_parser_spec_parses_its_test_config(tmp_path):
    # ConfigParserSpec > parse > "should correctly parse simple yaml config" (the text of
    # src/test/resources/test_config.yaml), with real email addresses: assay checks every
    # address when the config is read, and data-validator's placeholders "from" / "to"
    # are not addresses (see the second half)
    from assay.ir import CatalogSource, PathSource
    from assay.ir.outputs import EmailReport, ReportFile, ReportPipe

    path = tmp_path / "test_config.yaml"
    path.write_text(TEST_CONFIG.replace("FROM", "from@example.com").replace("TO", "to@example.com"))
    suite = load(path, allow_shell=True)
    hive, orc, parquet, llama = suite.tables
    assert hive.source == CatalogSource("foo.bar") and hive.keys == ("one", "two")
    assert [r.kind for r in hive.rules] == ["row_count", "not_null"]
    assert hive.rules[0].threshold == ">= 10294" and hive.rules[1].columns == ("mdse_item_i",)
    assert orc.source == PathSource("orc", (str(tmp_path / "LocalFile.orc"),))
    assert (orc.filter, orc.key_count, orc.sample_size, orc.detail) == ("foo < 10", 2, 742, True)
    assert parquet.filter == "bar < 10" and parquet.rules[0].columns == ("end_d",)
    assert llama.source == PathSource("llama", ("data.llama",), (("key", "value"),))
    file, pipe, email = suite.reports
    assert (
        isinstance(file, ReportFile) and file.path == "/user/home/sample.json" and not file.append
    )
    assert (
        isinstance(pipe, ReportPipe) and pipe.command == "/apps/dv2kafka.py" and pipe.ignore_error
    )
    assert isinstance(email, EmailReport) and email.to == ("to@example.com",)
    path.write_text(TEST_CONFIG.replace("FROM", "from").replace("TO", "to"))
    assert "'from' is not an email address" in errors(path, allow_shell=True)

"""Reading Great Expectations suites without Spark: detection, the mapping onto the IR,
GX's refusals and assay's, errors in the suite's own terms."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from assay.dialects.great_expectations_results import gx_numbers
from assay.ir.expr import And, Col, Compare, InSet, IsNull, Lit, Matches, Not, Or, Sql, is_true
from assay.ir.metrics import AggregateMetric, ColumnMetric, ComplianceMetric, GroupMetric
from assay.ir.rules import MetricCheck, RowCheck, SchemaCheck, SqlCheck, UniqueCheck
from assay.ir.values import Op, Tolerance
from tests.dialects.helpers import errors, load, write


def suite(tmp_path, *expectations, old=False, name="s.json"):
    if old:
        items = [{"expectation_type": t, "kwargs": k, "meta": {}} for t, k in expectations]
        doc = {"expectation_suite_name": "old_suite", "expectations": items}
    else:
        items = [{"type": t, "kwargs": k, "meta": {}} for t, k in expectations]
        doc = {"name": "new suite", "expectations": items}
    return write(tmp_path, json.dumps(doc, indent=2), name)


def rules(tmp_path, *expectations, **kwargs):
    found = load(suite(tmp_path, *expectations, **kwargs), source="data.parquet")
    return found.tables[0].rules


def test_both_suite_forms_are_detected_and_named(tmp_path):
    new = load(suite(tmp_path, ("expect_column_values_to_not_be_null", {"column": "x"})),
               source="db.t")  # fmt: skip
    old = load(suite(tmp_path, ("expect_column_values_to_not_be_null", {"column": "x"}),
                     old=True, name="o.json"), source="db.t")  # fmt: skip
    assert new.dialects == ("great-expectations",) == old.dialects
    assert new.tables[0].name == "new_suite" and old.tables[0].name == "old_suite"
    assert new.tables[0].rules[0].check == old.tables[0].rules[0].check


def test_column_map_expectations_leave_nulls_out_and_read_mostly(tmp_path):
    between, not_null = rules(
        tmp_path,
        ("expect_column_values_to_be_between",
         {"column": "x", "min_value": 1, "max_value": 9, "strict_max": True, "mostly": 0.9}),
        ("expect_column_values_to_not_be_null", {"column": "x"}),
    )  # fmt: skip
    assert between.kind == "expect_column_values_to_be_between"
    assert isinstance(between.check, RowCheck)
    assert between.check.tolerance == Tolerance("gx_mostly", Decimal("0.9"), "0.9")
    assert between.filter == Not(IsNull(Col("x")))
    outside = Or((Compare(Op.LT, Col("x"), Lit(1)), Compare(Op.GE, Col("x"), Lit(9))))
    assert between.check.failing == is_true(outside)
    assert not_null.filter is None and not_null.check == RowCheck(IsNull(Col("x")))


def test_mostly_is_judged_as_gx_does_in_doubles():
    mostly = Tolerance("gx_mostly", Decimal("0.9"), "0.9")
    assert mostly.passes(1, 10) and not mostly.passes(2, 10)
    assert Tolerance("gx_mostly", Decimal("0.8999"), "0.8999").passes(1, 10)
    assert Tolerance("gx_mostly", Decimal("1.0"), "1.0").passes(0, 0)


def test_sets_regexes_and_row_conditions(tmp_path):
    in_set, regex, cond, gx = rules(
        tmp_path,
        ("expect_column_values_to_be_in_set", {"column": "s", "value_set": ["a", 1]}),
        ("expect_column_values_to_match_regex_list",
         {"column": "s", "regex_list": ["^a", "b$"], "match_on": "all"}),
        ("expect_column_values_to_not_be_null",
         {"column": "s", "row_condition": "n > 5", "condition_parser": "spark"}),
        ("expect_column_values_to_be_unique",
         {"column": "s", "row_condition": 'col("n")>=5', "condition_parser": "great_expectations"}),
    )  # fmt: skip
    assert in_set.check == RowCheck(is_true(Not(InSet(Col("s"), ("a", 1)))))
    both = And((Matches(Col("s"), "^a"), Matches(Col("s"), "b$")))
    assert regex.check == RowCheck(is_true(Not(both)))
    assert cond.filter == Sql("n > 5") and cond.place("filter").line is not None
    assert gx.filter == And((Compare(Op.GE, Col("n"), Lit(5)), Not(IsNull(Col("s")))))
    assert isinstance(gx.check, UniqueCheck)


def test_aggregates_and_schema(tmp_path):
    mean, exists = rules(
        tmp_path,
        ("expect_column_mean_to_be_between", {"column": "x", "min_value": 1, "strict_min": True}),
        ("expect_column_to_exist", {"column": "X"}),
    )
    assert isinstance(mean.check, MetricCheck) and mean.check.metric == ColumnMetric("avg", "x")
    assert not mean.check.must.holds(1) and mean.check.must.holds(2)
    assert exists.check == SchemaCheck(required=("X",), case_sensitive=True)


@pytest.mark.parametrize(
    ("expectation", "kwargs", "wanted"),
    [
        ("expect_column_kl_divergence_to_be_less_than", {"column": "x"},
         "expectations[0].type: Great Expectations: 'expect_column_kl_divergence_to_be_less_than'"
         " is not supported"),
        ("expect_column_values_to_be_between", {"column": "x", "min_value": 5, "max_value": 1},
         "expectations[0].kwargs.min_value: min_value cannot be greater than max_value"),
        ("expect_column_values_to_be_between", {"column": "x"},
         "expectations[0].kwargs: min_value and max_value cannot both be None"),
        ("expect_column_values_to_be_between", {"column": "x", "min_value": 1, "mostly": 2},
         "expectations[0].kwargs.mostly: mostly must be between 0 and 1"),
        ("expect_column_values_to_be_null", {"column": "x", "valu_set": [1]},
         "expectations[0].kwargs.valu_set: unknown key"),
        ("expect_column_values_to_be_null",
         {"column": "x", "row_condition": "x > 1", "condition_parser": "pandas"},
         "expectations[0].kwargs.condition_parser: condition_parser 'pandas' is not supported"),
    ],
)  # fmt: skip
def test_refusals_name_the_suite_path(tmp_path, expectation, kwargs, wanted):
    text = errors(suite(tmp_path, (expectation, kwargs)), source="db.t")
    assert "s.json:" in text and wanted in text


def test_a_suite_alone_needs_source_to_run(tmp_path):
    path = suite(tmp_path, ("expect_column_values_to_not_be_null", {"column": "x"}))
    assert "checks the table given with --source" in errors(path, for_run=True)
    assert load(path).tables[0].rules  # explain: a placeholder table


def test_a_native_table_binds_a_suite(tmp_path):
    suite(tmp_path, ("expect_column_values_to_not_be_null", {"column": "x"}),
          ("expect_column_values_to_be_unique", {"colum": "x"}))  # fmt: skip
    config = write(tmp_path, """
        tables:
          - name: t
            source: {table: db.t}
            expectations: s.json
        """)  # fmt: skip
    assert "s.json:" in errors(config) and "expectations[1].kwargs" in errors(config)
    suite(tmp_path, ("expect_column_values_to_not_be_null", {"column": "x"}))
    table = load(config).tables[0]
    assert [r.kind for r in table.rules] == ["expect_column_values_to_not_be_null"]


def test_gx_numbers_of_a_result(tmp_path):
    between, nulls, mean = rules(
        tmp_path,
        ("expect_column_values_to_be_between", {"column": "x", "min_value": 1}),
        ("expect_column_values_to_be_null", {"column": "x"}),
        ("expect_column_max_to_be_between", {"column": "x", "max_value": 1}),
    )
    assert gx_numbers(between, 2, 8, None, [{"x": 0}, {"x": -1}]) == {
        "unexpected_count": 2, "unexpected_percent": 25.0, "partial_unexpected_list": [0, -1]
    }  # fmt: skip
    assert gx_numbers(nulls, 1, 10, None, None) == {
        "unexpected_count": 1, "unexpected_percent": 10.0, "element_count": 10
    }  # fmt: skip
    assert gx_numbers(between, 0, 0, None, None)["unexpected_percent"] is None
    assert gx_numbers(mean, None, 10, 7, None) == {"observed_value": 7, "element_count": 10}


def test_pairs_columns_and_proportions(tmp_path):
    equal, greater, exact, at_least, ordered, proportion = rules(
        tmp_path,
        ("expect_column_pair_values_to_be_equal", {"column_A": "a", "column_B": "b"}),
        ("expect_column_pair_values_a_to_be_greater_than_b",
         {"column_A": "a", "column_B": "b", "or_equal": True, "ignore_row_if": "neither"}),
        ("expect_table_columns_to_match_set", {"column_set": ["a", "b"], "exact_match": True}),
        ("expect_table_columns_to_match_set", {"column_set": ["a"], "exact_match": False}),
        ("expect_table_columns_to_match_ordered_list", {"column_list": ["b", "a"]}),
        ("expect_column_proportion_of_unique_values_to_be_between",
         {"column": "a", "min_value": 0.5}),
    )  # fmt: skip
    both_null = And((IsNull(Col("a")), IsNull(Col("b"))))
    eq = is_true(Compare(Op.EQ, Col("a"), Col("b")))
    assert equal.check == RowCheck(Not(Or((both_null, eq))))  # null-safe, as eqNullSafe
    assert equal.filter == Not(both_null)
    assert greater.check == RowCheck(is_true(Not(Compare(Op.GE, Col("a"), Col("b")))))
    assert greater.filter is None
    assert exact.check == SchemaCheck(("a", "b"), case_sensitive=True, exactly="set")
    assert at_least.check == SchemaCheck(("a",), case_sensitive=True, exactly="superset")
    assert ordered.check == SchemaCheck(("b", "a"), case_sensitive=True, exactly="order")
    assert isinstance(proportion.check, MetricCheck)
    assert proportion.check.metric == GroupMetric(("a",), "distinct_ratio")


def test_what_gx_1x_reads_where_0x_fixtures_are_silent(tmp_path):
    # the oracle (test_oracle.py) found both: GX 1.x's exact_match is True unless given,
    # and Spark's isin with a null in the set is never false
    exact, explicit_null, in_set, not_in_set = rules(
        tmp_path,
        ("expect_table_columns_to_match_set", {"column_set": ["a"]}),
        ("expect_table_columns_to_match_set", {"column_set": ["a"], "exact_match": None}),
        ("expect_column_values_to_be_in_set", {"column": "a", "value_set": ["x", None]}),
        ("expect_column_values_to_not_be_in_set", {"column": "a", "value_set": ["x", None]}),
    )  # fmt: skip
    assert exact.check == SchemaCheck(("a",), case_sensitive=True, exactly="set")
    assert explicit_null.check.exactly == "superset"
    assert in_set.check == RowCheck(is_true(Lit(False)))  # no value is unexpected
    assert not_in_set.check == RowCheck(is_true(InSet(Col("a"), ("x",))))


def test_type_expectations_are_schema_checks_of_pyspark_classes(tmp_path):
    of_type, numeric, in_list, no_list = rules(
        tmp_path,
        ("expect_column_values_to_be_of_type", {"column": "a", "type_": "IntegerType"}),
        ("expect_column_values_to_be_of_type", {"column": "a", "type_": "IntegralType",
                                                "mostly": 0.5}),
        ("expect_column_values_to_be_in_type_list",
         {"column": "a", "type_list": ["int", "INTEGER", "StringType", "DateType"]}),
        ("expect_column_values_to_be_in_type_list", {"column": "a", "type_list": None}),
    )  # fmt: skip
    assert of_type.check == SchemaCheck(("a",), types=(("a", "int"),), case_sensitive=True,
                                        exactly="superset")  # fmt: skip
    assert numeric.check.types == (("a", "tinyint|smallint|int|bigint"),)
    assert in_list.check.types == (("a", "string|stringcollate*|date"),)
    assert no_list.check.types == () and no_list.filter is None


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"type_": "int"}, "kwargs.type_: Great Expectations on Spark knows no type 'int'"),
        ({"type_": "STRING"}, "knows no type 'STRING'"),
        ({"type_": "StructField"}, "knows no type 'StructField'"),
        ({"type_list": ["int", "str"]}, "kwargs.type_list: Great Expectations on Spark knows "
                                        "no type 'int, str'"),
        ({"type_list": []}, "knows no type '[]'"),
    ],
)  # fmt: skip
def test_type_names_gx_would_not_match_are_refused(tmp_path, kwargs, said):
    kind = "in_type_list" if "type_list" in kwargs else "of_type"
    text = errors(suite(tmp_path, (f"expect_column_values_to_be_{kind}", {"column": "a", **kwargs})),
                  source="d.parquet")  # fmt: skip
    assert said in text and "IntegerType" in text  # the hint names the valid names


def test_type_names_are_pysparks_classes():
    """The dialect's table of type names (no pyspark) against pyspark.sql.types: every
    class a column's type can be an instance of, each matching exactly the type strings
    of its instances."""
    import inspect

    import pyspark.sql.types as T

    from assay.dialects import great_expectations_types as types
    from assay.judge.own import type_matches

    classes = {n: c for n, c in vars(T).items() if inspect.isclass(c) and issubclass(c, T.DataType)}
    assert set(types.NAMES) == set(classes) - {"StructField"}
    for name in types.NAMES:
        subclasses = {c for c in types.CONCRETE if issubclass(classes[c], classes[name])}
        assert subclasses == set(types.ABSTRACT.get(name, (name,))), name
    samples = [T.NullType(), T.StringType(), T.StringType("UTF8_LCASE"), T.CharType(3),
               T.VarcharType(5), T.BinaryType(), T.BooleanType(), T.DateType(), T.TimeType(6),
               T.TimestampType(), T.TimestampNTZType(), T.DecimalType(38, 18), T.DoubleType(),
               T.FloatType(), T.ByteType(), T.ShortType(), T.IntegerType(), T.LongType(),
               T.DayTimeIntervalType(), T.DayTimeIntervalType(1, 1), T.DayTimeIntervalType(2, 3),
               T.YearMonthIntervalType(), T.YearMonthIntervalType(1, 1),
               T.CalendarIntervalType(), T.ArrayType(T.IntegerType()),
               T.MapType(T.StringType(), T.IntegerType()),
               T.StructType([T.StructField("Interval", T.IntegerType())]), T.VariantType(),
               T.GeographyType(4326), T.GeometryType("ANY")]  # fmt: skip
    assert {type(t).__name__ for t in samples} == set(types.CONCRETE) - {"UserDefinedType"}
    for sample in samples:
        assert types.class_name(sample.simpleString()) == type(sample).__name__
        for name in types.NAMES:
            matched = type_matches(types.pattern((name,)), sample.simpleString())
            assert matched == isinstance(sample, classes[name]), (name, sample.simpleString())


_Q = "expect_column_quantile_values_to_be_between"
_ROWS = "unexpected_rows_expectation"


@pytest.mark.parametrize(
    ("expectation", "kwargs", "wanted"),
    [
        (_Q, {"column": "x", "quantile_ranges": {"quantiles": [0.5], "value_ranges": [[2, 1]]}},
         "expectations[0].kwargs.quantile_ranges.value_ranges[0]: quantile_ranges must consist "
         "of ordered pairs"),
        (_Q, {"column": "x", "quantile_ranges": {"quantiles": [0.5, 0.9], "value_ranges": [[1, 2]]}},
         "expectations[0].kwargs.quantile_ranges: quantile_values and quantiles must have the "
         "same number of elements"),
        (_Q, {"column": "x", "quantile_ranges": {"quantiles": [1.5], "value_ranges": [[1, 2]]}},
         "quantiles[0]: a quantile is between 0 and 1"),
        (_Q, {"column": "x", "allow_relative_error": 0.01,
              "quantile_ranges": {"quantiles": [0.5], "value_ranges": [[1, 2]]}},
         "expectations[0].kwargs.allow_relative_error: allow_relative_error 0.01 is not supported"),
        (_ROWS, {"unexpected_rows_query": "SELECT * FROM {table}"},
         "expectations[0].kwargs.unexpected_rows_query: unexpected_rows_query: {table} is not a "
         "placeholder GX fills"),
        (_ROWS, {"unexpected_rows_query": "SELECT * FROM {batch} WHERE s LIKE '{%'"},
         "unexpected_rows_query has an unpaired or malformed brace"),
        (_ROWS, {"unexpected_rows_query": "SELECT * FROM {batch}", "row_condition": "a > 1",
                 "condition_parser": "spark"},
         "expectations[0].kwargs.row_condition: row_condition is not supported with "
         "unexpected_rows_query"),
    ],
)  # fmt: skip
def test_the_quantiles_and_queries_refused_as_gx_refuses_them(tmp_path, expectation, kwargs,
                                                              wanted):  # fmt: skip
    text = errors(suite(tmp_path, (expectation, kwargs)), source="db.t")
    assert "s.json:" in text and wanted in text


def test_proportions_quantiles_and_queries_as_rules(tmp_path):
    found = rules(
        tmp_path,
        ("expect_column_proportion_of_non_null_values_to_be_between",
         {"column": "x", "min_value": 0.5}),
        (_Q, {"column": "x", "allow_relative_error": False,
              "quantile_ranges": {"quantiles": [0, 1], "value_ranges": [[None, 10], [1, 1]]}}),
        (_ROWS, {"unexpected_rows_query": "SELECT * FROM {batch} WHERE a = '{{x}}' ;\n"}),
    )  # fmt: skip
    proportion, quantiles, query = (r.check for r in found)
    assert isinstance(proportion, MetricCheck)
    assert proportion.metric == ComplianceMetric(Not(IsNull(Col("x"))), empty=0.0)
    assert isinstance(quantiles, MetricCheck) and len(quantiles.also) == 1
    assert isinstance(quantiles.metric, AggregateMetric)
    assert quantiles.metric.args == ((Decimal("0.0"), Decimal("1.0")), 2**31 - 1)
    assert quantiles.metric.element == 0 and quantiles.also[0][0].element == 1  # type: ignore[union-attr]
    assert quantiles.metric.cast == "double"
    assert quantiles.must.high == Decimal("10") + Decimal("1e-8") + Decimal("1e-3")
    assert quantiles.must.low is None and not quantiles.must.holds(10.0011)
    low_one = quantiles.also[0][1]
    assert low_one.holds(1 - 1e-4) and not low_one.holds(1 - 2e-4)  # GX's isclose(v, 1)
    assert query == SqlCheck("SELECT * FROM _validation_df WHERE a = '{x}'", "failed_rows")


@pytest.mark.parametrize(
    ("expectation", "why"),
    [
        ("expect_column_values_to_match_like_pattern", "no Spark implementation"),
        ("expect_table_row_count_to_equal_other_table", "multiple named tables"),
        ("expect_column_values_to_be_increasing", "no defined order"),
        ("expect_column_value_z_scores_to_be_less_than", "a second pass"),
    ],
)
def test_refusals_say_why(tmp_path, expectation, why):
    text = errors(suite(tmp_path, (expectation, {"column": "x"})), source="db.t")
    assert f"'{expectation}' is not supported: " in text and why in text

"""Verdicts from measured values: thresholds, tolerances, warn, levels, empty tables."""

from __future__ import annotations

from decimal import Decimal

import pytest

from assay.ir import (
    Between,
    Col,
    ColumnMetric,
    Comparison,
    CountMetric,
    GroupMetric,
    IsNull,
    MetricCheck,
    Op,
    Origin,
    RowCheck,
    Rule,
    SchemaCheck,
    SqlCheck,
    Tolerance,
    UniqueCheck,
)
from assay.judge.evaluate import judge
from assay.judge.own import judge_schema, judge_sql, type_matches
from assay.planner.measures import ColumnAgg, CountIf, GroupStats, RowCount

ORIGIN = Origin("t.yaml", "tables[0].rules[0]")
NULLS = IsNull(Col("a"))


def row_rule(tolerance=None, level="error") -> Rule:
    check = RowCheck(NULLS) if tolerance is None else RowCheck(NULLS, tolerance)
    return Rule("not_null", check, ORIGIN, columns=("a",), level=level)


@pytest.mark.parametrize(
    ("failed", "rows", "tolerance", "severity"),
    [
        (0, 10, None, "pass"),
        (1, 10, None, "fail"),
        (3, 10, Tolerance("absolute", Decimal(3), "3"), "pass"),
        (4, 10, Tolerance("absolute", Decimal(3), "3"), "fail"),
        (25, 100, Tolerance("fraction", Decimal("0.25"), "25%"), "pass"),
        (26, 100, Tolerance("fraction", Decimal("0.25"), "25%"), "fail"),
        (0, 0, None, "pass"),
    ],
    ids=["none", "one", "abs-edge", "abs-over", "pct-edge", "pct-over", "empty"],
)
def test_row_rule_tolerance(failed, rows, tolerance, severity):
    out = judge(row_rule(tolerance), {RowCount(): rows, CountIf(NULLS): failed})
    assert out.severity == severity
    assert out.failed_count == failed
    assert out.passed == (severity == "pass")


def test_warn_level_failure_is_a_warning_that_did_not_pass():
    # deequ's CheckStatus.Warning: the condition did not hold; the level says what it means
    out = judge(row_rule(level="warn"), {RowCount(): 10, CountIf(NULLS): 2})
    assert (out.severity, out.passed) == ("warn", False)


def test_warn_level_rule_that_holds_passes():
    out = judge(row_rule(level="warn"), {RowCount(): 10, CountIf(NULLS): 0})
    assert (out.severity, out.passed) == ("pass", True)


def metric(check_metric, must, warn=None) -> Rule:
    return Rule("m", MetricCheck(check_metric, must, warn), ORIGIN, columns=("a",))


LT5 = Comparison(Op.LT, Decimal(5), "< 5")
EQ0 = Comparison(Op.EQ, Decimal(0), "= 0")


@pytest.mark.parametrize(
    ("missing", "rows", "severity", "value"),
    [(0, 100, "pass", 0.0), (3, 100, "warn", 3.0), (5, 100, "fail", 5.0), (0, 0, "pass", 0.0)],
    ids=["zero", "warn", "edge-fails", "empty-table"],
)
def test_missing_percent_must_and_warn(missing, rows, severity, value):
    counted = IsNull(Col("a"))
    rule = metric(CountMetric(counted, percent=True), LT5, EQ0)
    out = judge(rule, {RowCount(): rows, CountIf(counted): missing})
    assert (out.severity, out.metric_value, out.failed_count) == (severity, value, missing)


def test_metric_with_no_value_fails_with_reason():
    out = judge(metric(ColumnMetric("avg", "a"), LT5), {ColumnAgg("avg", "a"): None})
    assert out.severity == "fail" and "no value" in out.message


def test_decimal_bounds_are_exact():
    between = Between(Decimal("10.10"), Decimal("20"), "between 10.10 and 20")
    out = judge(
        metric(ColumnMetric("sum", "a"), between), {ColumnAgg("sum", "a"): Decimal("10.10")}
    )
    assert out.severity == "pass"
    out = judge(
        metric(ColumnMetric("sum", "a"), between), {ColumnAgg("sum", "a"): Decimal("10.09")}
    )
    assert out.severity == "fail"


def test_group_stats():
    stats = {"groups": 8, "rows": 10, "dup_rows": 3, "unique_rows": 7}
    values = {RowCount(): 11, GroupStats(("id",)): stats}
    unique = Rule("unique", UniqueCheck(("id",)), ORIGIN, columns=("id",))
    assert judge(unique, values).failed_count == 3
    distinct = metric(GroupMetric(("id",), "distinct_count"), Comparison(Op.EQ, Decimal(8), "= 8"))
    assert judge(distinct, values).metric_value == 8


def test_schema_and_types():
    rule = Rule(
        "schema",
        SchemaCheck(
            required=("id", "x"),
            forbidden=("_debug",),
            types=(("amount", "decimal"), ("id", "bigint")),
        ),
        ORIGIN,
    )
    out = judge_schema(rule, [("id", "int"), ("amount", "decimal(10,2)"), ("_debug", "string")])
    assert out.severity == "fail"
    assert "missing column x" in out.message and "forbidden column _debug" in out.message
    assert "column id is int, expected bigint" in out.message
    assert type_matches("decimal", "decimal(38,0)")


def test_sql_verdicts():
    rule = Rule("sql", SqlCheck("SELECT true"), ORIGIN)
    assert judge_sql(rule, 1, True).severity == "pass"
    assert judge_sql(rule, 1, False).severity == "fail"
    assert judge_sql(rule, 1, None).severity == "fail"
    assert judge_sql(rule, 2, True).severity == "error"
    rows = Rule("sql", SqlCheck("SELECT * FROM t", "failed_rows"), ORIGIN)
    assert (judge_sql(rows, 1, 4).severity, judge_sql(rows, 1, 4).failed_count) == ("fail", 4)

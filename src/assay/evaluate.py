"""Judging: measured values -> a verdict per rule (pure; no Spark).

Severity is ``pass``, ``warn`` or ``fail`` (``error`` when the rule could not be
evaluated). ``passed`` is true for ``pass`` and ``warn``: a warning never fails a run.
A rule whose ``level`` is ``warn`` reports its failures as warnings.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from assay.ir.rules import (
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    GroupMetric,
    MetricCheck,
    RowCheck,
    RowCountMetric,
    Rule,
    SchemaCheck,
    SqlCheck,
    UniqueCheck,
)
from assay.planner.measures import ColumnAgg, CountIf, GroupStats, Measure, RowCount, ServerNow

Severity = Literal["pass", "warn", "fail", "error"]
Number = int | float | Decimal
Values = Mapping[Measure, object]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict on one rule."""

    severity: Severity
    failed_count: int | None
    metric_value: Number | None
    message: str

    @property
    def passed(self) -> bool:
        """True for ``pass`` and ``warn``."""
        return self.severity in ("pass", "warn")


def judge(rule: Rule, values: Values) -> Outcome:
    """Judge a rule computed by the aggregate pass from its measures' values."""
    check = rule.check
    rows = int(values.get(RowCount(), 0) or 0)
    if isinstance(check, RowCheck):
        failed = int(values[CountIf(check.failing)] or 0)
        return _tolerance_outcome(rule, failed, rows, check.tolerance)
    if isinstance(check, UniqueCheck):
        failed = int(_group(values, check.columns)["dup_rows"] or 0)
        return _tolerance_outcome(rule, failed, rows, check.tolerance, "share their value")
    if isinstance(check, MetricCheck):
        return _metric_outcome(rule, check, values, rows)
    raise TypeError(f"{rule.kind} is not judged from the aggregate pass")


def _fail(rule: Rule) -> Severity:
    return "warn" if rule.level == "warn" else "fail"


def _tolerance_outcome(rule: Rule, failed: int, rows: int, tolerance, what: str = "fail") -> Outcome:
    ok = tolerance.passes(failed, rows)
    about = f" ({', '.join(rule.columns)})" if rule.columns else ""
    message = f"{failed} of {rows} rows {what}: {rule.kind}{about}"
    if tolerance.value:
        message += f"; tolerance {tolerance.text} allows {_fmt(tolerance.allowed(rows))}"
    return Outcome("pass" if ok else _fail(rule), failed, None, message)


def _group(values: Values, columns: tuple[str, ...]) -> Mapping[str, object]:
    stats = values[GroupStats(columns)]
    assert isinstance(stats, Mapping)
    return stats


def metric_value(check: MetricCheck, values: Values, rows: int) -> Number | None:
    """The number a metric rule measured (None when there is nothing to measure)."""
    metric = check.metric
    if isinstance(metric, RowCountMetric):
        return rows
    if isinstance(metric, ColumnMetric):
        return _number(values[ColumnAgg(metric.fn, metric.column)])
    if isinstance(metric, CountMetric):
        count = int(values[CountIf(metric.counted)] or 0)
        return _percent(count, rows) if metric.percent else count
    if isinstance(metric, GroupMetric):
        return _group_value(metric, _group(values, metric.columns), rows)
    if isinstance(metric, FreshnessMetric):
        return _age_seconds(values[ColumnAgg("max", metric.column)], values[ServerNow()])
    raise TypeError(f"unknown metric {type(metric).__name__}")


def _group_value(metric: GroupMetric, stats: Mapping[str, object], rows: int) -> Number:
    dup = int(stats["dup_rows"] or 0)
    if metric.stat == "distinct_count":
        return int(stats["groups"] or 0)
    if metric.stat == "duplicate_count":
        return dup
    if metric.stat == "duplicate_percent":
        return _percent(dup, rows)
    unique = int(stats["unique_rows"] or 0)
    return unique / rows if rows else 1.0


def _percent(count: int, rows: int) -> float:
    # An empty table has nothing missing, invalid or duplicated: 0%, not undefined.
    return 100.0 * count / rows if rows else 0.0


def _number(value: object) -> Number | None:
    if value is None:
        return None
    if isinstance(value, (dt.date, dt.datetime)):
        raise TypeError("temporal")
    assert isinstance(value, (int, float, Decimal))
    return value


def _age_seconds(newest: object, now: object) -> float | None:
    if newest is None or not isinstance(now, dt.datetime):
        return None
    if not isinstance(newest, dt.datetime):
        assert isinstance(newest, dt.date)
        newest = dt.datetime(newest.year, newest.month, newest.day)
    if (newest.tzinfo is None) != (now.tzinfo is None):
        newest, now = newest.replace(tzinfo=None), now.replace(tzinfo=None)
    return (now - newest).total_seconds()


def _metric_outcome(rule: Rule, check: MetricCheck, values: Values, rows: int) -> Outcome:
    label = metric_label(rule)
    try:
        value = metric_value(check, values, rows)
    except TypeError:
        return Outcome("error", None, None, f"{label}: the measured value is not a number")
    failed = _counted(check, values)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Outcome(
            _fail(rule), failed, None,
            f"{label} has no value (empty table or only nulls); must be {check.must.text}",
        )
    shown = f"{label} = {_fmt(value)}"
    if not check.must.holds(value):
        return Outcome(_fail(rule), failed, value, f"{shown}; must be {check.must.text}")
    if check.warn is not None and not check.warn.holds(value):
        return Outcome("warn", failed, value, f"{shown}; warn unless {check.warn.text}")
    return Outcome("pass", failed, value, f"{shown}; must be {check.must.text}")


def _counted(check: MetricCheck, values: Values) -> int | None:
    metric = check.metric
    if isinstance(metric, CountMetric):
        return int(values[CountIf(metric.counted)] or 0)
    if isinstance(metric, GroupMetric) and metric.stat.startswith("duplicate"):
        return int(_group(values, metric.columns)["dup_rows"] or 0)
    return None


def metric_label(rule: Rule) -> str:
    """``avg(amount)``, ``row_count``, ``distinct_count(a, b)``."""
    return f"{rule.kind}({', '.join(rule.columns)})" if rule.columns else rule.kind


def judge_schema(rule: Rule, schema: Sequence[tuple[str, str]]) -> Outcome:
    """Judge a schema rule against ``(column, type)`` pairs (Spark simple type strings)."""
    check = rule.check
    assert isinstance(check, SchemaCheck)
    types = {name.lower(): kind for name, kind in schema}
    problems = [f"missing column {c}" for c in check.required if c.lower() not in types]
    problems += [f"forbidden column {c} is present" for c in check.forbidden if c.lower() in types]
    for column, expected in check.types:
        actual = types.get(column.lower())
        if actual is None:
            problems.append(f"missing column {column} (expected {expected})")
        elif not type_matches(expected, actual):
            problems.append(f"column {column} is {actual}, expected {expected}")
    if problems:
        return Outcome(_fail(rule), len(problems), None, "schema: " + "; ".join(problems))
    return Outcome("pass", 0, None, f"schema matches ({len(schema)} columns)")


def type_matches(expected: str, actual: str) -> bool:
    """Whether a Spark type string matches an expected type (``decimal`` matches any
    precision and scale).

    >>> type_matches("decimal", "decimal(10,2)"), type_matches("bigint", "int")
    (True, False)
    """
    actual = actual.lower().replace(" ", "")
    if expected == "decimal":
        return actual.startswith("decimal")
    return actual == expected.replace(" ", "")


def judge_sql(rule: Rule, rows_returned: int, value: object) -> Outcome:
    """Judge a SQL rule from what its query returned."""
    check = rule.check
    assert isinstance(check, SqlCheck)
    custom = dict(rule.params).get("error_message")
    if check.mode == "failed_rows":
        failed = int(value or 0)
        if failed == 0:
            return Outcome("pass", 0, None, "the query returned no failing rows")
        return Outcome(_fail(rule), failed, None, str(custom or f"the query returned {failed} failing rows"))
    if rows_returned != 1:
        return Outcome("error", None, None, f"the query returned {rows_returned} rows; expected one row with one boolean")
    if value is True:
        return Outcome("pass", None, None, "the query returned true")
    said = "NULL" if value is None else str(value).lower()
    return Outcome(_fail(rule), None, None, str(custom or f"the query returned {said}; expected true"))


def _fmt(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if not isinstance(value, bool) else str(value)
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral() else str(value)
    return str(value)

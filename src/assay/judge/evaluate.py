"""Judging: measured values -> a verdict per rule (pure; no Spark).

Three notions, never mixed (docs/events.md):

- ``passed``: whether the rule's condition held. A metric that meets ``must_be`` but not
  its own ``warn`` threshold passed; a failed rule at level ``warn`` did not.
- ``severity``: what the outcome means: ``pass``; ``warn`` (a metric's own warn
  threshold tripped, or a failed rule whose level is ``warn``); ``fail`` (any other
  failed rule); ``error`` (the rule could not be evaluated).
- the run's policy (``Rule.on_failure``, the run's own) decides the exit code and the
  writes, in the executor; it never changes the two above.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from assay.ir.metrics import (
    AggregateMetric,
    ColumnMetric,
    ComplianceMetric,
    CountMetric,
    FrequencyMetric,
    FreshnessMetric,
    GroupMetric,
    Metric,
    RowCountMetric,
    SqlMetric,
)
from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.references import ForeignKeyCheck, RowCountMatchMetric
from assay.ir.rules import (
    Check,
    ColStatsCheck,
    EqualsCheck,
    MetricCheck,
    RowCheck,
    Rule,
    SchemaCheck,
    SqlCheck,
    UniqueCheck,
    ValidatorCheck,
)
from assay.ir.shapes import GroupNulls, complete
from assay.ir.values import Between
from assay.judge.drift_history import DRIFT_VALUES, with_drift
from assay.judge.outcome import Evidence as Evidence
from assay.judge.outcome import Number as Number
from assay.judge.outcome import Outcome as Outcome
from assay.judge.outcome import Severity as Severity
from assay.judge.outcome import Values as Values
from assay.judge.outcome import failed_severity as failed_severity
from assay.judge.own import schema_change_judge, schema_judge, sql_judge, validator_judge
from assay.judge.several import ValueJudge, element, with_several
from assay.planner.expectation import expectation, render
from assay.planner.frequencies import frequencies_of, frequency_value
from assay.planner.measures import (
    AgeMicros,
    ColumnAgg,
    Filtered,
    Histogram,
    PerGroup,
    RowCount,
    SqlAggregate,
    agg_equals,
    colstats_measures,
    count_if,
    group_stats_of,
)
from assay.planner.references import ReferenceRows, counted_words, foreign_key_measure


def judge(rule: Rule, evidence: Evidence | Values) -> Outcome:
    """The verdict on ``rule`` from what its check is judged from (:class:`Evidence`; a
    mapping: the aggregate plan's values alone), by its entry in :data:`JUDGES`."""
    given = evidence if isinstance(evidence, Evidence) else Evidence(evidence)
    return JUDGES[type(rule.check)](rule, rule.check, given)


def _from_values(judged: ValueJudge) -> Judge:
    """A judge of the aggregate plan's values: a filtered rule's measures are read over
    the rows its filter keeps, their count included (planned for every filtered rule:
    ``measures_of``)."""

    def judge_values(rule: Rule, check: Any, evidence: Evidence) -> Outcome:
        values = evidence.values
        if rule.filter is None:
            return judged(rule, check, values, int(values.get(RowCount(), 0) or 0))
        kept = Filtered(values, rule.filter)
        rows = int(kept[RowCount()] or 0)
        outcome = judged(rule, check, kept, rows)
        return dataclasses.replace(outcome, rows=rows, message=_scoped(outcome.message, rule, rows))

    return judge_values


def _scoped(message: str, rule: Rule, rows: int) -> str:
    """A filtered rule's message saying the rows it measured: a row rule's expectation
    already ends ``where <filter>``; a metric's gets ``(over the N rows where <filter>)``."""
    assert rule.filter is not None
    where = f" where {render(rule.filter)}"
    return message if where in message else f"{message} (over the {rows} rows{where})"


def _row_outcome(rule: Rule, check: RowCheck, values: Values, rows: int) -> Outcome:
    counted = check.summed or (check.failing,)
    failed = sum(int(values[count_if(e)] or 0) for e in counted)  # type: ignore[call-overload]
    if check.reports == "passing_fraction":
        return _fraction_outcome(rule, failed, rows, rows - failed, rows)
    return _tolerance_outcome(rule, failed, rows, check.tolerance)


def _unique_outcome(rule: Rule, check: UniqueCheck, values: Values, rows: int) -> Outcome:
    stats = _group(values, check.columns, check.nulls)
    failed = unique_failed(check, stats)
    if check.reports == "passing_fraction":
        considered = int(stats["rows"] or 0)  # type: ignore[call-overload]
        unique = int(stats["unique_rows"] or 0)  # type: ignore[call-overload]
        return _fraction_outcome(rule, failed, rows, unique, considered, "with a null key")
    what = {
        "rows": "rows share their value",
        "values": "rows: duplicated values",
        "surplus": "rows: repeats of a value (rows minus distinct values)",
    }[check.counted]
    return _tolerance_outcome(rule, failed, rows, check.tolerance, what)


def _foreign_key_outcome(rule: Rule, check: ForeignKeyCheck, values: Values, rows: int) -> Outcome:
    failed = int(values[(measure := foreign_key_measure(check))] or 0)  # type: ignore[call-overload]
    return _tolerance_outcome(rule, failed, rows, check.tolerance, counted_words(measure))


def _match_percent(metric: RowCountMatchMetric, values: Values, rows: int) -> Number | None:
    """100 * rows / referenced rows; no value when the referenced side is empty."""
    referenced = int(values[ReferenceRows(metric.reference.source)] or 0)  # type: ignore[call-overload]
    return 100.0 * rows / referenced if referenced else None


def unique_failed(check: UniqueCheck, stats: Mapping[str, Any]) -> int:
    """A uniqueness rule's failed count, as its dialect counts it (``UniqueCheck.counted``)."""
    groups = int(stats["groups"] or 0)  # type: ignore[call-overload]
    if check.counted == "values":
        return groups - int(stats["unique_rows"] or 0)  # type: ignore[call-overload]
    if check.counted == "surplus":
        return int(stats["rows"] or 0) - groups  # type: ignore[call-overload]
    return int(stats["dup_rows"] or 0)  # type: ignore[call-overload]


_fail = failed_severity  # the short name the judges below use


def _tolerance_outcome(
    rule: Rule, failed: int, rows: int, tolerance, what: str = "rows fail"
) -> Outcome:
    ok = tolerance.passes(failed, rows)
    expects = expectation(rule, tolerance=False, over_time=False)
    message = f"{failed} of {rows} {what}: {rule.kind} ({expects})"
    if tolerance.value:
        said = "mostly" if tolerance.kind == "gx_mostly" else "tolerance"  # Great Expectations
        message += f"; {said} {tolerance.text} allows {_fmt(tolerance.allowed(rows))}"
    return Outcome("pass" if ok else _fail(rule), failed, None, message)


def _fraction_outcome(
    rule: Rule, failed: int, rows: int, passing: int, considered: int, skipped: str = ""
) -> Outcome:
    """A row-level rule read as deequ's metric (``RowReport`` ``passing_fraction``):
    ``passing / considered``, which must be 1 (deequ's ``IsOne``); none considered is
    no value, and fails. ``failed_count`` stays the failing rows (for samples)."""
    label = metric_label(rule)
    if considered == 0:
        why = "no row" if rows == 0 else f"no row without nulls ({rows} rows {skipped})"
        message = f"{label}: {why} to measure; deequ's metric has no value"
        return Outcome(_fail(rule), failed, None, message)
    value = passing / considered
    message = f"{label} = {_fmt(value)} ({passing} of {considered} rows pass); must be 1"
    return Outcome("pass" if value == 1.0 else _fail(rule), failed, value, message)


def _group(
    values: Values, columns: tuple[str, ...], nulls: GroupNulls = "any"
) -> Mapping[str, Any]:
    stats = values[group_stats_of(columns, nulls)]
    assert isinstance(stats, Mapping)
    return stats


def metric_value(check: MetricCheck, values: Values, rows: int) -> Number | None:
    """The number a metric rule measured (None when there is nothing to measure);
    :class:`NotANumber` when it is not a number (the max of a date column)."""
    return METRIC_VALUES[type(check.metric)](check.metric, values, rows)


class NotANumber(ValueError):
    """A metric measured a value that is not a number (the max of a date column)."""


def _freshness_value(metric: FreshnessMetric, values: Values, rows: int) -> Number | None:
    micros = values[AgeMicros(metric.column, metric.whole_seconds)]
    return None if micros is None else Decimal(int(micros)).scaleb(-6)  # type: ignore[call-overload]


def _count_value(metric: CountMetric, values: Values, rows: int) -> Number:
    count = int(values[count_if(metric.counted)] or 0)  # type: ignore[call-overload]
    return _percent(count, rows) if metric.percent else count


def _group_value(metric: GroupMetric, stats: Mapping[str, Any], rows: int) -> Number | None:
    dup = int(stats["dup_rows"] or 0)
    if metric.stat.startswith("duplicated_values"):  # SodaCL's: the groups of 2+ rows
        dup = int(stats["groups"] or 0) - int(stats["unique_rows"] or 0)
    if metric.stat == "distinct_count":
        return int(stats["groups"] or 0)
    if metric.stat in ("duplicate_count", "duplicated_values"):
        return dup
    if metric.stat in ("duplicate_percent", "duplicated_values_percent"):
        return _percent(dup, rows)
    if metric.stat == "surplus_count":
        return _surplus(stats)
    if metric.stat == "surplus_percent":
        return _percent(_surplus(stats), rows)
    if metric.stat == "distinct_ratio":  # Great Expectations: 0 without a value
        seen = int(stats["rows"] or 0)
        return int(stats["groups"] or 0) / seen if seen else 0.0
    # deequ's Uniqueness: unique rows / rows considered; undefined (no value) for none.
    considered = int(stats["rows"] or 0)
    unique = int(stats["unique_rows"] or 0)
    return unique / considered if considered else None


def _surplus(stats: Mapping[str, Any]) -> int:
    """Rows considered minus groups: the repeats beyond each value's first row."""
    return int(stats["rows"] or 0) - int(stats["groups"] or 0)  # type: ignore[call-overload]


def _percent(count: int, rows: int) -> float:
    # An empty table has nothing missing, invalid or duplicated: 0%, not undefined.
    return 100.0 * count / rows if rows else 0.0


def _number(value: object) -> Number | None:
    if value is None:
        return None
    if not isinstance(value, (int, float, Decimal)):
        raise NotANumber(f"{type(value).__name__} {value!r}")
    return value


def _per_group_outcome(rule: Rule, check: MetricCheck, values: Values) -> Outcome:
    stats = values[PerGroup(check.group_by, check.metric, check.must, check.warn)]
    groups, failed, warned = (int(stats[k] or 0) for k in ("groups", "failed", "warned"))
    by = ", ".join(check.group_by)
    label = metric_label(rule)
    details = {"group_by": list(check.group_by), "groups": groups, "failed_groups": failed}
    if check.warn is not None:
        details["warned_groups"] = warned
    if failed:
        said = f"{failed} of {groups} groups ({by}) fail: {label} must be {check.must.text}"
        return Outcome(_fail(rule), failed, failed, said, details)
    if warned:
        assert check.warn is not None
        said = f"{warned} of {groups} groups ({by}) warn: {label} warn unless {check.warn.text}"
        return Outcome("warn", warned, 0, said, details, held=True)
    said = f"all {groups} groups ({by}): {label} {check.must.text}"
    return Outcome("pass", 0, 0, said, details)


def _metric_outcome(rule: Rule, check: MetricCheck, values: Values, rows: int) -> Outcome:
    if check.group_by:
        return _per_group_outcome(rule, check, values)
    label = metric_label(rule)
    try:
        value = metric_value(check, values, rows)
    except NotANumber:
        return Outcome("error", None, None, f"{label}: the measured value is not a number")
    failed = _counted(check, values)
    if check.doubles:
        return _double_outcome(rule, check, value, failed, label)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        why = "is NaN (the column holds NaN)" if value is not None else _no_value(check)
        return Outcome(_fail(rule), failed, None, f"{label} {why}{_must(check)}")
    shown = f"{label} = {_fmt(value)}"
    if not check.must.holds(value):
        return Outcome(_fail(rule), failed, value, f"{shown}{_must(check)}")
    if check.warn is not None and not check.warn.holds(value):
        return Outcome("warn", failed, value, f"{shown}; warn unless {check.warn.text}", held=True)
    return Outcome("pass", failed, value, f"{shown}{_must(check)}")


def _must(check: MetricCheck) -> str:
    """``; must be <threshold>``, or nothing for a metric judged over time only (any
    value holds)."""
    must = check.must
    if isinstance(must, Between) and must.low is None and must.high is None and not must.negate:
        return ""
    return f"; must be {must.text}"


def _double_outcome(
    rule: Rule, check: MetricCheck, value: Number | None, failed: int | None, label: str
) -> Outcome:
    """sparquet-cola's judgement: the value as a double (no value: NaN, or +infinity for
    freshness), judged by the thresholds whatever it is; a passing check counts 0 failed."""
    if value is None:
        number = math.inf if isinstance(check.metric, FreshnessMetric) else math.nan
    else:
        number = float(value)
    shown = f"{label} = {_fmt_double(number)}"
    counted = failed if check.failing_count is None else check.failing_count
    if not check.must.holds(number):
        return Outcome(_fail(rule), counted, number, f"{shown}; must be {check.must.text}")
    if check.warn is not None and not check.warn.holds(number):
        return Outcome(
            "warn", counted, number, f"{shown}; warn unless {check.warn.text}", held=True
        )
    passed = failed if check.count_when_passed else 0
    return Outcome("pass", passed, number, f"{shown}; must be {check.must.text}")


def _fmt_double(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return _fmt(value)


def _no_value(check: MetricCheck) -> str:
    metric = check.metric
    if isinstance(metric, ColumnMetric) and metric.fn == "stddev":
        return "has no value (fewer than 2 non-null values)"
    if isinstance(metric, GroupMetric):
        return "has no value (no row to consider: empty table or only nulls)"
    if isinstance(metric, RowCountMatchMetric):
        return "has no value (the referenced source has no rows)"
    return "has no value (empty table or only nulls)"


def _counted(check: MetricCheck, values: Values) -> int | None:
    metric = check.metric
    if isinstance(metric, CountMetric):
        return int(values[count_if(metric.counted)] or 0)
    if isinstance(metric, GroupMetric) and metric.stat in ("surplus_count", "surplus_percent"):
        return _surplus(_group(values, metric.columns, metric.nulls))
    if isinstance(metric, GroupMetric) and metric.stat != "distinct_count":
        return int(_group(values, metric.columns, metric.nulls)["dup_rows"] or 0)
    return None


def _equals_outcome(rule: Rule, check: EqualsCheck, values: Values) -> Outcome:
    metric = check.metric
    label = f"{metric.fn}({metric.column})"
    measured = values[ColumnAgg(metric.fn, metric.column)]
    equal = values[agg_equals(check)]
    wanted = _show(check.value)
    # The value found, in the column's type (a string column's max is a string), and the
    # value expected: metric_value carries numbers only.
    details = {"expected": _plain(check.value), "actual": _plain(measured)}
    if measured is None:
        why = "has no value (empty table or only nulls)"
        return Outcome(_fail(rule), None, None, f"{label} {why}; must equal {wanted}", details)
    numeric = isinstance(measured, (int, float, Decimal)) and not isinstance(measured, bool)
    number = measured if numeric else None
    shown = f"{label} = {_show(measured)}"
    if equal is True:
        return Outcome("pass", None, number, f"{shown}; must equal {wanted}", details)
    return Outcome(_fail(rule), None, number, f"{shown}; must equal {wanted}", details)


def _plain(value: object) -> object:
    """A compared value as JSON data: dates and timestamps in ISO 8601."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return _fmt(value)


def colstats_values(column: str, values: Values) -> tuple[object, ...]:
    """``(count, mean, min, max, stddev)`` of a colstats column from the aggregate pass."""
    return tuple(values[m] for m in colstats_measures(column))


def histogram_bounds(column: str, values: Values) -> tuple[float, float] | None:
    """The finite ``(min, max)`` a colstats histogram buckets over, or None (no values,
    NaN or infinite bounds: no histogram)."""
    _, _, low, high, _ = colstats_values(column, values)
    if low is None or high is None:
        return None
    bounds = (float(low), float(high))  # type: ignore[arg-type]
    return bounds if all(math.isfinite(b) for b in bounds) else None


def _colstats_outcome(rule: Rule, check: ColStatsCheck, values: Values) -> Outcome:
    count, mean, low, high, stddev = colstats_values(check.column, values)
    histogram = None
    counts = values.get(Histogram(check.column, check.bins))
    bounds = histogram_bounds(check.column, values)
    if counts is not None and bounds is not None:
        histogram = {"bins": _bins(bounds, [int(c) for c in counts], check.bins)}  # type: ignore[union-attr]
    details = {
        "count": int(count or 0),  # type: ignore[call-overload]
        "mean": _float(mean),
        "min": _float(low),
        "max": _float(high),
        "stdDev": _float(stddev),
        "histogram": histogram,
    }
    shown = ", ".join(
        f"{k} {_fmt(details[k]) if details[k] is not None else 'none'}"
        for k in ("count", "mean", "min", "max", "stdDev")
    )
    return Outcome("pass", None, None, f"colstats({check.column}): {shown}", details)


def _bins(bounds: tuple[float, float], counts: list[int], bins: int) -> list[dict[str, object]]:
    """data-validator's bins: bucket i spans [min + i*width, min + (i+1)*width), the last
    one ends at max."""
    low, high = bounds
    width = (high - low) / bins
    edges = [low + i * width for i in range(bins)] + [high]
    return [
        {"lowerBound": edges[i], "upperBound": edges[i + 1], "count": counts[i]}
        for i in range(bins)
    ]


def _float(value: object) -> float | None:
    if value is None:
        return None
    return float(value)  # type: ignore[arg-type]


def metric_label(rule: Rule) -> str:
    """``avg(amount)``, ``row_count``, ``distinct_count(a, b)``."""
    return f"{rule.kind}({', '.join(rule.columns)})" if rule.columns else rule.kind


def _fmt(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if not isinstance(value, bool) else str(value)
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral() else str(value)
    return str(value)


Judge = Callable[[Rule, Any, Evidence], Outcome]

JUDGES: dict[type, Judge] = {
    RowCheck: _from_values(_row_outcome),
    UniqueCheck: _from_values(_unique_outcome),
    MetricCheck: _from_values(with_several(with_drift(_metric_outcome), metric_value)),
    EqualsCheck: _from_values(
        lambda rule, check, values, rows: _equals_outcome(rule, check, values)
    ),
    ColStatsCheck: _from_values(
        lambda rule, check, values, rows: _colstats_outcome(rule, check, values)
    ),
    SchemaCheck: schema_judge,  # from the table's schema, no scan
    SchemaChangeCheck: schema_change_judge,  # and the schema the store recorded last
    SqlCheck: sql_judge,  # from its own query's answer
    ValidatorCheck: validator_judge,  # from what its Python function returned
    ForeignKeyCheck: _from_values(_foreign_key_outcome),
}
"""How each kind of check is judged, from the part of :class:`Evidence` it reads;
complete over the IR's ``Check`` union, checked at import."""

METRIC_VALUES: dict[type, Callable[[Any, Values, int], Number | None]] = DRIFT_VALUES | {
    RowCountMetric: lambda metric, values, rows: rows,
    ColumnMetric: lambda metric, values, rows: _number(values[ColumnAgg(metric.fn, metric.column)]),
    CountMetric: _count_value,
    GroupMetric: lambda metric, values, rows: _group_value(
        metric, _group(values, metric.columns, metric.nulls), rows
    ),
    FreshnessMetric: _freshness_value,
    AggregateMetric: lambda metric, values, rows: _number(element(metric, values)),
    ComplianceMetric: lambda metric, values, rows: (
        int(values[count_if(metric.predicate)] or 0) / rows if rows else metric.empty  # type: ignore[call-overload]
    ),
    FrequencyMetric: lambda m, values, rows: frequency_value(m, values[frequencies_of(m)]),  # type: ignore[arg-type]
    RowCountMatchMetric: _match_percent,
    SqlMetric: lambda metric, values, rows: _number(values[SqlAggregate(metric.text)]),
}
"""The number each kind of metric measured; complete over the IR's ``Metric`` union."""

complete(JUDGES, Check, "assay.judge.evaluate.JUDGES")
complete(METRIC_VALUES, Metric, "assay.judge.evaluate.METRIC_VALUES")

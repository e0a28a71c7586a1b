"""Metrics judged per group (``group_by``), as Spark columns: the metric's value of each
group from its measures, the thresholds as predicates, the group-by frame the aggregate
plan counts and the detail plan samples.

The value is computed as :mod:`assay.judge.evaluate` computes it for the whole table (a
percentage as ``100.0 * count / rows`` in doubles, freshness in seconds); the thresholds
compare it as Spark compares a value with a DECIMAL literal (an integer exactly, a double
as a double) and NaN or no value fails, as it does for the whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F

from assay.emit.columns import COMPARISONS, col, column
from assay.ir.drift import DriftMetric
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
from assay.ir.references import RowCountMatchMetric
from assay.ir.shapes import complete
from assay.ir.values import Between, Comparison, Threshold
from assay.planner.measures import (
    AgeMicros,
    ColumnAgg,
    PerGroup,
    RowCount,
    aggregate_of,
    count_if,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

Measured = Mapping[Any, "Column"]
"""A group's measures (as the metric's value functions ask for them) -> their columns."""


def _percent(count: Column, rows: Column) -> Column:
    return F.when(rows > 0, F.lit(100.0) * count / rows).otherwise(F.lit(0.0))


def _count(metric: CountMetric, m: Measured) -> Column:
    count = m[count_if(metric.counted)]
    return _percent(count, m[RowCount()]) if metric.percent else count


GROUP_VALUES: dict[type, Callable[[Any, Measured], Column] | None] = {
    RowCountMetric: lambda metric, m: m[RowCount()],
    ColumnMetric: lambda metric, m: m[ColumnAgg(metric.fn, metric.column)],
    CountMetric: _count,
    GroupMetric: None,  # refused with group_by at load (a group-by within a group-by)
    RowCountMatchMetric: None,  # takes no group_by (its referenced side has no groups)
    FreshnessMetric: lambda metric, m: (
        m[AgeMicros(metric.column, metric.whole_seconds)].cast("decimal(38,0)") / F.lit(10**6)
    ),
    AggregateMetric: lambda metric, m: m[aggregate_of(metric)],
    ComplianceMetric: lambda metric, m: F.when(
        m[RowCount()] > 0, m[count_if(metric.predicate)] / m[RowCount()]
    ),
    FrequencyMetric: None,  # refused with group_by at load (a group-by within a group-by)
    DriftMetric: None,  # takes no group_by (its referenced side has no groups)
    SqlMetric: None,  # takes no group_by (SodaCL's expression is over the table)
}
"""Each metric's value of one group, from its measures; complete over the IR's Metric
union (None: not offered per group)."""

complete(GROUP_VALUES, Metric, "assay.emit.groups.GROUP_VALUES")


def holds(threshold: Threshold, value: Column) -> Column:
    """True where ``value`` satisfies ``threshold``; false for NaN or no value (Spark
    orders NaN above every number and NaN = NaN: it is excluded first)."""
    number = value.isNotNull() & ~F.isnan(value)
    if isinstance(threshold, Comparison):
        test = COMPARISONS[threshold.op](value, F.lit(threshold.value))
        return F.coalesce(number & test, F.lit(False))
    assert isinstance(threshold, Between)
    inside = F.lit(True)
    if threshold.low is not None:
        low = F.lit(threshold.low)
        inside = inside & (value >= low if threshold.low_inclusive else value > low)
    if threshold.high is not None:
        high = F.lit(threshold.high)
        inside = inside & (value <= high if threshold.high_inclusive else value < high)
    return F.coalesce(number & (~inside if threshold.negate else inside), F.lit(False))


VALUE = "_assay_value"
FAILS, WARNS = "_assay_fails", "_assay_warns"


def per_group_rows(
    df: DataFrame, m: PerGroup, measure_columns: Callable[..., list[Column]]
) -> DataFrame:
    """One row per group: its ``group_by`` columns, the metric's value, and whether it
    fails ``must`` (``_assay_fails``) or only ``warn`` (``_assay_warns``)."""
    rows = df.where(column(m.where)) if m.where is not None else df
    inner = m.inner
    names = [f"_assay_g{n}" for n in range(len(inner))]
    grouped = rows.groupBy(*(col(c) for c in m.group_by)).agg(
        *(c for name, x in zip(names, inner, strict=True) for c in measure_columns(name, x))
    )
    value_of = GROUP_VALUES[type(m.metric)]
    assert value_of is not None, "group_by is refused for this metric at load"
    value = value_of(m.metric, {x: F.col(n) for n, x in zip(names, inner, strict=True)})
    fails = ~holds(m.must, value)
    warns = ~fails & ~holds(m.warn, value) if m.warn is not None else F.lit(False)
    keys = [col(c) for c in m.group_by]
    return grouped.select(*keys, value.alias(VALUE), fails.alias(FAILS), warns.alias(WARNS))


def per_group_counts(rows: DataFrame, name: str) -> DataFrame:
    """The one row the aggregate plan reads: groups, failing and warning ones."""
    return rows.agg(
        F.count(F.lit(1)).alias(f"{name}_groups"),
        F.count_if(F.col(FAILS)).alias(f"{name}_failed"),
        F.count_if(F.col(WARNS)).alias(f"{name}_warned"),
    )


def per_group_samples(rows: DataFrame, m: PerGroup, index: int, size: int, label: str) -> DataFrame:
    """Up to ``size`` failing (else warning) groups, first by their values, as the
    detail plan's rows: ``_assay_rule`` and ``_assay_row`` (JSON of the group's columns
    and its value under ``label``)."""
    keys = [col(c) for c in m.group_by]
    top = rows.where(F.col(FAILS) | F.col(WARNS)).orderBy(F.col(FAILS).desc(), *keys).limit(size)
    shown = [*(col(c).alias(c) for c in m.group_by), F.col(VALUE).alias(label)]
    row = F.to_json(F.struct(*shown), {"ignoreNullFields": "false"})
    return top.select(F.lit(index).alias("_assay_rule"), row.alias("_assay_row"))

"""What the aggregate pass computes: measures, deduplicated by value across rules.

A rule asks for measures (:func:`measures_of`); equal measures requested by several
rules are one slot in the plan. Measures are frozen, so equality is structural.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.expr import Col, Expr, IsNull, Not, Scalar
from assay.ir.rules import (
    ColStatsCheck,
    ColumnFn,
    ColumnMetric,
    CountMetric,
    EqualsCheck,
    FreshnessMetric,
    GroupMetric,
    GroupNulls,
    MetricCheck,
    RowCheck,
    RowCountMetric,
    Rule,
    UniqueCheck,
)
from assay.planner.regex import cheaper


@dataclass(frozen=True, slots=True)
class RowCount:
    """``count(*)`` of the (filtered) table."""


@dataclass(frozen=True, slots=True)
class CountIf:
    """Rows for which ``predicate`` is true."""

    predicate: Expr


@dataclass(frozen=True, slots=True)
class ColumnAgg:
    """``fn(column)`` ignoring nulls."""

    fn: ColumnFn
    column: str


@dataclass(frozen=True, slots=True)
class ServerNow:
    """The server's ``current_timestamp()`` at query time (for freshness)."""


@dataclass(frozen=True, slots=True)
class GroupStats:
    """Statistics of the groups of equal ``columns`` values (rows with a null in any key
    excluded; with ``nulls="all"``, only rows where every key is null; with ``"none"``,
    no row: a null is a value): number of groups,
    rows considered, rows in groups of 2+, rows in groups of exactly 1."""

    columns: tuple[str, ...]
    nulls: GroupNulls = "any"


@dataclass(frozen=True, slots=True)
class AggEquals:
    """``fn(column) = value``, compared by Spark (null when ``fn`` has no value)."""

    fn: ColumnFn
    column: str
    value: Scalar


@dataclass(frozen=True, slots=True)
class AgeMicros:
    """Microseconds from ``max(column)`` (a date or timestamp, read in the session time
    zone) to the server's ``current_timestamp()``, computed by Spark."""

    column: str


@dataclass(frozen=True, slots=True)
class Histogram:
    """Counts of a numeric column's values in ``bins`` equal-width buckets over its
    [min, max]. Not an aggregate-pass measure: min and max come first, so every histogram
    of a table is computed by one extra plan (see :class:`~assay.planner.plan.HistogramPlan`).
    """

    column: str
    bins: int = 10


Measure = RowCount | CountIf | ColumnAgg | ServerNow | GroupStats | AggEquals | AgeMicros

GROUP_OUTPUTS = ("groups", "rows", "dup_rows", "unique_rows")
"""Named outputs of one :class:`GroupStats` measure, in order."""


def measures_of(rule: Rule) -> tuple[Measure, ...]:
    """The measures a rule is judged on (empty for schema and SQL rules); literal regexes
    in row predicates are in their cheaper string form (:mod:`assay.planner.regex`).

    >>> from assay.ir import Col, IsNull, Origin, RowCheck, Rule
    >>> measures_of(Rule("not_null", RowCheck(IsNull(Col("a"))), Origin("c.yaml")))
    (RowCount(), CountIf(predicate=IsNull(item=Col(name='a'))))
    """
    check = rule.check
    if isinstance(check, RowCheck):
        return (RowCount(), count_if(check.failing))
    if isinstance(check, UniqueCheck):
        return (RowCount(), GroupStats(check.columns, check.nulls))
    if isinstance(check, MetricCheck):
        return _metric_measures(check)
    if isinstance(check, EqualsCheck):
        metric = check.metric
        return (
            ColumnAgg(metric.fn, metric.column),
            AggEquals(metric.fn, metric.column, check.value),
        )
    if isinstance(check, ColStatsCheck):
        return colstats_measures(check.column)
    return ()


def count_if(predicate: Expr) -> CountIf:
    """The measure counting rows where a rule's ``predicate`` holds, literal regexes in
    their cheaper string form (:mod:`assay.planner.regex`): the one key that planning
    and judging share."""
    return CountIf(cheaper(predicate))


def colstats_measures(column: str) -> tuple[Measure, ...]:
    """What ``colstats`` reads from the aggregate pass: non-null count, mean, min, max,
    sample standard deviation (in that order)."""
    return (
        CountIf(Not(IsNull(Col(column)))),
        ColumnAgg("avg", column),
        ColumnAgg("min", column),
        ColumnAgg("max", column),
        ColumnAgg("stddev", column),
    )


def group_stats(metric: GroupMetric) -> GroupStats:
    """The group-by measure of a group metric (one key column: the null rule is moot)."""
    nulls = metric.nulls if len(metric.columns) > 1 else "any"
    return GroupStats(metric.columns, nulls)


def _metric_measures(check: MetricCheck) -> tuple[Measure, ...]:
    metric = check.metric
    if isinstance(metric, RowCountMetric):
        return (RowCount(),)
    if isinstance(metric, ColumnMetric):
        return (ColumnAgg(metric.fn, metric.column),)
    if isinstance(metric, CountMetric):
        return (RowCount(), count_if(metric.counted))
    if isinstance(metric, GroupMetric):
        return (RowCount(), group_stats(metric))
    if isinstance(metric, FreshnessMetric):
        return (AgeMicros(metric.column),)
    raise TypeError(f"no measures for metric {type(metric).__name__}")

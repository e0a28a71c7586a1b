"""What the aggregate pass computes: measures, deduplicated by value across rules.

A rule asks for measures (:func:`measures_of`); equal measures requested by several
rules are one slot in the plan. Measures are frozen, so equality is structural.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.expr import Expr
from assay.ir.rules import (
    ColumnFn,
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    GroupMetric,
    MetricCheck,
    RowCheck,
    RowCountMetric,
    Rule,
    UniqueCheck,
)


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
    """Statistics of the groups of equal ``columns`` values (nulls excluded): number of
    groups, rows considered, rows in groups of 2+, rows in groups of exactly 1."""

    columns: tuple[str, ...]


Measure = RowCount | CountIf | ColumnAgg | ServerNow | GroupStats

GROUP_OUTPUTS = ("groups", "rows", "dup_rows", "unique_rows")
"""Named outputs of one :class:`GroupStats` measure, in order."""


def measures_of(rule: Rule) -> tuple[Measure, ...]:
    """The measures a rule is judged on (empty for schema and SQL rules).

    >>> from assay.ir import Col, IsNull, Origin, RowCheck, Rule
    >>> measures_of(Rule("not_null", RowCheck(IsNull(Col("a"))), Origin("c.yaml")))
    (RowCount(), CountIf(predicate=IsNull(item=Col(name='a'))))
    """
    check = rule.check
    if isinstance(check, RowCheck):
        return (RowCount(), CountIf(check.failing))
    if isinstance(check, UniqueCheck):
        return (RowCount(), GroupStats(check.columns))
    if isinstance(check, MetricCheck):
        return _metric_measures(check)
    return ()


def _metric_measures(check: MetricCheck) -> tuple[Measure, ...]:
    metric = check.metric
    if isinstance(metric, RowCountMetric):
        return (RowCount(),)
    if isinstance(metric, ColumnMetric):
        return (ColumnAgg(metric.fn, metric.column),)
    if isinstance(metric, CountMetric):
        return (RowCount(), CountIf(metric.counted))
    if isinstance(metric, GroupMetric):
        return (RowCount(), GroupStats(metric.columns))
    if isinstance(metric, FreshnessMetric):
        return (ColumnAgg("max", metric.column), ServerNow())
    raise TypeError(f"no measures for metric {type(metric).__name__}")

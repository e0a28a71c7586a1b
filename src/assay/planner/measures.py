"""What the aggregate pass computes: measures, deduplicated by value across rules.

A rule asks for measures (:func:`measures_of`); equal measures requested by several
rules are one slot in the plan. Measures are frozen, so equality is structural.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from assay.ir.expr import And, Col, Expr, IsNull, Not, Scalar, columns_of
from assay.ir.metrics import (
    AggregateMetric,
    ColumnFn,
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
from assay.ir.values import Threshold
from assay.planner.drift import DRIFT_FILTERED, DRIFT_KINDS, DRIFT_MEASURES, DriftMeasure
from assay.planner.frequencies import FREQUENCIES_KIND, Frequencies, frequencies_of
from assay.planner.kinds import OBJECT_AGGREGATES as OBJECT_AGGREGATES
from assay.planner.kinds import MeasureKind as MeasureKind
from assay.planner.kinds import read
from assay.planner.kinds import where_text as _where
from assay.planner.references import (
    Matched,
    ReferenceRows,
    Unmatched,
    foreign_key_measure,
    render_matched,
    render_reference_rows,
    render_unmatched,
)
from assay.planner.regex import cheaper
from assay.planner.sqltext import literal, quote, render_expr


@dataclass(frozen=True, slots=True)
class RowCount:
    """``count(*)`` of the (filtered) table."""


@dataclass(frozen=True, slots=True)
class CountIf:
    """Rows for which ``predicate`` is true."""

    predicate: Expr


@dataclass(frozen=True, slots=True)
class ColumnAgg:
    """``fn(column)`` ignoring nulls, over the rows where ``where`` holds."""

    fn: ColumnFn
    column: str
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class ServerNow:
    """The server's ``current_timestamp()`` at query time (for freshness)."""


@dataclass(frozen=True, slots=True)
class GroupStats:
    """Statistics of the groups of equal ``columns`` values (rows with a null in any key
    excluded; with ``nulls="all"``, only rows where every key is null; with ``"none"``, no
    row: a null is a value): number of groups,
    rows considered, rows in groups of 2+, rows in groups of exactly 1; with ``where``,
    of the rows where it holds."""

    columns: tuple[str, ...]
    nulls: GroupNulls = "any"
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class AggEquals:
    """``fn(column) = value``, compared by Spark (null when ``fn`` has no value)."""

    fn: ColumnFn
    column: str
    value: Scalar
    cast: str | None = None
    """The Spark type ``value`` is cast to."""
    representable: bool = True
    """False: the column's type cannot hold ``value``, so the answer is false (or null
    when ``fn`` has no value)."""
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class AgeMicros:
    """Microseconds from ``max(column)`` (a date or timestamp, read in the session time
    zone) to the server's ``current_timestamp()``, computed by Spark (``whole_seconds``:
    both truncated to seconds first, so a multiple of 1,000,000)."""

    column: str
    whole_seconds: bool = False
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class Histogram:
    """Counts of a numeric column's values in ``bins`` equal-width buckets over its
    [min, max]. Not an aggregate-pass measure: min and max come first, so every histogram
    of a table is computed by one extra plan (see :class:`~assay.planner.plan.HistogramPlan`)."""

    column: str
    bins: int = 10


def agg_equals(check: EqualsCheck) -> AggEquals:
    """The measure of an :class:`EqualsCheck` (the planner asks for it, the judge reads it)."""
    m = check.metric
    return AggEquals(m.fn, m.column, check.value, check.cast, check.representable)


@dataclass(frozen=True, slots=True)
class PerGroup:
    """A metric judged for every group of equal ``group_by`` values, inside the plan: a
    group-by computing the metric's own measures per group, then the number of groups,
    of groups failing ``must`` and of those failing only ``warn`` (over the rows where
    ``where`` holds: a rule's filter)."""

    group_by: tuple[str, ...]
    metric: Metric
    must: Threshold
    warn: Threshold | None = None
    where: Expr | None = None

    @property
    def inner(self) -> tuple[Measure, ...]:
        """The measures of the metric, taken per group."""
        return METRIC_MEASURES[type(self.metric)](self.metric)


PER_GROUP_OUTPUTS = ("groups", "failed", "warned")


@dataclass(frozen=True, slots=True)
class Aggregate:
    """``function(column, *args)``: one aggregate function of one column with literal
    arguments, over the rows where ``where`` holds, of the column cast to ``cast`` (an
    :class:`~assay.ir.rules.AggregateMetric`'s measure)."""

    function: str
    column: str
    args: tuple[Scalar | tuple[Scalar, ...], ...] = ()
    where: Expr | None = None
    cast: str | None = None
    more: tuple[str, ...] = ()  # further columns, arguments after column: corr(x, y)
    length: bool = False  # of the columns' lengths, length(column)


def aggregate_of(m: AggregateMetric) -> Aggregate:
    """The measure of an aggregate metric (planned and judged by the same key)."""
    return Aggregate(m.function, m.column, m.args, m.where, m.cast, m.more, m.length)


@dataclass(frozen=True, slots=True)
class ExprAggregate:
    """``function(expr, *args)``: one aggregate function of a row expression (a column, a
    string's length) with literal arguments (a tuple is an array literal), over the rows
    where ``where`` holds: what a profile measures beyond a column's min, max and sum."""

    function: str
    expr: Expr
    args: tuple[Scalar | tuple[Scalar, ...], ...] = ()
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class SqlAggregate:
    """The value of a SQL expression over aggregates of the table (``max(qty) <= 50``),
    its text as the config wrote it: a folded SQL rule's projection
    (:class:`assay.planner.sqlfold.AggregateQuery`)."""

    text: str


Measure = (
    RowCount
    | SqlAggregate
    | CountIf
    | ColumnAgg
    | ServerNow
    | GroupStats
    | AggEquals
    | AgeMicros
    | Aggregate
    | ExprAggregate
    | Unmatched
    | Matched
    | ReferenceRows
    | PerGroup
    | Frequencies
    | DriftMeasure
)

GROUP_OUTPUTS = ("groups", "rows", "dup_rows", "unique_rows")
"""Named outputs of one :class:`GroupStats` measure, in order."""


def _arguments(m: Aggregate) -> list[str]:
    columns = (quote(c) for c in (m.column, *m.more))
    cast = (c if m.cast is None else f"CAST({c} AS {m.cast.upper()})" for c in columns)
    return [f"length({c})" if m.length else c for c in cast]


def _arg_text(arg: Scalar | tuple[Scalar, ...]) -> str:
    if isinstance(arg, tuple):
        return f"array({', '.join(map(literal, arg))})"
    return literal(arg)


MEASURE_KINDS: dict[type, MeasureKind] = {
    RowCount: MeasureKind(lambda m: "rows", lambda m: "count(*)", lambda m: ()),
    SqlAggregate: MeasureKind(lambda m: "sql", lambda m: m.text, lambda m: ()),
    CountIf: MeasureKind(
        lambda m: "count",
        lambda m: f"count_if({render_expr(m.predicate)})",
        lambda m: tuple(sorted(columns_of(m.predicate))),
    ),
    ColumnAgg: MeasureKind(
        lambda m: m.fn,
        lambda m: f"{'stddev_samp' if m.fn == 'stddev' else m.fn}({quote(m.column)})" + _where(m),
        lambda m: read(m, m.column),
    ),
    ServerNow: MeasureKind(lambda m: "now", lambda m: "current_timestamp()", lambda m: ()),
    AggEquals: MeasureKind(
        lambda m: f"{m.fn}_eq",
        lambda m: (
            f"{MEASURE_KINDS[ColumnAgg].render(ColumnAgg(m.fn, m.column, m.where))} = "
            + (literal(m.value, m.cast) if m.representable else f"{literal(m.value)} (never)")
        ),
        lambda m: read(m, m.column),
    ),
    AgeMicros: MeasureKind(
        lambda m: "age",
        lambda m: (
            f"unix_{'seconds' if m.whole_seconds else 'micros'}(current_timestamp()) - "
            f"unix_{'seconds' if m.whole_seconds else 'micros'}"
            f"(CAST(max({quote(m.column)}){_where(m)} AS TIMESTAMP))"
        ),
        lambda m: read(m, m.column),
    ),
    Aggregate: MeasureKind(
        lambda m: m.function,
        lambda m: (
            f"{m.function}({', '.join([*_arguments(m), *map(_arg_text, m.args)])})" + _where(m)
        ),
        lambda m: read(m, m.column, *m.more),
        apart=lambda m: m.function in OBJECT_AGGREGATES,
    ),
    ExprAggregate: MeasureKind(
        lambda m: m.function,
        lambda m: (
            f"{m.function}({', '.join([render_expr(m.expr), *map(_arg_text, m.args)])})" + _where(m)
        ),
        lambda m: read(m, *sorted(columns_of(m.expr))),
        apart=lambda m: m.function in OBJECT_AGGREGATES,
    ),
    PerGroup: MeasureKind(
        lambda m: "per_group",
        lambda m: (
            f"per group of ({', '.join(map(quote, m.group_by))}): "
            + ", ".join(kind_of(x).render(x) for x in m.inner)
            + f" must be {m.must.text}"
            + (f", warn unless {m.warn.text}" if m.warn is not None else "")
            + _where(m)
        ),
        lambda m: read(m, *m.group_by, *(c for x in m.inner for c in kind_of(x).columns(x))),
        outputs=PER_GROUP_OUTPUTS,
        scan=False,
    ),
    GroupStats: MeasureKind(
        lambda m: "groups",
        lambda m: ", ".join(GROUP_OUTPUTS) + _where(m),
        lambda m: read(m, *m.columns),
        outputs=GROUP_OUTPUTS,
        scan=False,
    ),
    Unmatched: MeasureKind(
        lambda m: "unmatched",
        render_unmatched,
        lambda m: read(m, *m.lookup.columns),
        scan=False,
        reference=True,
    ),
    Matched: MeasureKind(
        lambda m: "matched",
        render_matched,
        lambda m: read(m, *m.lookup.columns),
        scan=False,
        reference=True,
    ),
    ReferenceRows: MeasureKind(
        lambda m: "ref_rows", render_reference_rows, lambda m: (), scan=False, reference=True
    ),
    Frequencies: FREQUENCIES_KIND,
    **DRIFT_KINDS,
}
"""Every measure kind the planner can plan. A new kind is a dataclass above, its entry
here, and its emitter in :mod:`assay.emit.spark`."""


def kind_of(measure: object) -> MeasureKind:
    """The kind of ``measure``; an unknown one is an error, never a silent default."""
    kind = MEASURE_KINDS.get(type(measure))
    if kind is None:
        raise TypeError(
            f"{type(measure).__name__} is not a measure kind the planner knows: "
            "register it in assay.planner.measures.MEASURE_KINDS"
        )
    return kind


def measures_of(rule: Rule) -> tuple[Measure, ...]:
    """The measures a rule is judged on (empty for schema and SQL rules); literal regexes
    in row predicates are in their cheaper string form (:mod:`assay.planner.regex`).

    >>> from assay.ir import Col, IsNull, Origin, RowCheck, Rule
    >>> measures_of(Rule("not_null", RowCheck(IsNull(Col("a"))), Origin("c.yaml")))
    (RowCount(), CountIf(predicate=IsNull(item=Col(name='a'))))
    """
    measures = CHECK_MEASURES.get(type(rule.check))
    if measures is None:
        raise TypeError(
            f"no measures for check {type(rule.check).__name__}: register it in"
            " assay.planner.measures.CHECK_MEASURES"
        )
    if rule.filter is None:
        return measures(rule.check)
    # every filtered rule reports the rows its filter keeps: their count is one of its
    # measures, whether or not its check reads it (a max does not)
    kept = dict.fromkeys((RowCount(), *measures(rule.check)))
    return tuple(filtered(m, rule.filter) for m in kept)


def _also(where: Expr | None, condition: Expr) -> Expr:
    return condition if where is None else And((condition, where))


def _unfiltered(measure: Any, condition: Expr) -> Any:
    raise TypeError(f"{type(measure).__name__} is text the config wrote: it takes no filter")


FILTERED: dict[type, Callable[[Any, Expr], Any]] = {
    RowCount: lambda m, c: CountIf(c),
    SqlAggregate: _unfiltered,  # a folded SQL rule's or a SqlMetric's: neither has a filter
    CountIf: lambda m, c: CountIf(And((c, m.predicate))),
    ColumnAgg: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    ServerNow: lambda m, c: m,
    GroupStats: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    AggEquals: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    AgeMicros: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    Aggregate: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    ExprAggregate: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    Unmatched: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    Matched: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    ReferenceRows: lambda m, c: m,  # the referenced side is not the table's rows
    PerGroup: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    Frequencies: lambda m, c: dataclasses.replace(m, where=_also(m.where, c)),
    **DRIFT_FILTERED,
}
"""Each measure kind over the rows where a condition holds (a rule's ``filter``): the one
rewrite that planning (:func:`measures_of`) and judging (:class:`Filtered`) share;
complete over the kinds, checked at import."""


def filtered(measure: Measure, condition: Expr) -> Measure:
    """``measure`` over the rows where ``condition`` holds."""
    return FILTERED[type(measure)](measure, condition)  # type: ignore[no-any-return]


class Filtered(Mapping[Any, Any]):
    """A filtered rule's view of the measured values: each measure the judge asks for is
    read as its filtered form (:func:`filtered`), the row count as the filtered rows."""

    def __init__(self, values: Mapping[Any, Any], condition: Expr) -> None:
        self._values, self._condition = values, condition

    def __getitem__(self, measure: Any) -> Any:
        return self._values[filtered(measure, self._condition)]

    def __iter__(self) -> Iterator[Any]:
        raise TypeError("a filtered view is read by key only")

    def __len__(self) -> int:
        return len(self._values)


def count_if(predicate: Expr) -> CountIf:
    """The measure counting rows where a rule's ``predicate`` holds, in its
    :func:`simplified` form: the one key that planning and judging share."""
    return CountIf(simplified(predicate))


def simplified(predicate: Expr) -> Expr:
    """A rule's row predicate as the planner computes it: literal regexes in their cheaper
    string form, the other regexes' classes as one bit set (:func:`assay.planner.regex.cheaper`).
    The one place regex simplification runs: measures are keyed in this form
    (:func:`count_if`), and the detail plan and the declared values of a column read it."""
    return cheaper(predicate)


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
    """The group-by measure of a group metric."""
    return group_stats_of(metric.columns, metric.nulls)


def group_stats_of(columns: tuple[str, ...], nulls: GroupNulls = "any") -> GroupStats:
    """The group-by measure over ``columns`` (one key column: ``any`` and ``all`` agree)."""
    return GroupStats(columns, nulls if len(columns) > 1 or nulls == "none" else "any")


def _row_measures(check: RowCheck) -> tuple[Measure, ...]:
    summed = tuple(count_if(e) for e in check.summed)
    return (RowCount(), *(summed or (count_if(check.failing),)))


METRIC_MEASURES: dict[type, Callable[[Any], tuple[Measure, ...]]] = {
    RowCountMetric: lambda m: (RowCount(),),
    ColumnMetric: lambda m: (ColumnAgg(m.fn, m.column),),
    CountMetric: lambda m: (RowCount(), count_if(m.counted)),
    GroupMetric: lambda m: (RowCount(), group_stats(m)),
    FreshnessMetric: lambda m: (AgeMicros(m.column, m.whole_seconds),),
    AggregateMetric: lambda m: (aggregate_of(m),),
    ComplianceMetric: lambda m: (RowCount(), count_if(m.predicate)),
    FrequencyMetric: lambda m: (frequencies_of(m),),
    SqlMetric: lambda m: (SqlAggregate(m.text),),
    RowCountMatchMetric: lambda m: (RowCount(), ReferenceRows(m.reference.source)),
    **DRIFT_MEASURES,
}
"""The measures of each kind of metric."""

CHECK_MEASURES: dict[type, Callable[[Any], tuple[Measure, ...]]] = {
    RowCheck: _row_measures,
    UniqueCheck: lambda c: (RowCount(), group_stats_of(c.columns, c.nulls)),
    MetricCheck: lambda c: (
        (PerGroup(c.group_by, c.metric, c.must, c.warn),)
        if c.group_by
        else tuple(
            dict.fromkeys(
                x for m in (c.metric, *(m for m, _ in c.also)) for x in METRIC_MEASURES[type(m)](m)
            )
        )
    ),
    EqualsCheck: lambda c: (ColumnAgg(c.metric.fn, c.metric.column), agg_equals(c)),
    ColStatsCheck: lambda c: colstats_measures(c.column),
    SchemaCheck: lambda c: (),  # judged from the schema
    SchemaChangeCheck: lambda c: (),  # judged from the schema and the store's last one
    SqlCheck: lambda c: (),  # judged from its own query
    ValidatorCheck: lambda c: (),  # runs plans of its own (assay.executor.validators)
    ForeignKeyCheck: lambda c: (RowCount(), foreign_key_measure(c)),
}
"""The measures each kind of check is judged on; complete (checked at import) over the
IR's ``Check`` and ``Metric`` unions, as :data:`MEASURE_KINDS` is over the emitters."""

complete(METRIC_MEASURES, Metric, "assay.planner.measures.METRIC_MEASURES")
complete(CHECK_MEASURES, Check, "assay.planner.measures.CHECK_MEASURES")
complete(FILTERED, Measure, "assay.planner.measures.FILTERED")

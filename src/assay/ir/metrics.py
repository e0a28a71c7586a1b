"""Metrics: a number measured over the whole table (or over the rows a filter keeps),
judged by a threshold in a :class:`~assay.ir.rules.MetricCheck`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.ir.drift import DriftMetric
from assay.ir.expr import Coalesce, Expr, Lit, Not, Scalar
from assay.ir.references import RowCountMatchMetric
from assay.ir.shapes import WHOLE_TABLE, CheckShape, FailingRows, GroupNulls, complete

ColumnFn = Literal["min", "max", "avg", "sum", "stddev"]
GroupStat = Literal[
    "distinct_count",
    "duplicate_count",
    "duplicate_percent",
    "uniqueness",
    "surplus_count",
    "surplus_percent",
    "distinct_ratio",
    "duplicated_values",
    "duplicated_values_percent",
]


@dataclass(frozen=True, slots=True)
class RowCountMetric:
    """Rows in the table (after its filter)."""


@dataclass(frozen=True, slots=True)
class ColumnMetric:
    """An aggregate of one column: min, max, avg, sum, stddev (sample). Nulls are ignored."""

    fn: ColumnFn
    column: str


@dataclass(frozen=True, slots=True)
class CountMetric:
    """Rows for which ``counted`` is true (``missing_count``, ``invalid_count``); with
    ``percent``, as a percentage (0-100) of the row count.

    These count rows, so a failure can show sample rows like a row-level rule.
    """

    counted: Expr
    percent: bool = False


@dataclass(frozen=True, slots=True)
class GroupMetric:
    """A statistic of the groups of equal values of ``columns`` (rows with a null in any of
    them are ignored; with ``nulls="all"`` only rows where all of them are null):
    ``distinct_count`` groups, ``duplicate_count`` rows that share their value with another
    row, ``duplicate_percent`` those as a percentage of the table's rows, ``uniqueness``
    the fraction (0-1) of the rows considered whose value occurs exactly once (deequ's
    Uniqueness; no value when no row is considered), ``surplus_count`` rows considered
    minus groups (the repeats beyond each value's first row: sparquet-cola's
    duplicate_count) and ``surplus_percent`` those as a percentage of the table's rows;
    ``distinct_ratio`` the groups per row considered (0 when none: Great Expectations'
    proportion of unique values); ``duplicated_values`` the groups of two rows or more
    (SodaCL's duplicate_count) and ``duplicated_values_percent`` those as a percentage of
    the table's rows (SodaCL's duplicate_percent).
    """

    columns: tuple[str, ...]
    stat: GroupStat
    nulls: GroupNulls = "any"


@dataclass(frozen=True, slots=True)
class FreshnessMetric:
    """Seconds from the newest value of a date/timestamp column to now (server clock),
    computed by Spark: a date is midnight and a ``timestamp_ntz`` a wall-clock time in the
    session time zone."""

    column: str
    whole_seconds: bool = False
    """Both ends truncated to whole seconds before subtracting (sparquet-cola:
    ``unix_timestamp(now) - unix_timestamp(max(column))``)."""


@dataclass(frozen=True, slots=True)
class AggregateMetric:
    """One Spark SQL aggregate function of one column and literal arguments,
    ``function(column, *args)``, whose one value is the metric: ``percentile(x, 0.95)``
    (exact, interpolating linearly between the two nearest values; NaN sorts above every
    number), ``percentile_approx(x, 0.5, 10000)``; with ``where``, over the rows where it
    holds (the function ignores nulls, and the others count as nulls); with ``cast``, of
    the column cast to that type (``percentile_approx`` ranks doubles). A metric of this
    shape needs nothing but its rule's declaration: the planner, the emitter and the judge
    read it generically. An argument that is a tuple is an array literal; with
    ``element``, the metric is that element (0-based) of the function's array answer, so
    metrics differing only there share one aggregate (``percentile_approx(x, array(0.25,
    0.75), n)``: one summary of the column for both quantiles).
    """

    function: str
    column: str
    args: tuple[Scalar | tuple[Scalar, ...], ...] = ()
    where: Expr | None = None
    cast: str | None = None
    more: tuple[str, ...] = ()
    """Further columns, each an argument after ``column`` (before ``args``), cast and
    kept by ``where`` as it is: ``corr(x, y)``."""
    element: int | None = None
    length: bool = False
    """Of the column's length (Spark's ``length``: a string's characters, after ``cast``):
    SodaCL's ``min_length``, ``max_length``, ``avg_length``, deequ's MinLength."""


@dataclass(frozen=True, slots=True)
class ComplianceMetric:
    """The fraction (0-1) of the rows for which ``predicate`` is true (deequ's
    Compliance: a null predicate is not compliant); no value without rows, unless
    ``empty`` says what it is then (Great Expectations' proportion of non-null values
    is 0)."""

    predicate: Expr
    empty: float | None = None

    @property
    def failing(self) -> Expr:
        """The rows that do not comply: the predicate false or null."""
        return Not(Coalesce((self.predicate, Lit(False))))


FrequencyStat = Literal["entropy", "mutual_information"]


@dataclass(frozen=True, slots=True)
class FrequencyMetric:
    """A statistic of the frequencies of the values of ``columns`` (deequ's
    frequency-based analyzers: the rows where at least one of them is not null, grouped
    by their values, a null being a value): ``entropy`` of one column, ``-sum(p ln p)``
    over its values' shares p; ``mutual_information`` of two, ``sum(pxy ln(pxy / (px
    py)))`` over the pairs of values with neither null, px and py the shares of each
    value among those rows (deequ joins the marginals on the value, which drops nulls).
    Natural logarithm; no value without such rows (or pairs)."""

    columns: tuple[str, ...]
    stat: FrequencyStat


@dataclass(frozen=True, slots=True)
class SqlMetric:
    """The value of a SQL expression over aggregates of the table, its text as the
    config wrote it (SodaCL's ``avg_surface expression: avg(size * distance)``): one
    more output of the table's aggregate scan; no value when it is NULL."""

    text: str


Metric = (
    RowCountMetric
    | ColumnMetric
    | CountMetric
    | GroupMetric
    | FreshnessMetric
    | AggregateMetric
    | ComplianceMetric
    | FrequencyMetric
    | RowCountMatchMetric
    | DriftMetric
    | SqlMetric
)

METRIC_SHAPES: dict[type, CheckShape] = {
    RowCountMetric: WHOLE_TABLE,
    ColumnMetric: WHOLE_TABLE,
    CountMetric: CheckShape(lambda m: FailingRows(m.counted, sampled=True), lambda m: (m.counted,)),
    GroupMetric: CheckShape(
        lambda m: FailingRows(group=m.columns, nulls=m.nulls if len(m.columns) > 1 else "any")
    ),
    FreshnessMetric: WHOLE_TABLE,
    AggregateMetric: CheckShape(
        lambda m: FailingRows(), lambda m: (m.where,) if m.where is not None else ()
    ),
    ComplianceMetric: CheckShape(
        lambda m: FailingRows(m.failing, sampled=True), lambda m: (m.predicate,)
    ),
    FrequencyMetric: WHOLE_TABLE,
    RowCountMatchMetric: WHOLE_TABLE,
    DriftMetric: WHOLE_TABLE,
    SqlMetric: WHOLE_TABLE,
}
"""What each kind of metric reads of the rows: a new metric is its dataclass above, its place
in ``Metric`` and its entry here."""

complete(METRIC_SHAPES, Metric, "assay.ir.metrics.METRIC_SHAPES")

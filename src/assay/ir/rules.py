"""Rules: *what* is checked (a check) and *how* a failure counts (level), with origin.

The split follows deequ: a check says what must be measured, :mod:`assay.judge.evaluate`
judges the measured values. Every dialect front end produces these same types.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from assay.ir.drift import DriftMetric
from assay.ir.expr import And, Expr, Scalar, Sql
from assay.ir.metrics import METRIC_SHAPES, ColumnMetric, Metric
from assay.ir.monitoring import OverTime, SchemaChangeCheck
from assay.ir.origin import Origin
from assay.ir.references import ForeignKeyCheck, Reference, RowCountMatchMetric, keyed
from assay.ir.shapes import WHOLE_TABLE, CheckShape, FailingRows, GroupNulls, complete
from assay.ir.values import ZERO_TOLERANCE, Threshold, Tolerance

Level = Literal["error", "warn"]
"""What a failing rule's outcome means: ``error`` (severity ``fail``) or ``warn`` (severity
``warn``, as deequ's ``CheckStatus.Warning``). Either way the rule did not pass; only an
``error``-level failure can fail the run."""

OnFailure = Literal["fail", "warn", "skip"]
Scope = Literal["table", "new"]
"""What an incremental table's rule is judged on (docs/incremental.md)."""
"""The policy over a failing rule (sparquet's ``on_failure``): ``fail`` lets it fail the
run (exit 1) and hold the writes; ``warn`` and ``skip`` only report it. It never changes
the rule's ``passed`` or ``severity``."""

TypeFamily = Literal[
    "string",
    "numeric",
    "orderable",
    "temporal",
    "boolean",
    "string_or_temporal",
    "number_string_or_temporal",
    "any",
]
"""The kind of column a rule can work on (checked against the schema before any scan).
``string_or_temporal``: a string compared with a column that Spark casts for a date or
timestamp column (an ISO date written in JSON, which has no date type).
``number_string_or_temporal``: a column Spark's non-ANSI coercion compares with strings
(deequ's ``isContainedIn``; booleans and binaries it refuses)."""

# --- checks -------------------------------------------------------------------------------


RowReport = Literal["count", "passing_fraction"]
"""What a row-level rule reports besides its failed count: nothing more (``count``, the
native reading), or deequ's metric (``passing_fraction``): the fraction (0-1) of the rows
considered that pass (Completeness, Compliance, Uniqueness) as ``metric_value``. With no
row considered (an empty table; for uniqueness, only null keys) there is no fraction and
the rule fails, as deequ's empty state does."""


@dataclass(frozen=True, slots=True)
class RowCheck:
    """Every row passes or fails: ``failing`` is true exactly for a failing row (never null).

    Passes when the failing-row count is within ``tolerance`` (and, when it reports the
    ``passing_fraction``, at least one row is considered).
    """

    failing: Expr
    tolerance: Tolerance = ZERO_TOLERANCE
    reports: RowReport = "count"
    summed: tuple[Expr, ...] = ()
    """When set, the failed count is the sum of the rows where each of these holds (a row
    counted once per column it breaks: sparquet-cola's ``not_null`` over several columns);
    ``failing`` still tells which rows fail (samples, the row split)."""


@dataclass(frozen=True, slots=True)
class UniqueCheck:
    """No two rows share a value of ``columns``; failing rows are all rows whose value is
    shared (rows with a null in any key column are ignored, as in SQL ``UNIQUE``, unless
    ``nulls`` says otherwise).
    """

    columns: tuple[str, ...]
    tolerance: Tolerance = ZERO_TOLERANCE
    counted: UniqueCounted = "rows"
    reports: RowReport = "count"
    nulls: GroupNulls = "any"


UniqueCounted = Literal["rows", "values", "surplus"]
"""What a uniqueness rule's failed count counts: ``rows`` whose value is shared with
another row (native), duplicated ``values`` (data-validator's "N duplicates found"), or
``surplus`` rows, rows minus distinct values (sparquet-cola)."""


@dataclass(frozen=True, slots=True)
class MetricCheck:
    """A measured number judged by ``must`` (fail when violated) and an optional ``warn``
    (severity warn when ``must`` holds but ``warn`` does not).
    """

    metric: Metric
    must: Threshold
    warn: Threshold | None = None
    doubles: bool = False
    """Judge the value as a double, as sparquet-cola does: no value is NaN (freshness:
    +infinity), and NaN or an infinity is judged by the thresholds like any number (NaN
    satisfies only ``!=`` and ``not between``) instead of failing."""
    failing_count: int | None = None
    """The failed count a failing or warning check reports, when not its measured count
    (sparquet-cola: 1 for ``row_count``, 0 for the metrics that count no rows)."""
    count_when_passed: bool = True
    """Whether a passing check reports its measured count as the failed count (False:
    it reports 0, as sparquet-cola does)."""
    group_by: tuple[str, ...] = ()
    """Judged for every group of equal values of these columns (a null is a value, as in
    SQL ``GROUP BY``): the check fails when any group fails ``must`` (warns when any
    fails ``warn``); its failed count is the failing groups, its samples those groups
    with their values. Empty: judged once over the table."""
    also: tuple[tuple[Metric, Threshold], ...] = ()
    """Further metrics, each judged by its own threshold: the check holds when ``must``
    and each of these hold (Great Expectations' quantile ranges, a quantile each); its
    value is ``metric``'s, its ``details.values`` every one's in order. Not with
    ``group_by``."""


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    """The table's schema: columns that must exist, must not exist, and expected types
    (``types`` pairs a column with a Spark type name, aliases already normalised).
    """

    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    case_sensitive: bool = False
    """Column names compared exactly (sparquet-cola: ``c in df.columns``), not as Spark
    resolves them."""
    exactly: Literal["", "superset", "set", "order"] = ""
    """``superset``: the table has ``required`` and maybe others; ``set``: no column but
    ``required``; ``order``: its columns are ``required``, in that order; with any of
    them the result reports the table's columns (Great Expectations'
    ``expect_table_columns_to_match_set`` and ``_to_match_ordered_list``)."""
    column_count: Threshold | None = None
    """The number of the table's columns must satisfy it (Great Expectations'
    ``expect_table_column_count_to_be_between`` and ``_to_equal``); the result reports
    the table's columns."""


@dataclass(frozen=True, slots=True)
class SqlCheck:
    """A SQL query over the temp view ``_validation_df``.

    ``boolean``: the query returns one row with one boolean, true means pass.
    ``failed_rows``: the query returns the offending rows; their number is the failed count.
    ``value``: the query returns one number, judged by ``must`` and ``warn`` as a metric's
    value is (SodaCL's ``<metric> query``); no row or NULL is no value.
    """

    query: str
    mode: Literal["boolean", "failed_rows", "value"] = "boolean"
    reading: Literal["native", "sparquet"] = "native"
    """How the result is read. ``sparquet`` (sparquet-cola): a boolean query's first
    value passes when it is truthy in Python (a non-zero number passes; NULL fails) and
    its first row is read when it returns several; a failing boolean query counts 1
    failed, a passing one 0; a ``failed_rows`` query's row count is also its metric
    value."""
    must: Threshold | None = None
    warn: Threshold | None = None


@dataclass(frozen=True, slots=True)
class EqualsCheck:
    """The aggregate ``metric`` (e.g. ``max(column)``) must equal ``value``, compared by
    Spark in the column's type (data-validator ``columnMaxCheck``). No value (an empty
    table, only nulls) fails.
    """

    metric: ColumnMetric
    value: Scalar
    cast: str | None = None
    """The Spark type ``value`` is cast to (the column's: :mod:`assay.planner.literals`)."""
    representable: bool = True
    """False when the column's type cannot hold ``value``: no aggregate of it equals it."""


@dataclass(frozen=True, slots=True)
class ColStatsCheck:
    """Statistics of a numeric column (data-validator ``colstats``): count of non-null
    values, mean, min, max, sample standard deviation and a ``bins``-bucket equi-width
    histogram over [min, max]. Informational: it passes whenever it can be computed.
    The histogram needs min and max first, so it runs in one extra plan per table.
    """

    column: str
    bins: int = 10


@dataclass(frozen=True, slots=True)
class TypeRequirement:
    """A dialect's own check of a column's Spark type before any scan (its config check):
    the column's type must be one of ``types`` (simple names: ``tinyint`` ... ``bigint``,
    ``float``, ``double``, ``decimal``, ``string``, ``boolean``, ``date``, ``timestamp``...;
    ``varchar(n)``/``char(n)`` count as ``string``, ``decimal(p,s)`` as ``decimal``).
    With ``other``, ``types`` is ignored and the two columns' types must have a common
    type instead (data-validator's ``TypeCoercion.findWiderTypeForTwo``).

    ``message`` may use ``{column}`` and ``{type}`` (the column's name and Spark type).
    """

    column: str
    types: frozenset[str]
    message: str
    hint: str | None = None
    other: str | None = None


@dataclass(frozen=True, slots=True)
class ValidatorCheck:
    """A Python function registered with ``assay.register_validator``: it gets the table's
    DataFrame and returns the verdict. Not fused: it runs the ``plans`` Spark plans of its
    own (as declared at registration) after the table's plans; the planner never sees it
    (:mod:`assay.executor.validators` takes it out first)."""

    validator: str
    plans: int = 1


Check = (
    RowCheck
    | UniqueCheck
    | MetricCheck
    | SchemaCheck
    | SchemaChangeCheck
    | SqlCheck
    | EqualsCheck
    | ColStatsCheck
    | ValidatorCheck
    | ForeignKeyCheck
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One configured check, as it appears in results.

    ``kind`` is the canonical rule type (``not_null``, ``range``...), ``columns`` the
    columns it is about (shown in results and in sample rows), ``requires`` the column
    kinds it needs (validated against the schema before any scan), ``threshold`` the
    threshold text as the user wrote it, ``type_checks`` a dialect's own type checks
    (also before any scan).
    """

    kind: str
    check: Check
    origin: Origin
    columns: tuple[str, ...] = ()
    name: str | None = None
    level: Level = "error"
    threshold: str | None = None
    requires: tuple[tuple[str, TypeFamily], ...] = ()
    code: str | None = None
    params: tuple[tuple[str, object], ...] = field(default=(), compare=False)
    type_checks: tuple[TypeRequirement, ...] = ()
    on_failure: OnFailure = "fail"
    filter: Expr | None = None
    """Only the rows where this holds are checked (a row where it is null is not): every
    measure of the rule is taken over them, in the table's one plan; its failing rows,
    row count, percentages and groups are of those rows."""
    places: tuple[tuple[str, Origin], ...] = field(default=(), compare=False)
    """Where settings of the rule were written (``filter``, ``expression``); see
    :meth:`place`."""
    over_time: OverTime | None = None
    """Judged against its own earlier values too (``change``, ``anomaly``: after its
    check, from the metrics store; :mod:`assay.monitoring`)."""
    scope: Scope = "table"
    """On an incremental table: judged on the whole table (``table``) or on the
    partitions its run scans alone (``new``; docs/incremental.md)."""

    def snippet(self, setting: str) -> str | None:
        """The SQL text the user wrote under ``setting`` (``filter``, ``expression``)."""
        if setting == "filter":
            # a filter the dialect narrowed further (Great Expectations' row_condition
            # beside its null rule) holds the user's text as its first item
            written = self.filter.items[0] if isinstance(self.filter, And) else self.filter
            return written.text if isinstance(written, Sql) else None
        value = dict(self.params).get(setting)
        return value if setting == "expression" and isinstance(value, str) else None

    def place(self, setting: str) -> Origin:
        """Where ``setting`` was written: its own line when recorded, else
        ``<rule>.<setting>`` on the rule's line."""
        for name, origin in self.places:
            if name == setting:
                return origin
        return self.origin.child(setting)

    @property
    def reference(self) -> Reference | None:
        """The second source this rule reads (a foreign key's or a row count match's)."""
        check = self.check
        if isinstance(check, ForeignKeyCheck):
            return check.lookup.reference
        if isinstance(check, MetricCheck) and isinstance(
            check.metric, (RowCountMatchMetric, DriftMetric)
        ):
            found = check.metric.reference
            return found if isinstance(found, Reference) else None  # not history's
        return None

    @property
    def blocks(self) -> bool:
        """Whether this rule failing fails the run (an ``error``-level rule under
        ``on_failure: fail``); the run's own policy can still waive it."""
        return self.level == "error" and self.on_failure == "fail"

    @property
    def waiver(self) -> str | None:
        """Why a failure of this rule does not fail the run (None when it does)."""
        if self.level == "warn":
            return "level warn"
        if self.on_failure != "fail":
            return f"on_failure: {self.on_failure}"
        return None

    @property
    def is_row_level(self) -> bool:
        """Whether a failure can be explained by samples (the detail pass): rows, or the
        failing groups of a metric judged per group."""
        grouped = isinstance(self.check, MetricCheck) and bool(self.check.group_by)
        return grouped or failing_rows_of(self.check).sampled

    @property
    def failing_rows(self) -> FailingRows:
        """The rows failing this rule: its check's, among the rows its filter keeps."""
        rows = failing_rows_of(self.check)
        if self.filter is None:
            return rows
        if rows.group:
            where = self.filter if rows.where is None else And((self.filter, rows.where))
            return dataclasses.replace(rows, where=where)
        predicate = self.filter if rows.predicate is None else And((self.filter, rows.predicate))
        return dataclasses.replace(rows, predicate=predicate)


# --- what each kind of check reads of the rows, in one place ------------------------------


CHECK_SHAPES: dict[type, CheckShape] = {
    RowCheck: CheckShape(
        lambda c: FailingRows(c.failing, sampled=True), lambda c: (c.failing, *c.summed)
    ),
    UniqueCheck: CheckShape(lambda c: FailingRows(group=c.columns, nulls=c.nulls, sampled=True)),
    MetricCheck: CheckShape(
        # judged per group: its samples are groups, not rows (no failing rows of its own)
        lambda c: FailingRows() if c.group_by else METRIC_SHAPES[type(c.metric)].rows(c.metric),
        lambda c: tuple(
            e
            for m in (c.metric, *(m for m, _ in c.also))
            for e in METRIC_SHAPES[type(m)].expressions(m)
        ),
    ),
    SchemaCheck: WHOLE_TABLE,
    SchemaChangeCheck: WHOLE_TABLE,
    SqlCheck: WHOLE_TABLE,
    EqualsCheck: WHOLE_TABLE,
    ColStatsCheck: WHOLE_TABLE,
    ValidatorCheck: WHOLE_TABLE,
    ForeignKeyCheck: CheckShape(
        lambda c: FailingRows(
            keyed(c.lookup.columns),
            sampled=True,
            absent=None if c.negate else c.lookup,
            present=c.lookup if c.negate else None,
        )
    ),
}
"""Every kind of check: a new one is a dataclass above and its entry here (a metric's is in
:data:`assay.ir.metrics.METRIC_SHAPES`), in the planner's
:data:`assay.planner.measures.CHECK_MEASURES` and in the judge's
:data:`assay.judge.evaluate.JUDGES`; a kind missing from any of them fails at import."""


complete(CHECK_SHAPES, Check, "assay.ir.rules.CHECK_SHAPES")


def failing_rows_of(check: Check) -> FailingRows:
    """The rows that fail ``check`` (:class:`FailingRows`)."""
    return CHECK_SHAPES[type(check)].rows(check)


def expressions_of(check: Check) -> tuple[Expr, ...]:
    """The row expressions a check evaluates."""
    return CHECK_SHAPES[type(check)].expressions(check)

"""The plan IR: what one table's run submits to Spark, as frozen data.

A :class:`TablePlan` has at most one :class:`AggregatePlan` (one Spark plan: every scan
aggregate and group-by aggregate cross-joined into a single row), at most one
:class:`HistogramPlan` (every ``colstats`` histogram, after the aggregate gave min and
max), at most one :class:`SqlPlan` (every SQL rule of the table as one query), and a
:class:`DetailPlan` template used only when a row-level rule fails.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

from assay.ir.expr import Expr, Scalar, Sql, columns_of, walk
from assay.ir.references import Lookup
from assay.ir.rules import SqlCheck, UniqueCheck
from assay.ir.shapes import GroupNulls
from assay.ir.sources import Source
from assay.ir.suite import Table
from assay.planner.measures import (
    CountIf,
    GroupStats,
    Histogram,
    Measure,
    PerGroup,
    RowCount,
    SqlAggregate,
)
from assay.planner.sqlfold import AggregateQuery, RowCountQuery

B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class Slot:
    """One measure computed once, under an output name derived from its position.

    ``computed``, when set, is the form the plan computes the measure in: the same value
    by a cheaper road (a regex run of one class by its bytes:
    :func:`assay.planner.passes.class_runs.class_runs`); answers stay keyed by ``measure``."""

    name: str
    measure: Measure
    rules: tuple[int, ...]
    computed: Measure | None = None

    @property
    def form(self) -> Measure:
        """The measure as the plan computes it."""
        return self.computed if self.computed is not None else self.measure


@dataclass(frozen=True, slots=True)
class ScanAggregate:
    """``df.agg(...)`` over the table: one output column per slot.

    With ``where``, the branch aggregates only rows matching it (a statistics-prunable
    filter): every slot is then a ``CountIf`` whose predicate implies ``where``.
    """

    slots: tuple[Slot, ...]
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class GroupAggregate:
    """``df.groupBy(columns).count()`` then one row of group statistics.

    With ``by_key`` (a rule expects the keys to be unique) rows are shuffled straight to
    their key's partition, without Spark's map-side partial aggregation, which only
    costs when almost every key is distinct; into ``partitions`` partitions when the
    planner knew the table's size, else into the session's default number (which
    adaptive execution may coalesce).
    """

    columns: tuple[str, ...]
    slot: Slot
    by_key: bool = False
    partitions: int | None = None

    @property
    def slots(self) -> tuple[Slot, ...]:
        """The branch's one slot."""
        return (self.slot,)


@dataclass(frozen=True, slots=True)
class ValueAggregate:
    """The rows counted per distinct combination of values of ``columns`` (``GROUP BY
    columns``, a null being a value), then one row of statistics over those groups, each
    weighted by its rows: a ``CountIf`` slot (its predicate reads one of the columns
    only) sums the rows of the groups whose value fails it, so its test runs once per
    distinct value instead of once per row; a ``GroupStats`` slot over one of the
    columns alone reads that column's groups (the combinations summed per value of it).
    Several columns share one branch when the product of their declared numbers of
    values is small: one scan and one hash per row instead of one of each per column
    (:mod:`assay.planner.values`)."""

    columns: tuple[str, ...]
    slots: tuple[Slot, ...]

    def column_of(self, slot: Slot) -> str:
        """The one column of ``columns`` ``slot`` reads."""
        column = value_column(slot.measure)
        assert column in self.columns, (slot, self.columns)
        return column


def value_column(measure: Measure) -> str | None:
    """The one column a measure reads, when a group-by of that column's values can
    answer it: a count whose predicate reads one column and no SQL text, or the groups
    of one column (unfiltered). Whether it pays, and whether grouping keeps apart the
    values the measure tells apart, is :mod:`assay.planner.values`'s decision.

    >>> from assay.ir.expr import Col, Compare, IsNull
    >>> from assay.ir.values import Op
    >>> value_column(CountIf(IsNull(Col("c"))))
    'c'
    >>> value_column(CountIf(Compare(Op.LT, Col("a"), Col("b")))) is None
    True
    """
    if isinstance(measure, CountIf):
        columns = columns_of(measure.predicate)
        if len(columns) == 1 and not any(isinstance(n, Sql) for n in walk(measure.predicate)):
            return columns[0]
        return None
    if isinstance(measure, GroupStats) and len(measure.columns) == 1 and measure.where is None:
        return measure.columns[0]
    return None


@dataclass(frozen=True, slots=True)
class ReferenceAggregate:
    """A branch of the aggregate plan over a referenced ``source``: with ``lookup``, the
    table's rows (keys not null) LEFT ANTI JOIN the referenced side's distinct keys
    (``join``: ``semi``, LEFT SEMI JOIN; ``matches``, JOIN the referenced keys' counts,
    summed), counted once per slot (each over its rule's rows); without, the referenced
    side's rows counted (one slot)."""

    source: Source
    slots: tuple[Slot, ...]
    lookup: Lookup | None = None
    join: Literal["anti", "semi", "matches"] = "anti"


Branch = ScanAggregate | GroupAggregate | ReferenceAggregate | ValueAggregate
"""One part of the aggregate plan (each kind is dispatched on by class where code builds,
renders or narrows it: ``functools.singledispatch``)."""

BRANCH_KINDS: tuple[type, ...] = (ScanAggregate, GroupAggregate, ReferenceAggregate, ValueAggregate)
"""The kinds of branch, in the order the aggregate plan holds them."""


@dataclass(frozen=True, slots=True, init=False)
class AggregatePlan:
    """All aggregates of a table, cross-joined into ONE single-row Spark plan (with the
    branches over referenced sources).

    ``branches`` are held by kind (scans, group-bys, reference branches, value branches),
    each kind in the order given: ``AggregatePlan(branches)``, or in runs
    (``AggregatePlan(scans, groups)``), concatenated."""

    branches: tuple[Branch, ...]

    def __init__(self, branches: Iterable[Branch] = (), *more: Iterable[Branch]) -> None:
        given = [*branches, *(b for run in more for b in run)]
        given.sort(key=lambda b: BRANCH_KINDS.index(type(b)))  # stable: each kind keeps its order
        object.__setattr__(self, "branches", tuple(given))

    @property
    def slots(self) -> tuple[Slot, ...]:
        """Every slot: scans first, then group-bys, reference branches, value branches."""
        return tuple(s for b in self.branches for s in b.slots)

    def of_kind(self, kind: type[B]) -> tuple[B, ...]:
        """The branches of one kind, in order."""
        return tuple(b for b in self.branches if isinstance(b, kind))

    @property
    def scans(self) -> tuple[ScanAggregate, ...]:
        """The scan branches (a view of ``branches``)."""
        return self.of_kind(ScanAggregate)

    @property
    def groups(self) -> tuple[GroupAggregate, ...]:
        """The group-by branches (a view of ``branches``)."""
        return self.of_kind(GroupAggregate)

    @property
    def references(self) -> tuple[ReferenceAggregate, ...]:
        """The branches over referenced sources (a view of ``branches``)."""
        return self.of_kind(ReferenceAggregate)

    @property
    def values(self) -> tuple[ValueAggregate, ...]:
        """The value branches (a view of ``branches``)."""
        return self.of_kind(ValueAggregate)


@dataclass(frozen=True, slots=True)
class SqlQuery:
    """One SQL rule inside the table's SQL plan."""

    name: str
    rule_index: int
    check: SqlCheck


@dataclass(frozen=True, slots=True)
class FoldedSql:
    """A SQL rule answered by the aggregate plan (:mod:`assay.planner.sqlfold`): its
    query only counts the rows matching a condition, or their distinct values, or
    compares aggregates of the whole table, so ``measure`` (a ``count_if`` slot, the row
    count, a group-by's statistics, or the comparison itself) gives what the query would
    have returned (:meth:`answer`)."""

    rule_index: int
    measure: CountIf | RowCount | GroupStats | SqlAggregate
    query: RowCountQuery | AggregateQuery

    def answer(self, measured: object) -> object:
        """The query's value, from ``measured`` (the measure's value)."""
        if isinstance(self.query, AggregateQuery):
            return measured
        if isinstance(self.measure, GroupStats):
            assert isinstance(measured, dict)
            measured = measured["groups"]
        return self.query.value(int(measured or 0))  # type: ignore[call-overload]

    @property
    def analysed(self) -> CountIf | SqlAggregate | None:
        """The scan measure holding text the config wrote, which Spark must accept in
        the aggregate scan before the fold is kept (None: nothing to analyse)."""
        if isinstance(self.measure, SqlAggregate):
            return self.measure
        if self.query.condition is None:
            return None
        return CountIf(Sql(self.query.condition))


@dataclass(frozen=True, slots=True)
class SqlPlan:
    """Every SQL rule of a table, evaluated as one query (one Spark plan); with
    ``count_rows`` it also counts the table's rows (when there is no aggregate plan)."""

    queries: tuple[SqlQuery, ...]
    count_rows: bool = False


@dataclass(frozen=True, slots=True)
class HistogramColumn:
    """One column's equi-width histogram, output under ``name``; ``rules`` read it."""

    name: str
    measure: Histogram
    rules: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HistogramPlan:
    """Every histogram of a table in ONE Spark plan (one scan), run after the aggregate
    plan because bucket bounds need each column's min and max. Skipped when no column has
    a finite min and max (empty table, only nulls, NaN or infinities)."""

    columns: tuple[HistogramColumn, ...]


@dataclass(frozen=True, slots=True)
class DetailEntry:
    """Sample rows for one rule: rows where ``predicate`` is true, or rows whose
    ``group`` value is shared by another row (uniqueness)."""

    rule_index: int
    columns: tuple[str, ...]
    predicate: Expr | None = None
    group: tuple[str, ...] | None = None
    nulls: GroupNulls = "any"
    where: Expr | None = None
    """With ``group``: only rows where this holds are grouped (a rule's filter)."""
    absent: Lookup | None = None
    """With ``predicate``: only its rows whose key has no match in the referenced source
    (a foreign key: an anti join in a branch of its own)."""
    present: Lookup | None = None
    """With ``predicate``: only its rows whose key has a match in the referenced source
    (a negated foreign key: a semi join in a branch of its own)."""
    grouped: PerGroup | None = None
    """A metric judged per group: its samples are the failing groups (``columns``: the
    group-by columns), each with the group's value."""
    reads: tuple[str, ...] = ()
    """Names the SQL snippets of the rule's own condition read (an ``expression``'s,
    lower-cased, as sqlglot finds them): sampled beside ``columns`` where they are
    columns of the table (:func:`assay.planner.lower.plan_detail`)."""


@dataclass(frozen=True, slots=True)
class DetailPlan:
    """Up to ``sample_size`` failing rows per entry, with ``keys``, in one Spark plan."""

    entries: tuple[DetailEntry, ...]
    keys: tuple[str, ...]
    sample_size: int
    order: tuple[str, ...] = ()
    """Columns the samples of a rule are ordered by: the keys, then the other sampled
    columns Spark can compare (tie-breakers, so samples are the same on every run)."""
    own_branch: tuple[int, ...] = ()
    """Rules (indices) sampled by a branch of their own, ``WHERE fails ORDER BY ...
    LIMIT N`` (a bounded heap per task, reading only the rule's columns); the others
    share one scan that tags every failing row and sorts them. Chosen by cost
    (:func:`assay.planner.cost.own_branches`)."""
    bounds: tuple[tuple[int, Scalar], ...] = ()
    """(rule index, upper bound of ``keys[0]``): the branch of that rule reads only rows
    whose first key is null or at most the bound (:func:`assay.planner.cost.key_bound`)."""
    hashed: bool = False
    """The bounds are of ``xxhash64`` of each rule's sampled columns, not of a key (a
    table without keys)."""
    fixed_order: bool = False
    """``order`` orders every rule's samples as it is (the columns of every row rule of
    the table: :func:`assay.planner.lower.plan_detail`'s ``ordered_by``); otherwise each
    part of the plan narrows it to its own rules' columns."""


@dataclass(frozen=True, slots=True)
class TablePlan:
    """Everything a table's run may submit; ``detail`` lists every row-level rule (the
    executor narrows it to the rules that failed)."""

    table: Table
    aggregate: AggregatePlan | None
    sql: SqlPlan | None
    detail: DetailPlan | None
    schema_rules: tuple[int, ...]
    histogram: HistogramPlan | None = None
    folded: tuple[FoldedSql, ...] = ()
    key_range: str | None = None
    """A key column whose ``min`` and ``max`` the aggregate also computes, to bound the
    detail plan's heavy branches (:func:`assay.planner.cost.key_bound`)."""

    @property
    def base_plans(self) -> int:
        """Spark plans submitted when every rule passes."""
        # The SQL rules are cross-joined into the aggregate plan: one plan for both.
        return int(self.aggregate is not None or self.sql is not None) + int(
            self.histogram is not None
        )

    def slot_of(self, measure: Measure) -> Slot:
        """The slot computing ``measure``."""
        assert self.aggregate is not None
        for slot in self.aggregate.slots:
            if slot.measure == measure:
                return slot
        raise KeyError(measure)


def expects_unique(table: Table, slot: Slot) -> bool:
    """Whether a rule reading this group-by slot expects every key to be unique."""
    return any(isinstance(table.rules[i].check, UniqueCheck) for i in slot.rules)


def aggregate_subset(plan: AggregatePlan, names: frozenset[str]) -> AggregatePlan:
    """The plan computing only the slots named in ``names`` (each branch keeps its own
    shape; empty branches dropped): what the executor reruns to find the measure Spark
    fails on.

    >>> from assay.planner.measures import RowCount
    >>> s = lambda n: Slot(n, RowCount(), ())
    >>> plan = AggregatePlan((ScanAggregate((s("a"), s("b"))),))
    >>> [slot.name for slot in aggregate_subset(plan, frozenset("b")).slots]
    ['b']
    """
    narrowed = (_narrowed(b, tuple(s for s in b.slots if s.name in names)) for b in plan.branches)
    return AggregatePlan(b for b in narrowed if b is not None)


@functools.singledispatch
def _narrowed(branch: Branch, kept: tuple[Slot, ...]) -> Branch | None:
    """``branch`` computing only ``kept`` of its slots (None: none kept)."""
    raise NotImplementedError(f"no narrowing of {type(branch).__name__}")


@_narrowed.register
def _(branch: ScanAggregate, kept: tuple[Slot, ...]) -> Branch | None:
    return dataclasses.replace(branch, slots=kept) if kept else None


@_narrowed.register
def _(branch: ReferenceAggregate, kept: tuple[Slot, ...]) -> Branch | None:
    return dataclasses.replace(branch, slots=kept) if kept else None


@_narrowed.register
def _(branch: GroupAggregate, kept: tuple[Slot, ...]) -> Branch | None:
    return branch if kept else None


@_narrowed.register
def _(branch: ValueAggregate, kept: tuple[Slot, ...]) -> Branch | None:
    read = {branch.column_of(s) for s in kept}
    return ValueAggregate(tuple(c for c in branch.columns if c in read), kept) if kept else None


def sql_subset(plan: SqlPlan, rule_indices: frozenset[int]) -> SqlPlan:
    """The SQL plan of the queries of ``rule_indices`` only (still counting rows when the
    whole plan did)."""
    return dataclasses.replace(
        plan, queries=tuple(q for q in plan.queries if q.rule_index in rule_indices)
    )

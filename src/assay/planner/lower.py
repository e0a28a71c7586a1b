"""Lowering: a table's rules -> :class:`TablePlan` (pure, deterministic)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Mapping

from assay.ir.expr import Scalar, Sql, walk
from assay.ir.rules import (
    ColStatsCheck,
    Rule,
    SchemaCheck,
    SqlCheck,
    expressions_of,
)
from assay.ir.suite import Table
from assay.planner.cost import (
    DEFAULT_OPTIONS,
    PlannerOptions,
    group_partitions,
    heavy,
    key_bound,
    own_branches,
    scan_branches,
    splits,
)
from assay.planner.joins import reference_branches
from assay.planner.measures import (
    ColumnAgg,
    CountIf,
    GroupStats,
    Histogram,
    Measure,
    PerGroup,
    RowCount,
    SqlAggregate,
    kind_of,
    measures_of,
)
from assay.planner.plan import (
    AggregatePlan,
    DetailEntry,
    DetailPlan,
    FoldedSql,
    GroupAggregate,
    HistogramColumn,
    HistogramPlan,
    Slot,
    SqlPlan,
    SqlQuery,
    TablePlan,
    ValueAggregate,
    expects_unique,
)
from assay.planner.regex import cheaper, runs_by_bytes
from assay.planner.sqlfold import (
    RowCountQuery,
    aggregate_query,
    row_count_query,
    snippet_columns,
)
from assay.planner.values import plain_string, value_branches


def plan_table(
    table: Table,
    options: PlannerOptions = DEFAULT_OPTIONS,
    size_bytes: int | None = None,
    unfold: Collection[int] = (),
    key_range: str | None = None,
    without: Collection[int] = (),
    columnar: bool | None = None,
    types: Mapping[str, str] | None = None,
) -> TablePlan:
    """Compile a table's rules into one aggregate plan, one SQL plan and a detail template.

    Equal measures requested by several rules share one slot; slot names come from the
    order in which rules first ask for them, so the plan is stable across runs. How the
    slots are split into scan branches is decided by cost (:mod:`assay.planner.cost`).
    SQL rules that only count rows are folded into the aggregate
    (:mod:`assay.planner.sqlfold`), except those in ``unfold`` (kept as queries).
    ``key_range`` names a key column (a number or a date) whose min and max the
    aggregate also computes when some rule may need samples, so the detail plan can
    bound its heavy branches (:func:`assay.planner.cost.key_bound`). The rules in
    ``without`` are left out of every plan (their referenced source cannot be read).
    ``size_bytes`` and ``columnar`` are the server's view of the source
    (:func:`assay.planner.cost.splits`); ``types`` maps its lower-case column names to
    Spark types (None: unknown), which decide the columns whose counts can be answered
    by value (:mod:`assay.planner.values`).
    """
    folded = _folded(table.rules, unfold) if options.fold_sql else ()
    detail = _detail_template(table, without)
    key_range = key_range if detail is not None else None
    extra = (ColumnAgg("min", key_range), ColumnAgg("max", key_range)) if key_range else ()
    slots = _slots(table.rules, {f.rule_index: f.measure for f in folded}, extra, without)
    values: tuple[ValueAggregate, ...] = ()
    if options.by_value and splits(table.source, options, size_bytes, columnar):
        slots, values = value_branches(slots, table, types, options.value_max, options.join_values)
    if options.class_runs:
        slots = class_runs(slots, types)
    scans = scan_branches(
        [s for s in slots if kind_of(s.measure).scan],
        table.source,
        options,
        size_bytes,
        columnar,
    )
    groups = tuple(
        _group(table, s, options, size_bytes)
        for s in slots
        if not kind_of(s.measure).scan and not kind_of(s.measure).reference
    )
    aggregate = (
        AggregatePlan(scans, groups, reference_branches(slots), values) if slots or values else None
    )
    sql = _sql_plan(table.rules, {f.rule_index for f in folded})
    if sql is not None and aggregate is None:
        sql = SqlPlan(sql.queries, count_rows=True)
    return TablePlan(
        table=table,
        aggregate=aggregate,
        sql=sql,
        detail=detail,
        schema_rules=tuple(
            i for i, r in enumerate(table.rules) if isinstance(r.check, SchemaCheck)
        ),
        histogram=_histogram_plan(table.rules),
        folded=folded,
        key_range=key_range,
    )


def class_runs(slots: Iterable[Slot], types: Mapping[str, str] | None) -> tuple[Slot, ...]:
    """The slots with the regexes of their counts that are runs of one ASCII class, on a
    plain string column, computed in their byte-length form where that pays
    (:func:`assay.planner.regex.runs_by_bytes`, the slot's ``computed``): rules asking
    for runs of one class on one column share one regex per row."""
    slots = tuple(slots)
    counts = [s for s in slots if isinstance(s.measure, CountIf)]
    forms = runs_by_bytes(
        [s.measure.predicate for s in counts],  # type: ignore[union-attr]
        lambda column: plain_string(column, types),
    )
    computed = {
        s.name: CountIf(form)
        for s, form in zip(counts, forms, strict=True)
        if form != s.measure.predicate  # type: ignore[union-attr]
    }
    return tuple(
        dataclasses.replace(s, computed=computed[s.name]) if s.name in computed else s
        for s in slots
    )


def _group(
    table: Table, slot: Slot, options: PlannerOptions, size_bytes: int | None
) -> GroupAggregate:
    if isinstance(slot.measure, PerGroup):
        return GroupAggregate(slot.measure.group_by, slot)
    assert isinstance(slot.measure, GroupStats)
    if not expects_unique(table, slot):
        return GroupAggregate(slot.measure.columns, slot)
    return GroupAggregate(
        slot.measure.columns, slot, by_key=True, partitions=group_partitions(size_bytes, options)
    )


def plan_detail(
    plan: TablePlan,
    failed: Collection[int],
    keys: tuple[str, ...],
    comparable: Callable[[str], bool] = lambda _: True,
    failed_rows: Mapping[int, int] | None = None,
    options: PlannerOptions = DEFAULT_OPTIONS,
    key_range: tuple[object, object] | None = None,
    row: tuple[str, ...] = (),
    hash_bounds: bool = True,
) -> DetailPlan | None:
    """The detail plan for the rules in ``failed`` (None when none of them is row-level).

    A sample identifies its row: by the ``keys`` when there are some, else by the whole
    ``row`` (the table's columns, the rule's own first, at most
    :data:`MAX_SAMPLE_COLUMNS` of them).

    ``comparable`` tells which columns Spark can order by (not maps): the sampled ones
    that can are tie-breakers after the keys. ``failed_rows`` (each rule's failing rows,
    from the aggregate plan) shapes the plan by cost; with ``key_range`` (the first key's
    min and max) a rule's own branch may read only the low end of the
    key's range (:func:`assay.planner.cost.key_bound`); without keys (and with
    ``hash_bounds``) a heavy rule's branch reads the low end of a row hash's range."""
    if plan.detail is None:
        return None
    entries = tuple(
        e if e.grouped else dataclasses.replace(e, columns=_identified(keys, _sampled(e, row), row))
        for e in plan.detail.entries
        if e.rule_index in failed
    )
    if not entries:
        return None
    sampled = dict.fromkeys(c for e in entries for c in e.columns)
    order = tuple(dict.fromkeys(keys + tuple(c for c in sampled if comparable(c))))
    sampled_rules = {e.rule_index for e in entries}
    counts = {i: n for i, n in (failed_rows or {}).items() if i in sampled_rules}
    size = plan.detail.sample_size
    bounds = _detail_bounds(counts, size, keys, key_range, hash_bounds, options)
    bounded = {i for i, _ in bounds}
    # A heavy rule with no bound would make the shared scan sort all its failing rows:
    # it gets a branch of its own (a bounded heap of N rows per task), however many.
    unbounded = {i: n for i, n in counts.items() if i not in bounded}
    hashed = bool(bounds) and not keys
    # hash-bounded rules share the one scan (it hashes each row once); key-bounded ones
    # may still read fewer row groups in a branch of their own
    heaviest = own_branches(counts, options) if not hashed else ()
    # a foreign key's samples are an anti join: always a branch of their own
    joined = {e.rule_index for e in entries if e.absent is not None}
    own = tuple(sorted({*heaviest, *heavy(unbounded, options), *joined}))
    return DetailPlan(entries, keys, size, order, own, tuple(bounds), hashed)


def _detail_bounds(
    counts: Mapping[int, int],
    size: int,
    keys: tuple[str, ...],
    key_range: tuple[object, object] | None,
    hash_bounds: bool,
    options: PlannerOptions,
) -> list[tuple[int, Scalar]]:
    """``(rule, bound)`` for each failed rule whose samples are read in the low end of a
    range: the first key's, or without keys a row hash's (by rule index)."""
    bounds: list[tuple[int, Scalar]] = []
    if key_range is not None and keys:
        # Every rule with many failing rows reads only the low end of the first key's
        # range, in its own branch or in the shared scan: the shared scan then sorts
        # about ``detail_bound_margin`` x N rows per rule, not every failing row.
        low, high = key_range
        for index in sorted(counts):
            bound = key_bound(low, high, counts[index], size, options)
            if bound is not None:
                bounds.append((index, bound))  # type: ignore[arg-type]
    elif not keys and hash_bounds:
        # No keys: a heavy rule's samples come from the failing rows whose hash (of the
        # columns they show, uniform over 64 bits) is in the low end of its range, the
        # first by value among those: the same rows on every run, at the cost of a few.
        for index in heavy(counts, options):
            bound = key_bound(-(2**63), 2**63 - 1, counts[index], size, options)
            if bound is not None:
                bounds.append((index, bound))  # type: ignore[arg-type]
        bounds.sort()
    return bounds


def _folded(rules: tuple[Rule, ...], unfold: Collection[int]) -> tuple[FoldedSql, ...]:
    found = []
    for index, rule in enumerate(rules):
        if isinstance(rule.check, SqlCheck) and index not in unfold:
            query = row_count_query(rule.check)
            if query is not None:
                found.append(FoldedSql(index, _folded_measure(query), query))
            elif (compared := aggregate_query(rule.check)) is not None:
                found.append(FoldedSql(index, SqlAggregate(compared.projection), compared))
    return tuple(found)


def _folded_measure(query: RowCountQuery) -> CountIf | RowCount | GroupStats:
    where = None if query.condition is None else Sql(query.condition)
    if query.distinct:
        return GroupStats(query.distinct, "any", where)
    return RowCount() if where is None else CountIf(where)


def _slots(
    rules: Iterable[Rule],
    folded: Mapping[int, Measure],
    extra: Iterable[Measure] = (),
    without: Collection[int] = (),
) -> tuple[Slot, ...]:
    # The row count is always computed with the other aggregates: every result reports it.
    users: dict[Measure, list[int]] = {RowCount(): []}
    for index, rule in enumerate(rules):
        if index in without:
            continue
        for measure in (folded[index],) if index in folded else measures_of(rule):
            users.setdefault(measure, []).append(index)
    for measure in extra:
        users.setdefault(measure, [])
    if len(users) == 1 and not users[RowCount()]:
        return ()
    return tuple(
        Slot(f"m{n:03d}_{_suffix(m)}", m, tuple(dict.fromkeys(idx)))
        for n, (m, idx) in enumerate(users.items())
    )


def _suffix(measure: Measure) -> str:
    return kind_of(measure).suffix(measure)


def _histogram_plan(rules: tuple[Rule, ...]) -> HistogramPlan | None:
    """Every colstats histogram of the table in one extra plan (equal ones shared)."""
    users: dict[Histogram, list[int]] = {}
    for index, rule in enumerate(rules):
        if isinstance(rule.check, ColStatsCheck):
            measure = Histogram(rule.check.column, rule.check.bins)
            users.setdefault(measure, []).append(index)
    columns = tuple(
        HistogramColumn(f"h{n:03d}", m, tuple(idx)) for n, (m, idx) in enumerate(users.items())
    )
    return HistogramPlan(columns) if columns else None


def _sql_plan(rules: tuple[Rule, ...], folded: Collection[int]) -> SqlPlan | None:
    sql_rules = [
        (i, r.check)
        for i, r in enumerate(rules)
        if isinstance(r.check, SqlCheck) and i not in folded
    ]
    queries = tuple(SqlQuery(f"q{n:03d}", i, check) for n, (i, check) in enumerate(sql_rules))
    return SqlPlan(queries) if queries else None


def _detail_template(table: Table, without: Collection[int] = ()) -> DetailPlan | None:
    if not table.detail or table.sample_size <= 0:
        return None
    entries = tuple(
        entry
        for index, rule in enumerate(table.rules)
        if index not in without and (entry := _detail_entry(index, rule)) is not None
    )
    return DetailPlan(entries, table.keys, table.sample_size) if entries else None


def _detail_entry(index: int, rule: Rule) -> DetailEntry | None:
    """The sample rows of a rule whose failure shows them (its IR's failing rows)."""
    grouped = [m for m in measures_of(rule) if isinstance(m, PerGroup)]
    if grouped:  # a metric judged per group: its samples are the failing groups
        return DetailEntry(index, grouped[0].group_by, grouped=grouped[0])
    rows = rule.failing_rows
    if not rows.sampled:
        return None
    if rows.group:
        return DetailEntry(
            index, rule.columns, group=rows.group, nulls=rows.nulls, where=rows.where
        )
    assert rows.predicate is not None
    predicate = cheaper(rows.predicate)
    return DetailEntry(index, rule.columns, predicate, absent=rows.absent, reads=_reads(rule))


def _reads(rule: Rule) -> tuple[str, ...]:
    """The names the SQL snippets of a rule's own condition read (not its filter's)."""
    snippets = (n for e in expressions_of(rule.check) for n in walk(e) if isinstance(n, Sql))
    return tuple(dict.fromkeys(name for s in snippets for name in snippet_columns(s.text)))


def _sampled(entry: DetailEntry, row: tuple[str, ...]) -> tuple[str, ...]:
    """A sample's own columns: the rule's, then the table's columns its snippets read
    (named as the table names them)."""
    named = {c.lower(): c for c in row}
    return tuple(dict.fromkeys(entry.columns + tuple(named[n] for n in entry.reads if n in named)))


MAX_SAMPLE_COLUMNS = 20
"""Columns of a sample row of a table without keys (its rule's columns first)."""


def _identified(
    keys: tuple[str, ...], columns: tuple[str, ...], row: tuple[str, ...]
) -> tuple[str, ...]:
    """A sample's columns: the keys then the rule's columns; without keys, the rule's
    columns then the rest of the row, cut to :data:`MAX_SAMPLE_COLUMNS`."""
    if keys:
        return tuple(dict.fromkeys(keys + columns))
    own = {c.lower() for c in columns}
    rest = tuple(c for c in row if c.lower() not in own)
    return tuple(dict.fromkeys(columns + rest))[: max(MAX_SAMPLE_COLUMNS, len(columns))]

"""Lowering: a table's rules -> :class:`TablePlan` (pure, deterministic): the fold of the
planner's passes (:mod:`assay.planner.passes`), and the detail plan of the rules that
failed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping

from assay.ir.expr import Scalar
from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.rules import ColStatsCheck, Rule, SchemaCheck, SqlCheck
from assay.ir.suite import Table
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions, heavy, key_bound, own_branches
from assay.planner.measures import Histogram
from assay.planner.passes import PASSES, PlanContext, PlanState, run
from assay.planner.plan import (
    AggregatePlan,
    DetailEntry,
    DetailPlan,
    HistogramColumn,
    HistogramPlan,
    SqlPlan,
    SqlQuery,
    TablePlan,
)


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
    """Compile a table's rules into one aggregate plan, one SQL plan and a detail template:
    the fold of the planner's passes (:data:`assay.planner.passes.PASSES`) over the
    table, then the plans read from the last state (:func:`planned`).

    ``types`` maps the source's lower-case column names to Spark types (None: unknown):
    the literals of the rules are typed in them, and they decide the columns whose
    counts can be answered by value (:mod:`assay.planner.values`). ``size_bytes`` and
    ``columnar`` are the server's view of the source (:func:`assay.planner.cost.splits`).
    SQL rules in ``unfold`` keep their queries (:mod:`assay.planner.sqlfold`).
    ``key_range`` names a key column (a number or a date) whose min and max the
    aggregate also computes when some rule may need samples, so the detail plan can
    bound its heavy branches (:func:`assay.planner.cost.key_bound`). The rules in
    ``without`` are left out of every plan (their referenced source cannot be read).
    """
    context = PlanContext(
        options=options, types=types, size_bytes=size_bytes, columnar=columnar,
        unfold=frozenset(unfold), without=frozenset(without), key_range=key_range,
    )  # fmt: skip
    return planned(run(PASSES, PlanState(table), context))


def planned(state: PlanState) -> TablePlan:
    """The table's plans from the state the passes leave: the aggregate of its branches,
    the SQL rules not folded as one query, the histograms, the schema rules."""
    table = state.table
    assert not state.slots, state.slots  # every pass placed its slots in a branch
    aggregate = AggregatePlan(state.branches) if state.branches else None
    sql = _sql_plan(table.rules, {f.rule_index for f in state.folded})
    if sql is not None and aggregate is None:
        sql = SqlPlan(sql.queries, count_rows=True)
    return TablePlan(
        table=table,
        aggregate=aggregate,
        sql=sql,
        detail=state.detail,
        schema_rules=tuple(
            i for i, r in enumerate(table.rules) if isinstance(r.check, SCHEMA_CHECKS)
        ),
        histogram=_histogram_plan(table.rules),
        folded=state.folded,
        key_range=state.key_range,
    )


SCHEMA_CHECKS = (SchemaCheck, SchemaChangeCheck)
"""Checks judged from the table's schema, without a scan."""


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
    ordered_by: Collection[int] | None = None,
) -> DetailPlan | None:
    """The detail plan for the rules in ``failed`` (None when none of them is row-level).

    A sample identifies its row: by the ``keys`` when there are some, else by the whole
    ``row`` (the table's columns, the rule's own first, at most
    :data:`MAX_SAMPLE_COLUMNS` of them).

    ``comparable`` tells which columns Spark can order by (not maps): the sampled ones
    that can are tie-breakers after the keys: the columns of the rules ``ordered_by``
    (None: of the rules in ``failed``; every row rule's makes a rule's samples the same
    whichever other rules failed). ``failed_rows`` (each rule's failing rows,
    from the aggregate plan) shapes the plan by cost; with ``key_range`` (the first key's
    min and max) a rule's own branch may read only the low end of the
    key's range (:func:`assay.planner.cost.key_bound`); without keys (and with
    ``hash_bounds``) a heavy rule's branch reads the low end of a row hash's range."""
    if plan.detail is None:
        return None
    ordering = set(failed) if ordered_by is None else set(failed) | set(ordered_by)
    identified = tuple(
        e if e.grouped else dataclasses.replace(e, columns=_identified(keys, _sampled(e, row), row))
        for e in plan.detail.entries
        if e.rule_index in ordering
    )
    entries = tuple(e for e in identified if e.rule_index in failed)
    if not entries:
        return None
    sampled = dict.fromkeys(c for e in identified for c in e.columns)
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
    # a foreign key's samples are a join: always a branch of their own
    joined = {e.rule_index for e in entries if e.absent is not None or e.present is not None}
    own = tuple(sorted({*heaviest, *heavy(unbounded, options), *joined}))
    fixed = ordered_by is not None
    return DetailPlan(entries, keys, size, order, own, tuple(bounds), hashed, fixed)


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

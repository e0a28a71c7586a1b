"""The plan IR as JSON values: what ``assay explain --format json`` prints (pure).

One function per IR type, each turning its node into a dict of plain values (expressions
and measures as the text :mod:`assay.planner.render` shows for them, so the JSON and the
text form agree); :func:`table_plan_json` and :func:`comparison_json` are the roots.
The shape is the ``plan`` definition of ``events.schema.json`` (docs/events.md, ``plan``).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from assay.comparison.judge import default_checks
from assay.comparison.render import describe_source
from assay.ir.compare import CompareCheck, DatasetComparison
from assay.ir.origin import Origin
from assay.planner.measures import ColumnAgg, GroupStats, kind_of
from assay.planner.plan import (
    AggregatePlan,
    Branch,
    DetailEntry,
    DetailPlan,
    FoldedSql,
    GroupAggregate,
    HistogramColumn,
    HistogramPlan,
    ReferenceAggregate,
    ScanAggregate,
    Slot,
    SqlPlan,
    SqlQuery,
    TablePlan,
    ValueAggregate,
)
from assay.planner.references import render_lookup, render_semi_lookup
from assay.planner.sqltext import render_expr, render_source

Json = dict[str, Any]


def origin_json(origin: Origin) -> Json:
    """A place in a config, as a result line's ``location``."""
    return {"file": origin.file, "path": origin.path, "line": origin.line}


def measure_kind(measure: object) -> str:
    """A measure's kind as a name: its class in snake case (``CountIf`` -> ``count_if``).

    >>> from assay.planner.measures import RowCount
    >>> measure_kind(RowCount())
    'row_count'
    """
    kind_of(measure)  # an unknown kind is an error here too
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(measure).__name__).lower()


def slot_json(slot: Slot) -> Json:
    """One measure of a branch: its output name, kind, aggregate, columns read, named
    outputs and the rules reading it (none: the row count every result shows, or the
    first key's range)."""
    kind = kind_of(slot.measure)
    return {
        "name": slot.name,
        "kind": measure_kind(slot.measure),
        "expression": kind.render(slot.form),
        "columns": list(kind.columns(slot.measure)),
        "outputs": list(kind.outputs),
        "rules": list(slot.rules),
    }


@functools.singledispatch
def branch_json(branch: Branch) -> Json:
    """One branch of the aggregate plan as JSON values."""
    raise NotImplementedError(f"no JSON form of {type(branch).__name__}")


@branch_json.register
def scan_json(scan: ScanAggregate) -> Json:
    """A scan branch: its measures, over the rows of ``where`` when it has one."""
    where = render_expr(scan.where) if scan.where is not None else None
    return {"where": where, "measures": [slot_json(s) for s in scan.slots]}


@branch_json.register
def group_json(group: GroupAggregate) -> Json:
    """A group-by branch: its columns, which rows it groups, how it shuffles, its measure."""
    measure = group.slot.measure
    return {
        "columns": list(group.columns),
        "nulls": measure.nulls if isinstance(measure, GroupStats) else "none",
        "by_key": group.by_key,
        "partitions": group.partitions,
        "measure": slot_json(group.slot),
    }


@branch_json.register
def reference_json(branch: ReferenceAggregate) -> Json:
    """A branch over a referenced source: the join of a lookup (``lookup``: anti, or a
    negated foreign key's semi join), or the referenced rows counted (``lookup`` null)."""
    lookup = (
        None
        if branch.lookup is None
        else render_lookup(branch.lookup)
        if branch.join == "anti"
        else render_semi_lookup(branch.lookup, matches=branch.join == "matches")
    )
    return {
        "source": render_source(branch.source),
        "lookup": lookup,
        "measures": [slot_json(s) for s in branch.slots],
    }


@branch_json.register
def value_json(branch: ValueAggregate) -> Json:
    """A branch answering its measures from the rows grouped by the values of its
    columns."""
    return {"columns": list(branch.columns), "measures": [slot_json(s) for s in branch.slots]}


BRANCH_LISTS = {ScanAggregate: "scans", GroupAggregate: "groups",
                ReferenceAggregate: "references", ValueAggregate: "values"}  # fmt: skip
"""The list of ``aggregate_json`` holding each kind of branch."""


def aggregate_json(aggregate: AggregatePlan) -> Json:
    """The one aggregate plan: its scan, group-by, reference and value branches
    (cross-joined)."""
    found: Json = {"branches": len(aggregate.branches)} | {k: [] for k in BRANCH_LISTS.values()}
    for branch in aggregate.branches:
        found[BRANCH_LISTS[type(branch)]].append(branch_json(branch))
    return found


def histogram_column_json(column: HistogramColumn) -> Json:
    return {
        "name": column.name,
        "column": column.measure.column,
        "bins": column.measure.bins,
        "rules": list(column.rules),
    }


def histogram_json(histogram: HistogramPlan) -> Json:
    """The histogram plan (after the aggregate): one entry per column."""
    return {"columns": [histogram_column_json(c) for c in histogram.columns]}


def folded_json(folded: FoldedSql, plan: TablePlan) -> Json:
    """A SQL rule answered by the aggregate: the measure that counts its rows."""
    slot = plan.slot_of(folded.measure)
    return {"rule": folded.rule_index, "measure": slot.name}


def sql_query_json(query: SqlQuery) -> Json:
    return {
        "name": query.name,
        "rule": query.rule_index,
        "mode": query.check.mode,
        "query": " ".join(query.check.query.split()),
    }


def sql_json(sql: SqlPlan, plan: TablePlan) -> Json:
    """The SQL rules' one query: joined into the aggregate plan when there is one."""
    return {
        "count_rows": sql.count_rows,
        "joined_into_aggregate": plan.aggregate is not None,
        "queries": [sql_query_json(q) for q in sql.queries],
    }


def detail_entry_json(entry: DetailEntry) -> Json:
    """What one rule's samples are: rows where ``condition`` holds, rows sharing a
    value (``duplicates``), or the failing groups of a metric judged per group."""
    if entry.predicate is not None:
        what, condition = "rows", render_expr(entry.predicate)
    elif entry.grouped is not None:
        what, condition = "failing_groups", None
    else:
        what, condition = "duplicates", None
    absent = render_lookup(entry.absent) if entry.absent is not None else None
    present = render_semi_lookup(entry.present) if entry.present is not None else None
    return {
        "rule": entry.rule_index,
        "samples": what,
        "condition": condition,
        "columns": list(entry.columns),
        "group": list(entry.group) if entry.group is not None else None,
        "not_in_reference": absent,
        "in_reference": present,
    }


def detail_json(detail: DetailPlan) -> Json:
    """The detail plan run only when a row-level rule fails: which rules it samples."""
    return {
        "rules": [e.rule_index for e in detail.entries],
        "keys": list(detail.keys),
        "sample_size": detail.sample_size,
        "entries": [detail_entry_json(e) for e in detail.entries],
    }


def table_plan_json(plan: TablePlan) -> Json:
    """A table's whole plan: its place, source and filter, the Spark plans it submits
    (``base`` when every rule passes, ``detail`` more when a row-level rule fails), and
    each part of the plan (null or empty when the table has none)."""
    table = plan.table
    return {
        "table": table.name,
        "location": origin_json(table.origin),
        "source": render_source(table.source),
        "filter": table.filter,
        "counts": {"base": plan.base_plans, "detail": int(plan.detail is not None)},
        "aggregate": aggregate_json(plan.aggregate) if plan.aggregate is not None else None,
        "key_range": _key_range(plan),
        "histogram": histogram_json(plan.histogram) if plan.histogram is not None else None,
        "folded_sql": [folded_json(f, plan) for f in plan.folded],
        "sql": sql_json(plan.sql, plan) if plan.sql is not None else None,
        "schema_rules": list(plan.schema_rules),
        "detail": detail_json(plan.detail) if plan.detail is not None else None,
    }


def _key_range(plan: TablePlan) -> Json | None:
    """The first key's ``min`` and ``max`` the aggregate computes for the detail plan."""
    if plan.key_range is None or plan.aggregate is None:
        return None
    wanted = {ColumnAgg("min", plan.key_range), ColumnAgg("max", plan.key_range)}
    names = [s.name for s in plan.aggregate.slots if s.measure in wanted and not s.rules]
    return {"column": plan.key_range, "measures": names}


def compare_check_json(check: CompareCheck) -> Json:
    warn = check.warn.text if check.warn is not None else None
    return {"metric": check.label, "threshold": check.must.text, "warn": warn}


def comparison_json(comparison: DatasetComparison) -> Json:
    """A dataset comparison's plan: its sides, keys, compared columns and checks (the
    defaults when it has none), one aggregate plan plus one for samples when rows differ."""
    c = comparison
    return {
        "comparison": c.name,
        "location": origin_json(c.origin),
        "semantics": c.semantics,
        "source": describe_source(c.source),
        "target": describe_source(c.target),
        "source_filter": c.source_filter,
        "target_filter": c.target_filter,
        "keys": list(c.keys),
        "columns": list(c.columns) if c.columns is not None else None,
        "counts": {"base": 1, "detail": 1},
        "checks": [compare_check_json(k) for k in c.checks or default_checks(c)],
        "reports": c.reports is not None,
    }

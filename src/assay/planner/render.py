"""Stable text forms of expressions and plans (``assay explain``, golden tests)."""

from __future__ import annotations

import functools

from assay.planner.incremental import render_incremental
from assay.planner.joins import render_reference_branch
from assay.planner.measures import ColumnAgg, GroupStats, Measure, kind_of
from assay.planner.references import render_lookup, render_semi_lookup
from assay.planner.sqltext import literal, quote, render_expr, render_source

__all__ = ["literal", "quote", "render_expr", "render_measure", "render_plan", "render_source"]

from assay.planner.plan import (
    AggregatePlan,
    Branch,
    DetailPlan,
    GroupAggregate,
    HistogramPlan,
    ReferenceAggregate,
    ScanAggregate,
    Slot,
    SqlPlan,
    TablePlan,
    ValueAggregate,
)


def render_measure(measure: Measure) -> str:
    """A measure as the aggregate it computes (its kind's own rendering)."""
    return kind_of(measure).render(measure)


def render_plan(plan: TablePlan) -> str:
    """The plan of one table as stable text (the golden form of ``assay explain``)."""
    table = plan.table
    lines = [f"table {table.name}  ({table.origin})", f"  source: {render_source(table.source)}"]
    if table.filter:
        lines.append(f"  filter: {table.filter}")
    if table.incremental is not None:  # docs/incremental.md
        return "\n".join(lines + render_incremental(table))
    detail = " (+1 detail plan if a row-level rule fails)" if plan.detail else ""
    lines.append(f"  spark plans: {plan.base_plans}{detail}")
    if plan.aggregate is not None:
        lines += _render_aggregate(plan.aggregate, plan)
    if plan.histogram is not None:
        lines += _render_histogram(plan.histogram)
    lines += _render_folded(plan)
    if plan.sql is not None:
        lines += _render_sql(plan.sql, plan)
    if plan.schema_rules:
        lines.append("  schema (no scan, read from the schema)")
        lines += [f"    rules[{i}] {plan.table.rules[i].kind}" for i in plan.schema_rules]
    if plan.detail is not None:
        lines += _render_detail(plan.detail, plan)
    return "\n".join(lines)


def slot_users(slot: Slot, key_range: str | None) -> str:
    key = key_range or ""
    if not slot.rules and slot.measure in (ColumnAgg("min", key), ColumnAgg("max", key)):
        return "(the first key's range: bounds the detail plan's heavy branches)"
    return _rule_refs(slot.rules)


def _rule_refs(indices: tuple[int, ...]) -> str:
    return ", ".join(f"rules[{i}]" for i in indices) if indices else "(row_count of every result)"


def _render_aggregate(aggregate: AggregatePlan, plan: TablePlan) -> list[str]:
    parts = len(aggregate.branches)
    how = "one plan" if parts == 1 else f"{parts} parts cross-joined into one plan"
    lines = [f"  aggregate ({how})"]
    scans = len(aggregate.scans)
    if scans > 1:
        lines.append(
            f"    {scans} scans, each reading only its rules' columns with a small "
            "generated aggregate (Spark's MergeSubplans optimizer rule is excluded during "
            "the run so they stay apart)"
        )
    for branch in aggregate.branches:
        lines += render_branch(branch, plan.key_range)
    return lines


@functools.singledispatch
def render_branch(branch: Branch, key_range: str | None) -> list[str]:
    """One branch of the aggregate plan as ``explain`` shows it (``key_range``: the key
    whose min and max bound the detail plan, named as such)."""
    raise NotImplementedError(f"no rendering of {type(branch).__name__}")


@render_branch.register
def _(scan: ScanAggregate, key_range: str | None) -> list[str]:
    where = (
        f" where {render_expr(scan.where)} (row-group statistics can skip)" if scan.where else ""
    )
    width = max(len(s.name) for s in scan.slots)
    return [f"    scan ({len(scan.slots)} outputs){where}"] + [
        f"      {s.name:<{width}}  {render_measure(s.form)}  <- {slot_users(s, key_range)}"
        for s in scan.slots
    ]


@render_branch.register
def _(group: GroupAggregate, key_range: str | None) -> list[str]:
    cols = ", ".join(quote(c) for c in group.columns)
    measure = group.slot.measure
    nulls = measure.nulls if isinstance(measure, GroupStats) else "none"
    which = {
        "all": " where some key is not null",
        "none": " (every row: a null is a value)",
    }.get(nulls, " where all keys are not null")
    shuffle = ""
    if group.by_key:
        into = (
            f"{group.partitions} partitions"
            if group.partitions
            else "partitions sized from the table's size estimate at run time"
        )
        shuffle = f", shuffled by key into {into} (no partial aggregation)"
    return [
        f"    group by ({cols}){which}{shuffle}",
        f"      {group.slot.name}  {render_measure(group.slot.measure)}"
        f"  <- {_rule_refs(group.slot.rules)}",
    ]


@render_branch.register
def _(branch: ReferenceAggregate, key_range: str | None) -> list[str]:
    return render_reference_branch(branch)


@render_branch.register
def _(values: ValueAggregate, key_range: str | None) -> list[str]:
    if len(values.columns) == 1:
        head = (
            f"    values of {quote(values.columns[0])} (rows grouped by value, a null"
            " being one; each test below runs once per distinct value)"
        )
    else:
        head = (
            f"    values of ({', '.join(map(quote, values.columns))}) (rows grouped by"
            " their values, a null being one; each test below runs once per distinct"
            " combination)"
        )
    width = max(len(s.name) for s in values.slots)
    return [head] + [
        f"      {s.name:<{width}}  {render_measure(s.measure)}  <- {slot_users(s, key_range)}"
        for s in values.slots
    ]


def _render_histogram(histogram: HistogramPlan) -> list[str]:
    lines = [
        f"  histogram ({len(histogram.columns)} columns in one plan, after the aggregate:"
        " bucket bounds need min and max; skipped when no column has a finite min and max)"
    ]
    for h in histogram.columns:
        m = h.measure
        lines.append(
            f"    {h.name}  {m.bins} equal-width buckets of {quote(m.column)} over"
            f" [min, max]  <- {_rule_refs(h.rules)}"
        )
    return lines


def _render_folded(plan: TablePlan) -> list[str]:
    if not plan.folded:
        return []
    rules = ", ".join(f"rules[{f.rule_index}]" for f in plan.folded)
    return [
        "  sql rules folded into the aggregate plan (they count rows or distinct values, or"
        f" compare aggregates): {rules}"
    ]


def _render_sql(sql: SqlPlan, plan: TablePlan) -> list[str]:
    rows = " + the row count" if sql.count_rows else ""
    where = "joined into the aggregate plan" if plan.aggregate is not None else "one plan"
    lines = [f"  sql ({len(sql.queries)} queries over _validation_df{rows}, {where})"]
    for q in sql.queries:
        text = " ".join(q.check.query.split())
        lines.append(f"    {q.name}  {q.check.mode}: {text}  <- rules[{q.rule_index}]")
    return lines


def _render_detail(detail: DetailPlan, plan: TablePlan) -> list[str]:
    keys = ", ".join(detail.keys) if detail.keys else "(from schema or none)"
    lines = [
        f"  detail (only if a row-level rule fails; up to {detail.sample_size} rows per rule;"
        f" keys: {keys})",
        "    one scan tagging and sorting the failing rows; a rule failing on many rows gets"
        " an ORDER BY ... LIMIT branch of its own (chosen from the aggregate's counts)",
    ]
    key = plan.key_range or (detail.keys[0] if detail.keys else None)
    if key:
        known = "" if plan.key_range else f" (when {quote(key)} is a number or a date)"
        lines.append(
            f"    such a branch{known} reads only rows whose {quote(key)} is null or at most"
            " a bound set from the aggregate's min and max (expecting 20x the samples"
            " under it); a rule whose bounded branch finds too few is sampled again without"
            " the bound (one more plan)"
        )
    for e in detail.entries:
        what = (
            render_expr(e.predicate)
            if e.predicate is not None
            else f"the failing groups of ({', '.join(e.columns)}) with their values"
            if e.grouped is not None
            else f"value of ({', '.join(e.group or ())}) shared by another row"
        )
        if e.absent is not None:
            what += f" AND key not in the reference: {render_lookup(e.absent)}"
        if e.present is not None:
            what += f" AND key in the reference: {render_semi_lookup(e.present)}"
        lines.append(f"    rules[{e.rule_index}]  {what}")
    return lines

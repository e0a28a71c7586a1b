"""Stable text forms of expressions and plans (``assay explain``, golden tests)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    HasText,
    InSet,
    IsNaN,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Or,
    Scalar,
    Sql,
)
from assay.ir.suite import CatalogSource, DataFrameSource, PathSource, Source, SqlSource
from assay.planner.measures import (
    AgeMicros,
    AggEquals,
    ColumnAgg,
    CountIf,
    GroupStats,
    Measure,
    RowCount,
    ServerNow,
)
from assay.planner.plan import (
    AggregatePlan,
    DetailPlan,
    HistogramPlan,
    Slot,
    SqlPlan,
    TablePlan,
)

_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote(name: str) -> str:
    """A column name as SQL: bare when simple, else backticked.

    >>> quote("id"), quote("order id")
    ('id', '`order id`')
    """
    return name if _SIMPLE.fullmatch(name) else "`" + name.replace("`", "``") + "`"


def literal(value: Scalar) -> str:
    """A literal as SQL text.

    >>> literal("it's"), literal(True), literal(dt.date(2024, 1, 2))
    ("'it\\\\'s'", 'TRUE', "DATE '2024-01-02'")
    >>> print(literal("a" + chr(13) + chr(10) + chr(0x2028)))  # unprintable: SQL escapes
    'a\\r\\n\\u2028'
    """
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return "'" + "".join(ch if ch.isprintable() else _escape(ch) for ch in text) + "'"


def _escape(ch: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch)
    return named or (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")


def render_expr(expr: Expr) -> str:
    """An expression as readable SQL.

    >>> from assay.ir import Op
    >>> render_expr(Or((IsNull(Col("a")), Compare(Op.GT, Col("a"), Lit(5)))))
    '(a IS NULL OR a > 5)'
    """
    if isinstance(expr, Col):
        return quote(expr.name)
    if isinstance(expr, Lit):
        return literal(expr.value)
    if isinstance(expr, Compare):
        return f"{render_expr(expr.left)} {expr.op.value} {render_expr(expr.right)}"
    if isinstance(expr, (And, Or)):
        word = " AND " if isinstance(expr, And) else " OR "
        return "(" + word.join(render_expr(i) for i in expr.items) + ")"
    if isinstance(expr, Coalesce):
        return "coalesce(" + ", ".join(render_expr(i) for i in expr.items) + ")"
    return _render_unary(expr)


def _render_unary(expr: Expr) -> str:
    if isinstance(expr, Not):
        return f"NOT {render_expr(expr.item)}"
    if isinstance(expr, IsNull):
        return f"{render_expr(expr.item)} IS NULL"
    if isinstance(expr, IsNaN):
        return f"isnan({render_expr(expr.item)})"
    if isinstance(expr, InSet):
        return f"{render_expr(expr.item)} IN ({', '.join(literal(v) for v in expr.values)})"
    if isinstance(expr, Matches):
        return f"{render_expr(expr.item)} RLIKE {literal(expr.pattern)}"
    if isinstance(expr, HasText):
        fn = {"start": "startswith", "end": "endswith"}.get(expr.where, "contains")
        return f"{fn}({render_expr(expr.item)}, {literal(expr.text)})"
    if isinstance(expr, Length):
        return f"length({render_expr(expr.item)})"
    if isinstance(expr, Sql):
        return f"({expr.text})"
    raise TypeError(f"cannot render {type(expr).__name__}")


def render_measure(measure: Measure) -> str:
    """A measure as the aggregate it computes."""
    if isinstance(measure, RowCount):
        return "count(*)"
    if isinstance(measure, CountIf):
        return f"count_if({render_expr(measure.predicate)})"
    if isinstance(measure, ColumnAgg):
        fn = "stddev_samp" if measure.fn == "stddev" else measure.fn
        return f"{fn}({quote(measure.column)})"
    if isinstance(measure, ServerNow):
        return "current_timestamp()"
    if isinstance(measure, AggEquals):
        agg = render_measure(ColumnAgg(measure.fn, measure.column))
        return f"{agg} = {literal(measure.value)}"
    if isinstance(measure, AgeMicros):
        return (
            f"unix_micros(current_timestamp()) - unix_micros(CAST(max({quote(measure.column)})"
            " AS TIMESTAMP))"
        )
    if isinstance(measure, GroupStats):
        return "groups, rows, dup_rows, unique_rows"
    raise TypeError(f"cannot render {type(measure).__name__}")


def render_source(source: Source) -> str:
    """A one-line description of a table source."""
    if isinstance(source, CatalogSource):
        return f"table {source.table}"
    if isinstance(source, SqlSource):
        return "sql " + " ".join(source.query.split())
    if isinstance(source, DataFrameSource):
        return "dataframe (given to assay.validate)"
    assert isinstance(source, PathSource)
    options = "".join(f" {k}={v}" for k, v in source.options)
    return f"{source.format} {', '.join(source.paths)}{options}"


def render_plan(plan: TablePlan) -> str:
    """The plan of one table as stable text (the golden form of ``assay explain``)."""
    table = plan.table
    lines = [f"table {table.name}  ({table.origin})", f"  source: {render_source(table.source)}"]
    if table.filter:
        lines.append(f"  filter: {table.filter}")
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


def _slot_users(slot: Slot, plan: TablePlan) -> str:
    if not slot.rules and slot.measure in (
        ColumnAgg("min", plan.key_range or ""),
        ColumnAgg("max", plan.key_range or ""),
    ):
        return "(the first key's range: bounds the detail plan's heavy branches)"
    return _rule_refs(slot.rules)


def _rule_refs(indices: tuple[int, ...]) -> str:
    return ", ".join(f"rules[{i}]" for i in indices) if indices else "(row_count of every result)"


def _render_aggregate(aggregate: AggregatePlan, plan: TablePlan) -> list[str]:
    parts = len(aggregate.scans) + len(aggregate.groups)
    how = "one plan" if parts == 1 else f"{parts} parts cross-joined into one plan"
    lines = [f"  aggregate ({how})"]
    if len(aggregate.scans) > 1:
        lines.append(
            f"    {len(aggregate.scans)} scans, each reading only its rules' columns with a small "
            "generated aggregate (Spark's MergeSubplans optimizer rule is excluded during "
            "the run so they stay apart)"
        )
    for scan in aggregate.scans:
        where = (
            f" where {render_expr(scan.where)} (row-group statistics can skip)"
            if scan.where
            else ""
        )
        lines.append(f"    scan ({len(scan.slots)} outputs){where}")
        width = max(len(s.name) for s in scan.slots)
        lines += [
            f"      {s.name:<{width}}  {render_measure(s.measure)}  <- {_slot_users(s, plan)}"
            for s in scan.slots
        ]
    for group in aggregate.groups:
        cols = ", ".join(quote(c) for c in group.columns)
        measure = group.slot.measure
        nulls = measure.nulls if isinstance(measure, GroupStats) else "any"
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
        lines.append(f"    group by ({cols}){which}{shuffle}")
        lines.append(
            f"      {group.slot.name}  {render_measure(group.slot.measure)}"
            f"  <- {_rule_refs(group.slot.rules)}"
        )
    return lines


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
    return [f"  sql rules folded into the aggregate scan (they only count rows): {rules}"]


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
            else f"value of ({', '.join(e.group or ())}) shared by another row"
        )
        lines.append(f"    rules[{e.rule_index}]  {what}")
    return lines

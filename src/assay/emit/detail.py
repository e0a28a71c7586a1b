"""The detail plan: up to ``sample_size`` failing rows (or failing groups) per failed
rule, in ONE Spark plan of unioned branches, rows turned into JSON after the limit."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from assay.emit import groups
from assay.emit.columns import balanced, col, column, shared_count
from assay.emit.references import References, matched_rows, unmatched_rows
from assay.emit.spark import measure_columns, references_of
from assay.ir.suite import Source
from assay.planner.plan import DetailEntry, DetailPlan

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def detail_frame(
    df: DataFrame, plan: DetailPlan, refs: Mapping[Source, DataFrame] | None = None
) -> DataFrame:
    """Up to ``sample_size`` failing rows per rule, first in ``plan.order``, in ONE plan:
    the rules of ``plan.own_branch`` each by a branch of their own, the others by one
    shared scan, unioned. Rows are turned into JSON only after the limit. Columns:
    ``_assay_rule`` (rule index) and ``_assay_row`` (JSON object).
    """
    own, sides = set(plan.own_branch), references_of(df, refs)
    parts = [
        groups.per_group_samples(
            groups.per_group_rows(df, e.grouped, measure_columns),
            e.grouped,
            e.rule_index,
            plan.sample_size,
            "value",
        )
        for e in plan.entries
        if e.grouped is not None
    ]
    rows = [e for e in plan.entries if e.grouped is None]
    parts += [
        _detail_branch(df, plan, n, e, sides) for n, e in enumerate(rows) if e.rule_index in own
    ]
    shared = tuple(e for e in rows if e.rule_index not in own)
    if shared:
        columns = {c for e in shared for c in e.columns}
        order = plan.order if plan.fixed_order else tuple(c for c in plan.order if c in columns)
        parts.append(_detail_shared(df, dataclasses.replace(plan, entries=shared, order=order)))
    return balanced(parts, lambda a, b: a.unionAll(b))


def _detail_shared(df: DataFrame, plan: DetailPlan) -> DataFrame:
    """One scan keeps rows failing any of the rules, tags them with the rules they fail,
    and keeps the first N per rule (Spark pushes the ``row_number() <= N`` limit below
    the shuffle, after sorting every failing row: so a heavy rule comes here only under
    a key bound, which keeps about ``detail_bound_margin`` x N of its rows)."""
    windows = {
        n: shared_count(e.group, e.where) for n, e in enumerate(plan.entries) if e.group is not None
    }
    names = list(dict.fromkeys((*plan.order, *(c for e in plan.entries for c in e.columns))))
    extra = [w.alias(f"_assay_dup{n}") for n, w in windows.items()]
    if plan.hashed:
        extra.append(_row_hash(names))  # once per row, for every rule's bound
    base = df.select("*", *extra) if extra else df
    tests = [_bounded(plan, e, _entry_test(n, e)) for n, e in enumerate(plan.entries)]
    hits = F.array(
        *(F.when(t, F.lit(e.rule_index)) for t, e in zip(tests, plan.entries, strict=True))
    )
    # Columns keep their names up to the limit: aliasing every column referenced by the
    # OR of the tests makes Spark's constraint propagation blow up (heap exhausted).
    # The nulls are dropped by array_compact, not a filter with a lambda: a lambda's
    # variable is named with a fresh expression id in every plan, so its generated code
    # differed from run to run and Spark compiled it anew each time (two classes, each
    # first run interpreted: ~0.2 s of a one-new-month run's detail plan at SF1).
    tagged = base.where(balanced(tests, lambda a, b: a | b)).select(
        *(col(c) for c in names),
        F.explode(F.array_compact(hits)).alias("_assay_rule"),
    )
    rule = F.col("_assay_rule")
    order = [col(c) for c in plan.order] or [rule]
    number = F.row_number().over(Window.partitionBy(rule).orderBy(*order))
    kept = tagged.withColumn("_assay_n", number).where(F.col("_assay_n") <= plan.sample_size)
    row = F.coalesce(
        *(F.when(rule == F.lit(e.rule_index), _row_json(e.columns)) for e in plan.entries)
    )
    return kept.select(rule, row.alias("_assay_row"))


def _detail_branch(
    df: DataFrame, plan: DetailPlan, n: int, e: DetailEntry, sides: References
) -> DataFrame:
    """One rule's samples on its own: ``WHERE fails ORDER BY order LIMIT N`` (Spark keeps
    N rows per task in a bounded heap, and reads only the rule's columns), under the
    rule's key bound when it has one (``plan.bounds``)."""
    rows = df
    if e.group is not None:
        rows = df.select("*", shared_count(e.group, e.where).alias(f"_assay_dup{n}"))
    if plan.hashed and e.rule_index in dict(plan.bounds):
        rows = rows.select("*", _row_hash(e.columns))
    by = plan.order if plan.fixed_order else [c for c in plan.order if c in e.columns]
    order = [col(c) for c in by] or [col(c) for c in e.columns]
    test = _bounded(plan, e, _entry_test(n, e))
    failing = rows.where(test)
    if e.absent is not None:  # a foreign key: its keyed rows without a match
        failing = unmatched_rows(failing, e.absent, sides)
    if e.present is not None:  # a negated foreign key: its keyed rows with a match
        failing = matched_rows(failing, e.present, sides)
    read = dict.fromkeys((*e.columns, *by))
    top = failing.select(*(col(c) for c in read)).orderBy(*order).limit(plan.sample_size)
    rule = F.lit(e.rule_index).alias("_assay_rule")
    return top.select(rule, _row_json(e.columns).alias("_assay_row"))


def _row_hash(columns: Sequence[str]) -> Column:
    """``_assay_h``: the 64-bit hash of a row's sampled columns (a keyless plan's bounds)."""
    return F.xxhash64(*(col(c) for c in columns)).alias("_assay_h")


def _bounded(plan: DetailPlan, entry: DetailEntry, test: Column) -> Column:
    """A rule's failing-row test under its bound (``plan.bounds``), if it has one: of the
    first key, or (``plan.hashed``) of the row's hash ``_assay_h``; the bound
    test first, so the rule's own test (a regex, say) only runs under it."""
    bound = dict(plan.bounds).get(entry.rule_index)
    if bound is None:
        return test
    if plan.hashed:
        return (F.col("_assay_h") <= F.lit(bound)) & test
    key = col(plan.keys[0])
    return (key.isNull() | (key <= F.lit(bound))) & test


def _entry_test(n: int, entry) -> Column:
    if entry.group is not None:
        shared = F.col(f"_assay_dup{n}") > 1
        if entry.where is not None:
            shared = F.coalesce(column(entry.where), F.lit(False)) & shared
        if entry.nulls == "none":
            return shared
        keys = [col(c).isNotNull() for c in entry.group]
        return balanced(keys, lambda a, b: a & b) & shared
    assert entry.predicate is not None
    return F.coalesce(column(entry.predicate), F.lit(False))


def _row_json(columns: Sequence[str]) -> Column:
    if not columns:
        return F.lit("{}")
    return F.to_json(F.struct(*(col(c).alias(c) for c in columns)), {"ignoreNullFields": "false"})

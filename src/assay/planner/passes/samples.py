"""The detail template: the rules whose failure shows sample rows, each with the rows it
samples (its IR's failing rows), narrowed by the executor to the rules that failed
(:func:`assay.planner.lower.plan_detail`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from assay.ir.expr import Sql, walk
from assay.ir.rules import Rule, expressions_of
from assay.ir.suite import Table
from assay.planner.measures import PerGroup, measures_of, simplified
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import DetailEntry, DetailPlan
from assay.planner.sqlfold import snippet_columns


def sample_template(state: PlanState, context: PlanContext) -> PlanState:
    """The state with the table's detail template (None: no rule shows samples)."""
    return dataclasses.replace(state, detail=detail_template(state.table, context.without))


def detail_template(table: Table, without: Collection[int] = ()) -> DetailPlan | None:
    """Every sampled rule of ``table`` (but those in ``without``), with its rows."""
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
    predicate = simplified(rows.predicate)
    return DetailEntry(
        index, rule.columns, predicate, absent=rows.absent, present=rows.present, reads=_reads(rule)
    )


def _reads(rule: Rule) -> tuple[str, ...]:
    """The names the SQL snippets of a rule's own condition read (not its filter's)."""
    snippets = (n for e in expressions_of(rule.check) for n in walk(e) if isinstance(n, Sql))
    return tuple(dict.fromkeys(name for s in snippets for name in snippet_columns(s.text)))

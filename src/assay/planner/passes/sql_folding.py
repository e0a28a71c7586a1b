"""SQL folding: a SQL rule that only counts rows, counts distinct values or compares
aggregates of the whole table is answered by a measure of the aggregate plan
(:mod:`assay.planner.sqlfold`), except the rules the context keeps as queries."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from assay.ir.expr import Sql
from assay.ir.rules import Rule, SqlCheck
from assay.planner.measures import CountIf, GroupStats, RowCount, SqlAggregate
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import FoldedSql
from assay.planner.sqlfold import RowCountQuery, aggregate_query, row_count_query


def fold_sql(state: PlanState, context: PlanContext) -> PlanState:
    """The state with the table's foldable SQL rules in ``folded``."""
    return dataclasses.replace(state, folded=folded(state.table.rules, context.unfold))


def folded(rules: tuple[Rule, ...], unfold: Collection[int]) -> tuple[FoldedSql, ...]:
    """The SQL rules of ``rules`` (but those in ``unfold``) a measure answers."""
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

"""Tests by value: the counts of a string column with few values (bounded by the suite)
and an expensive test are answered from its rows grouped by value, when the table is
large enough to be split by column (:mod:`assay.planner.values`)."""

from __future__ import annotations

import dataclasses

from assay.planner.cost import splits
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.values import value_branches


def answer_by_value(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its value branches, their slots taken out of ``slots``."""
    options = context.options
    if not splits(state.table.source, options, context.size_bytes, context.columnar):
        return state
    slots, values = value_branches(
        state.slots, state.table, context.types, options.value_max, options.join_values
    )
    return dataclasses.replace(state, slots=slots, branches=state.branches + values)

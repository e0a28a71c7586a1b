"""Split by cost: the scan slots (but object aggregates) in scan branches by the columns
they read, when the table is large enough for that to pay
(:func:`assay.planner.cost.split_branches`)."""

from __future__ import annotations

import dataclasses

from assay.planner.cost import split_branches
from assay.planner.measures import kind_of
from assay.planner.passes.objects_apart import object_aggregate
from assay.planner.passes.state import PlanContext, PlanState


def split_by_cost(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its scan slots (object aggregates left) in scan branches."""
    scans = [s for s in state.slots if kind_of(s.measure).scan and not object_aggregate(s)]
    if not scans:
        return state
    branches = split_branches(
        scans, state.table.source, context.options, context.size_bytes, context.columnar,
        context.types,
    )  # fmt: skip
    placed = {s.name for s in scans}
    rest = tuple(s for s in state.slots if s.name not in placed)
    return dataclasses.replace(state, slots=rest, branches=state.branches + branches)

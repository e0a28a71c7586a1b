"""Group-bys: each slot over groups of rows (a table's groups' statistics, a metric per
group) in a group-by branch; one whose rule expects unique keys is shuffled straight to
its key's partition, into partitions sized from the table's size."""

from __future__ import annotations

import dataclasses

from assay.ir.suite import Table
from assay.planner.cost import PlannerOptions, group_partitions
from assay.planner.drift import ValueCounts
from assay.planner.frequencies import Frequencies
from assay.planner.measures import GroupStats, PerGroup, kind_of
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import GroupAggregate, Slot, expects_unique


def group_bys(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its group-by slots in group-by branches."""
    kinds = [(s, kind_of(s.measure)) for s in state.slots]
    grouped = [s for s, kind in kinds if not kind.scan and not kind.reference]
    if not grouped:
        return state
    branches = tuple(_group(state.table, s, context.options, context.size_bytes) for s in grouped)
    rest = tuple(s for s, kind in kinds if kind.scan or kind.reference)
    return dataclasses.replace(state, slots=rest, branches=state.branches + branches)


def _group(
    table: Table, slot: Slot, options: PlannerOptions, size_bytes: int | None
) -> GroupAggregate:
    if isinstance(slot.measure, PerGroup):
        return GroupAggregate(slot.measure.group_by, slot)
    if isinstance(slot.measure, (Frequencies, ValueCounts)):
        return GroupAggregate(slot.measure.columns, slot)
    assert isinstance(slot.measure, GroupStats)
    if not expects_unique(table, slot):
        return GroupAggregate(slot.measure.columns, slot)
    return GroupAggregate(
        slot.measure.columns, slot, by_key=True, partitions=group_partitions(size_bytes, options)
    )

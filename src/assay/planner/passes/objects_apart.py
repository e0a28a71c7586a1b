"""Object aggregates apart: the aggregates Spark cannot compile to code (percentile,
percentile_approx) in one scan branch of their own, so the others keep their generated
code (``MeasureKind.apart``)."""

from __future__ import annotations

import dataclasses

from assay.planner.measures import kind_of
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import ScanAggregate, Slot


def objects_apart(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its object aggregates in a scan branch of their own."""
    apart = tuple(s for s in state.slots if object_aggregate(s))
    if not apart:
        return state
    rest = tuple(s for s in state.slots if s not in apart)
    return dataclasses.replace(state, slots=rest, branches=(*state.branches, ScanAggregate(apart)))


def object_aggregate(slot: Slot) -> bool:
    """Whether a slot is a scan measure Spark cannot compile to code."""
    kind = kind_of(slot.measure)
    return kind.scan and kind.apart(slot.measure)

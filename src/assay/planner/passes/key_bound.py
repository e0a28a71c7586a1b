"""Key bound: when some rule shows samples and the context names a key column (a number
or a date), the aggregate also measures its min and max, so the detail plan can read
a heavy rule's failing rows within the low end of the key's range
(:func:`assay.planner.cost.key_bound`)."""

from __future__ import annotations

import dataclasses

from assay.planner.measures import ColumnAgg, RowCount
from assay.planner.passes.measure_sharing import slot
from assay.planner.passes.state import PlanContext, PlanState


def measure_key_range(state: PlanState, context: PlanContext) -> PlanState:
    """The state with slots for the key's min and max (those not measured already)."""
    key = context.key_range if state.detail is not None else None
    if key is None:
        return state
    slots = state.slots or (slot(0, RowCount(), ()),)
    known = {s.measure for s in slots}
    for measure in (ColumnAgg("min", key), ColumnAgg("max", key)):
        if measure not in known:
            slots += (slot(len(slots), measure, ()),)
    return dataclasses.replace(state, slots=slots, key_range=key)

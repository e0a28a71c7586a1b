"""Reference branches: the measures over a referenced source in branches of their own,
one per lookup (its foreign keys share the anti join), one per referenced source
counted (:func:`assay.planner.joins.reference_branches`)."""

from __future__ import annotations

import dataclasses

from assay.planner.joins import reference_branches
from assay.planner.passes.state import PlanContext, PlanState


def join_references(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its reference slots in reference branches."""
    branches = reference_branches(state.slots)
    if not branches:
        return state
    placed = {s.name for b in branches for s in b.slots}
    rest = tuple(s for s in state.slots if s.name not in placed)
    return dataclasses.replace(state, slots=rest, branches=state.branches + branches)

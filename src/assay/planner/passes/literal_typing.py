"""Literal typing: every literal of the table's rules in the type of the column it meets
(:func:`assay.planner.literals.typed_table`), when the column types are known."""

from __future__ import annotations

import dataclasses

from assay.planner.literals import typed_table
from assay.planner.passes.state import PlanContext, PlanState


def type_literals(state: PlanState, context: PlanContext) -> PlanState:
    """The table with its literals typed in ``context.types`` (unknown types: as it is)."""
    if context.types is None:
        return state
    return dataclasses.replace(state, table=typed_table(state.table, context.types))

"""Decimal comparisons in doubles: a folded SQL condition comparing DECIMAL arithmetic
with a number (``l_extendedprice / l_quantity > 2100``) is decided in doubles where they
are certain and computed as written where they are not
(:func:`assay.planner.decimal_doubles.in_doubles`); the slot carries that form as its
``computed``, its answer keyed as written."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from assay.ir.expr import Expr, Sql, rebuild
from assay.planner.decimal_doubles import in_doubles
from assay.planner.measures import CountIf
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import Slot


def decide_in_doubles(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its counts' folded decimal comparisons in their doubles form."""
    return dataclasses.replace(state, slots=in_doubles_slots(state.slots, context.types))


def in_doubles_slots(slots: Iterable[Slot], types: Mapping[str, str] | None) -> tuple[Slot, ...]:
    """The slots with each SQL condition of their counts that compares DECIMAL
    arithmetic with a number in its doubles form (none without the column types)."""
    slots = tuple(slots)
    if not types:
        return slots

    def rewrite(node: Expr) -> Expr:
        if isinstance(node, Sql):
            form = in_doubles(node.text, types)
            return Sql(form) if form is not None else node
        return node

    found = []
    for slot in slots:
        form = slot.form
        if isinstance(form, CountIf):
            predicate = rebuild(form.predicate, rewrite)
            if predicate != form.predicate:
                slot = dataclasses.replace(slot, computed=CountIf(predicate))
        found.append(slot)
    return tuple(found)

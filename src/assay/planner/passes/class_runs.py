"""Class runs by bytes: a regex that is a run of one ASCII class on a plain string column
is computed as the unbounded run and the value's bytes, where that pays
(:func:`assay.planner.regex_runs.runs_by_bytes`); the slot carries that form as its
``computed``, its answer keyed as written."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from assay.planner.measures import CountIf
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import Slot
from assay.planner.regex_runs import lengths_by_bytes, runs_by_bytes
from assay.planner.values import plain_string


def runs_in_bytes(state: PlanState, context: PlanContext) -> PlanState:
    """The state with its counts' class runs in their byte-length form."""
    return dataclasses.replace(state, slots=class_runs(state.slots, context.types))


def class_runs(slots: Iterable[Slot], types: Mapping[str, str] | None) -> tuple[Slot, ...]:
    """The slots with the regexes of their counts that are runs of one ASCII class, on a
    plain string column, computed in their byte-length form where that pays: rules
    asking for runs of one class on one column share one regex per row; and the lengths
    of such a column computed from its bytes where that regex matches."""
    slots = tuple(slots)
    counts = [s for s in slots if isinstance(s.measure, CountIf)]
    plain = lambda column: plain_string(column, types)  # noqa: E731
    runs = runs_by_bytes([s.measure.predicate for s in counts], plain)  # type: ignore[union-attr]
    forms = lengths_by_bytes(runs, plain)
    computed = {
        s.name: CountIf(form)
        for s, form in zip(counts, forms, strict=True)
        if form != s.measure.predicate  # type: ignore[union-attr]
    }
    return tuple(
        dataclasses.replace(s, computed=computed[s.name]) if s.name in computed else s
        for s in slots
    )

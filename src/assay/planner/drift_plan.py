"""The branches of the aggregate plan comparing a column's distribution with a
referenced source's (pure): one per :class:`~assay.planner.drift.Distribution` slot,
and how ``explain`` shows it."""

from __future__ import annotations

from collections.abc import Sequence

from assay.planner.drift import Distribution, render_distribution
from assay.planner.plan import ReferenceAggregate, Slot
from assay.planner.sqltext import render_source


def drift_branches(slots: Sequence[Slot]) -> tuple[ReferenceAggregate, ...]:
    """A reference branch for each distribution among ``slots``."""
    return tuple(
        ReferenceAggregate(s.measure.source, (s,))
        for s in slots
        if isinstance(s.measure, Distribution)
    )


def is_drift(branch: ReferenceAggregate) -> bool:
    """Whether ``branch`` compares distributions."""
    return any(isinstance(s.measure, Distribution) for s in branch.slots)


def render_drift_branch(branch: ReferenceAggregate) -> list[str]:
    """The lines ``explain`` shows for a distribution branch."""
    (slot,) = branch.slots
    assert isinstance(slot.measure, Distribution)
    rules = ", ".join(f"rules[{i}]" for i in slot.rules)
    return [
        f"    distribution: the table's rows and {render_source(branch.source)}'s, unioned and"
        " grouped by value (each source scanned once)",
        f"      {slot.name}  {render_distribution(slot.measure)}  <- {rules}",
    ]

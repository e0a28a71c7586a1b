"""The branches of the aggregate plan comparing columns' distributions with a
referenced source's (pure): one per referenced source and filter, holding every
:class:`~assay.planner.drift.Distribution` slot of them (each side read once for all),
and how ``explain`` shows it."""

from __future__ import annotations

from collections.abc import Sequence

from assay.ir.expr import Expr
from assay.ir.sources import Source
from assay.planner.drift import Distribution, render_distribution
from assay.planner.plan import ReferenceAggregate, Slot
from assay.planner.sqltext import render_source


def drift_branches(slots: Sequence[Slot]) -> tuple[ReferenceAggregate, ...]:
    """One reference branch per (referenced source, filter) of the distributions among
    ``slots``: every drifting column of that source read in the same scan of each side."""
    found: dict[tuple[Source, Expr | None], list[Slot]] = {}
    for s in slots:
        if isinstance(s.measure, Distribution):
            found.setdefault((s.measure.source, s.measure.where), []).append(s)
    return tuple(ReferenceAggregate(source, tuple(v)) for (source, _), v in found.items())


def is_drift(branch: ReferenceAggregate) -> bool:
    """Whether ``branch`` compares distributions."""
    return any(isinstance(s.measure, Distribution) for s in branch.slots)


def render_drift_branch(branch: ReferenceAggregate) -> list[str]:
    """The lines ``explain`` shows for a distribution branch."""
    lines = [
        f"    distribution: the table's rows and {render_source(branch.source)}'s, each read"
        " once for the branch's columns (stacked as (column, value) rows), unioned and"
        " grouped by (column, value)",
    ]
    for slot in branch.slots:
        assert isinstance(slot.measure, Distribution)
        rules = ", ".join(f"rules[{i}]" for i in slot.rules)
        lines.append(f"      {slot.name}  {render_distribution(slot.measure)}  <- {rules}")
    return lines

"""The branches of a table's aggregate plan over its referenced sources (pure): which
slots share an anti join, and how ``explain`` shows them."""

from __future__ import annotations

from collections.abc import Sequence

from assay.ir.references import Lookup
from assay.planner.plan import ReferenceAggregate, Slot
from assay.planner.references import ReferenceRows, Unmatched, render_lookup
from assay.planner.sqltext import render_expr, render_source


def reference_branches(slots: Sequence[Slot]) -> tuple[ReferenceAggregate, ...]:
    """The branches computing the reference measures among ``slots``: one per lookup
    (its foreign keys share the anti join), one per referenced source counted."""
    lookups: dict[Lookup, list[Slot]] = {}
    counted: list[Slot] = []
    for slot in slots:
        if isinstance(slot.measure, Unmatched):
            lookups.setdefault(slot.measure.lookup, []).append(slot)
        elif isinstance(slot.measure, ReferenceRows):
            counted.append(slot)
    joins = [ReferenceAggregate(k.reference.source, tuple(v), k) for k, v in lookups.items()]
    counts = [ReferenceAggregate(s.measure.source, (s,)) for s in counted]  # type: ignore[union-attr]
    return (*joins, *counts)


def render_reference_branch(branch: ReferenceAggregate) -> list[str]:
    """The lines ``explain`` shows for a reference branch of the aggregate plan."""
    if branch.lookup is None:
        head = f"    reference rows: {render_source(branch.source)}"
    else:
        head = (
            f"    anti join: {render_lookup(branch.lookup)} (the distinct keys shared by"
            " every lookup of this reference; Spark broadcasts them when small)"
        )
    users = [
        f"      {s.name}  {_rendered(s.measure)}  <- " + ", ".join(f"rules[{i}]" for i in s.rules)
        for s in branch.slots
    ]
    return [head, *users]


def _rendered(measure: object) -> str:
    if isinstance(measure, Unmatched):
        where = f" FILTER (WHERE {render_expr(measure.where)})" if measure.where else ""
        return f"count(*){where}"
    return "count(*)"

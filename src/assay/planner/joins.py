"""The branches of a table's aggregate plan over its referenced sources (pure): which
slots share a join, and how ``explain`` shows them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from assay.ir.references import Lookup
from assay.planner.drift_plan import drift_branches, is_drift, render_drift_branch
from assay.planner.plan import ReferenceAggregate, Slot
from assay.planner.references import (
    Matched,
    ReferenceRows,
    Unmatched,
    render_lookup,
    render_semi_lookup,
)
from assay.planner.sqltext import render_expr, render_source

Join = Literal["anti", "semi", "matches"]


def _join(measure: Unmatched | Matched) -> Join:
    if isinstance(measure, Unmatched):
        return "anti"
    return "matches" if measure.matches else "semi"


def reference_branches(slots: Sequence[Slot]) -> tuple[ReferenceAggregate, ...]:
    """The branches computing the reference measures among ``slots``: one per lookup and
    join (its foreign keys share the anti join; the negated ones the semi join), one per
    referenced source counted."""
    lookups: dict[tuple[Lookup, Join], list[Slot]] = {}
    counted: list[Slot] = []
    for slot in slots:
        if isinstance(slot.measure, (Unmatched, Matched)):
            lookups.setdefault((slot.measure.lookup, _join(slot.measure)), []).append(slot)
        elif isinstance(slot.measure, ReferenceRows):
            counted.append(slot)
    joins = [
        ReferenceAggregate(lookup.reference.source, tuple(v), lookup, join)
        for (lookup, join), v in lookups.items()
    ]
    counts = [ReferenceAggregate(s.measure.source, (s,)) for s in counted]  # type: ignore[union-attr]
    return (*joins, *counts, *drift_branches(slots))


def render_reference_branch(branch: ReferenceAggregate) -> list[str]:
    """The lines ``explain`` shows for a reference branch of the aggregate plan."""
    if is_drift(branch):
        return render_drift_branch(branch)
    if branch.lookup is None:
        head = f"    reference rows: {render_source(branch.source)}"
    elif branch.join == "anti":
        head = (
            f"    anti join: {render_lookup(branch.lookup)} (the distinct keys shared by"
            " every lookup of this reference; Spark broadcasts them when small)"
        )
    elif branch.join == "semi":
        head = (
            f"    semi join: {render_semi_lookup(branch.lookup)} (the distinct keys shared by"
            " every lookup of this reference; Spark broadcasts them when small)"
        )
    else:
        head = (
            f"    join: {render_semi_lookup(branch.lookup, matches=True)} (each row counted"
            " once per referenced row equal to it)"
        )
    users = [
        f"      {s.name}  {_rendered(s.measure)}  <- " + ", ".join(f"rules[{i}]" for i in s.rules)
        for s in branch.slots
    ]
    return [head, *users]


def _rendered(measure: object) -> str:
    if isinstance(measure, (Unmatched, Matched)):
        where = f" FILTER (WHERE {render_expr(measure.where)})" if measure.where else ""
        counted = "sum(matches)" if isinstance(measure, Matched) and measure.matches else "count(*)"
        return f"{counted}{where}"
    return "count(*)"

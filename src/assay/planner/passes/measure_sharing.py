"""Measure sharing: the measures the table's rules ask for (a folded SQL rule its fold's
measure), equal ones one slot, named in the order rules first ask for them so the plan
is stable across runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping

from assay.ir.rules import Rule
from assay.planner.measures import Measure, RowCount, kind_of, measures_of
from assay.planner.passes.state import PlanContext, PlanState
from assay.planner.plan import Slot


def share_measures(state: PlanState, context: PlanContext) -> PlanState:
    """The state with one slot per distinct measure of its rules (none left out)."""
    measures = {f.rule_index: f.measure for f in state.folded}
    return dataclasses.replace(state, slots=shared(state.table.rules, measures, context.without))


def shared(
    rules: Iterable[Rule], folded: Mapping[int, Measure], without: Collection[int] = ()
) -> tuple[Slot, ...]:
    """One slot per distinct measure of ``rules``, the row count first (every result
    reports it); none when no rule asks for a measure."""
    users: dict[Measure, list[int]] = {RowCount(): []}
    for index, rule in enumerate(rules):
        if index in without:
            continue
        for measure in (folded[index],) if index in folded else measures_of(rule):
            users.setdefault(measure, []).append(index)
    if len(users) == 1 and not users[RowCount()]:
        return ()
    return tuple(slot(n, m, tuple(dict.fromkeys(idx))) for n, (m, idx) in enumerate(users.items()))


def slot(position: int, measure: Measure, rules: tuple[int, ...]) -> Slot:
    """The slot of ``measure`` at ``position`` among the table's slots (its name)."""
    return Slot(f"m{position:03d}_{kind_of(measure).suffix(measure)}", measure, rules)

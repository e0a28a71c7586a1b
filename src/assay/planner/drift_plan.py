"""The branches of the aggregate plan comparing columns' distributions with a
referenced source's (pure): one per referenced source and filter, holding every
:class:`~assay.planner.drift.Distribution` slot of them (each side read once for all),
and how ``explain`` shows it; and where the exact counts of the sketches of drift
against history ride when their sampling rate is known (:func:`counted_beside`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from assay.ir.expr import Expr
from assay.ir.sources import Source
from assay.planner.drift import Distribution, Sketch, SketchCounts, render_distribution
from assay.planner.measures import kind_of
from assay.planner.plan import Branch, ReferenceAggregate, ScanAggregate, Slot
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


def counted_beside(branches: Sequence[Branch]) -> tuple[Branch, ...]:
    """``branches`` as emitted: the exact counts of each sketch whose sampling rate is
    known (every sketch of its branch with ``Sketch.expected``) moved out of the
    sketches' branch into a scan branch of the table's aggregate, so that the sketches'
    branch reads only its sample (``Sketch.counted``) and the counts are generated-code
    ``count_if`` columns of a scan that reads their column anyway (:class:`SketchCounts`,
    under the sketch's slot name: the same outputs, the same values).

    A sketch's counts go to the unfiltered scan branch without an object aggregate that
    reads the most of its columns, the fewest outputs among equals (the first of equals);
    with no such branch (a plan of the sketches alone) the sketches' branch counts them
    itself, as without a rate. The rates come from the metrics store, so this is applied
    where a run reads them (:func:`assay.executor.stages.drift_history.with_rates`), to
    the plan it then holds and submits; ``explain`` (which reads no store) shows the
    first run's form and says where the counts go once a count is stored
    (:func:`assay.planner.drift.render_sketch`)."""
    hosts = {i: _read(b) for i, b in enumerate(branches) if _hosts(b)}
    moved: dict[int, list[Slot]] = {i: [] for i in hosts}
    out = list(branches)
    for k, branch in enumerate(branches):
        sketches = _rated(branch) if hosts else {}
        for slot, sketch in sketches.items():
            reads = _columns(sketch)
            host = min(hosts, key=lambda i: (len(reads - hosts[i]), _size(out[i]) + len(moved[i])))
            hosts[host] |= reads
            counts = SketchCounts(sketch)  # a form of the emitted plan, not a planner measure
            moved[host].append(Slot(slot.name, slot.measure, slot.rules, counts))
        if sketches:
            assert isinstance(branch, ScanAggregate)
            counted = {s: dataclasses.replace(s, computed=_counted(m)) for s, m in sketches.items()}
            out[k] = dataclasses.replace(
                branch, slots=tuple(counted.get(s, s) for s in branch.slots)
            )
    for i, extra in moved.items():
        carrier = out[i]
        if extra and isinstance(carrier, ScanAggregate):
            out[i] = dataclasses.replace(carrier, slots=(*carrier.slots, *extra))
    return tuple(out)


def _counted(sketch: Sketch) -> Sketch:
    return dataclasses.replace(sketch, counted=True)


def _size(branch: Branch) -> int:
    return len(branch.slots)


def _hosts(branch: Branch) -> bool:
    """Whether ``branch`` can carry sketches' counts: an unfiltered scan branch of
    generated code (no sketch, no other object aggregate)."""
    return (
        isinstance(branch, ScanAggregate)
        and branch.where is None
        and not any(kind_of(s.measure).apart(s.measure) for s in branch.slots)
    )


def _rated(branch: Branch) -> dict[Slot, Sketch]:
    """The sketch slots of a scan branch (with their forms) when every one of them knows
    its rate (none otherwise: the counts then set the rate, in the sketches' own branch)."""
    if not isinstance(branch, ScanAggregate):
        return {}
    found = {s: s.form for s in branch.slots if isinstance(s.form, Sketch)}
    return found if all(m.expected > 0 for m in found.values()) else {}


def _read(branch: Branch) -> set[str]:
    """The columns ``branch``'s slots name (lower-cased; a folded SQL text's not)."""
    return {c for s in branch.slots for c in _columns(s.measure)}


def _columns(measure: object) -> set[str]:
    return {c.lower() for c in kind_of(measure).columns(measure)}

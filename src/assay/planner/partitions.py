"""The aggregate of an incremental run over the partitions it scans, planned as a full
scan's (pure; docs/incremental.md#what-it-costs): its counts in the forms the full-scan
planner computes them in, each grouped by the partition column.

A full scan answers the counts of a string column with few values from its rows grouped
by value (:mod:`assay.planner.values`), a regex that is a run of one ASCII class from
the value's bytes (:mod:`assay.planner.passes.class_runs`), a folded decimal comparison
in doubles where that is certain (:mod:`assay.planner.passes.decimal_doubles`), and
every literal in its column's type (:mod:`assay.planner.literals`). Each of these
answers every row as the condition as written does, so it answers each partition's
count alike: the partial values of a count are the same by either road. Here the
measures an incremental table keeps per partition get those forms: a count's
``form`` (the measure as computed; its partial values stay keyed by the measure as
written, whose digest the stored states carry), and the value branches as aggregates
grouped by the partition and the columns' values, then by the partition.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assay.ir.rules import UniqueCheck
from assay.ir.suite import Table
from assay.planner.cost import PlannerOptions, group_partitions, split_branches
from assay.planner.incremental import partial_kind, refusal
from assay.planner.measures import CountIf, GroupStats, Measure, measures_of
from assay.planner.passes.class_runs import class_runs
from assay.planner.passes.decimal_doubles import in_doubles_slots
from assay.planner.plan import Slot
from assay.planner.values import value_branches


@dataclass(frozen=True)
class PartitionPlan:
    """The aggregates of the scan of the partitions, their rows unioned in one Spark
    plan: each aggregate's measures (indices into the table's measures), the aggregates
    that group the rows by the values of some columns first (``values``: the aggregate's
    number -> those columns; each of its measures a count of one of them), the form
    each measure is computed in where it is not the measure as written (``forms``), and
    the key groups whose rule expects unique keys (``keyed``: the measure's index -> the
    shuffle partitions its rows go to by key, None: the session's), shuffled straight to
    their key's partition as a full scan's are (``passes.group_bys``).

    ``one_task``: the partitions scanned are small (their files at most
    ``one_task_bytes``, 4 MiB: about one file split of each branch anyway), so each
    aggregate reads their rows in one partition (``coalesce(1)``) and groups them there:
    no shuffle, no adaptive query stages (one new month at SF1: one Spark stage against
    five in three waves, and no re-planning of the ~90-measure plan as each stage ends).
    Its group-bys are the same group-bys, over one partition; the key groups are then
    not shuffled (``keyed`` empty). Spark's union of the aggregates, partitioned alike,
    runs them in one task, one after the other: past a few MiB the shuffled form's tasks
    on every core win."""

    aggregates: tuple[tuple[int, ...], ...]
    values: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    forms: Mapping[int, Measure] = field(default_factory=dict)
    keyed: Mapping[int, int | None] = field(default_factory=dict)
    one_task: bool = False


def partition_plan(
    table: Table,
    measures: Sequence[Measure],
    options: PlannerOptions,
    types: Mapping[str, str],
    split: bool = False,
    typed: Table | None = None,
    size_bytes: int | None = None,
) -> PartitionPlan:
    """The aggregates of the partitions' scan (``measures``: the table's, from
    :func:`~assay.planner.incremental.table_measures`): the groups of each key holding
    the partition column a group-by of its own, the sketches apart, the counts of a few
    valued string column by value (``options.by_value``, as a full scan groups them),
    a sketched distinct count of a column grouped so in that branch (over its groups),
    the rest in one aggregate or, ``split``, in branches by the columns they read
    (:func:`split_branches`). ``typed``: the table with its literals typed (the full
    scan's plan's), whose measures are computed in place of those written; each count
    then in the full scan's cheaper forms (``options.class_runs``,
    ``options.decimal_doubles``). ``size_bytes``: the bytes scanned (None: unknown),
    which size the shuffle of a key's groups expected unique, or make the scan one task
    (``PartitionPlan.one_task``)."""
    assert table.incremental is not None
    by = table.incremental.by
    kinds = [partial_kind(m, by) for m in measures]
    plain = [i for i, kind in enumerate(kinds) if kind not in ("groups", "hll")]
    written = _typed_forms(table, typed, by) if typed is not None else {}
    slots = [Slot(f"m{i}", written.get(measures[i], measures[i]), ()) for i in plain]
    if options.class_runs:
        slots = list(class_runs(slots, types))
    if options.decimal_doubles:
        slots = list(in_doubles_slots(slots, types))
    forms = {_index(s): s.form for s in slots if s.form != measures[_index(s)]}
    found: list[tuple[int, ...]] = []
    values: dict[int, tuple[str, ...]] = {}
    sketches = [i for i, kind in enumerate(kinds) if kind == "hll"]
    if options.by_value:
        rest, branches = value_branches(slots, table, types, options.value_max, options.join_values)
        slots = list(rest)
        for branch in branches:
            values[len(found)] = branch.columns
            riding = [i for i in sketches if _sketched_column(measures[i]) in branch.columns]
            sketches = [i for i in sketches if i not in riding]
            found.append((*(_index(s) for s in branch.slots), *riding))
    if split:
        apart = dataclasses.replace(options, strategy="split", pushdown=False)
        for scan in split_branches(slots, table.source, apart, types=types):
            found.append(tuple(_index(s) for s in scan.slots))
    elif slots:
        found.append(tuple(_index(s) for s in slots))
    found.extend((i,) for i, kind in enumerate(kinds) if kind == "groups")
    if sketches:
        found.append(tuple(sketches))
    one_task = not split and size_bytes is not None and size_bytes <= options.one_task_bytes
    unique = {m for r in table.rules if isinstance(r.check, UniqueCheck) for m in measures_of(r)}
    keyed = {i: group_partitions(size_bytes, options) for i, kind in enumerate(kinds)
             if kind == "groups" and measures[i] in unique and not one_task}  # fmt: skip
    return PartitionPlan(tuple(found), values, forms, keyed, one_task)


def _index(slot: Slot) -> int:
    return int(slot.name[1:])


def _sketched_column(measure: Measure) -> str | None:
    """The column a sketched distinct count reads, when a value branch grouping it can
    sketch it from its groups (each value once, as many times as it holds rows changes
    no register of the sketch): unfiltered."""
    if isinstance(measure, GroupStats) and measure.where is None and len(measure.columns) == 1:
        return measure.columns[0]
    return None


def _typed_forms(table: Table, typed: Table, by: str) -> dict[Measure, Measure]:
    """Each count of ``table``'s rules -> the same count of ``typed``'s rules (its
    literals in their columns' types), where they differ. Only counts: their form is
    free (their partial value, a count, is the same by any road that answers each row
    alike), where a min's or a sum's typed filter could be too."""
    found: dict[Measure, Measure] = {}
    if len(typed.rules) != len(table.rules):
        return found
    for rule, other in zip(table.rules, typed.rules, strict=True):
        if refusal(rule, by) is not None or refusal(other, by) is not None:
            continue
        mine, theirs = measures_of(rule), measures_of(other)
        if len(mine) != len(theirs):
            continue
        for a, b in zip(mine, theirs, strict=True):
            if isinstance(a, CountIf) and isinstance(b, CountIf) and a != b:
                found[a] = b
    return found

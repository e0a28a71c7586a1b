"""The measure stage of an incremental table (docs/incremental.md): its partitions'
fingerprints (one plan), the partitions new or changed since the stored states scanned
in one aggregate grouped by the partition column (one plan, none when nothing changed),
their partial values merged with the stored ones into the whole table's values, which the
judge stage reads as it reads a full scan's; and the states the run stores.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.emit import incremental as emit
from assay.executor.beside import beside
from assay.executor.deadline import deadline
from assay.executor.stages.aggregate import Measured
from assay.executor.stages.detail import ask_beside, failed_rules
from assay.executor.stages.judge import judge_rules
from assay.executor.stages.submitter import Asked, SparkSubmitter, Submitter
from assay.ir.suite import Table
from assay.monitoring.identity import identities
from assay.monitoring.states import PartitionKey, Stored, partition_key, partition_value, state_rows
from assay.planner.cost import PlannerOptions, splits
from assay.planner.incremental import (
    SKETCHED_TEXT,
    column_types,
    empty_partial,
    merged,
    partial_kind,
    refusal,
    sketched,
    table_measures,
)
from assay.planner.measures import ColumnAgg, Measure, RowCount, measures_of
from assay.planner.partitions import PartitionPlan, partition_plan

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession


@dataclass(frozen=True)
class Scanned:
    """What an incremental run read: the partitions it knows now, those it scanned (new,
    changed, or without a state for some rule), those gone since the stored states, the
    run whose states it merged, and the states to store."""

    partitions: tuple[PartitionKey, ...] = ()
    scanned: tuple[PartitionKey, ...] = ()
    deleted: tuple[PartitionKey, ...] = ()
    merged_from: str = ""
    states: list[dict[str, Any]] = field(default_factory=list)
    new: Measured = field(default_factory=Measured)
    """The values of the partitions scanned alone (the new data): what samples are
    drawn from, and what a rule of ``scope: new`` is judged on."""
    estimates: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """The rules whose value a sketch estimates (``exact: false``), with its bounds."""
    asked: Asked | None = None
    """The new data's samples asked beside its aggregate (a scan in one task:
    :func:`assay.executor.stages.detail.ask_beside`)."""

    def said(self) -> dict[str, Any]:
        """The table's ``incremental`` summary (docs/incremental.md#what-a-run-says)."""
        return {"partitions": len(self.partitions), "scanned": list(self.scanned),
                "deleted": list(self.deleted), "merged_from": self.merged_from or None}  # fmt: skip


def digest(rule_measures: Sequence[Measure], table: Table) -> str:
    """What a rule's stored partial values measure (its measures, the partition column
    and the table's filter): a stored state whose digest differs (the rule or the filter
    changed) is not merged, its partitions are scanned again."""
    spec = table.incremental
    by = spec.by if spec else ""
    said = repr((by, table.filter, tuple(rule_measures)))
    if any(partial_kind(m, by) == "hll" for m in rule_measures):
        said += f"|texts sketched ending in {SKETCHED_TEXT!r}"  # not merged with older sketches
    return hashlib.sha256(said.encode()).hexdigest()[:16]


def measure_incremental(
    table: Table, schema: Sequence[tuple[str, str]], submitter: Submitter, stored: Stored,
    full: bool = False,
) -> tuple[Measured, Scanned]:  # fmt: skip
    """The whole table's values from the stored states and the partitions scanned now;
    ``full``: every partition scanned, the states rebuilt."""
    if not isinstance(submitter, SparkSubmitter):
        raise TypeError("an incremental table is measured through a SparkSubmitter")
    assert table.incremental is not None
    by = table.incremental.by
    prints, sizes = _fingerprints(submitter, table, schema)
    # each rule's measures (once: measures_of simplifies the rule's conditions)
    judged = [(i, found) for r, i in zip(table.rules, identities(table.rules), strict=True)
              if refusal(r, by) is None and (found := measures_of(r))]  # fmt: skip
    digests = {i: digest(m, table) for i, m in judged}
    scan = [
        key for key in prints
        if full or stored.fingerprints.get(key) != prints[key]
        or any(stored.rules.get((i, key), ("",))[0] != digests[i] for i, _ in judged)
    ]  # fmt: skip
    measures = table_measures(table.rules, by)
    types = column_types(schema)
    planned = submitter.prepared.planned
    typed = planned.plan.table
    shape = _shape(table, planned.options, measures, types, scan, sizes, typed)
    # the detail plan samples the new data only (the old partitions were sampled when new)
    new_rows = emit.in_partitions(
        submitter.prepared.df, by, [partition_value(k) for k in scan], shape.one_task
    )
    asked = None
    if scan and shape.one_task:  # its task leaves a core idle: the samples asked beside
        kept = [k for k in prints if k not in scan]
        latest = _latest(kept, stored, judged)
        asked = _ask_likely(submitter, new_rows, latest, measures, types, by)
    try:
        fresh = _scan(submitter, by, scan, measures, types, shape) if scan else {}
    except BaseException:
        if asked is not None:
            asked.cancel()
        raise
    parts: dict[PartitionKey, dict[Measure, list[Any]]] = {}
    for key in prints:  # a scanned partition of files without rows has none in the aggregate
        parts[key] = (fresh.get(key) or {m: empty_partial(m, by) for m in measures}
                      if key in scan else _stored_partials(stored, judged, key))  # fmt: skip
    values = _merged(measures, parts.values(), types, by)
    new = _merged(measures, [parts[k] for k in scan], types, by)
    rules = {(i, key): (digests[i], [parts[key][m] for m in found])
             for i, found in judged for key in scan}  # fmt: skip
    rows = {key: int(parts[key][RowCount()][0] or 0) for key in scan}
    deleted = tuple(sorted(k for k in stored.fingerprints if k not in prints))
    baseline = len(scan) == len(prints) and bool(scan or deleted)  # every partition's states
    states = state_rows(table.name, {k: prints[k] for k in scan}, rows, rules,
                        () if baseline else deleted, baseline)  # fmt: skip
    merged_from = stored.merged_from(k for k in prints if k not in scan)
    estimates = _estimates(table, values, new)
    scanned = Scanned(tuple(prints), tuple(scan), deleted, merged_from, states, Measured(new),
                      estimates, asked)  # fmt: skip
    submitter.prepared = dataclasses.replace(submitter.prepared, df=new_rows)
    return Measured(values), scanned


def _ask_likely(
    submitter: SparkSubmitter,
    new_rows: Any,
    latest: Mapping[Measure, list[Any]] | None,
    measures: Sequence[Measure],
    types: Mapping[str, str],
    by: str,
) -> Asked | None:
    """The new data's samples of the rules that failed on the latest stored partition
    (``latest``'s partial values, judged), asked beside the aggregate
    (:func:`~assay.executor.stages.detail.ask_beside`)."""
    if latest is None:
        return None
    planned = submitter.prepared.planned
    try:  # a guess: whatever stops it leaves the samples to be asked after the aggregate
        values = _merged(measures, [latest], types, by)
        likely = failed_rules(planned, judge_rules(planned, Measured(values)))
    except Exception:  # noqa: BLE001 - judging the whole table later meets and reports it
        return None
    return ask_beside(planned, submitter, new_rows, likely)


def _latest(
    kept: Sequence[PartitionKey], stored: Stored, judged: Sequence[tuple[str, Sequence[Measure]]]
) -> dict[Measure, list[Any]] | None:
    """The stored partial values of the latest partition among ``kept`` (the greatest
    value of the partition column): the rules that failed on it are likely to fail on
    the new one. None when there is none or it lacks a rule's state."""
    values = {k: partition_value(k) for k in kept}
    present = [k for k in kept if values[k] is not None]
    try:
        key = max(present, key=lambda k: values[k], default=None)
    except TypeError:  # values of mixed types
        key = max(present, default=None)
    if key is None or any((identity, key) not in stored.rules for identity, _ in judged):
        return None
    return _stored_partials(stored, judged, key)


def _stored_partials(
    stored: Stored, judged: Sequence[tuple[str, Sequence[Measure]]], key: PartitionKey
) -> dict[Measure, list[Any]]:
    """The stored partial values of partition ``key``, of every rule's measures."""
    known: dict[Measure, list[Any]] = {}
    for identity, found in judged:
        known.update(zip(found, stored.rules[(identity, key)][1], strict=True))
    return known


def _merged(
    measures: Sequence[Measure],
    parts: Iterable[Mapping[Measure, list[Any]]],
    types: Mapping[str, str],
    by: str,
) -> dict[Any, object]:
    """Each measure's value over the partitions ``parts``, merged."""
    parts = list(parts)
    values: dict[Any, object] = {}
    for measure in measures:
        kind = types.get(measure.column.lower()) if isinstance(measure, ColumnAgg) else None
        values[measure] = merged(measure, [p[measure] for p in parts], kind, by)
    return values


def _estimates(
    table: Table, values: Mapping[Any, object], new: Mapping[Any, object]
) -> dict[int, dict[str, Any]]:
    """The rules whose value a sketch estimates, by index: the estimate and its bounds
    (of the whole table, or of the new data for a rule of ``scope: new``)."""
    assert table.incremental is not None
    found = {}
    for index, rule in enumerate(table.rules):
        if sketched(rule, table.incremental.by):
            read = new if rule.scope == "new" else values
            for measure in measures_of(rule):
                value = read.get(measure)
                if isinstance(value, dict) and "estimate" in value:
                    found[index] = dict(value["estimate"])
    return found


def _fingerprints(
    submitter: SparkSubmitter, table: Table, schema: Sequence[tuple[str, str]]
) -> tuple[dict[PartitionKey, str], dict[PartitionKey, int] | None]:
    """Each partition's fingerprint, by one plan: its files' paths, sizes and times from
    the file listing (a path source partitioned by the column, hive layout: no data
    read), else each partition's row count and a sum of its rows' hashes (any other
    source: every row read); and each partition's bytes (its files' sizes; None when
    the rows were hashed)."""
    assert table.incremental is not None
    by, df = table.incremental.by, submitter.prepared.df
    kind = column_types(schema).get(by.lower(), "string")
    submitter.step = "fingerprint plan"
    frame = emit.file_listing(df.sparkSession, table.source, by, kind)  # type: ignore[arg-type]
    rows = None
    if frame is not None:  # collected as it is: no analysis round trip before it
        rows = _listed(submitter, frame, kind)
    sizes: dict[PartitionKey, int] | None = {} if rows is not None else None
    if rows is None:  # not partitioned by the column (or not files): the rows are hashed
        submitter.note("fingerprint plan (the partitions' rows)")
        submitter.plans += 1
        rows = submitter._collect(emit.hashed_fingerprints(df, by, [name for name, _ in schema]))
    found: dict[PartitionKey, list[str]] = {}
    for row in rows:
        said = [str(row[name]) for name in row.asDict() if name not in _UNSAID]
        key = partition_key(row[emit.PART])
        found.setdefault(key, []).append("|".join(said))
        if sizes is not None:
            sizes[key] = sizes.get(key, 0) + int(row["length"] or 0)
    prints = {
        key: hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()[:32]
        for key, parts in found.items()
    }
    return prints, sizes


_UNSAID = frozenset({emit.PART, emit.LISTED_TYPE})
"""The listing's columns that are not a file's fingerprint."""

Listing = Future  # of the file listing's rows, or None (:func:`_listed`)


def start_listing(table: Table, spark: SparkSession, timeout: float | None) -> Listing | None:
    """An incremental path source's file listing (the fingerprint plan), collected in a
    thread of its own while the table is prepared: started before its source's schema
    is asked (the listing's partition typed as Spark infers it from the paths, as the
    table's reader does; :func:`_listed` lists again, cast, a partition typed otherwise),
    so its round trip runs beside the table's analyses. None for any other table, whose
    fingerprints are taken when it runs."""
    if table.incremental is None:
        return None
    frame = emit.file_listing(spark, table.source, table.incremental.by, None)
    if frame is None:
        return None
    return beside(lambda: _collected(frame, timeout), "assay-listing")


def _collected(frame: Any, timeout: float | None) -> list[Any] | None:
    """The file listing's rows; None when Spark cannot read the column from the paths
    (the source is not partitioned by it, hive layout), which it says when it analyses
    the plan, before reading anything."""
    from pyspark.errors import AnalysisException

    try:
        with deadline(frame.sparkSession, timeout):
            return frame.collect()  # type: ignore[no-any-return]
    except AnalysisException:
        return None


def _listed(submitter: SparkSubmitter, frame: Any, kind: str) -> list[Any] | None:
    """The file listing's rows, one plan (started while the table was prepared, when it
    was: :func:`start_listing`, and kept when its partitions are typed ``kind``, the
    table's type of the column); None when Spark refused it (:func:`_collected`)."""
    submitter.note("fingerprint plan (the partitions' files)")
    submitter.plans += 1
    early = submitter.prepared.listing
    if early is None:
        rows = _collected(frame, submitter.prepared.timeout)
    else:
        rows = early.result()
        if rows is not None and not typed_as(rows, kind):  # listed again, cast
            submitter.plans += 1
            rows = _collected(frame, submitter.prepared.timeout)
    if rows is None:
        submitter.plans -= 1  # refused before it ran
    return rows


def typed_as(rows: Sequence[Any], kind: str) -> bool:
    """Whether an early listing's partitions (:func:`start_listing`) are of the table's
    type ``kind`` (the type Spark inferred from the paths, :data:`emit.LISTED_TYPE`)."""
    return all(row[emit.LISTED_TYPE] == kind for row in rows)


def _shape(
    table: Table,
    options: PlannerOptions,
    measures: Sequence[Measure],
    types: Mapping[str, str],
    scan: Sequence[PartitionKey],
    sizes: Mapping[PartitionKey, int] | None,
    typed: Table | None = None,
) -> PartitionPlan:
    """How the partitions ``scan`` are aggregated (:func:`partition_plan`): each key's
    groups a group-by of its own, the sketches apart, the counts in the full scan's
    forms (``typed``: the table with its literals typed; the counts of a string column
    with few values by value), the rest in one aggregate, or split into branches as the
    full scan's aggregate is by the bytes scanned (the files' sizes of the partitions
    scanned; unknown for a source whose rows were hashed: :func:`splits`). The groups
    are not counted by a window over the key in the one aggregate, not even over one new
    partition: the window shuffles and sorts the whole rows (twice: one window per
    statistic) and makes the aggregate a sort-based one; at SF1 it cost twice the CPU of
    the group-bys (docs/incremental.md)."""
    size = None if sizes is None else sum(sizes.get(k, 0) for k in scan)
    split = splits(table.source, options, size)
    return partition_plan(table, measures, options, types, split, typed, size)


def _scan(
    submitter: SparkSubmitter,
    by: str,
    keys: Sequence[PartitionKey],
    measures: Sequence[Measure],
    types: Mapping[str, str],
    shape: PartitionPlan,
) -> dict[PartitionKey, dict[Measure, list[Any]]]:
    """The partial values of every measure over the partitions ``keys``: one plan, its
    aggregates' rows unioned (:func:`emit.partition_states`); a measure a partition has
    no row for in its aggregate (no row kept for a key's groups) has its empty values."""
    values = [partition_value(k) for k in keys]
    df = emit.in_partitions(submitter.prepared.df, by, values, shape.one_task)
    submitter.step = "aggregate plan"
    aggregated = shape.aggregates
    submitter.note(f"aggregate plan ({len(measures)} measures in {len(aggregated)}"
                   f" aggregates, {len(keys)} partitions)")  # fmt: skip
    submitter.plans += 1
    frame = emit.partition_states(
        df, by, measures, types, aggregated, values=shape.values, forms=shape.forms,
        keyed=shape.keyed,
    )  # fmt: skip
    found: dict[PartitionKey, dict[Measure, list[Any]]] = {}
    for row in submitter._collect(frame):
        got = row.asDict()
        part = found.setdefault(partition_key(got[emit.PART]), {})
        for i in aggregated[got[emit.AGGREGATE]]:
            part[measures[i]] = [got[name] for name in emit.partial_columns(i, measures[i], by)]
    for part in found.values():
        for measure in measures:
            part.setdefault(measure, empty_partial(measure, by))
    return found

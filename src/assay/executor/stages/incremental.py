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
from dataclasses import dataclass, field
from typing import Any

from assay.emit import incremental as emit
from assay.executor.results import TableOutcome
from assay.executor.stages.aggregate import Measured
from assay.executor.stages.detail import Sampled, sample
from assay.executor.stages.judge import Judged, judge_rules
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import SparkSubmitter, Submitter
from assay.ir.rules import Rule
from assay.ir.suite import Table
from assay.monitoring.identity import identities
from assay.monitoring.states import PartitionKey, Stored, partition_key, partition_value, state_rows
from assay.planner.incremental import column_types, merged, refusal, table_measures
from assay.planner.measures import ColumnAgg, Measure, measures_of


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

    def said(self) -> dict[str, Any]:
        """The table's ``incremental`` summary (docs/incremental.md#what-a-run-says)."""
        return {"partitions": len(self.partitions), "scanned": list(self.scanned),
                "deleted": list(self.deleted), "merged_from": self.merged_from or None}  # fmt: skip


def digest(rule_measures: Sequence[Measure], by: str) -> str:
    """What a rule's stored partial values measure: a stored state whose digest differs
    (the rule changed) is not merged, its partitions are scanned again."""
    return hashlib.sha256(repr((by, tuple(rule_measures))).encode()).hexdigest()[:16]


def measure_incremental(
    table: Table, schema: Sequence[tuple[str, str]], submitter: Submitter, stored: Stored,
    full: bool = False,
) -> tuple[Measured, Scanned]:  # fmt: skip
    """The whole table's values from the stored states and the partitions scanned now;
    ``full``: every partition scanned, the states rebuilt."""
    if not isinstance(submitter, SparkSubmitter):
        raise TypeError("an incremental table is measured through a SparkSubmitter")
    spec = table.incremental
    assert spec is not None
    by = spec.by
    prints = _fingerprints(submitter, by, [name for name, _ in schema])
    judged = [(r, i) for r, i in zip(table.rules, identities(table.rules), strict=True)
              if refusal(r) is None and measures_of(r)]  # fmt: skip
    digests = {i: digest(measures_of(r), by) for r, i in judged}
    scan = [
        key for key in prints
        if full or stored.fingerprints.get(key) != prints[key][0]
        or any(stored.rules.get((i, key), ("",))[0] != digests[i] for _, i in judged)
    ]  # fmt: skip
    measures = table_measures(table.rules)
    fresh = _scan(submitter, by, scan, measures) if scan else {}
    prints = {k: v for k, v in prints.items() if k in fresh or k not in scan}  # gone meanwhile
    parts: dict[PartitionKey, dict[Measure, list[Any]]] = {}
    for key in prints:
        if key in fresh:
            parts[key] = fresh[key]
            continue
        known: dict[Measure, list[Any]] = {}
        for rule, identity in judged:
            known.update(zip(measures_of(rule), stored.rules[(identity, key)][1], strict=True))
        parts[key] = known
    values = _merged(measures, parts.values(), column_types(schema))
    new = _merged(measures, [parts[k] for k in scan if k in parts], column_types(schema))
    rules = {(i, key): (digests[i], [parts[key][m] for m in measures_of(r)])
             for r, i in judged for key in prints}  # fmt: skip
    rows = {key: prints[key][1] for key in prints}
    states = state_rows(table.name, {k: v[0] for k, v in prints.items()}, rows, rules)
    deleted = tuple(sorted(k for k in stored.fingerprints if k not in prints))
    scanned = Scanned(tuple(prints), tuple(scan), deleted, stored.run_id, states, Measured(new))
    _sample_new_rows(submitter, by, scan)
    return Measured(values), scanned


def _merged(
    measures: Sequence[Measure],
    parts: Iterable[Mapping[Measure, list[Any]]],
    types: Mapping[str, str],
) -> dict[Any, object]:
    """Each measure's value over the partitions ``parts``, merged."""
    parts = list(parts)
    values: dict[Any, object] = {}
    for measure in measures:
        kind = types.get(measure.column.lower()) if isinstance(measure, ColumnAgg) else None
        values[measure] = merged(measure, [p[measure] for p in parts], kind)
    return values


def _fingerprints(
    submitter: SparkSubmitter, by: str, columns: Sequence[str]
) -> dict[PartitionKey, tuple[str, int]]:
    """Each partition's fingerprint and rows: its files' paths, sizes and times (a file
    source), else a hash of its rows. One plan; a partition without rows is absent."""
    df = submitter.prepared.df
    submitter.step = "fingerprint plan"
    try:
        frame = emit.file_fingerprints(df, by)
        frame.schema  # noqa: B018 - analysed: a source without files has no _metadata
        files = True
    except Exception:  # noqa: BLE001 - not a file source: its rows are hashed
        frame, files = emit.hashed_fingerprints(df, by, columns), False
    submitter.note("fingerprint plan (the partitions)")
    submitter.plans += 1
    found: dict[PartitionKey, list[Any]] = {}
    for row in submitter._collect(frame):
        key = partition_key(row[emit.PART])
        said = found.setdefault(key, [[], 0])
        if files:
            said[0].append(f"{row['file_path']}|{row['file_size']}|{row['file_modification_time']}")
        else:
            said[0].append(str(row["hash"]))
        said[1] += int(row["rows"])
    return {
        key: (hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()[:32], rows)
        for key, (parts, rows) in found.items()
    }


def _scan(
    submitter: SparkSubmitter, by: str, keys: Sequence[PartitionKey], measures: Sequence[Measure]
) -> dict[PartitionKey, dict[Measure, list[Any]]]:
    """The partial values of every measure over the partitions ``keys``: one plan."""
    df = emit.in_partitions(submitter.prepared.df, by, [partition_value(k) for k in keys])
    submitter.step = "aggregate plan"
    submitter.note(f"aggregate plan ({len(measures)} measures, {len(keys)} partitions)")
    submitter.plans += 1
    found: dict[PartitionKey, dict[Measure, list[Any]]] = {}
    for row in submitter._collect(emit.partition_states(df, by, measures)):
        got = row.asDict()
        found[partition_key(got[emit.PART])] = {
            m: [got[name] for name in emit.partial_columns(i, m)] for i, m in enumerate(measures)
        }
    return found


def _sample_new_rows(submitter: SparkSubmitter, by: str, keys: Sequence[PartitionKey]) -> None:
    """The detail plan samples the partitions scanned now (the new data) only."""
    p = submitter.prepared
    df = emit.in_partitions(p.df, by, [partition_value(k) for k in keys])
    submitter.prepared = dataclasses.replace(p, df=df)


def stored_for(states: Mapping[str, Stored] | str, table: str) -> Stored:
    """The stored states of ``table`` (none when the store could not be read: every
    partition is then scanned)."""
    return Stored() if isinstance(states, str) else states.get(table, Stored())


def judged_in_scope(planned: Planned, judged: Judged, scanned: Scanned | None) -> Judged:
    """The rules of ``scope: new`` judged on the partitions scanned alone; the others as
    ``judged`` has them (on the whole table)."""
    rules = planned.plan.table.rules
    if scanned is None or all(rule.scope == "table" for rule in rules):
        return judged
    new = judge_rules(planned, scanned.new)
    outcomes = tuple(
        (n if n.rows is not None else dataclasses.replace(n, rows=new.row_count))
        if rule.scope == "new" else o
        for rule, o, n in zip(rules, judged.outcomes, new.outcomes, strict=True)
    )  # fmt: skip
    return dataclasses.replace(judged, outcomes=outcomes)


def incremental_outcome(
    outcome: TableOutcome, scanned: Scanned, rules: Sequence[Rule]
) -> TableOutcome:
    """The table's outcome saying what its run scanned and merged: each result judged on
    the whole table or the new data (its ``scope``), exactly (every mergeable measure
    merges exactly); the states to store with the run's values."""
    scopes = {i: rule.scope for i, rule in enumerate(rules)}
    events = [dataclasses.replace(e, scope=scopes.get(e.rule_index, "table"), exact=True)
              for e in outcome.events]  # fmt: skip
    finished = dataclasses.replace(outcome.finished, incremental=scanned.said())
    return dataclasses.replace(
        outcome, events=events, finished=finished, states=tuple(scanned.states)
    )


def sample_new(planned: Planned, scanned: Scanned, submitter: Submitter) -> Sampled:
    """The detail plan over the partitions scanned (the new data), for the rules that
    fail on it; none when nothing was scanned."""
    if not scanned.scanned:
        return Sampled()
    return sample(planned, judge_rules(planned, scanned.new), scanned.new.values, submitter)

"""What a run reads of the metrics store: the earlier values of the rules it judges over
time (:class:`Wanted`), as :class:`Point` series by table and rule (:data:`History`).
Both backends filter and bound the same way: the rows of the rules asked for, of runs
before this one carrying this run's tags, the newest ``runs`` of each.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.ir.drift import DriftMetric, HistoryBaseline
from assay.ir.monitoring import Monitoring, SchemaChangeCheck
from assay.ir.rules import MetricCheck, Rule
from assay.ir.suite import Table
from assay.monitoring.identity import JUDGING_KEYS, identities
from assay.monitoring.records import parse_time, tracked_measure, utc_text
from assay.monitoring.schemas import SCHEMA_MEASURE, SCHEMA_RULE

DRIFT_STATE = "kll_double"
"""The ``measure`` of a drift rule's stored distribution: its KLL sketch's bytes in
``state``, the values it summarises in ``value``."""
DRIFT_FREQUENCIES = "frequencies"
"""The ``measure`` of a categorical drift rule's stored distribution: its bounded value
counts (JSON) in ``state``, the rows they count in ``value``."""
DRIFT_MEASURES = (DRIFT_STATE, DRIFT_FREQUENCIES)

Key = tuple[str, str, str]
"""(table, rule identity, measure)."""


@dataclass(frozen=True, slots=True)
class Point:
    """A rule's value in one earlier run."""

    run_time: str
    value: float
    run_id: str = ""
    columns: str = ""
    """A schema row's columns (JSON: :mod:`assay.monitoring.schemas`); empty for a value."""
    state: bytes | None = None
    """A state row's bytes (a drift rule's stored distribution); None for a value."""


History = Mapping[tuple[str, str], tuple[Point, ...]]
"""Earlier values by (table, rule identity), oldest first."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """The history a run reads: for each (table, rule, measure), at most ``runs`` earlier
    values; only runs before ``before`` (other than ``run_id``) whose tags include every
    one of ``tags`` (a run tagged ``env=prod`` is judged against prod runs only)."""

    runs: Mapping[Key, int]
    before: dt.datetime
    run_id: str
    tags: tuple[tuple[str, str], ...] = ()
    pinned: Mapping[Key, frozenset[str]] = field(default_factory=dict)
    """Runs read for a key however old (a drift rule's ``{history: {run_id: ...}}``),
    beside its newest ``runs``."""

    @property
    def states(self) -> bool:
        """Whether state rows are asked for (their ``state`` bytes read too)."""
        return any(m in DRIFT_MEASURES for _, _, m in self.runs)

    @property
    def keys(self) -> frozenset[Key]:
        return frozenset(self.runs)

    @property
    def longest(self) -> int:
        return max(self.runs.values(), default=0)

    def matches(self, tags: Mapping[str, Any], run_id: Any, run_time: dt.datetime) -> bool:
        """Whether a stored row belongs to this run's history (its rule aside)."""
        if run_id == self.run_id or run_time >= self.before:
            return False
        return all(tags.get(k) == v for k, v in self.tags)


def newest(
    rows: Iterable[Mapping[str, Any]], wanted: Wanted
) -> dict[tuple[str, str], tuple[Point, ...]]:
    """The newest ``runs`` values of each wanted key among ``rows`` (already filtered),
    oldest first; one value per run (the first row read of a run)."""
    series: dict[Key, dict[str, tuple[dt.datetime, Point]]] = {}
    for row in rows:
        key = (row["table"], row["rule"], row["measure"])
        moment = row["run_time"]
        moment = parse_time(moment) if isinstance(moment, str) else moment
        columns = str(row.get("columns") or "") if key[2] == SCHEMA_MEASURE else ""
        state = row.get("state") if key[2] in DRIFT_MEASURES else None
        point = Point(utc_text(moment), float(row["value"]), str(row.get("run_id") or ""), columns,
                      state)  # fmt: skip
        series.setdefault(key, {}).setdefault(point.run_id or point.run_time, (moment, point))
    history: dict[tuple[str, str], tuple[Point, ...]] = {}
    for key, runs in series.items():
        ordered = [p for _, p in sorted(runs.values(), key=lambda mp: mp[0])]
        keep = len(ordered) - wanted.runs[key]
        pinned = wanted.pinned.get(key, frozenset())
        history[(key[0], key[1])] = tuple(
            p for i, p in enumerate(ordered) if i >= keep or p.run_id in pinned
        )
    return history


def watched(rule: Rule) -> bool:
    """Whether ``rule`` is judged against what the metrics store holds: its own earlier
    values (``change``, ``anomaly``), or the table's last schema (``schema_change``)."""
    return (
        rule.over_time is not None
        or isinstance(rule.check, SchemaChangeCheck)
        or drift_history(rule) is not None
    )


DISTRIBUTION_KEYS = frozenset({"method", "references", "bins"})
"""A drift rule's settings that do not change the distribution it stores."""


def distribution_identity(rule: Rule) -> str:
    """The ``rule`` of a drift rule's stored distribution: its name, else ``drift(column)``
    and what changes the values sketched (a filter), not how they are compared (method,
    bins, baseline): the rules of one column share their states, and a rule pinned to a
    run finds the distribution that run stored under another baseline. A category's
    counts are ``drift(column) values`` (beside the same column's sketch, if any)."""
    if rule.name:
        return rule.name
    text = f"{rule.kind}({','.join(rule.columns)})"
    if drift_measure(rule) == DRIFT_FREQUENCIES:
        text += " values"  # its value counts, apart from the same column's sketch
    measured = {k: v for k, v in rule.params if k not in JUDGING_KEYS | DISTRIBUTION_KEYS}
    if measured:
        text += " " + json.dumps(measured, sort_keys=True, separators=(",", ":"), default=str)
    return text


def drift_measure(rule: Rule) -> str:
    """The ``measure`` of a drift rule's stored distribution: a sketch of numbers, or the
    value counts of a category (``bins: values``)."""
    check = rule.check
    assert isinstance(check, MetricCheck) and isinstance(check.metric, DriftMetric)
    return DRIFT_STATE if check.metric.bins is not None else DRIFT_FREQUENCIES


def drift_history(rule: Rule) -> HistoryBaseline | None:
    """A drift rule's history reference (None: any other rule)."""
    check = rule.check
    if isinstance(check, MetricCheck) and isinstance(check.metric, DriftMetric):
        reference = check.metric.reference
        return reference if isinstance(reference, HistoryBaseline) else None
    return None


def wanted(
    tables: Sequence[Table], monitoring: Monitoring, run_id: str, run_time: dt.datetime
) -> Wanted:
    """The history the run's rules judged over time need: their values, and the last
    schema of each table a ``schema_change`` rule watches."""
    runs: dict[Key, int] = {}
    pinned: dict[Key, frozenset[str]] = {}
    for table in tables:
        for rule, identity in zip(table.rules, identities(table.rules), strict=True):
            if rule.over_time is not None:
                key = (table.name, identity, tracked_measure(rule))
                runs[key] = max(runs.get(key, 0), rule.over_time.runs)
            if isinstance(rule.check, SchemaChangeCheck):
                runs[(table.name, SCHEMA_RULE, SCHEMA_MEASURE)] = 1
            baseline = drift_history(rule)
            if baseline is not None:
                key = (table.name, distribution_identity(rule), drift_measure(rule))
                runs[key] = max(runs.get(key, 0), baseline.runs)
                if baseline.run_id is not None:
                    pinned[key] = pinned.get(key, frozenset()) | {baseline.run_id}
    return Wanted(runs, run_time, run_id, monitoring.tags, pinned)


@dataclass(frozen=True, slots=True)
class Selection:
    """Stored rows asked for by ``assay history``: of these tables, rules (identities)
    and measures (empty: any), carrying every one of ``tags``, the newest ``last`` runs
    of each series (None: all)."""

    tables: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()
    last: int | None = None

    def matches(self, row: Mapping[str, Any]) -> bool:
        """Whether a stored row is asked for (its place in its series aside)."""
        for wanted_values, value in (
            (self.tables, row.get("table")),
            (self.rules, row.get("rule")),
            (self.measures, row.get("measure")),
        ):
            if wanted_values and value not in wanted_values:
                return False
        tags = row.get("tags") or {}
        return all(tags.get(k) == v for k, v in self.tags)


def selected(rows: Iterable[Mapping[str, Any]], selection: Selection) -> list[dict[str, Any]]:
    """The rows ``selection`` asks for, each series oldest first (series ordered by table,
    rule and measure), the newest ``last`` runs of each."""
    series: dict[Key, list[tuple[dt.datetime, dict[str, Any]]]] = {}
    for row in rows:
        if selection.matches(row):
            moment = row["run_time"]
            moment = parse_time(moment) if isinstance(moment, str) else moment
            key = (row["table"], row["rule"], row["measure"])
            series.setdefault(key, []).append((moment, {**row, "run_time": utc_text(moment)}))
    out: list[dict[str, Any]] = []
    for key in sorted(series):
        ordered = [r for _, r in sorted(series[key], key=lambda mr: mr[0])]
        out += ordered[-selection.last :] if selection.last else ordered
    return out

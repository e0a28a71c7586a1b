"""Drift rules against the metrics store's history in a table's run (docs/rules.md#drift):
the states earlier runs stored, read by the run's one history read before any table, put
among the measured values for the judge; a first run (nothing stored) passes, saying so,
as a ``change`` rule's or a ``schema_change`` rule's first run does; and this run's
sketches as state rows, stored in the run's one append."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql.connect.session import SparkSession

from assay.errors import ConfigError
from assay.executor.stages.prepared import Planned
from assay.ir.drift import DriftMetric, HistoryBaseline
from assay.ir.rules import MetricCheck, Rule
from assay.ir.suite import Table
from assay.judge import drift_frequencies as frequencies
from assay.judge.drift_history import history_details, sketch_of
from assay.judge.outcome import Outcome
from assay.monitoring.series import (
    History,
    Point,
    distribution_identity,
    drift_history,
    drift_measure,
)
from assay.planner.drift import Sketch
from assay.planner.drift import sketch_of as sketch_measure
from assay.planner.drift_plan import counted_beside
from assay.planner.measures import filtered
from assay.planner.plan import AggregatePlan, ScanAggregate, Slot

FIRST_RUN = "no distribution stored by an earlier run: first run (this run's is stored)"


def _historical(table: Table) -> list[tuple[int, Rule, str, DriftMetric]]:
    """Each drift rule against history: its index, the rule, the identity of its stored
    distribution, its metric."""
    found = []
    for index, rule in enumerate(table.rules):
        if drift_history(rule) is not None:
            check = rule.check
            assert isinstance(check, MetricCheck) and isinstance(check.metric, DriftMetric)
            found.append((index, rule, distribution_identity(rule), check.metric))
    return found


def _chosen(points: Sequence[Point], baseline: HistoryBaseline) -> list[Point]:
    """The stored states a baseline compares with (``points`` oldest first): the newest,
    the newest ``runs``, or the pinned run's."""
    held = [p for p in points if p.state is not None]
    if baseline.run_id is not None:
        return [p for p in held if p.run_id == baseline.run_id][-1:]
    return held[-baseline.runs :]


def _key(rule: Rule, measure: Any) -> Any:
    return measure if rule.filter is None else filtered(measure, rule.filter)


def with_stored(table: Table, values: Mapping[Any, Any], history: History | str) -> dict[Any, Any]:
    """The measured values, each drift rule's sketch with the states earlier runs stored
    for its baseline beside it (``stored``: (run id, bytes, the values it stands for),
    oldest first; none read: a first run)."""
    out = dict(values)
    if isinstance(history, str):
        return out
    for _, rule, identity, metric in _historical(table):
        baseline = metric.reference
        assert isinstance(baseline, HistoryBaseline)
        key = _key(rule, sketch_measure(metric))
        points = _chosen(history.get((table.name, identity), ()), baseline)
        stored = tuple((p.run_id, p.state, p.value) for p in points if p.state is not None)
        if stored and isinstance(out.get(key), Mapping):
            by_baseline = {**out[key].get("stored", {}), baseline: stored}
            out[key] = {**out[key], "stored": by_baseline}
    return out


def with_rates(planned: Planned, history: History | str) -> Planned:
    """``planned`` with each sketch whose column a stored run counted computed at the
    sampling rate that count gives (``Sketch.expected``: the newest stored run's finite
    values), so that its values are counted in the same read as the sketch
    (:func:`assay.emit.drift.sketch_frame`), and those counts moved into a scan branch
    reading the column where one can carry them
    (:func:`assay.planner.drift_plan.counted_beside`): the plan the run submits, as
    held; the others as planned (the counts first)."""
    plan = planned.plan
    if isinstance(history, str) or plan.aggregate is None:
        return planned
    table = plan.table
    newest: dict[Any, tuple[str, int]] = {}
    for _, rule, identity, metric in _historical(table):
        key = _key(rule, sketch_measure(metric))
        for p in history.get((table.name, identity), ()):
            counted = _count(p)
            if counted and p.run_time >= newest.get(key, ("", 0))[0]:
                newest[key] = (p.run_time, counted)
    if not newest:
        return planned

    def rated(slot: Slot) -> Slot:
        found = newest.get(slot.measure)
        if not isinstance(slot.form, Sketch) or found is None:
            return slot
        return dataclasses.replace(slot, computed=dataclasses.replace(slot.form, expected=found[1]))

    branches = [
        dataclasses.replace(b, slots=tuple(map(rated, b.slots)))
        if isinstance(b, ScanAggregate) else b
        for b in plan.aggregate.branches
    ]  # fmt: skip
    aggregate = AggregatePlan(counted_beside(branches))
    return dataclasses.replace(planned, plan=dataclasses.replace(plan, aggregate=aggregate))


def _count(point: Point) -> int:
    """The finite values a stored state stands for (0: none, or not a count)."""
    value = point.value
    if point.state is None or not isinstance(value, int | float) or not value > 0:
        return 0
    return int(value) if value < 2**62 else 0


def first_runs(
    table: Table, outcomes: Sequence[Outcome], values: Mapping[Any, Any], history: History | str
) -> tuple[Outcome, ...]:
    """The outcomes, a drift rule against history with nothing stored passing as a first
    run, and one whose history could not be read an error (it did not run as written)."""
    out = list(outcomes)
    for index, rule, _, metric in _historical(table):
        if out[index].severity == "error":
            continue
        if isinstance(history, str):
            out[index] = Outcome("error", None, None, f"not judged against history: {history}")
        elif metric.reference not in values[_key(rule, sketch_measure(metric))].get("stored", {}):
            said = history_details(metric, values, rule.check.must.text)  # type: ignore[union-attr]
            out[index] = Outcome("pass", None, None, FIRST_RUN, {"drift": said})
    return tuple(out)


def drift_states(table: Table, values: Mapping[Any, Any]) -> list[dict[str, Any]]:
    """This run's distribution of each drift rule against history, as store rows
    (without ``run_time``, ``server``, ``tags`` and ``run_id``, which the run's append
    adds): a number's KLL sketch, a category's bounded value counts."""
    rows = []
    seen = set()
    for _, rule, identity, metric in _historical(table):
        found = values.get(_key(rule, sketch_measure(metric))) or {}
        state, n = _state(metric, found)
        if state is None or identity in seen:
            continue  # no value (nothing to store), or stored by a rule before
        seen.add(identity)
        rows.append({"table": table.name, "rule": identity, "rule_type": rule.kind,
                     "columns": metric.column, "measure": drift_measure(rule),
                     "value": float(n), "severity": None, "state": state})  # fmt: skip
    return rows


def _state(metric: DriftMetric, found: Mapping[str, Any]) -> tuple[bytes | None, float]:
    """The state of a measured distribution and the values it summarises."""
    if metric.bins is not None:
        data = found.get("sketch")
        if data is None:
            return None, 0
        return bytes(data), float(found.get("values") or sketch_of(data).n)
    if "kept" not in found:
        return None, 0
    kept = [(str(row["v"]), int(row["n"])) for row in found["kept"] or ()]
    n = sum(c for _, c in kept) + int(found["others_rows"])
    if n == 0:
        return None, 0
    return frequencies.encoded(kept, found["others_values"], found["others_rows"]), n


def stored_with(outcome: Any, rows: Sequence[dict[str, Any]]) -> Any:
    """A table's outcome carrying its drift states beside any others."""
    if not rows:
        return outcome
    return dataclasses.replace(outcome, states=(*outcome.states, *rows))


SKETCH_SPARK = (4, 1)
"""The first Spark with KLL sketches (``kll_sketch_agg_double``)."""


def sketch_refusals(rules: Sequence[Rule], version: str) -> list[ConfigError]:
    """A drift rule against history on a server older than Spark 4.1 (no KLL sketches):
    an error at the rule naming the server's version, before any scan."""
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) >= SKETCH_SPARK:
        return []
    return [
        ConfigError(
            f"drift against history sketches the column with kll_sketch_agg_double, which"
            f" Spark has from 4.1 on: this server runs Spark {version}",
            rule.origin,
            hint="compare with a referenced source (references: {table: ...}), or run on"
            " Spark 4.1 or later",
        )
        for rule in rules
        if drift_history(rule) is not None
    ]


def version_problems(spark: SparkSession, table: Table) -> list[ConfigError]:
    """:func:`sketch_refusals` of the table's rules (the server's version asked only when
    a rule needs it)."""
    if not any(drift_history(rule) is not None for rule in table.rules):
        return []
    return sketch_refusals(table.rules, spark.version)

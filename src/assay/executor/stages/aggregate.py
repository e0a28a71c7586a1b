"""The aggregate stage: the table's aggregate plan and its SQL rules in ONE Spark plan,
then its histograms; with containment: when Spark fails on that plan, the measures (and
SQL rules) it fails on are found by halving and rerunning, so each costs its own rules,
never the table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from assay.executor.deadline import Interrupted, PlanTimeout
from assay.executor.spark_errors import lost_server, spark_message
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Answer, Submitter
from assay.judge.evaluate import histogram_bounds
from assay.judge.outcome import Values
from assay.planner.measures import RowCount
from assay.planner.plan import AggregatePlan, SqlPlan, aggregate_subset, sql_subset

T = TypeVar("T")

MAX_CONTAINMENT_PLANS = 24
"""Extra Spark plans a table may spend finding the measures Spark fails on (one bad
measure among n costs about 2 log2(n) + 2); past it the whole table is the error."""


@dataclass(frozen=True)
class Measured:
    """What the aggregate stage measured: ``values`` by measure (the histograms' and the
    row count the SQL part counted included), ``queries`` each SQL rule's (rows returned,
    first value), ``failed`` the rules Spark could not compute (with why), and the
    planner calls containment cost (a subset of the plan per rerun)."""

    values: Values = field(default_factory=dict)
    queries: Mapping[int, tuple[int, Any]] = field(default_factory=dict)
    failed: Mapping[int, str] = field(default_factory=dict)
    planner_calls: int = 0


def measure(planned: Planned, submitter: Submitter) -> Measured:
    """The aggregate stage (at most :data:`MAX_CONTAINMENT_PLANS` plans more when
    Spark fails on the first one)."""
    plan = planned.plan
    found = _Found()
    try:
        found.add(submitter.aggregate(plan.aggregate, plan.sql))
    except Exception as exc:  # noqa: BLE001 - contained below, or raised as it is
        if not containable(exc) or (plan.aggregate is None and plan.sql is None):
            raise
        found = contained(plan.aggregate, plan.sql, submitter, exc)
    found.values.update(_histogram_values(planned, found.values, submitter))
    if RowCount() not in found.values and found.rows is not None:
        found.values[RowCount()] = found.rows  # counted by the SQL part
    return Measured(found.values, found.queries, found.failed, found.budget.runs)


@dataclass
class _Found:
    """What the aggregate stage has measured so far (its plans' answers merged)."""

    values: dict[Any, object] = field(default_factory=dict)
    queries: dict[int, tuple[int, Any]] = field(default_factory=dict)
    rows: object = None
    failed: dict[int, str] = field(default_factory=dict)
    budget: Budget = field(default_factory=lambda: Budget(0, None))

    def add(self, answer: Answer) -> None:
        self.values.update(answer.values)
        self.queries.update(answer.queries)
        self.rows = answer.rows if answer.rows is not None else self.rows


def contained(
    aggregate: AggregatePlan | None,
    sql: SqlPlan | None,
    submitter: Submitter,
    first: BaseException,
) -> _Found:
    """The values of what Spark computes and the rules it fails on, found by halving the
    plans ``first`` failed on (each half a subset of the plan: one planner call). Raises
    ``first`` when every measure fails (the table is at fault) or the budget runs out."""
    found = _Found(budget=Budget(MAX_CONTAINMENT_PLANS, first))
    if aggregate is not None:
        base = frozenset(s.name for s in aggregate.slots if s.measure == RowCount())
        units = list(dict.fromkeys(s.name for s in aggregate.slots if s.name not in base))
        subset = lambda part: aggregate_subset(aggregate, base | frozenset(part))  # noqa: E731
        bad = found.budget.bisect(units, lambda part: found.add(
            submitter.aggregate(subset(part), None)))  # fmt: skip
        if len(bad) == len(units):
            raise first  # every measure fails (or the only one): the table is at fault
        for name, why in bad:
            for index in next(s.rules for s in aggregate.slots if s.name == name):
                found.failed.setdefault(index, why)
    if sql is not None:
        rules = [q.rule_index for q in sql.queries]
        bad_sql = found.budget.bisect(rules, lambda part: found.add(
            submitter.aggregate(None, sql_subset(sql, frozenset(part)))))  # fmt: skip
        if len(bad_sql) == len(rules) and (aggregate is None or not found.values):
            raise first
        for index, why in bad_sql:
            found.failed.setdefault(index, why)
    submitter.note(f"{len(found.failed)} rules Spark could not compute, the others judged")
    return found


def containable(exc: BaseException) -> bool:
    """A failure of the query itself (an overflow, a bad cast, a division by zero), not
    of the server or of the clock: those end the table."""
    return not isinstance(exc, (PlanTimeout, Interrupted)) and not lost_server(exc)


class Budget:
    """The plans containment may still spend; ``runs`` counts the ones it spent (each a
    subset of the plan, so one planner call)."""

    def __init__(self, plans: int, first: BaseException | None) -> None:
        self.left = plans
        self.runs = 0
        self.first = first

    def bisect(self, units: Sequence[T], run: Callable[[Sequence[T]], None]) -> list[tuple[T, str]]:
        """The units ``run`` fails on alone, with Spark's reason, by running halves
        (the first half first); runs what succeeds for its values. Raises the first
        failure when the budget runs out."""
        bad: list[tuple[T, str]] = []
        todo: list[Sequence[T]] = [list(units)]
        while todo:
            part = todo.pop()
            if not part:
                continue
            if self.left <= 0:
                assert self.first is not None
                raise self.first
            self.left -= 1
            self.runs += 1
            try:
                run(part)
            except Exception as exc:  # noqa: BLE001 - narrowed down, or raised
                if not containable(exc):
                    raise
                if len(part) == 1:
                    why = f"Spark could not compute this rule: {spark_message(exc, 1)}"
                    bad.append((part[0], why))
                    continue
                middle = len(part) // 2
                todo += [part[middle:], part[:middle]]  # the first half is run first
        return bad


def _histogram_values(planned: Planned, values: Values, submitter: Submitter) -> dict[Any, object]:
    """Every colstats histogram in one plan, bucketed over the aggregate's min and max
    (no plan when no column has a finite min and max)."""
    histogram = planned.plan.histogram
    if histogram is None:
        return {}
    bounds = {
        h.name: b
        for h in histogram.columns
        if (b := histogram_bounds(h.measure.column, values)) is not None
    }
    if not bounds:
        return {}
    return dict(submitter.histogram(histogram, bounds))

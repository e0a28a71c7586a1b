"""One table's run: aggregate plan, SQL plan, verdicts, then the detail plan if needed."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from pyspark.sql.connect.session import SparkSession

from assay.emit import detail as emit_detail
from assay.emit import spark as emit
from assay.executor.deadline import Interrupted, PlanTimeout, deadline
from assay.executor.results import judged, judged_over_time, rule_result
from assay.executor.spark_errors import failure_sentence, lost_server, spark_message
from assay.ir.rules import SchemaCheck, SqlCheck
from assay.ir.suite import DEFAULT_POLICY, RunPolicy, Source, Table
from assay.judge.evaluate import Outcome, histogram_bounds, judge
from assay.judge.own import judge_schema, judge_sql
from assay.judge.preflight import orderable
from assay.monitoring.identity import identities
from assay.monitoring.series import History
from assay.planner import plan_detail
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions
from assay.planner.measures import ColumnAgg, Measure, RowCount, kind_of
from assay.planner.plan import (
    AggregatePlan,
    DetailPlan,
    SqlPlan,
    TablePlan,
    aggregate_subset,
    sql_subset,
)
from assay.report.events import RuleResult, TableFinished, spark_json

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import DataFrame


_NO_HISTORY: History = {}


@dataclass(frozen=True)
class Prepared:
    """A table ready to run: its plan, lazy DataFrame, schema and resolved keys."""

    plan: TablePlan
    df: DataFrame
    schema: list[tuple[str, str]]
    keys: tuple[str, ...]
    validation_sql: str | None = None
    setup_plans: int = 0
    """Plans (commands) preparing it submitted: a temp view binding ``_validation_df``."""
    options: PlannerOptions = DEFAULT_OPTIONS
    timeout: float | None = None
    """Seconds one of its plans may run (:mod:`assay.executor.deadline`)."""
    refs: Mapping[Source, DataFrame] = field(default_factory=dict)
    """The sources its rules reference, read (:mod:`assay.executor.references`)."""
    rule_errors: Mapping[int, str] = field(default_factory=dict)
    """Rules left out of its plans, with why (their referenced source cannot be read)."""

    def collect(self, frame: DataFrame) -> list[Any]:
        """``frame``'s rows, under the plan timeout."""
        with deadline(frame.sparkSession, self.timeout):  # type: ignore[arg-type]
            return frame.collect()


@dataclass
class TableRun:
    """One run of a prepared table (which stays as prepared): the Spark plans it has
    submitted, the one it is on (named in an error when it fails), its progress lines."""

    note: Callable[[str], None] = field(default=lambda _: None, repr=False)
    plans: int = 0
    step: str = "aggregate plan"


@dataclass
class TableOutcome:
    """The events of one table, in config order, and its totals."""

    events: list[RuleResult]
    finished: TableFinished


def run_table(
    spark: SparkSession,
    prepared: Prepared,
    run_id: str,
    note: Callable[[str], None] = lambda _: None,
    policy: RunPolicy = DEFAULT_POLICY,
    server: str = "the Spark Connect server",
    history: History | str | None = None,
) -> TableOutcome:
    """Run one prepared table; a Spark failure becomes an ``error`` result per rule.

    ``note`` receives a line as each Spark plan is submitted (progress on stderr);
    ``policy`` says which failed rules fail the run (``blocking`` in the results);
    ``history`` holds the earlier values of its rules judged over time (a text: why
    they could not be read).
    """
    start = time.monotonic()
    run = TableRun(note, plans=prepared.setup_plans)
    table = prepared.plan.table
    try:
        outcomes, row_count, values = _verdicts(spark, prepared, run)
        samples = _samples(prepared, outcomes, values, run)
        error = detail = None
    except Exception as exc:  # noqa: BLE001 - reported as the table's error, exit 3
        error = failure_sentence(exc, server=server, table=table.name, step=run.step)
        detail = spark_message(exc, max_lines=200)
        why = f"not evaluated: table {table.name}'s {run.step} failed (see its table line)"
        outcomes = [Outcome("error", None, None, why) for _ in table.rules]
        row_count, samples = None, {}
    return _outcome(run_id, table, outcomes, row_count, samples, policy, start, run.plans,
                    error, detail, _NO_HISTORY if history is None else history)  # fmt: skip


def unreadable_table(
    run_id: str, table: Table, error: str, policy: RunPolicy = DEFAULT_POLICY
) -> TableOutcome:
    """The outcome of a table that could not be prepared (its source unreadable, an
    output's format missing on the server): every rule ``error``, the table's error the
    reason; the other tables still run."""
    why = f"not evaluated: table {table.name} could not be prepared (see its table line)"
    outcomes = [Outcome("error", None, None, why) for _ in table.rules]
    return _outcome(run_id, table, outcomes, None, {}, policy, time.monotonic(), 0, error, None)


def _outcome(
    run_id: str,
    table: Table,
    outcomes: list[Outcome],
    row_count: int | None,
    samples: Mapping[int, list[dict[str, Any]]],
    policy: RunPolicy,
    start: float,
    plans: int,
    error: str | None,
    detail: str | None,
    history: History | str = _NO_HISTORY,
) -> TableOutcome:
    elapsed = int((time.monotonic() - start) * 1000)
    ids = identities(table.rules)
    events = [
        judged_over_time(
            rule,
            rule_result(
                run_id, table.name, i, rule, outcomes[i], row_count, samples.get(i), elapsed, ids[i]
            ),  # fmt: skip
            history if isinstance(history, str) else history.get((table.name, ids[i]), ()),
        )
        for i, rule in enumerate(table.rules)
    ]
    events = [judged(policy, table.rules[e.rule_index], e) for e in events]
    finished = table_totals(
        run_id, table, events, row_count, spark_plans=plans, elapsed_ms=elapsed, error=error
    )
    return TableOutcome(events, dataclasses.replace(finished, detail=detail))


def table_totals(
    run_id: str,
    table: Table,
    results: Sequence[RuleResult],
    row_count: int | None,
    *,
    spark_plans: int,
    elapsed_ms: int,
    error: str | None = None,
    outputs: tuple[dict[str, Any], ...] = (),
) -> TableFinished:
    """A table's line, counted from its results: ``failed`` and ``warned`` results of
    severity fail and warn, ``errors`` rules not evaluated (a table error after its
    verdicts, such as a failed write, counts as one), ``blocking`` the failed rules that
    fail the run."""
    errors = sum(r.severity == "error" for r in results)
    if error is not None and errors == 0:
        errors = 1
    return TableFinished(
        run_id=run_id,
        table=table.name,
        origin=table.origin,
        row_count=row_count,
        rules=len(results),
        failed=sum(r.severity == "fail" for r in results),
        warned=sum(r.severity == "warn" for r in results),
        errors=errors,
        spark_plans=spark_plans,
        elapsed_ms=elapsed_ms,
        error=error,
        outputs=outputs,
        blocking=sum(r.blocking for r in results),
    )


def _verdicts(
    spark: SparkSession, prepared: Prepared, run: TableRun
) -> tuple[list[Outcome], int | None, Mapping[Measure, object]]:
    plan = prepared.plan
    contained = _first_pass(spark, prepared, run)
    values, sql_values = contained.values, contained.sql_values
    values.update(_histogram_values(prepared, values, run))
    if RowCount() not in values and emit.ROWS_INDEX in sql_values:
        values[RowCount()] = sql_values.pop(emit.ROWS_INDEX)[1]
    folded = {f.rule_index: f for f in plan.folded}
    outcomes: list[Outcome] = []
    failed = {**prepared.rule_errors, **contained.failed}
    for index, rule in enumerate(plan.table.rules):
        if index in failed:
            outcomes.append(Outcome("error", None, None, failed[index]))
        elif isinstance(rule.check, SchemaCheck):
            outcomes.append(judge_schema(rule, prepared.schema))
        elif index in folded:
            outcomes.append(judge_sql(rule, 1, folded[index].answer(values[folded[index].measure])))
        elif isinstance(rule.check, SqlCheck):
            n, value = sql_values[index]
            outcomes.append(judge_sql(rule, n, value))
        else:
            outcomes.append(judge(rule, values))
    row_count = values.get(RowCount())
    rows = int(row_count) if row_count is not None else None  # type: ignore[call-overload]
    return outcomes, rows, values


T = TypeVar("T")

MAX_CONTAINMENT_PLANS = 24
"""Extra Spark plans a table may spend finding the measures Spark fails on (one bad
measure among n costs about 2 log2(n) + 2); past it the whole table is the error."""


@dataclass
class _Contained:
    """What the first pass measured, and the rules Spark could not compute (with why)."""

    values: dict[Measure, object]
    sql_values: dict[int, tuple[int, Any]]
    failed: dict[int, str] = field(default_factory=dict)


def _first_pass(spark: SparkSession, prepared: Prepared, run: TableRun) -> _Contained:
    """The aggregate and the SQL rules in ONE Spark plan; when Spark fails on it, the
    measures (and SQL rules) it failed on are found by halving and rerunning, so each
    costs its own rules, never the table (at most :data:`MAX_CONTAINMENT_PLANS` more)."""
    aggregate, sql = prepared.plan.aggregate, prepared.plan.sql
    try:
        values, sql_values = _one_pass(spark, prepared, run, aggregate, sql)
        return _Contained(values, sql_values)
    except Exception as exc:  # noqa: BLE001 - contained below, or raised as it is
        if not _containable(exc) or (aggregate is None and sql is None):
            raise
        first = exc
    budget = [MAX_CONTAINMENT_PLANS]
    found = _Contained({}, {})
    if aggregate is not None:
        base = frozenset(s.name for s in aggregate.slots if s.measure == RowCount())
        units = [s.name for s in aggregate.slots if s.name not in base]

        def run_aggregate(part: Sequence[str]) -> None:
            subset = aggregate_subset(aggregate, base | frozenset(part))
            found.values.update(_one_pass(spark, prepared, run, subset, None)[0])

        bad = _bisect(units, run_aggregate, budget, first)
        if len(bad) == len(units):
            raise first  # every measure fails (or the only one): the table is at fault
        for name, why in bad:
            for index in next(s.rules for s in aggregate.slots if s.name == name):
                found.failed.setdefault(index, why)
    if sql is not None:

        def run_sql(part: Sequence[int]) -> None:
            subset = sql_subset(sql, frozenset(part))
            found.sql_values.update(_one_pass(spark, prepared, run, None, subset)[1])

        queries = [q.rule_index for q in sql.queries]
        failed_sql = _bisect(queries, run_sql, budget, first)
        if len(failed_sql) == len(queries) and (aggregate is None or not found.values):
            raise first
        for index, why in failed_sql:
            found.failed.setdefault(index, why)
    run.note(f"{len(found.failed)} rules Spark could not compute, the others judged")
    return found


def _containable(exc: BaseException) -> bool:
    """A failure of the query itself (an overflow, a bad cast, a division by zero), not
    of the server or of the clock: those end the table."""
    return not isinstance(exc, (PlanTimeout, Interrupted)) and not lost_server(exc)


def _bisect(
    units: Sequence[T],
    run: Callable[[Sequence[T]], None],
    budget: list[int],
    first: BaseException,
) -> list[tuple[T, str]]:
    """The units ``run`` fails on alone, with Spark's reason, by running halves; runs
    what succeeds for its values. Raises ``first`` when the budget of plans runs out."""
    bad: list[tuple[T, str]] = []

    def go(part: Sequence[T]) -> None:
        if not part:
            return
        if budget[0] <= 0:
            raise first
        budget[0] -= 1
        try:
            run(part)
        except Exception as exc:  # noqa: BLE001 - narrowed down, or raised
            if not _containable(exc):
                raise
            if len(part) == 1:
                bad.append((part[0], f"Spark could not compute this rule: {spark_message(exc, 1)}"))
                return
            middle = len(part) // 2
            go(part[:middle])
            go(part[middle:])

    go(list(units))
    return bad


def _one_pass(
    spark: SparkSession,
    prepared: Prepared,
    run: TableRun,
    aggregate: AggregatePlan | None,
    sql: SqlPlan | None,
) -> tuple[dict[Measure, object], dict[int, tuple[int, Any]]]:
    """``aggregate`` and ``sql`` cross-joined into ONE Spark plan (one row)."""
    frames = []
    if aggregate is not None:
        frames.append(emit.aggregate_frame(prepared.df, aggregate, prepared.refs))
    if sql is not None:
        assert prepared.validation_sql is not None
        frames.append(spark.sql(emit.sql_text(sql, prepared.validation_sql)))
    if not frames:
        return {}, {}
    measures = len(aggregate.slots) if aggregate is not None else 0
    queries = len(sql.queries) if sql is not None else 0
    run.step = "aggregate plan"
    run.note(f"aggregate plan ({measures} measures, {queries} sql rules)")
    frame = frames[0] if len(frames) == 1 else frames[0].crossJoin(frames[1])
    run.plans += 1
    row = prepared.collect(frame)[0].asDict()
    return aggregate_values(aggregate, row), _sql_values(sql, row)


def aggregate_values(
    aggregate: AggregatePlan | None, row: Mapping[str, Any]
) -> dict[Measure, object]:
    values: dict[Measure, object] = {}
    for slot in aggregate.slots if aggregate is not None else ():
        outputs = kind_of(slot.measure).outputs
        if outputs:
            values[slot.measure] = {k: row[f"{slot.name}_{k}"] for k in outputs}
        else:
            values[slot.measure] = row[slot.name]
    return values


def _histogram_values(
    prepared: Prepared, values: Mapping[Measure, object], run: TableRun
) -> dict[Any, object]:
    """Every colstats histogram in one plan, bucketed over the aggregate's min and max
    (no plan when no column has a finite min and max)."""
    histogram = prepared.plan.histogram
    if histogram is None:
        return {}
    bounds = {
        h.name: b
        for h in histogram.columns
        if (b := histogram_bounds(h.measure.column, values)) is not None
    }
    if not bounds:
        return {}
    run.step = "histogram plan"
    frame = emit.histogram_frame(prepared.df, histogram, bounds)
    row = prepared.collect(frame)[0].asDict()
    run.plans += 1
    return {h.measure: row[h.name] for h in histogram.columns if h.name in bounds}


def _sql_values(sql: SqlPlan | None, row: Mapping[str, Any]) -> dict[int, tuple[int, Any]]:
    """Each SQL rule's (rows returned, first value), by rule index; the table's row count
    under :data:`emit.ROWS_INDEX` when the plan counts rows."""
    found: dict[int, tuple[int, Any]] = {}
    if sql is None:
        return found
    for item in row["_assay_sql"]:
        # Spark's JSON: decimals keep their digits, NaN and Infinity are bare words
        value = json.loads(item["r"], parse_float=Decimal)
        found[int(item["i"])] = (int(value["n"]), value.get("v"))
    for q in sql.queries:
        if q.check.mode == "failed_rows":
            found[q.rule_index] = (1, found[q.rule_index][0])
    if sql.count_rows:
        found[emit.ROWS_INDEX] = (1, found[emit.ROWS_INDEX][0])
    return found


def _samples(
    prepared: Prepared,
    outcomes: list[Outcome],
    values: Mapping[Measure, object],
    run: TableRun,
) -> dict[int, list[dict[str, Any]]]:
    """Up to N failing rows per failed row-level rule: the detail plan, and, for the rules
    whose key-bounded branch found fewer than they should, once more without bounds."""
    failed = {
        i
        for i, (rule, o) in enumerate(zip(prepared.plan.table.rules, outcomes, strict=True))
        if rule.is_row_level and o.severity in ("fail", "warn") and (o.failed_count or 0) > 0
    }
    types = dict(prepared.schema)
    comparable = lambda c: orderable(types.get(c, ""))  # noqa: E731
    failed_rows = {i: outcomes[i].failed_count or 0 for i in failed}
    key = prepared.plan.key_range
    key_range = None
    if key is not None:
        key_range = (values.get(ColumnAgg("min", key)), values.get(ColumnAgg("max", key)))
    row = tuple(name for name, _ in prepared.schema)
    detail = (
        plan_detail(
            prepared.plan, failed, prepared.keys, comparable, failed_rows, prepared.options,
            key_range, row,
        )
        if failed
        else None
    )  # fmt: skip
    if detail is None:
        return {}
    run.note(f"detail plan (samples for {len(detail.entries)} failed rules)")
    samples: dict[int, list[dict[str, Any]]] = {i: [] for i in failed}
    samples.update(_detail_rows(prepared, detail, run))
    short = {
        i for i, _ in detail.bounds if len(samples[i]) < min(detail.sample_size, failed_rows[i])
    }
    if short:
        # failures crowd the top of the key range: sample those rules over the whole table
        again = plan_detail(
            prepared.plan,
            short,
            prepared.keys,
            comparable,
            failed_rows,
            prepared.options,
            row=row,
            hash_bounds=False,
        )
        assert again is not None
        run.note(f"detail plan again without key bounds ({len(short)} rules)")
        samples.update(_detail_rows(prepared, again, run))
    return samples


def _detail_rows(
    prepared: Prepared, detail: DetailPlan, run: TableRun
) -> dict[int, list[dict[str, Any]]]:
    run.step = "detail plan"
    rows = prepared.collect(emit_detail.detail_frame(prepared.df, detail, prepared.refs))
    run.plans += 1
    found: dict[int, list[dict[str, Any]]] = {e.rule_index: [] for e in detail.entries}
    for row in rows:
        found[int(row["_assay_rule"])].append(spark_json(row["_assay_row"]))
    return found

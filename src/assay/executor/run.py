"""Running a suite: preflight every table, then run tables concurrently.

The only module that triggers Spark actions. Per table it submits the aggregate plan,
the SQL plan (when the table has SQL rules) and, only when a row-level rule failed,
the detail plan; it counts what it submits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyspark.sql.connect.session import SparkSession

from assay.emit import spark as emit
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.executor import frames as bound
from assay.executor import validators
from assay.executor.compare import (
    UnreadComparison,
    prepare_each,
    run_comparisons,
    with_comparisons,
)
from assay.executor.deadline import DEFAULT_PLAN_TIMEOUT
from assay.executor.outputs import check_sinks, write_outputs
from assay.executor.setup import blocked_by, create_views
from assay.executor.spark_errors import in_users_text, spark_message, to_assay_error
from assay.executor.table import Prepared, TableOutcome, run_table, unreadable_table
from assay.ir.expr import patterns_of
from assay.ir.rules import UniqueCheck, expressions_of
from assay.ir.suite import DataFrameSource, RunPolicy, SqlSource, Suite, Table
from assay.planner import TablePlan, plan_table
from assay.planner.cost import DEFAULT_OPTIONS, MERGE_SUBPLANS_RULE, PlannerOptions, needs_size
from assay.planner.literals import typed_table
from assay.planner.plan import AggregatePlan, FoldedSql, ScanAggregate, Slot, SqlPlan, SqlQuery
from assay.planner.render import render_source
from assay.preflight import check_table, interpolable
from assay.report.events import Event, RuleResult, RunSummary, TableFinished
from assay.validators import declared_plans
from assay.validators import split as split_validators
from assay.version import __version__

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import DataFrame

Sink = Callable[[Event], None]


@dataclass
class Progress:
    """Progress lines on stderr (a no-op unless enabled)."""

    enabled: bool = False
    write: Callable[[str], None] = field(default=lambda line: None)

    def note(self, line: str) -> None:
        if self.enabled:
            self.write(line)


def run_suite(
    suite: Suite,
    spark: SparkSession,
    sink: Sink,
    *,
    concurrency: int = 4,
    run_id: str | None = None,
    progress: Progress | None = None,
    options: PlannerOptions = DEFAULT_OPTIONS,
    server: str = "the Spark Connect server",
    server_url: str | None = None,
    frames: Mapping[str, DataFrame] | None = None,
    plan_timeout: float | None = DEFAULT_PLAN_TIMEOUT,
) -> RunSummary:
    """Run every table of ``suite``; stream events to ``sink``; return the summary.

    ``server`` names the server in errors ("the Spark Connect server at sc://..."),
    ``server_url`` (redacted) goes into the summary;
    ``frames`` are the DataFrames of the suite's :class:`~assay.ir.suite.DataFrameSource`
    tables, by name (see :mod:`assay.executor.frames`); ``plan_timeout`` bounds each
    Spark plan of a table in seconds (None: no bound; :mod:`assay.executor.deadline`).

    Raises ``ConfigErrors`` (nothing ran) when any rule does not fit its table's schema.
    """
    run_id = run_id or uuid.uuid4().hex[:12]
    progress = progress or Progress()
    start = time.monotonic()
    spark = bound.bind(spark, frames)
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")
    unviewed: dict[str, AssayError] = {}
    if suite.views:
        progress.note(f"assay: creating {len(suite.views)} temp views")
        unviewed = create_views(spark, suite.views)
        for name, error in unviewed.items():
            if not any(blocked_by(t.source, {name: error}) for t in suite.tables):
                progress.note(f"assay: {error} (no check reads it)")
    options = _session_options(spark, suite, options)
    compared, compare_problems = prepare_each(spark, suite.comparisons)
    workers = max(1, min(concurrency, len(suite.tables)))
    with ThreadPoolExecutor(workers, thread_name_prefix="assay") as pool:
        prepared = list(
            pool.map(
                lambda t: blocked_by(t.source, unviewed) or prepare(spark, t, options),
                suite.tables,
            )
        )
        problems = [e for e in unviewed.values() if isinstance(e, ConfigError)]
        problems += compare_problems
        problems += [e for p in prepared if isinstance(p, ConfigErrors) for e in p.errors]
        problems += [
            p
            for p in prepared
            if type(p) is not ConfigErrors and isinstance(p, ConfigError) and p not in problems
        ]
        failures = {
            n: p
            for n, p in enumerate(prepared)
            if isinstance(p, AssayError) and not isinstance(p, ConfigError)
        }
        if problems:
            # nothing runs, and every problem found is listed: unreadable sources too
            unread = [c.error for c in compared if isinstance(c, UnreadComparison)]
            found = dict.fromkeys([*unviewed.values(), *failures.values(), *unread])
            listed = [_listed(f) for f in found if not isinstance(f, ConfigError)]
            raise ConfigErrors(sorted(problems + listed, key=error_place))
        ready = [p for p in prepared if isinstance(p, Prepared)]
        for p in ready:
            p.timeout = plan_timeout
        branched = any(_scan_branches(p.plan) > 1 for p in ready)
        policy = suite.policy

        def run(n: int) -> TableOutcome:
            p, table = prepared[n], suite.tables[n]
            if isinstance(p, Prepared):
                return _run_one(spark, p, table, run_id, sink, progress, policy, server)
            # a source that cannot be read costs its table, never the run
            failure = failures[n]
            where = failure.origin
            said = failure.message
            if not said.startswith(f"table {table.name}:"):
                said = f"table {table.name}: {said}"
            if where is not None and where != table.origin:
                said = f"{where}: {said}"  # its source's own line, an input view it reads
            outcome = unreadable_table(run_id, table, said, policy)
            outcome = TableOutcome(outcome.events, dataclasses.replace(
                outcome.finished, source=render_source(table.source)))  # fmt: skip
            for event in outcome.events:
                sink(event)
            sink(outcome.finished)
            progress.note(f"assay: {table.name}: error ({said})")
            return outcome

        with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, branched):
            outcomes = list(pool.map(run, range(len(prepared))))
    results = run_comparisons(spark, compared, run_id, sink, suite.policy, progress.note)
    summary = dataclasses.replace(
        with_comparisons(_summary(run_id, outcomes, start), results),
        started_at=started_at,
        server=server_url,
        files=suite.files,
        dialects=suite.dialects,
        assay_version=__version__,
    )
    sink(summary)
    return summary


def _scan_branches(plan: TablePlan) -> int:
    return len(plan.aggregate.scans) if plan.aggregate is not None else 0


@contextlib.contextmanager
def optimizer_rule_excluded(spark: SparkSession, rule: str, wanted: bool) -> Iterator[None]:
    """Exclude an optimizer rule from the session while the block runs, then put the
    session's ``spark.sql.optimizer.excludedRules`` back as it was.

    Used for ``MergeSubplans`` (Spark 4.2+), which would merge a plan's scan branches
    back into the one oversized aggregate the planner split on purpose
    (:mod:`assay.planner.cost`). A server that refuses the setting keeps its optimizer.
    """
    if not wanted:
        yield
        return
    spark = bound.unbound(spark)
    if not _exclude(spark, rule):
        yield
        return
    try:
        yield
    finally:
        _include(spark, rule)


_EXCLUDED_KEY = "spark.sql.optimizer.excludedRules"
_EXCLUDING = threading.Lock()
_EXCLUDED: dict[tuple[int, str], tuple[int, str | None]] = {}
"""(session, rule) -> (runs excluding it now, the setting before the first of them): runs
overlapping on one session (threads of a Python caller) set and restore it once."""


def _exclude(spark: SparkSession, rule: str) -> bool:
    with _EXCLUDING:
        slot = (id(spark), rule)
        if slot in _EXCLUDED:
            count, before = _EXCLUDED[slot]
            _EXCLUDED[slot] = (count + 1, before)
            return True
        try:
            before = spark.conf.get(_EXCLUDED_KEY, None)
            rules = [r.strip() for r in (before or "").split(",") if r.strip()]
            if rule not in rules:
                spark.conf.set(_EXCLUDED_KEY, ",".join([*rules, rule]))
        except Exception:  # noqa: BLE001 - slower plans, same answers
            return False
        _EXCLUDED[slot] = (1, before)
        return True


def _include(spark: SparkSession, rule: str) -> None:
    with _EXCLUDING:
        slot = (id(spark), rule)
        count, before = _EXCLUDED.pop(slot)
        if count > 1:
            _EXCLUDED[slot] = (count - 1, before)
            return
        with contextlib.suppress(Exception):
            if before is None:
                spark.conf.unset(_EXCLUDED_KEY)
            else:
                spark.conf.set(_EXCLUDED_KEY, before)


def _session_options(spark: SparkSession, suite: Suite, options: PlannerOptions) -> PlannerOptions:
    """Bound uniqueness shuffles by the session's ``spark.sql.shuffle.partitions`` (one
    config RPC, only when some table checks uniqueness)."""
    if not any(isinstance(r.check, UniqueCheck) for t in suite.tables for r in t.rules):
        return options
    try:
        default = int(spark.conf.get("spark.sql.shuffle.partitions") or 0)
    except Exception:  # noqa: BLE001 - a bound is optional; keep the planner's own
        return options
    if default <= 0:
        return options
    return dataclasses.replace(options, max_group_partitions=default)


def prepare(
    spark: SparkSession, table: Table, options: PlannerOptions = DEFAULT_OPTIONS
) -> Prepared | AssayError:
    """Read the schema and the size estimate (analysis RPCs, no scan), plan the table
    (its validator rules left out: :mod:`assay.executor.validators`), and check every
    rule against the schema."""
    whole = table
    try:
        table, _ = split_validators(table)
    except ConfigError as error:
        return ConfigErrors([error])
    try:
        df = bound.source_frame(spark, table.source, None)
        struct = df.schema
    except Exception as exc:  # noqa: BLE001 - classified below
        where = table.place("source")
        reason = (
            in_users_text(exc, table.source.query, 1)
            if isinstance(table.source, SqlSource)
            else None
        )
        return to_assay_error(exc, f"table {table.name}: cannot read its source", where, reason)
    if table.filter:
        try:
            df = bound.source_frame(spark, table.source, table.filter)
            struct = df.schema
        except Exception as exc:  # noqa: BLE001 - the filter is the user's text
            where = table.place("filter")
            reason = in_users_text(exc, table.filter, 1)
            return to_assay_error(
                exc, f"table {table.name}: the filter does not run", where, reason
            )
    unique = any(isinstance(r.check, UniqueCheck) for r in table.rules)
    size = emit.estimated_size(df) if needs_size(table.source, options, unique) else None
    schema = [(f.name, f.dataType.simpleString()) for f in struct.fields]
    keys = table.keys or tuple(name for name, _ in schema[: table.key_count or 0])
    types = {name.lower(): kind for name, kind in schema}  # as preflight resolves names
    table = typed_table(table, types)
    key_range = keys[0] if keys and interpolable(types.get(keys[0].lower(), "")) else None
    plan = plan_table(table, options, size_bytes=size, key_range=key_range)
    if plan.folded:
        # A bound DataFrame is analysed through its schema: binding its plan into SQL
        # makes Spark record executions of its own (see assay.executor.frames).
        as_sql = (
            None
            if isinstance(table.source, DataFrameSource)
            else emit.source_sql(table.source, table.filter)
        )
        text = as_sql or emit.schema_stand_in(schema)
        rejected = _rejected_as_written(spark, plan, text) | _rejected_conditions(df, plan)
        if rejected:
            plan = plan_table(table, options, size_bytes=size, unfold=rejected, key_range=key_range)
    problems: list[ConfigError] = list(check_table(whole, schema, keys))
    problems += _pattern_problems(spark, table)
    if table.outputs and not problems:
        unwritable = check_sinks(spark, table)
        config = [e for e in unwritable if isinstance(e, ConfigError)]
        if config:
            return ConfigErrors(config)
        if unwritable:
            return unwritable[0]
    prepared = Prepared(plan, df, schema, keys, options=options)
    if plan.sql is not None and not problems:
        problems += _prepare_sql(spark, prepared)
    return ConfigErrors(problems) if problems else prepared


def _pattern_problems(spark: SparkSession, table: Table) -> list[ConfigError]:
    """Every regex of the table's rules that Java cannot compile, at its rule (before any
    scan: one analysis RPC for all of them)."""
    users: dict[str, list[int]] = {}
    for index, rule in enumerate(table.rules):
        for expr in expressions_of(rule.check):
            for pattern in patterns_of(expr):
                users.setdefault(pattern, []).append(index)
    bad = emit.uncompilable_patterns(spark, list(users))
    return [
        ConfigError(
            f"{table.rules[i].kind}: the regular expression {pattern!r} is not one Java can"
            f" compile: {spark_message(exc)}",
            origin=table.rules[i].origin,
            hint="patterns are Java regular expressions (java.util.regex.Pattern)",
        )
        for pattern, exc in bad.items()
        for i in dict.fromkeys(users[pattern])
    ]


def _rejected_as_written(spark: SparkSession, plan: TablePlan, validation_df: str) -> set[int]:
    """The folded SQL rules whose query, as written, Spark rejects over the table
    (``validation_df``: its SQL text, or a stand-in of its schema); one analysis RPC for
    all of them, no scan; each alone only when that fails. They run as queries instead,
    so Spark's error names the rule: a fold never answers a query that would not run."""

    def analyses(folded: Sequence[FoldedSql]) -> bool:
        queries = tuple(
            SqlQuery(f"q{i}", f.rule_index, plan.table.rules[f.rule_index].check)  # type: ignore[arg-type]
            for i, f in enumerate(folded)
        )
        try:
            emit.analysed(spark, emit.sql_text(SqlPlan(queries), validation_df))
            return True
        except Exception:  # noqa: BLE001 - the rule is run as a query, which reports it
            return False

    if analyses(plan.folded):
        return set()
    return {f.rule_index for f in plan.folded if not analyses([f])}


def _rejected_conditions(df: DataFrame, plan: TablePlan) -> set[int]:
    """Analyse the conditions of the SQL rules folded into the aggregate (one analysis
    RPC, no scan); the rules whose condition Spark rejects, found one by one only when
    the batch fails, run as queries instead (their error is then reported as a SQL rule's)."""

    def analyse(folded: Sequence[FoldedSql]) -> bool:
        try:
            _ = emit.aggregate_frame(df, AggregatePlan((ScanAggregate(slots(folded)),), ())).schema
            return True
        except Exception:  # noqa: BLE001 - the rule is run as a query, which reports it
            return False

    def slots(folded: Sequence[FoldedSql]) -> tuple[Slot, ...]:
        return tuple(Slot(f"c{i}", f.measure, (f.rule_index,)) for i, f in enumerate(folded))

    conditions = [f for f in plan.folded if f.query.condition is not None]
    if not conditions or analyse(conditions):
        return set()
    return {f.rule_index for f in conditions if not analyse([f])}


def _prepare_sql(spark: SparkSession, prepared: Prepared) -> list[ConfigError]:
    """Bind ``_validation_df`` and analyze the SQL batch (no execution); on failure,
    analyze each query alone so the error names the rule at fault."""
    table = prepared.plan.table
    text = emit.source_sql(table.source, table.filter)
    if text is None:
        # A path read with options has no SQL form: register a temp view (one command).
        view = f"_assay_{uuid.uuid4().hex[:12]}"
        prepared.df.createOrReplaceTempView(view)
        prepared.setup_plans = 1
        text = f"SELECT * FROM {view}"
    prepared.validation_sql = text
    assert prepared.plan.sql is not None
    try:
        _ = spark.sql(emit.sql_text(prepared.plan.sql, text)).schema
        return []
    except Exception:  # noqa: BLE001 - re-analyzed per rule below
        pass
    errors: list[ConfigError] = []
    for query in prepared.plan.sql.queries:
        rule = table.rules[query.rule_index]
        try:
            alone, line = emit.single_sql_text(query.check.query, query.check.mode, text)
            _ = spark.sql(alone).schema
        except Exception as exc:  # noqa: BLE001
            reason = in_users_text(exc, query.check.query, line)
            err = to_assay_error(exc, f"{rule.kind}: the query does not run", rule.origin, reason)
            errors.append(
                err
                if isinstance(err, ConfigError)
                else ConfigError(err.message, origin=rule.origin)
            )
    return errors or [ConfigError("the SQL rules of this table fail together", origin=table.origin)]


def table_problems(
    spark: SparkSession, tables: Sequence[Table], options: PlannerOptions = DEFAULT_OPTIONS
) -> list[ConfigError]:
    """Every problem :func:`prepare` finds in ``tables`` (analysis RPCs, no scan): config
    errors, and unreadable sources listed with them."""
    found: list[ConfigError] = []
    for table in tables:
        p = prepare(spark, table, options)
        if isinstance(p, ConfigErrors):
            found += p.errors
        elif isinstance(p, AssayError):
            found.append(p if isinstance(p, ConfigError) else _listed(p))
    return found


def error_place(error: ConfigError) -> tuple[str, int]:
    """Sort key: errors in file and line order."""
    o = error.origin
    return ("", 0) if o is None else (o.file, o.line or 0)


def _listed(failure: AssayError) -> ConfigError:
    """A source failure listed with the config errors of the same run (exit 2)."""
    return ConfigError(failure.message, origin=failure.origin, hint=failure.hint)


def _run_one(
    spark: SparkSession,
    prepared: Prepared,
    whole: Table,
    run_id: str,
    sink: Sink,
    progress: Progress,
    policy: RunPolicy,
    server: str,
) -> TableOutcome:
    """Run one table; ``whole`` is the table as configured, with its validator rules."""
    table = prepared.plan.table
    progress.note(f"assay: {table.name}: running {len(whole.rules)} rules")
    note = lambda line: progress.note(f"assay: {table.name}: {line}")  # noqa: E731
    outcome = run_table(spark, prepared, run_id, note, policy, server)
    described = dataclasses.replace(
        outcome.finished, source=render_source(table.source), keys=tuple(prepared.keys)
    )
    outcome = TableOutcome(outcome.events, described)
    _, indices = split_validators(whole)
    if indices:
        note(f"{len(indices)} validators ({declared_plans(whole)} plans of their own)")
        found = validators.run_validators(
            prepared.df, whole, indices, run_id, outcome.finished.error
        )
        outcome = validators.merged(outcome, whole, indices, found, policy)
    if table.outputs and outcome.finished.error is None:
        outcome = _write_outputs(spark, prepared, outcome, note)
    for event in outcome.events:
        sink(event)
    sink(outcome.finished)
    f = outcome.finished
    state = "error" if f.error else ("passed" if f.passed else f"{f.failed} failed")
    progress.note(f"assay: {table.name}: {state} ({f.spark_plans} spark plans, {f.elapsed_ms} ms)")
    return outcome


def _write_outputs(
    spark: SparkSession, prepared: Prepared, outcome: TableOutcome, note: Callable[[str], None]
) -> TableOutcome:
    """The table's writes (:mod:`assay.executor.outputs`); a failed write is the table's
    error (exit 3)."""
    table = prepared.plan.table
    columns = [name for name, _ in prepared.schema]
    finished = outcome.finished
    try:
        written, plans = write_outputs(
            spark, table, prepared.df, columns, prepared.validation_sql, outcome.events, note
        )
    except AssayError as error:
        finished = dataclasses.replace(finished, error=str(error), errors=max(finished.errors, 1))
        return TableOutcome(outcome.events, finished)
    finished = dataclasses.replace(
        finished, spark_plans=finished.spark_plans + plans, outputs=tuple(written)
    )
    return TableOutcome(outcome.events, finished)


def _summary(run_id: str, outcomes: list[TableOutcome], start: float) -> RunSummary:
    tables = [o.finished for o in outcomes]
    errors = sum(t.errors for t in tables)
    failed = sum(t.failed for t in tables)
    blocking = sum(t.blocking for t in tables)
    exit_code = 3 if errors else (1 if blocking else 0)
    results = [r for o in outcomes for r in o.events]
    return RunSummary(
        run_id=run_id,
        tables=len(tables),
        rules=sum(t.rules for t in tables),
        failed=failed,
        warned=sum(t.warned for t in tables),
        errors=errors,
        spark_plans=sum(t.spark_plans for t in tables),
        elapsed_ms=int((time.monotonic() - start) * 1000),
        exit_code=exit_code,
        failed_tables=tuple(t.table for t in tables if not t.passed),
        blocking=blocking,
        exit_reason=exit_reason(tables, results),
    )


def exit_reason(tables: Sequence[TableFinished], results: Sequence[RuleResult]) -> str:
    """The exit code in one sentence, from the table and result lines alone.

    >>> exit_reason([], [])
    'exit 0: nothing to check'
    """
    errored = [t for t in tables if t.errors]
    blocking = [r for r in results if r.blocking]
    waived = [r for r in results if not r.passed and r.severity != "error" and not r.blocking]
    parts = []
    if errored:
        names = ", ".join(t.table for t in errored)
        n = sum(t.errors for t in errored)
        parts.append(f"exit 3: {_plural(n, 'rule')} could not be evaluated (tables {names})")
    elif blocking:
        where = ", ".join(f"{r.table} {r.origin.path}" for r in blocking[:5])
        more = f" and {len(blocking) - 5} more" if len(blocking) > 5 else ""
        verb = "fails" if len(blocking) == 1 else "fail"
        parts.append(
            f"exit 1: {_plural(len(blocking), 'failed rule')} {verb} the run ({where}{more})"
        )
    elif waived:
        parts.append("exit 0: no failed rule fails the run")
    else:
        parts.append("exit 0: " + ("every rule passed" if results else "nothing to check"))
    if waived:
        why: dict[str, int] = {}
        for r in waived:
            why[r.waiver or "waived"] = why.get(r.waiver or "waived", 0) + 1
        said = ", ".join(f"{n} under {w}" for w, n in why.items())
        verb = "does" if len(waived) == 1 else "do"
        parts.append(f"{_plural(len(waived), 'failed rule')} {verb} not fail it ({said})")
    elif not errored and not blocking and any(r.severity == "warn" for r in results):
        parts[0] += " (with warnings)"
    return "; ".join(parts)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


__all__ = ["Prepared", "Progress", "prepare", "run_suite", "table_problems"]

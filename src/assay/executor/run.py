"""Running a suite: preflight every table, then run tables concurrently, each through
its stages (:func:`assay.executor.table.run_table`) and one
:class:`~assay.executor.stages.submitter.SparkSubmitter`, which submits and counts its
Spark plans: the aggregate plan with the SQL rules cross-joined into it and, only when a
row-level rule failed, the detail plan.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from pyspark.sql.connect.session import SparkSession

from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.executor import deadline
from assay.executor import frames as bound
from assay.executor.compare import (
    UnreadComparison,
    prepare_each,
    run_comparisons,
    with_comparisons,
)
from assay.executor.deadline import DEFAULT_PLAN_TIMEOUT
from assay.executor.metrics import Watch, table_schemas
from assay.executor.prepare import error_place, listed, prepare, table_problems
from assay.executor.progress import Progress
from assay.executor.setup import blocked_by, create_views
from assay.executor.stages.submitter import SparkSubmitter
from assay.executor.table import (
    Prepared,
    TableContext,
    TableOutcome,
    run_table,
    unreadable_table,
)
from assay.ir.monitoring import Monitoring
from assay.ir.rules import UniqueCheck
from assay.ir.suite import RunPolicy, Suite, Table
from assay.planner import TablePlan
from assay.planner.cost import DEFAULT_OPTIONS, MERGE_SUBPLANS_RULE, PlannerOptions
from assay.planner.render import render_source
from assay.report.events import Event, RuleResult, RunSummary, TableFinished
from assay.version import __version__

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import DataFrame

Sink = Callable[[Event], None]
T = TypeVar("T")


@dataclass(frozen=True)
class RunContext:
    """The settings of one run of a suite (:func:`run_suite`'s keywords).

    ``concurrency`` tables run at once; ``run_id`` names the run (None: a new one);
    ``progress`` gets the progress lines; ``options`` are the planner's; ``server`` names
    the server in errors ("the Spark Connect server at sc://..."), ``server_url``
    (redacted) goes into the summary; ``frames`` are the DataFrames of the suite's
    :class:`~assay.ir.suite.DataFrameSource` tables, by name (see
    :mod:`assay.executor.frames`); ``plan_timeout`` bounds each Spark plan of a table in
    seconds (None: no bound; :mod:`assay.executor.deadline`); ``monitoring``: the metrics
    store whose history the rules judged over time read (once, before any table runs)
    and to which every measured value is appended.
    """

    concurrency: int = 4
    run_id: str | None = None
    progress: Progress | None = None
    options: PlannerOptions = DEFAULT_OPTIONS
    server: str = "the Spark Connect server"
    server_url: str | None = None
    frames: Mapping[str, DataFrame] | None = None
    plan_timeout: float | None = DEFAULT_PLAN_TIMEOUT
    monitoring: Monitoring | None = None


def run_suite(
    suite: Suite,
    spark: SparkSession,
    sink: Sink,
    context: RunContext | None = None,
    **settings: Any,
) -> RunSummary:
    """Run every table of ``suite``; stream events to ``sink``; return the summary.

    ``context`` holds the run's settings; ``settings`` are fields of :class:`RunContext`
    given as keywords (they override the context's).

    Raises ``ConfigErrors`` (nothing ran) when any rule does not fit its table's schema.
    """
    context = dataclasses.replace(context or RunContext(), **settings)
    run_id = context.run_id or uuid.uuid4().hex[:12]
    progress = context.progress or Progress()
    start = time.monotonic()
    spark = bound.bind(spark, context.frames)
    deadline.resume(spark)
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")
    unviewed = _views(spark, suite, progress)
    options = _session_options(spark, suite, context.options)
    compared, compare_problems = prepare_each(spark, suite.comparisons)
    workers = max(1, min(context.concurrency, len(suite.tables)))
    store = ThreadPoolExecutor(1, thread_name_prefix="assay-store")
    with ThreadPoolExecutor(workers, thread_name_prefix="assay") as pool, store:
        # the store's history and states read while the tables' sources are analysed
        watching = store.submit(Watch.start, spark, context.monitoring, suite, run_id,
                                progress.note)  # fmt: skip
        ready = partial(_ready, spark, unviewed, options, context.plan_timeout)
        prepared = list(pool.map(ready, suite.tables))
        unread = [c.error for c in compared if isinstance(c, UnreadComparison)]
        problems = _problems([*unviewed.values(), *prepared, *unread], compare_problems)
        if problems:
            raise ConfigErrors(problems)  # nothing runs; every problem found is listed
        watch = watching.result()
        full = context.monitoring is not None and context.monitoring.full
        each = TableContext(run_id, suite.policy, context.server, watch.history, watch.states,
                            full)  # fmt: skip
        tables = _Tables(spark, suite, prepared, sink, progress, each)
        branched = any(_scan_branches(p.plan) > 1 for p in prepared if isinstance(p, Prepared))
        with (
            optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, branched),
            session_setting(spark, *STABLE_CLASS_NAMES, branched),
        ):
            outcomes = each_interruptible(spark, pool, tables.run, len(prepared))
    results = run_comparisons(spark, compared, run_id, sink, suite.policy, progress.note)
    summary = with_comparisons(_summary(run_id, outcomes, start), results)
    described = dataclasses.replace(summary, started_at=started_at, server=context.server_url,
        files=suite.files, dialects=suite.dialects, assay_version=__version__)  # fmt: skip
    measured = [e.to_dict() for o in outcomes for e in o.events]
    measured += [o.finished.to_dict() for o in outcomes]
    measured += [r.to_dict() for r in results]
    schemas = table_schemas(prepared, suite.tables) if watch.monitoring else {}
    states = [state for o in outcomes for state in o.states]
    described = watch.stored(described, measured, context.server_url, schemas, states)
    sink(described)
    return described


@dataclass(frozen=True)
class _Tables:
    """The prepared tables of a run (each a :class:`Prepared`, or why it cannot run),
    run one by one: each streamed to ``sink`` as it ends."""

    spark: SparkSession
    suite: Suite
    prepared: Sequence[Prepared | AssayError]
    sink: Sink
    progress: Progress
    context: TableContext

    def run(self, n: int) -> TableOutcome:
        """Run the ``n``-th table."""
        p, table = self.prepared[n], self.suite.tables[n]
        if isinstance(p, Prepared):
            return _run_one(self.spark, p, table, self.sink, self.progress, self.context)
        assert isinstance(p, AssayError)  # a source that cannot be read costs its table
        c = self.context
        return _unreadable(c.run_id, table, p, c.policy, self.sink, self.progress)


REINTERRUPT_EVERY = 0.25
"""Seconds between the interruptions of a stopped run's session while plans still run."""


def each_interruptible(
    spark: SparkSession, pool: ThreadPoolExecutor, run: Callable[[int], T], count: int
) -> list[T]:
    """``run(n)`` for each ``n < count`` in ``pool``. On Ctrl-C or SIGTERM
    (``KeyboardInterrupt`` in this, the waiting thread) the session's running Spark
    operations are interrupted before it propagates, and again every
    :data:`REINTERRUPT_EVERY` s until every ``run`` has ended: a plan whose request was
    still on its way to the server when the stop came is not among the session's operations
    yet, so the first interruption misses it (and the pool's exit would wait for it to
    finish on the server). The waiting thread wakes every :data:`REINTERRUPT_EVERY` s: a
    signal the kernel gave one of the client's other threads (gRPC's) only runs its Python
    handler once the main thread runs again, and an endless wait never would."""
    running = [pool.submit(run, n) for n in range(count)]
    try:
        while futures.wait(running, timeout=REINTERRUPT_EVERY).not_done:
            pass  # woken now and then: a signal another thread took is handled here
        return [future.result() for future in running]
    except KeyboardInterrupt:
        deadline.stop(spark)
        while futures.wait(running, timeout=REINTERRUPT_EVERY).not_done:
            with contextlib.suppress(Exception):
                spark.interruptAll()
        raise


def _ready(
    spark: SparkSession,
    unviewed: Mapping[str, AssayError],
    options: PlannerOptions,
    timeout: float | None,
    table: Table,
) -> Prepared | AssayError:
    """The table prepared, or the failure of an input view it reads."""
    return blocked_by(table.source, unviewed) or prepare(
        spark, table, options, timeout, listing=True
    )


def _views(spark: SparkSession, suite: Suite, progress: Progress) -> dict[str, AssayError]:
    """Create the suite's temp views; the ones that failed, by lower-cased name (a view
    no check reads is only noted)."""
    if not suite.views:
        return {}
    progress.note(f"assay: creating {len(suite.views)} temp views")
    unviewed = create_views(spark, suite.views)
    for name, error in unviewed.items():
        if not any(blocked_by(t.source, {name: error}) for t in suite.tables):
            progress.note(f"assay: {error} (no check reads it)")
    return unviewed


def _problems(
    found: Sequence[Prepared | AssayError], listed_first: Sequence[ConfigError]
) -> list[ConfigError]:
    """The config errors among what preparing found (views, tables, comparisons), each
    once, in file and line order; when there is any, the unreadable sources are listed
    with them (the run does not start)."""
    problems = list(listed_first)
    for item in found:
        errors = item.errors if isinstance(item, ConfigErrors) else [item]
        problems += [e for e in errors if isinstance(e, ConfigError) and e not in problems]
    if not problems:
        return []
    failures = dict.fromkeys(f for f in found if isinstance(f, AssayError))
    unreadable = [listed(f) for f in failures if not isinstance(f, ConfigError)]
    return sorted(problems + unreadable, key=error_place)


def _unreadable(
    run_id: str,
    table: Table,
    failure: AssayError,
    policy: RunPolicy,
    sink: Sink,
    progress: Progress,
) -> TableOutcome:
    """The outcome of a table whose source (or an input view it reads) cannot be read:
    streamed, with the failure placed where it was written."""
    said = failure.message
    if not said.startswith(f"table {table.name}:"):
        said = f"table {table.name}: {said}"
    if failure.origin is not None and failure.origin != table.origin:
        said = f"{failure.origin}: {said}"  # its source's own line, an input view it reads
    outcome = unreadable_table(run_id, table, said, policy)
    finished = dataclasses.replace(outcome.finished, source=render_source(table.source))
    for event in outcome.events:
        sink(event)
    sink(finished)
    progress.note(f"assay: {table.name}: error ({said})")
    return TableOutcome(outcome.events, finished)


def _scan_branches(plan: TablePlan) -> int:
    return len(plan.aggregate.scans) if plan.aggregate is not None else 0


def optimizer_rule_excluded(
    spark: SparkSession, rule: str, wanted: bool
) -> contextlib.AbstractContextManager[None]:
    """Exclude an optimizer rule from the session while the block runs, then put the
    session's ``spark.sql.optimizer.excludedRules`` back as it was.

    Used for ``MergeSubplans`` (Spark 4.2+), which would merge a plan's scan branches
    back into the one oversized aggregate the planner split on purpose
    (:mod:`assay.planner.cost`). A server that refuses the setting keeps its optimizer.
    """

    def excluding(before: str | None) -> str | None:
        rules = [r.strip() for r in (before or "").split(",") if r.strip()]
        return before if rule in rules else ",".join([*rules, rule])

    return session_setting(spark, _EXCLUDED_KEY, excluding, wanted, slot=rule)


_EXCLUDED_KEY = "spark.sql.optimizer.excludedRules"

STABLE_CLASS_NAMES = ("spark.sql.codegen.useIdInClassName", "false")
"""Generated classes named without their whole-stage codegen stage's number. Adaptive
execution numbers the stages as it creates them, so the same stage's code could differ
between two runs of one plan by that number alone and miss Spark's generated-class cache
(keyed by the code): with it, a repeated run of a plan the cache holds compiles no class
(benchmarks/README.md, "Whole runs and the code Spark compiles for them")."""

_SETTING = threading.Lock()
"""Held while a run changes or restores a session setting."""
_SETTINGS: dict[tuple[int, str, str], tuple[int, str | None, bool]] = {}
"""(session, key, slot) -> (runs holding the change now, the value before the first of
them, whether the first changed it): runs overlapping on one session (threads of a
Python caller) change and restore it once."""


@contextlib.contextmanager
def session_setting(
    spark: SparkSession,
    key: str,
    value: str | Callable[[str | None], str | None],
    wanted: bool,
    slot: str | None = None,
) -> Iterator[None]:
    """Set a session setting while the block runs (``value``, or ``value(before)`` from
    what the session had), then put back what the session had. Runs overlapping on one
    session change and restore it once per ``slot`` (default: the value). A server that
    refuses the setting runs as it is: a setting set this way never changes an answer."""
    if not wanted:
        yield
        return
    spark = bound.unbound(spark)
    held = (id(spark), key, slot if slot is not None else str(value))
    with _SETTING:
        if held in _SETTINGS:
            count, before, changed = _SETTINGS[held]
            _SETTINGS[held] = (count + 1, before, changed)
        else:
            before, changed = None, False
            try:
                before = spark.conf.get(key, None)
                target = value(before) if callable(value) else value
                if target is not None and target != before:
                    spark.conf.set(key, target)
                    changed = True
            except Exception:  # noqa: BLE001 - the setting is an optimisation
                changed = False  # nothing set: nothing to put back
            _SETTINGS[held] = (1, before, changed)
    try:
        yield
    finally:
        with _SETTING:
            count, before, changed = _SETTINGS.pop(held)
            if count > 1:
                _SETTINGS[held] = (count - 1, before, changed)
            elif changed:
                with contextlib.suppress(Exception):
                    if before is None:
                        spark.conf.unset(key)
                    else:
                        spark.conf.set(key, before)


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


def _run_one(
    spark: SparkSession,
    prepared: Prepared,
    whole: Table,
    sink: Sink,
    progress: Progress,
    context: TableContext,
) -> TableOutcome:
    """Run one table through a :class:`SparkSubmitter`; ``whole`` is the table as
    configured, with its validator rules."""
    table = prepared.plan.table
    progress.note(f"assay: {table.name}: running {len(whole.rules)} rules")
    note = lambda line: progress.note(f"assay: {table.name}: {line}")  # noqa: E731
    submitter = SparkSubmitter(spark, prepared, note)
    outcome = run_table(submitter, prepared.planned, context, whole)
    for event in outcome.events:
        sink(event)
    sink(outcome.finished)
    f = outcome.finished
    state = "error" if f.error else ("passed" if f.passed else f"{f.failed} failed")
    progress.note(f"assay: {table.name}: {state} ({f.spark_plans} spark plans, {f.elapsed_ms} ms)")
    return outcome


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


__all__ = ["Prepared", "Progress", "RunContext", "prepare", "run_suite", "table_problems"]

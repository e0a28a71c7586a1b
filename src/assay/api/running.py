"""``assay.run`` and ``assay.validate``: what ``assay run`` does, as functions.

Both compile and run the same plans as the CLI (the CLI is a thin layer over
:func:`run_with`), on the caller's session when one is given. A run changes no state of
that session that outlives it: the optimizer setting the planner may need is restored
(also when runs overlap on one session), and a DataFrame is bound into the run's SQL
without a temp view (:mod:`assay.executor.frames`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from assay.api.result import Result, ResultStream
from assay.api.suites import Config, load, load_with, over_dataframe, rules_suite
from assay.api.watching import monitoring_of
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.executor.connect import connect_frame, connect_session
from assay.executor.deadline import DEFAULT_CONNECT_TIMEOUT, DEFAULT_PLAN_TIMEOUT
from assay.ir.suite import Suite
from assay.options import RunOptions, checked, takes_options

if TYPE_CHECKING:
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.session import SparkSession

    from assay.report.events import Event, RunSummary
    from assay.report.openlineage_http import Lineage

Rules = Mapping[str, Any] | Sequence[Mapping[str, Any]] | Config
"""What :func:`validate` checks a DataFrame with: native rule dicts, or a config file (or
loaded suite) whose one table (or the table ``name``) gives the rules."""

EventSink = Callable[["Event"], None]


@dataclass(frozen=True)
class Target:
    """Where a run goes: the caller's session, else ``remote`` (or ``$SPARK_REMOTE``),
    else the warm server (started first with ``keep_server``), else an embedded server
    started for the run (with ``server_conf``)."""

    spark: SparkSession | None = None
    remote: str | None = None
    server_conf: Mapping[str, str] | None = None
    keep_server: bool = False


@takes_options("run")
def run(config: Config, *, spark: SparkSession | None = None, **options: Any) -> Result:
    """Run ``config`` as ``assay run`` does; the options are its command-line options.

    With ``spark=None`` the run connects to ``remote`` (or ``$SPARK_REMOTE``), else to
    the warm server (``assay server start``; ``keep_server`` starts one and leaves it
    running), else starts the embedded server and stops it afterwards. ``on_event`` gets
    every event as it is streamed; ``progress`` the progress lines the CLI writes on
    stderr. ``order`` is the order of the events (``on_event``, ``Result.events``):
    ``finish``, each table's as it finishes, or ``config``, tables and comparisons in
    config order (``--order``).
    ``metrics`` (a JSON-lines file) or ``metrics_table`` (a catalog table) is the metrics
    store, with ``tags`` and ``run_time`` (docs/monitoring.md).
    ``openlineage`` writes the OpenLineage events to a file, ``openlineage_url`` (or
    ``$OPENLINEAGE_URL``) POSTs them (docs/reports.md#openlineage).

    Raises:
        ConfigErrors: the config is wrong, or a rule does not fit its table (nothing ran).
        ConfigError: ``order`` is neither ``finish`` nor ``config``, or the OpenLineage
            URL is not an HTTP URL.
        SparkFailure: the server cannot be reached or started (a source that cannot be
            read is its table's error in the result, exit code 3).
        UnsupportedSession: ``spark`` is not a Spark Connect session.
    """
    return run_with(config, RunOptions(**checked(run, options)), spark=spark)


def run_with(config: Config, options: RunOptions, *, spark: SparkSession | None = None) -> Result:
    """:func:`run` with its options as one object (what the CLI builds from its command
    line)."""
    from assay.api.ordering import order_of

    order_of(options.order)  # before anything: a wrong order is the caller's mistake
    if spark is not None:
        spark = connect_session(spark)
    return execute(
        lambda extra: load_with(config, options.with_vars(extra), for_run=True),
        Target(spark, options.remote, options.server_conf, options.keep_server),
        options,
    )


def validate(
    df: DataFrame,
    rules: Rules,
    *,
    keys: Sequence[str] = (),
    name: str | None = None,
    sample_size: int | None = None,
    filter: str | None = None,  # noqa: A002 - the config key
    on_failure: Literal["fail", "warn"] = "fail",
    vars: Mapping[str, str] | None = None,  # noqa: A002
    concurrency: int = 4,
    on_event: EventSink | None = None,
    plan_timeout: float | None = DEFAULT_PLAN_TIMEOUT,
    metrics: str | None = None,
    metrics_table: str | None = None,
    tags: Mapping[str, str] | None = None,
    run_time: str | None = None,
) -> Result:
    """Check ``df`` with ``rules`` on the DataFrame's own session; the same plans as
    ``assay run`` of the same rules over the same data.

    ``rules`` are native rule dicts (``{"type": "not_null", "column": "id"}``; one dict
    is a list of one), or a config file (or loaded suite) whose one table, or the table
    ``name``, gives them. ``keys`` is a list of columns (a string is one column).
    ``keys``, ``sample_size``, ``filter`` and ``on_failure`` are the table's keys of the
    native format; ``name`` (default ``dataframe``) names the table in results;
    ``plan_timeout`` bounds each Spark plan in seconds (None: no bound), past which the
    table is an error; ``metrics``, ``metrics_table``, ``tags`` and ``run_time`` as
    :func:`run`'s.

    Raises:
        ConfigErrors: a rule is wrong or does not fit the DataFrame's schema.
        SparkFailure: Spark cannot analyse the DataFrame.
        UnsupportedSession: ``df`` is not a Spark Connect DataFrame (e.g. a classic one).
    """
    frame = connect_frame(df)
    if isinstance(rules, Mapping):
        rules = [rules]  # one rule is a list of one
    if isinstance(keys, str):
        keys = (keys,)  # one key column, not its letters
    suite = _rules_suite(rules, keys, name, sample_size, filter, on_failure, vars)
    binding = uuid.uuid4().hex[:12]
    bound = over_dataframe(suite, name if _is_config(rules) else None, binding)
    options = RunOptions(concurrency=concurrency, on_event=on_event, plan_timeout=plan_timeout,
                         metrics=metrics, metrics_table=metrics_table, tags=tags or {},
                         run_time=run_time)  # fmt: skip
    return execute(lambda extra: bound, Target(frame.sparkSession), options, {binding: frame})


def _is_config(rules: Rules) -> bool:
    """Whether ``rules`` names a config (a path, paths or a suite), not rule dicts."""
    if isinstance(rules, (list, tuple)):
        return bool(rules) and not all(isinstance(r, Mapping) for r in rules)
    return True


def _rules_suite(
    rules: Rules,
    keys: Sequence[str],
    name: str | None,
    sample_size: int | None,
    filter: str | None,  # noqa: A002
    on_failure: Literal["fail", "warn"],
    vars: Mapping[str, str] | None,  # noqa: A002
) -> Suite:
    if not _is_config(rules):
        return rules_suite(
            rules,  # type: ignore[arg-type]
            name=name or "dataframe",
            keys=keys,
            sample_size=sample_size,
            filter=filter,
            on_failure=on_failure,
            vars=vars,
        )
    suite = load(rules, vars=vars, sample_size=sample_size, for_run=False)  # type: ignore[arg-type]
    if suite.deferred:
        names = ", ".join(v.name for v in suite.deferred)
        raise ConfigErrors(
            [ConfigError(f"variables resolved at run time ({names}) need assay.run(config)")]
        )
    return suite


def iter_run(config: Config, **options: Any) -> ResultStream:
    """:func:`run` in a worker thread: iterate the stream for each rule's result as its
    table finishes; ``.result`` is the whole :class:`Result`."""
    theirs = options.pop("on_event", None)
    return ResultStream(lambda sink: run(config, on_event=_both(sink, theirs), **options))


def iter_validate(df: DataFrame, rules: Rules, **options: Any) -> ResultStream:
    """:func:`validate` in a worker thread, streamed as :func:`iter_run`."""
    theirs = options.pop("on_event", None)
    return ResultStream(lambda sink: validate(df, rules, on_event=_both(sink, theirs), **options))


def _both(first: EventSink, second: EventSink | None) -> EventSink:
    if second is None:
        return first

    def sink(event: Event) -> None:
        first(event)
        second(event)

    return sink


def execute(
    loader: Callable[[Mapping[str, str]], Suite],
    target: Target,
    options: RunOptions,
    frames: Mapping[str, DataFrame] | None = None,
) -> Result:
    """Load, open the session, resolve deferred variables, run, write the reports.

    ``loader(extra)`` builds the suite with ``extra`` variables (the deferred variables'
    values once they are known), which may use the run's own ``options.vars``.
    """
    from assay.api.ordering import ordered
    from assay.executor.progress import Progress
    from assay.report.files import preflight

    progress, on_event = options.progress, options.on_event
    try:
        suite = loader({})
    except ConfigErrors as errors:
        raise _with_sources(errors, target, reporter=progress) from None
    lineage = _lineage(options)
    if not suite.deferred:
        preflight(suite.reports, _preflight_files(options))
    monitoring = monitoring_of(suite, options)
    reporter = Progress(enabled=progress is not None, write=progress or (lambda _: None))
    events: list[Event] = []
    lock = threading.Lock()

    def sink(event: Event) -> None:
        # one lock over both, so the caller sees the events in the Result's order
        with lock:
            events.append(event)
            if on_event is not None:
                on_event(event)

    with _session(target, reporter, suite) as (spark, url):
        from assay.executor.run import run_suite  # imports pyspark: not before the JVM's spawn
        from assay.planner.cost import planner_options

        if suite.deferred:
            suite = _resolved(suite, loader, options.vars, spark, reporter)
            preflight(suite.reports, _preflight_files(options))
        streamed = ordered(options.order, suite, sink)
        try:
            summary = run_suite(
                suite,
                spark,
                streamed,
                concurrency=options.concurrency,
                progress=reporter,
                server=f"the Spark Connect server at {url}" if url else "the Spark Connect server",
                server_url=url,
                frames=frames,
                plan_timeout=options.plan_timeout,
                monitoring=monitoring,
                options=planner_options(options),
            )
        finally:
            getattr(streamed, "close", lambda: None)()  # what a run that stopped still holds
    return _reported(suite, summary, tuple(events), options, lineage)


def _reported(
    suite: Suite,
    summary: RunSummary,
    events: tuple[Event, ...],
    options: RunOptions,
    lineage: Lineage | None,
) -> Result:
    """The result of a run once the reports are written (a report that cannot be written
    makes the exit code at least 3)."""
    code, problems = summary.exit_code, []
    if suite.reports or any(_report_files(options).values()) or lineage is not None:
        from assay.report.files import write_reports

        problems = write_reports(
            suite.reports,
            [e.to_dict() for e in events],
            files=_report_files(options),
            failed=code != 0 or summary.failed > 0,
            email_on_pass=options.email_on_pass,
            lineage=lineage,
        )
        if problems:
            code = max(code, 3)
    return Result(summary, events, code, tuple(problems))


def _report_files(options: RunOptions) -> dict[str, str | None]:
    """The report files of the command line, by their option."""
    return {
        "--jsonReport": options.json_report,
        "--htmlReport": options.html_report,
        "--junit": options.junit_report,
    }


def _preflight_files(options: RunOptions) -> dict[str, str | None]:
    """The files checked writable before the run: the report files and the OpenLineage
    events'."""
    return {**_report_files(options), "--openlineage": options.openlineage}


def _lineage(options: RunOptions) -> Lineage | None:
    """Where the OpenLineage events go: the options, then the client's environment."""

    from assay.report.openlineage_http import lineage_of

    return lineage_of(
        options.openlineage, options.openlineage_url, options.openlineage_namespace, os.environ
    )


def _with_sources(
    errors: ConfigErrors, target: Target, reporter: Callable[[str], None] | None
) -> ConfigErrors:
    """The config errors found while loading, and the problems of the tables that loaded
    (unreadable sources, rules that do not fit the schema) when a session is at hand
    (the caller's, or ``--remote``): every problem listed in one go. An embedded server
    is not started for a config that cannot run: its sources are checked once it loads."""

    at_hand = target.spark is not None or target.remote or os.environ.get("SPARK_REMOTE")
    if not errors.valid or not at_hand:
        return errors
    from assay.executor.prepare import error_place, table_problems
    from assay.executor.progress import Progress

    quiet = Progress(enabled=reporter is not None, write=reporter or (lambda _: None))
    try:
        # a server that does not answer at once is not waited for: the errors are the news
        tables = Suite(tables=tuple(errors.valid))
        with _session(target, quiet, tables, connect_timeout=EXTRA_CHECK_TIMEOUT) as (spark, _):
            found = table_problems(spark, errors.valid)
    except AssayError:
        return errors  # the server is unreachable: the config errors are the news
    if not found:
        return errors
    return ConfigErrors(sorted([*errors.errors, *found], key=error_place), errors.valid)


EXTRA_CHECK_TIMEOUT = 5.0
"""Seconds the sources of a config with errors are given to be reached (and checked with
them): past that, the config errors alone are reported, at once rather than after a
run's full connect time (30 s)."""


@contextlib.contextmanager
def _session(
    target: Target, reporter: Any, suite: Suite, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
) -> Iterator[tuple[SparkSession, str | None]]:
    """The caller's session (left open), or one opened for the run (closed after it)."""
    if target.spark is not None:
        yield target.spark, None
        return
    from assay.executor.session import open_session

    with open_session(
        target.remote,
        connect_timeout=connect_timeout,
        server_conf=target.server_conf,
        keep_server=target.keep_server,
        progress=reporter.note,
        inputs=suite.sources(),
    ) as handle:
        reporter.note(f"assay: connected to {handle.url}")
        yield handle.spark, handle.url


def _resolved(
    suite: Suite,
    loader: Callable[[Mapping[str, str]], Suite],
    variables: Mapping[str, str],
    spark: SparkSession,
    reporter: Any,
) -> Suite:
    """The suite rebuilt with its deferred variables' values (data-validator ``sql`` and
    ``shell`` variables), resolved in order on the open session."""
    from assay.dialects.data_validator import resolve_deferred
    from assay.executor.setup import sql_variable

    names = ", ".join(v.name for v in suite.deferred)
    reporter.note(f"assay: resolving variables {names}")
    values = resolve_deferred(suite.deferred, dict(variables), sql_variable(spark))
    return loader(values)

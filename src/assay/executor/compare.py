"""Running dataset comparisons: one aggregate plan each, one samples plan only when rows
differ, then spark-data-test's report writes (one plan each) per job.

Only aggregates and bounded samples come back to the client.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pyspark.sql.connect.session import SparkSession

from assay.comparison import plan as compare_plan
from assay.comparison.judge import column_counts, counts, differs, judge
from assay.comparison.plan import UnboundComparison, plan_comparison
from assay.comparison.render import describe_source
from assay.emit import compare as emit
from assay.emit.spark import snippet_types, source_frame
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.executor.prepared_comparison import PreparedComparison
from assay.executor.sdt_reports import job_writes
from assay.executor.spark_errors import (
    condition_of,
    in_users_text,
    spark_message,
    to_assay_error,
)
from assay.ir.compare import ComparisonSetting, DatasetComparison, FrameRef, SdtReports
from assay.ir.origin import Origin
from assay.ir.suite import RunPolicy
from assay.report.comparison import ComparisonResult
from assay.report.events import RunSummary, spark_json

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


Sink = Callable[[Any], None]


def _frame(spark: SparkSession, side: Any, frames: Mapping[str, DataFrame]) -> DataFrame:
    if isinstance(side, FrameRef):
        return frames[side.label]
    return source_frame(spark, side, None)


def prepare_comparison(
    spark: SparkSession,
    comparison: DatasetComparison,
    frames: Mapping[str, DataFrame] | None = None,
) -> PreparedComparison | AssayError:
    """Read both schemas, narrow the sides and plan the comparison; a config mistake (a
    missing key or column) is a :class:`ConfigError`."""
    frames = frames or {}
    c = comparison
    wrong = tolerance_errors(c)
    if wrong:
        return ConfigError(f"comparison {c.name}: " + "; ".join(wrong), origin=c.origin)
    read = [_read_side(spark, c, which, frames) for which in ("source", "target")]
    failed = [r for r in read if isinstance(r, AssayError)]
    if len(failed) == 2 and all(isinstance(r, ConfigError) for r in failed):
        return ConfigErrors(failed)  # type: ignore[arg-type]  # both filters, say
    if failed:
        return failed[0]
    (source, s_schema), (target, t_schema) = read  # type: ignore[misc]
    try:
        plan = plan_comparison(c, s_schema, t_schema)
    except UnboundComparison as error:
        return ConfigErrors(
            [
                ConfigError(u.message, c.place(u.setting) if u.setting else c.origin, u.hint)
                for u in error.problems
            ]
        )
    compared = {col.name.lower() for col in plan.columns}
    unknown = [ch for ch in c.checks if ch.column is not None and ch.column.lower() not in compared]
    if unknown:
        names = ", ".join(ch.label for ch in unknown)
        return ConfigError(
            f"comparison {c.name}: {names}: not a compared column", origin=unknown[0].origin
        )
    return PreparedComparison(c, plan, source, target)


def _read_side(
    spark: SparkSession,
    c: DatasetComparison,
    which: Literal["source", "target"],
    frames: Mapping[str, DataFrame],
) -> tuple[DataFrame, list[tuple[str, str]]] | AssayError:
    """One side filtered and narrowed, with its schema (analysis RPCs only); an error of
    its filter is placed at the filter, an unknown format at the format."""
    side = c.source if which == "source" else c.target
    row_filter = c.source_filter if which == "source" else c.target_filter
    fmt: ComparisonSetting = "source.format" if which == "source" else "target.format"
    where: ComparisonSetting = "source_filter" if which == "source" else "target_filter"
    try:
        frame = _frame(spark, side, frames)
        if row_filter:
            frame.schema  # noqa: B018 - read first, so a failing filter is the filter's
    except Exception as exc:  # noqa: BLE001 - classified below
        origin = c.place(fmt) if _unknown_format(exc) else c.origin
        return to_assay_error(exc, f"comparison {c.name}: cannot read its {which}", origin)
    if row_filter:
        wrong = _filter_problem(frame, row_filter, f"comparison {c.name}: {where}", c.place(where))
        if wrong is not None:
            return wrong
    try:
        if row_filter:
            frame = frame.where(row_filter)
        frame = emit.narrowed(frame, c.select_cols, c.drop_cols)
        return frame, [(f.name, f.dataType.simpleString()) for f in frame.schema.fields]
    except Exception as exc:  # noqa: BLE001 - classified below
        if row_filter and not _unknown_format(exc):
            what = f"comparison {c.name}: {where} {row_filter!r}"
            return to_assay_error(exc, what, c.place(where))
        origin = c.place(fmt) if _unknown_format(exc) else c.origin
        return to_assay_error(exc, f"comparison {c.name}: cannot read its {which}", origin)


def _filter_problem(frame: DataFrame, text: str, what: str, origin: Origin) -> ConfigError | None:
    """What Spark finds wrong with a side's filter over its rows (one analysis RPC: the
    client alone would take any filter's schema for its side's)."""
    try:
        (found,) = snippet_types(frame, [text])
    except Exception as exc:  # noqa: BLE001 - the user's text, reported at its place
        return ConfigError(f"{what} {text!r} does not run: {in_users_text(exc, text, 1)}", origin)
    if found != "boolean":
        a = "an" if found[:1] in "aeiou" else "a"
        return ConfigError(f"{what} {text!r} is {a} {found}, not a condition (a boolean)", origin)
    return None


_UNKNOWN_FORMAT = "DATA_SOURCE_NOT_FOUND"


def _unknown_format(exc: BaseException) -> bool:
    """Whether Spark has no data source of the format a side names (misspelled, or a
    package the server lacks): the error is then placed where the format was given."""
    condition = condition_of(exc) or ""
    return condition.startswith(_UNKNOWN_FORMAT) or f"[{_UNKNOWN_FORMAT}]" in str(exc)


def tolerance_errors(comparison: DatasetComparison) -> list[str]:
    """What is wrong with the comparison's tolerances: each must be a finite number, at
    least 0 (a config's own are checked where they are written; the Python and command
    line arguments, and spark-data-test's ``difference_tolerance``, here)."""
    found = []
    given = [("tolerance", comparison.tolerance)]
    given += [(f"tolerance of column '{n}'", tol) for n, tol in comparison.column_tolerances]
    for what, tol in given:
        for part, value in (("absolute", tol.absolute), ("relative", tol.relative)):
            if not value.is_finite() or value < 0:
                found.append(f"the {part} {what} must be a finite number >= 0, got {value}")
    return found


@dataclass(frozen=True)
class UnreadComparison:
    """A comparison whose sides could not be read (Spark or the environment failed): it
    is reported as an error, and the run's other checks go on."""

    comparison: DatasetComparison
    error: AssayError


def prepare_each(
    spark: SparkSession,
    comparisons: Sequence[DatasetComparison],
    frames: Mapping[str, DataFrame] | None = None,
) -> tuple[list[PreparedComparison | UnreadComparison], list[ConfigError]]:
    """Every comparison prepared, or unread; and every config error found (all listed)."""
    prepared: list[PreparedComparison | UnreadComparison] = []
    problems: list[ConfigError] = []
    for c in comparisons:
        found = prepare_comparison(spark, c, frames)
        if isinstance(found, ConfigErrors):
            problems += found.errors
        elif isinstance(found, ConfigError):
            problems.append(found)
        elif isinstance(found, AssayError):
            prepared.append(UnreadComparison(c, found))
        else:
            prepared.append(found)
    return prepared, problems


def prepare_all(
    spark: SparkSession,
    comparisons: Sequence[DatasetComparison],
    frames: Mapping[str, DataFrame] | None = None,
) -> list[PreparedComparison]:
    """Every comparison prepared, or the errors: every config error together (exit 2),
    else the first other failure."""
    prepared, problems = prepare_each(spark, comparisons, frames)
    if problems:
        raise ConfigErrors(problems)
    for p in prepared:
        if isinstance(p, UnreadComparison):
            raise p.error
    return prepared  # type: ignore[return-value]


def _measure(p: PreparedComparison) -> int:
    """The one aggregate (and the samples, when rows differ); the plans submitted."""
    p.pairs = emit.joined(p.source, p.target, p.plan)
    row = emit.aggregate(p.pairs, p.plan).collect()[0].asDict()
    p.totals = counts(p.plan, row)
    p.columns = column_counts(p.plan, row)
    p.differing_rows = sum(
        int(row.get(k) or 0) for k in ("differing_pairs", "missing_in_target", "missing_in_source")
    )
    return 1


def _wants_differing_keys(p: PreparedComparison) -> bool:
    return (
        p.plan.sdt
        and p.comparison.reports is not None
        and all(t is not None for t in p.plan.key_types)
        and 0 < p.differing_rows <= compare_plan.DIFFERING_KEYS_LIMIT
    )


def _samples(p: PreparedComparison) -> dict[str, Any] | None:
    assert p.pairs is not None and p.totals is not None
    n = p.comparison.sample_size
    if n <= 0 or not differs(p.totals):
        return None
    pairs = zip(p.plan.columns, p.columns, strict=True)
    mismatched = [c for c, counted in pairs if counted["mismatched"]]
    found: dict[str, list[Any]] = {
        "mismatched": [],
        "missing_in_target": [],
        "missing_in_source": [],
    }
    with_keys = _wants_differing_keys(p)
    differing: set[tuple[Any, ...]] = set()
    for r in emit.samples(p.pairs, p.plan, mismatched, n, differing_keys=with_keys).collect():
        if r["kind"] == emit.DIFFERING_KEYS:
            differing.add(tuple(r["key"]))
            continue
        row = spark_json(r["row"])
        if r["kind"] == "mismatched":
            keys = {k: row[k] for k in p.plan.keys}
            found["mismatched"].append(
                {
                    "column": r["column"],
                    "key": keys,
                    "source": row["source"],
                    "target": row["target"],
                }
            )
        else:
            found[r["kind"]].append(row)
    if with_keys:
        p.differing_keys = sorted(differing, key=repr)
    return found


def _described(c: DatasetComparison, run_id: str, keys: Sequence[str]) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "comparison": c.name,
        "semantics": c.semantics,
        "source": describe_source(c.source),
        "target": describe_source(c.target),
        "keys": tuple(keys),
        "origin": c.origin,
    }


def unread_result(u: UnreadComparison, run_id: str) -> ComparisonResult:
    """The error result of a comparison whose sides could not be read."""
    return ComparisonResult(
        **_described(u.comparison, run_id, u.comparison.keys),
        passed=False,
        severity="error",
        message=u.error.message,
        spark_plans=0,
        elapsed_ms=0,
        error=u.error.message,
    )


def run_comparison(
    p: PreparedComparison, run_id: str, policy: RunPolicy
) -> tuple[ComparisonResult, int]:
    """Measure and judge one comparison; its event and the Spark plans it submitted."""
    c = p.comparison
    start = time.monotonic()
    base = _described(c, run_id, p.plan.keys)
    plans = 0
    try:
        plans += _measure(p)
        samples = _samples(p)
        plans += samples is not None
    except Exception as exc:  # noqa: BLE001 - the comparison's error, reported as a result
        error = to_assay_error(exc, f"comparison {c.name}: Spark failed", c.origin)
        elapsed = int((time.monotonic() - start) * 1000)
        result = ComparisonResult(
            **base,
            passed=False,
            severity="error",
            message=error.message,
            spark_plans=plans + 1,
            elapsed_ms=elapsed,
            error=error.message,
            detail=spark_message(exc),
        )
        return result, plans + 1
    assert p.totals is not None
    outcomes = judge(c, p.totals, p.columns)
    failed = [o for o in outcomes if o.severity == "fail"]
    warned = [o for o in outcomes if o.severity == "warn"]
    severity = "fail" if failed else ("warn" if warned else "pass")
    waiver = None
    if failed:
        if c.on_failure != "fail":
            waiver = f"on_failure: {c.on_failure}"
        elif policy.on_failure != "fail":
            waiver = policy.said
    message = "; ".join(o.message for o in (failed or warned or outcomes))
    result = ComparisonResult(
        **base,
        passed=not failed,
        severity=severity,
        message=message,
        counts=p.totals,
        schema=p.plan.schema.to_dict(),
        columns=tuple(p.columns),
        checks=tuple(o.to_dict() for o in outcomes),
        samples=samples,
        blocking=bool(failed) and waiver is None,
        waiver=waiver,
        spark_plans=plans,
        elapsed_ms=int((time.monotonic() - start) * 1000),
    )
    return result, plans


def run_comparisons(
    spark: SparkSession,
    prepared: Sequence[PreparedComparison | UnreadComparison],
    run_id: str,
    sink: Sink,
    policy: RunPolicy,
    note: Callable[[str], None] = lambda line: None,
) -> list[ComparisonResult]:
    """Run every comparison in order, write each spark-data-test job's reports after its
    datasets, and stream the events (a job's after its writes); an unread comparison is
    an error result (and its job writes no report)."""
    jobs: dict[SdtReports | None, list[int]] = {}
    for i, p in enumerate(prepared):
        jobs.setdefault(p.comparison.reports, []).append(i)
    done: dict[int, ComparisonResult] = {}
    for job, members in jobs.items():
        for i in members:
            p = prepared[i]
            if isinstance(p, UnreadComparison):
                done[i] = unread_result(p, run_id)
                note(f"assay: {p.comparison.name}: error ({p.error.message})")
                continue
            note(f"assay: comparing {p.comparison.name}")
            done[i], _ = run_comparison(p, run_id, policy)
        if job is not None:
            _write_job(spark, job, [prepared[i] for i in members], members, done, note)  # type: ignore[misc]
        for i in members:
            sink(done[i])
    return [done[i] for i in range(len(prepared))]


def _write_job(
    spark: SparkSession,
    job: SdtReports,
    members: list[PreparedComparison],
    indices: list[int],
    done: dict[int, ComparisonResult],
    note: Callable[[str], None],
) -> None:
    """spark-data-test's four outputs of one job; a failed write is the job's error."""
    import dataclasses

    if any(done[i].error is not None for i in indices):
        return
    try:
        written = job_writes(spark, job, members, note)
    except Exception as exc:  # noqa: BLE001 - a failed write is reported on the job's events
        error = to_assay_error(
            exc, f"spark-data-test job {job.job_name}: a report write failed", job.origin
        )
        for i in indices:
            done[i] = dataclasses.replace(
                done[i],
                severity="error",
                passed=False,
                error=error.message,
                detail=spark_message(exc),
            )
        return
    shared = [w for w in written if w["dataset"] is None]
    for n, i in enumerate(indices):
        own = [w for w in written if w["dataset"] == members[n].comparison.name]
        outputs = tuple({k: v for k, v in w.items() if k != "dataset"} for w in [*shared, *own])
        plans = len(own) + (len(shared) if n == len(indices) - 1 else 0)
        done[i] = dataclasses.replace(
            done[i], outputs=outputs, spark_plans=done[i].spark_plans + plans
        )


def _joined(summary: RunSummary, reason: str, code: int, said: str) -> str:
    """The exit reason with the comparisons' ``said`` (their own exit ``code``): the
    worse code leads, the other's reason follows it.

    >>> from assay.report.events import RunSummary
    >>> s = RunSummary("r", 1, 0, 0, 0, 1, 1, 5, 3, exit_reason="exit 3: 1 table could not run (t)")
    >>> _joined(s, s.exit_reason, 1, "1 failed comparison fails the run (c)")
    'exit 3: 1 table could not run (t); and 1 failed comparison fails the run (c)'
    >>> why = "exit 1: 1 failed rule fails the run"
    >>> s = RunSummary("r", 1, 1, 1, 0, 0, 1, 5, 1, exit_reason=why)
    >>> _joined(s, s.exit_reason, 3, "1 comparison could not be evaluated (c)")
    'exit 3: 1 comparison could not be evaluated (c); and 1 failed rule fails the run'
    """
    if summary.exit_code >= code:
        return f"{reason}; and {said}"
    if summary.exit_code == 0:
        return f"exit {code}: {said}"
    return f"exit {code}: {said}; and {reason.removeprefix(f'exit {summary.exit_code}: ')}"


def with_comparisons(summary: RunSummary, results: Sequence[ComparisonResult]) -> RunSummary:
    """The run's summary with its comparisons counted: a failed comparison is a failed
    check (``failed``), a blocking one fails the run, an errored one exits 3."""
    import dataclasses

    if not results:
        return summary
    errors = [r for r in results if r.severity == "error"]
    failed = [r for r in results if r.severity == "fail"]
    blocking = [r for r in results if r.blocking]
    waived = [r for r in failed if not r.blocking]
    total_errors = summary.errors + len(errors)
    total_blocking = summary.blocking + len(blocking)
    exit_code = 3 if total_errors else (1 if total_blocking else 0)
    reason = summary.exit_reason
    if errors:
        # evaluated, then a report write failed: its counts are out, its reports are not
        unwritten = [r for r in errors if r.counts is not None]
        unevaluated = [r for r in errors if r.counts is None]
        parts = []
        if unevaluated:
            n = _plural(len(unevaluated), "comparison")
            parts.append(f"{n} could not be evaluated ({_names(unevaluated)})")
        if unwritten:
            n = _plural(len(unwritten), "comparison")
            parts.append(f"the reports of {n} could not be written ({_names(unwritten)})")
        said = "; ".join(parts)
        reason = _joined(summary, reason, 3, said)
    elif blocking:
        verb = "fails" if len(blocking) == 1 else "fail"
        said = f"{_plural(len(blocking), 'failed comparison')} {verb} the run ({_names(blocking)})"
        reason = _joined(summary, reason, 1, said)
    elif summary.exit_code == 0 and reason.endswith("nothing to check"):
        reason = "exit 0: every comparison passed"
    if waived:
        verb = "does" if len(waived) == 1 else "do"
        why = ", ".join(sorted({r.waiver or "waived" for r in waived}))
        reason += f"; {_plural(len(waived), 'failed comparison')} {verb} not fail it ({why})"
    return dataclasses.replace(
        summary,
        failed=summary.failed + len(failed),
        warned=summary.warned + sum(r.severity == "warn" for r in results),
        errors=total_errors,
        blocking=total_blocking,
        spark_plans=summary.spark_plans + sum(r.spark_plans for r in results),
        exit_code=exit_code,
        exit_reason=reason,
        comparisons=len(results),
        failed_comparisons=tuple(r.comparison for r in results if not r.passed),
    )


def _names(results: Sequence[ComparisonResult]) -> str:
    """``orders_copy compare[0]``; a comparison whose place is its name (``assay compare``'s
    on the command line) once: ``compare``."""
    shown = ", ".join(
        r.comparison if r.origin.path == r.comparison else f"{r.comparison} {r.origin.path}"
        for r in results[:5]
    )
    return shown + (f" and {len(results) - 5} more" if len(results) > 5 else "")


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"

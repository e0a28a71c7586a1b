"""Running a profile: the source read as a table reads it, the first plan (every
per-column aggregate in one Spark plan), at most one more when its values show what needs
a second look, and the events (:mod:`assay.report.profile`).

Errors are the run's: a source that cannot be read, or a ``--columns`` naming a column
it lacks, is a :class:`~assay.errors.ConfigError` at its place (exit 2); a plan Spark
fails is a :class:`~assay.errors.SparkFailure` (exit 3).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect.session import SparkSession

from assay.comparison.render import describe_source
from assay.emit import profile as emit
from assay.emit.statistics import UNKNOWN, ScanFacts, scan_facts
from assay.errors import AssayError, ConfigError, SparkFailure
from assay.executor.prepare import read_source
from assay.executor.run import optimizer_rule_excluded
from assay.executor.spark_errors import to_assay_error
from assay.executor.table import aggregate_values
from assay.ir.origin import Origin
from assay.ir.sources import DataFrameSource, Source
from assay.ir.suite import Table
from assay.planner.cost import MERGE_SUBPLANS_RULE
from assay.planner.measures import RowCount
from assay.profiling.plan import (
    DEFAULT_PROFILE,
    ProfileOptions,
    ProfilePlan,
    plan_profile,
    render_profile,
)
from assay.profiling.second import (
    SecondPlan,
    by_value,
    explain_second,
    histogram_by_value,
    of_no_rows,
    second_plan,
)
from assay.report.profile import Measured, column_event, table_event

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

SAMPLE_SEED = 20240101
"""The seed of ``--sample``: the same rows on every run of the same data."""

FIRST = "every per-column aggregate (and the frequency tables, by approx_top_k) in one scan"


@dataclass(frozen=True)
class ProfileOutcome:
    """A profile's events (a ``profile_column`` line per column, then the
    ``profile_table`` line), its first plan and its second (None: not needed)."""

    events: list[dict[str, Any]]
    plan: ProfilePlan
    second: SecondPlan | None


@dataclass(frozen=True)
class Profiled:
    """What is profiled: rows, their name, their source and where it was given."""

    df: DataFrame
    name: str
    source: Source
    origin: Origin


def read(spark: SparkSession, name: str, source: Source, origin: Origin) -> Profiled:
    """The source read as a table reads it (an analysis RPC, no scan)."""
    found = read_source(spark, Table(name, source, (), origin, places=(("source", origin),)))
    if isinstance(found, AssayError):
        raise found
    return Profiled(found[0], name, source, origin)


def planned(spark: SparkSession, profiled: Profiled, options: ProfileOptions) -> tuple[
    DataFrame, ProfilePlan, ScanFacts
]:  # fmt: skip
    """The rows to profile (sampled with ``options.sample``), the first plan and the
    server's facts of the source (analysis RPCs only)."""
    df = profiled.df
    schema = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
    _check_columns(options, schema, profiled.origin)
    facts = scan_facts(df) if options.planner.strategy == "auto" else UNKNOWN
    if options.frequencies != "group_by" and not emit.has_top_k(spark):
        options = replace(options, frequencies="group_by")
    plan = plan_profile(schema, profiled.source, options, facts.size_bytes, facts.columnar)
    if options.sample is not None:
        df = df.sample(withReplacement=False, fraction=options.sample, seed=SAMPLE_SEED)
    return df, plan, facts


def _check_columns(options: ProfileOptions, schema: list[tuple[str, str]], origin: Origin) -> None:
    if options.columns is None:
        return
    have = {name.lower() for name, _ in schema}
    missing = [c for c in options.columns if c.lower() not in have]
    if missing:
        raise ConfigError(
            f"--columns: the source has no column {', '.join(map(repr, missing))}",
            origin=Origin(origin.file, "--columns"),
            hint="its columns: " + ", ".join(name for name, _ in schema),
        )


def profile(
    spark: SparkSession,
    profiled: Profiled,
    options: ProfileOptions = DEFAULT_PROFILE,
    note: Callable[[str], None] = lambda _: None,
) -> ProfileOutcome:
    """Profile ``profiled``'s rows in one Spark plan, or two when the first shows what
    needs a second look (histograms, candidate keys, frequency tables)."""
    start = time.monotonic()
    run_id = uuid.uuid4().hex[:12]
    df, plan, facts = planned(spark, profiled, options)
    branched = len(plan.aggregate.scans) > 1
    note(f"plan 1: {len(plan.aggregate.slots)} measures of {len(plan.columns)} columns")
    with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, branched):
        row = _collect(emit.first_frame(df, plan), profiled, "plan 1")
    values = aggregate_values(plan.aggregate, row)
    plans = [{"plan": 1, "why": [FIRST]}]
    second = second_plan(plan, values, facts.size_bytes, profiled.source, facts.columnar)
    if not values[RowCount()]:
        values = {**values, **of_no_rows(plan)}
    measured = Measured(values)
    if second is not None:
        note("plan 2: " + "; ".join(second.reasons))
        with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, second.scanned is not None):
            row = _collect(emit.second_frame(df, second), profiled, "plan 2")
        measured = _second_values(values, second, row)
        plans.append({"plan": 2, "why": list(second.reasons)})
    elapsed = int((time.monotonic() - start) * 1000)
    events = [column_event(run_id, profiled.name, c, plan, measured) for c in plan.columns]
    events.append(
        table_event(run_id, profiled.name, describe(profiled.source), plan, measured, plans,
                    elapsed)
    )  # fmt: skip
    return ProfileOutcome(events, plan, second)


def _collect(frame: DataFrame, profiled: Profiled, step: str) -> dict[str, Any]:
    try:
        return frame.collect()[0].asDict()  # type: ignore[no-any-return]
    except Exception as exc:  # noqa: BLE001 - classified: Spark's failure, exit 3
        error = to_assay_error(exc, f"profile of {profiled.name}: {step} failed", profiled.origin)
        raise (error if not isinstance(error, ConfigError) else _as_failure(error)) from None


def _as_failure(error: ConfigError) -> AssayError:
    return SparkFailure(error.message, origin=error.origin, hint=error.hint)


def _second_values(values: Any, second: SecondPlan, row: dict[str, Any]) -> Measured:
    histograms = {}
    if second.histograms is not None:
        for h in second.histograms.columns:
            histograms[h.measure.column] = (list(row[h.name]), second.bounds[h.name])
    rows = int(values.get(RowCount()) or 0)
    keys = {g.columns: int(row[f"{g.slot.name}_groups"] or 0) == rows for g in second.keys}
    found = emit.value_rows(second.frequencies, row[emit.FREQUENCIES]) if second.frequencies else {}
    frequencies = {c: [(r["value"], r["n"]) for r in rs] for c, rs in found.items()}
    later: dict[Any, Any] = {}
    for table in second.frequencies:
        if table.deferred:
            later.update(by_value(table, found[table.column]))
        if table.bucketed is not None:
            low, high, _ = table.bucketed
            counts = histogram_by_value(table, found[table.column])
            histograms[table.column] = (counts, (low, high))
    if second.scanned is not None:
        later.update(aggregate_values(second.scanned, row))
    return Measured({**values, **later}, histograms, keys, frequencies)


def describe(source: Source) -> str:
    """The source in one line (as a ``table`` event's ``source``)."""
    if isinstance(source, DataFrameSource):
        return "a DataFrame"
    return describe_source(source)


def explain(spark: SparkSession, profiled: Profiled, options: ProfileOptions) -> str:
    """The profile's plans as text (analysis RPCs only, no scan): plan 1 and what plan 2
    may hold and why."""
    _, plan, facts = planned(spark, profiled, options)
    size = "unknown size" if facts.size_bytes is None else f"{facts.size_bytes:,} bytes"
    head = f"{profiled.name}: {describe(profiled.source)} ({size})"
    if options.sample is not None:
        head += f", a {options.sample:g} sample of its rows"
    return "\n".join([head, render_profile(plan), *explain_second(plan)]) + "\n"

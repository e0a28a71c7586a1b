"""A table's writes after its verdicts (Metorikku failed rows, sparquet report, row split
and ``failed_rows`` outputs), and the checks they need before any scan.

Each write is one Spark plan, counted in the table's ``spark_plans``. Nothing is written
when a rule listed in ``Table.hold_outputs`` failed (sparquet ``on_failure: fail``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from pyspark.sql.connect.session import SparkSession

from assay.emit import outputs as emit
from assay.emit import spark as emit_spark
from assay.emit.outputs import HISTORY_SCHEMA
from assay.errors import AssayError, ConfigError, SparkFailure
from assay.executor.spark_errors import spark_message
from assay.executor.staging import Staging
from assay.ir.outputs import FailedRows, Output, RowSplit, RuleReport, Sink, SqlRows, sinks_of
from assay.ir.rules import Rule
from assay.ir.suite import CatalogSource, PathSource, Table
from assay.report.events import RuleResult


def check_sinks(spark: SparkSession, table: Table) -> list[AssayError]:
    """Sinks that would overwrite the data being validated (a config error), and sinks
    whose format the server does not have (``delta`` without its jars), found before any
    scan."""
    problems: list[AssayError] = []
    for sink in sinks_of(table.outputs):
        if _clobbers(sink, table):
            problems.append(
                ConfigError(
                    f"this output would overwrite the table being validated ({sink.target})",
                    origin=sink.origin,
                    hint="write the output somewhere else",
                )
            )
    if problems:
        return problems
    seen: set[str] = set()
    for sink in sinks_of(table.outputs):
        if sink.format in seen:
            continue
        seen.add(sink.format)
        if not emit.probe_format(spark, sink.format):
            problems.append(
                SparkFailure(
                    f"the Spark server has no '{sink.format}' data source, so this output "
                    "cannot be written",
                    origin=sink.origin,
                    hint="delta needs the delta-spark jars on the server (e.g. --conf "
                    "spark.jars.packages=...); or write parquet/csv/json/orc",
                )
            )
    return problems


def _clobbers(sink: Sink, table: Table) -> bool:
    """Whether an overwrite of ``sink`` would replace (part of) the table's own data."""
    if sink.mode != "overwrite":
        return False
    source = table.source
    if isinstance(source, CatalogSource):
        return sink.is_table and sink.target.lower() == source.table.lower()
    if isinstance(source, PathSource) and not sink.is_table:
        target = sink.target.rstrip("/")
        return any(p.rstrip("/") == target or p.startswith(target + "/") for p in source.paths)
    return False


def severity_as_sparquet(rule: Rule, result: RuleResult) -> tuple[str, bool]:
    """``(severity, passed)`` as sparquet's report has them: the result's own, with a rule
    that could not be evaluated reported as failed (sparquet has no ``error``)."""
    del rule
    if result.severity == "error":
        return "fail", False
    return result.severity, result.passed


def report_rows(
    pipeline: str, rules: Sequence[tuple[Rule, RuleResult]], at: dt.datetime
) -> list[tuple[Any, ...]]:
    """One row per rule in sparquet's report columns."""
    rows = []
    for rule, result in rules:
        severity, passed = severity_as_sparquet(rule, result)
        # sparquet-cola's CheckResult: the measured double, NaN and infinity included
        # (a metric, a row_count, a failed_rows query's row count), else null; the
        # failed count as the rule reports it (0 when passed, the counted rows of a
        # warning metric).
        measured = result.metric_value
        metric = None
        if isinstance(measured, (int, float, Decimal)) and not isinstance(measured, bool):
            metric = float(measured)
        failed = int(result.failed_count or 0) if severity != "pass" else 0
        rows.append(
            (
                pipeline,
                rule.kind,
                rule.name or "",
                severity,
                passed,
                failed,
                metric,
                result.message,
                at,
            )
        )
    return rows


def write_outputs(
    spark: SparkSession,
    table: Table,
    df,
    columns: Sequence[str],
    validation_sql: str | None,
    results: Sequence[RuleResult],
    note: Callable[[str], None] = lambda _: None,
) -> tuple[list[dict[str, Any]], int]:
    """Write the table's outputs; return what was (or was not) written, and the number of
    Spark plans submitted.

    All of them are written or none is where the client can move them into place
    (:mod:`assay.executor.staging`).

    Raises:
        SparkFailure: a write failed (the message names the output's config place).
    """
    held = any(results[i].severity == "fail" for i in table.hold_outputs)
    written: list[dict[str, Any]] = []
    plans = 0
    at = dt.datetime.now(dt.timezone.utc)
    with Staging(spark) as staging:
        for output in table.outputs:
            for kind, rule_index, sink, frame in _frames(
                spark, table, df, columns, validation_sql, results, output, at, held
            ):
                entry = {
                    "kind": kind,
                    "rule_index": rule_index,
                    "target": sink.target,
                    "written": False,
                }
                if frame is not None:
                    note(f"writing {kind} to {sink.target}")
                    place = staging.place(sink.target, sink.format, sink.mode, sink.is_table)
                    staged = dataclasses.replace(sink, target=place, mode=None)
                    try:
                        emit.write(frame, staged if staging.staged(place) else sink)
                    except Exception as exc:  # noqa: BLE001 - reported with the output's place
                        raise SparkFailure(
                            f"table {table.name}: cannot write {kind} to {sink.target}: "
                            f"{spark_message(exc)}",
                            origin=sink.origin,
                        ) from None
                    plans += 1
                    entry["written"] = True
                written.append(entry)
        try:
            staging.commit()
        except SparkFailure as error:
            raise SparkFailure(
                f"table {table.name}: {error.message}", origin=table.origin, hint=error.hint
            ) from None
    return written, plans


def _validation_sql(table: Table, df) -> str:
    """``_validation_df`` as SQL text: the source's own, or a temp view of ``df``."""
    text = emit_spark.source_sql(table.source, table.filter)
    if text is not None:
        return text
    view = f"_assay_{uuid.uuid4().hex[:12]}"
    df.createOrReplaceTempView(view)
    return f"SELECT * FROM {view}"


def _frames(spark, table, df, columns, validation_sql, results, output: Output, at, held):
    """``(kind, rule_index, sink, frame or None)`` per write of one output (``None``: not
    written: held, or the rule passed)."""
    if isinstance(output, FailedRows):
        result = results[output.rule_index]
        failed = not result.passed and result.severity != "error" and not held
        rule = table.rules[output.rule_index]
        frame = emit.failing_rows(df, columns, rule) if failed else None
        return [("failed_rows", output.rule_index, output.sink, frame)]
    if held and not (isinstance(output, RuleReport) and output.history):
        if isinstance(output, RowSplit):
            return [
                (k, None, s, None)
                for k, s in (("valid", output.valid), ("invalid", output.invalid))
                if s is not None
            ]
        index = output.rule_index if isinstance(output, SqlRows) else None
        kind = "failed_rows_sql" if isinstance(output, SqlRows) else "report"
        return [(kind, index, output.sink, None)]
    if isinstance(output, SqlRows):
        if validation_sql is None:
            # The SQL rules were all folded into the aggregate (no query ran, so nothing
            # bound ``_validation_df``): bind it now, as a CTE over the source's SQL text,
            # else over a temp view of the table's DataFrame (a path read with options).
            validation_sql = _validation_sql(table, df)
        return [
            (
                "failed_rows_sql",
                output.rule_index,
                output.sink,
                emit.sql_rows(spark, validation_sql, output.query),
            )
        ]
    if isinstance(output, RowSplit):
        valid, invalid = emit.split_rows(df, columns, [table.rules[i] for i in output.rules])
        return [
            (k, None, s, f)
            for k, s, f in (("valid", output.valid, valid), ("invalid", output.invalid, invalid))
            if s is not None
        ]
    assert isinstance(output, RuleReport)
    pairs = [(table.rules[i], results[i]) for i in output.rules]
    rows = report_rows(output.pipeline, pairs, at)
    if output.history:
        rows = [
            (*row, results[i].run_id, table.name, i, str(table.rules[i].origin))
            for row, i in zip(rows, output.rules, strict=True)
        ]
        return [("history", None, output.sink, emit.report_frame(spark, rows, HISTORY_SCHEMA))]
    return [("report", None, output.sink, emit.report_frame(spark, rows))]

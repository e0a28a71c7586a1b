"""Earlier runs for a report's trends: saved JSON lines (one or more runs per file), or a
report table read back through Spark (sparquet's ``report`` written with ``mode:
append``: one row per rule per run).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.report import model

Event = dict[str, Any]
HISTORY_RUNS = 30
"""The newest runs of a report table a trend shows."""
HISTORY_ROWS = 200_000
"""At most this many history rows cross the wire."""
REPORT_COLUMNS = ("rule_type", "check_name", "severity", "passed", "failed_count", "metric_value")
HISTORY_FORMATS = ("parquet", "csv", "json", "orc", "delta", "table")
"""The formats a report table is read in (``table``: a catalog table's name)."""


def load_runs(paths: Sequence[str | Path]) -> list[list[Event]]:
    """Every run in ``paths`` (JSON lines or JSON report documents), in the order given:
    oldest first, the report's own run last.

    Raises:
        ValueError: a file is not JSON lines of assay events (the message names it).
    """
    runs: list[list[Event]] = []
    for path in paths:
        data = Path(path).read_bytes()
        try:
            events = model.parse_lines(data)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        if not events:
            raise ValueError(f"{path}: no assay events in it")
        runs += model.runs_of(events)
    return runs


def table_name(pipeline: str) -> str:
    """The table a sparquet pipeline's rules are reported under (as the sparquet dialect
    names it)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", pipeline or "pipeline").strip("_.") or "pipeline"


def rows_as_runs(rows: Sequence[dict[str, Any]]) -> list[list[Event]]:
    """Report-table rows as runs of result events, oldest first.

    A row with ``run_id`` and ``table`` columns is matched by them; a row of sparquet's
    report has neither, so a run is its ``validated_at`` and the table its pipeline's.
    Either way a rule is matched by its type, name and occurrence
    (:func:`assay.report.model.rule_keys`), whatever order the rows are in."""
    runs: dict[str, list[Event]] = {}
    at_of: dict[str, str] = {}
    positions: dict[tuple[str, str], int] = {}
    for row in sorted(rows, key=lambda r: _instant(r.get("validated_at"))):
        at = _instant(row.get("validated_at"))
        run = str(row.get("run_id") or at)
        table = row.get("table") or table_name(str(row.get("pipeline") or ""))
        index = row.get("rule_index")
        if index is None:
            index = positions.get((run, table), 0)
            positions[(run, table)] = index + 1
        runs.setdefault(run, []).append(
            {
                "event": "result",
                "run_id": run,
                "table": table,
                "rule_index": int(index),
                "rule": {"type": row.get("rule_type"), "name": row.get("check_name") or None},
                "severity": row.get("severity"),
                "passed": row.get("passed"),
                "failed_count": row.get("failed_count"),
                "row_count": row.get("row_count"),
                "metric_value": row.get("metric_value"),
            }
        )
        at_of.setdefault(run, at)
    return [
        [*events, {"event": "summary", "run_id": run, "started_at": at_of[run]}]
        for run, events in runs.items()
    ]


def _instant(value: Any) -> str:
    """A ``validated_at`` as ISO 8601 in UTC (Spark returns a naive local timestamp)."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).isoformat()
    return str(value or "")


def earlier_than(runs: Sequence[Sequence[Event]], current: Sequence[Event]) -> list[list[Event]]:
    """The runs that started before ``current`` (and are not it): a report table the
    current run appended to holds that run too."""
    start = _started(current)
    run_id = current[0].get("run_id") if current else None
    kept = []
    for run in runs:
        if run and run[0].get("run_id") == run_id:
            continue
        at = _started(run)
        if start is not None and at is not None and at >= start:
            continue
        kept.append(list(run))
    return kept


def _started(run: Sequence[Event]) -> dt.datetime | None:
    summary = next((e for e in reversed(run) if e.get("event") == "summary"), {})
    try:
        at = dt.datetime.fromisoformat(str(summary.get("started_at")))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=dt.timezone.utc)


def read_history(
    spark: Any, path: str, fmt: str = "parquet", runs: int = HISTORY_RUNS, limit: int = HISTORY_ROWS
) -> list[list[Event]]:
    """A report table (a path, or a catalog table with ``fmt`` ``table``) read through
    Spark: the rows of its newest ``runs`` runs (at most ``limit``), as runs oldest first
    (two Spark plans: the runs' instants, then their rows).

    Raises:
        ValueError: the table lacks a column the trends need (the message does not name
        the table: the caller does, as the user gave it).
    """
    if fmt == "table":
        frame = spark.read.table(path)
    elif fmt == "csv":
        frame = spark.read.options(header=True, inferSchema=True).format("csv").load(path)
    else:
        frame = spark.read.format(fmt).load(path)
    columns = set(frame.columns)
    missing = [c for c in REPORT_COLUMNS if c not in columns]
    if missing:
        raise ValueError(f"not a report table: no column {', '.join(missing)}")
    if "validated_at" in columns:
        # The newest runs, their rows in the order they were written (a report lists a
        # block's rules in config order; sorting would shuffle rows of the same instant).
        stamp = frame["validated_at"]
        newest = frame.select(stamp).distinct().orderBy(stamp.desc()).limit(runs).collect()
        if not newest:
            return []
        frame = frame.where(stamp >= newest[-1][0])
    rows = [r.asDict() for r in frame.limit(limit).collect()]
    return rows_as_runs(rows)

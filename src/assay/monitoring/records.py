"""What a run appends to the metrics store: one row per measured value (docs/monitoring.md
#the-store), made from the run's events, and one per table's schema
(:mod:`assay.monitoring.schemas`); and the store's schema, declared once for both backends.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import MetricCheck, Rule, UniqueCheck
from assay.monitoring.schemas import Columns, schema_rows

COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_time", "timestamp"),
    ("table", "string"),
    ("rule", "string"),
    ("rule_type", "string"),
    ("columns", "string"),  # a schema row's: the table's columns as JSON
    ("measure", "string"),
    ("value", "double"),
    ("severity", "string"),
    ("server", "string"),
    ("tags", "map<string,string>"),
    ("state", "binary"),  # a state row's: a mergeable state (docs/incremental.md)
    ("run_id", "string"),
)
"""The store's columns and Spark types, in the table's order (``run_id`` last: a table
store created by assay is partitioned by it). ``state`` is null but on a state row; a
store written before it had the column reads it as null."""
NAMES = tuple(name for name, _ in COLUMNS)
TABLE_RULE = "(table)"
"""The ``rule`` of a table's own values (its row count)."""
COMPARISON_RULE = "(comparison)"
"""The ``rule`` of a comparison's counts; its ``table`` is the comparison's name."""
RESULT_MEASURES = ("metric_value", "failed_count", "row_count")
STATE_MEASURE = "state"
"""The ``measure`` of a state row: its ``state`` holds the bytes, its ``value`` the rows
they summarise (docs/incremental.md#the-states)."""


def tracked_measure(rule: Rule) -> str:
    """The value a rule is judged by over time: a metric's ``metric_value``, a row-level
    rule's ``failed_count``."""
    row_level = not isinstance(rule.check, MetricCheck)
    counted = isinstance(rule.check, (UniqueCheck, ForeignKeyCheck)) or row_level
    return "failed_count" if counted else "metric_value"


def as_number(value: Any) -> float | None:
    """A measured value as a double, or None when it is not a finite number (a date's
    min, NaN, an infinity: not stored)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    try:
        number = float(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None
    return number if math.isfinite(number) else None


def utc_text(moment: dt.datetime) -> str:
    """A run time as the store's JSON lines write it: ISO 8601 in UTC, milliseconds."""
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds")


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time; one without a zone is UTC."""
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def records(
    events: Iterable[Mapping[str, Any]],
    run_time: dt.datetime,
    server: str | None,
    tags: Sequence[tuple[str, str]] = (),
    schemas: Mapping[str, Columns] | None = None,
    run_id: str = "",
) -> list[dict[str, Any]]:
    """The store rows of a run's events (``result``, ``table`` and ``comparison`` lines):
    every numeric value measured, as a double; an ``error`` result adds none. Then the
    schema of each table of ``schemas`` (by name; those whose source was read), one row
    each, under ``run_id``."""
    rows: list[dict[str, Any]] = []
    common = {"run_time": run_time, "server": server, "tags": dict(tags)}

    def add(event: Mapping[str, Any], table: str, rule: str, kind: str, cols: str, values):
        for measure, value in values:
            number = as_number(value)
            if number is not None:
                row = {"table": table, "rule": rule, "rule_type": kind, "columns": cols}
                said = {"measure": measure, "value": number, "severity": event.get("severity")}
                rows.append({**common, **row, **said, "run_id": event["run_id"]})

    for event in events:
        kind = event.get("event")
        if kind == "result" and event.get("severity") != "error":
            rule = event["rule"]
            measured = [(m, event.get(m)) for m in RESULT_MEASURES]
            columns = ",".join(rule.get("columns") or ())
            identity = rule.get("id") or rule["type"]
            add(event, event["table"], identity, rule["type"], columns, measured)
        elif kind == "table" and event.get("row_count") is not None:
            add(event, event["table"], TABLE_RULE, "table", "", [("row_count", event["row_count"])])
        elif kind == "comparison" and event.get("counts"):
            counts = sorted(event["counts"].items())
            add(event, event["comparison"], COMPARISON_RULE, "comparison", "", counts)
    return rows + schema_rows(schemas or {}, common, run_id)

"""The events of a profile (``profile_column``, ``profile_table``), made from the
measured values alone (pure): one line per column, then one per table.

Numbers follow the run's discipline (:func:`assay.report.events.json_number`): exact, a
string of digits where no double holds the value, null for NaN and the infinities;
dates and timestamps as ISO text. Every line carries ``sample``: the fraction of rows
profiled (null: every row), so a number of a sample is never read as the table's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.planner.measures import GroupStats, RowCount
from assay.profiling.plan import FORMATS, PARSES, ColumnPlan, ProfilePlan
from assay.report.events import json_number

PROFILE_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Measured:
    """What the profile's plans returned: the first plan's values (by measure), and the
    second's histograms (bucket counts and bounds, by column), candidate keys checked
    (columns -> whether unique) and frequency tables (by column)."""

    values: Mapping[Any, Any]
    histograms: Mapping[str, tuple[Sequence[int], tuple[float, float]]] = field(
        default_factory=dict
    )
    keys: Mapping[tuple[str, ...], bool] = field(default_factory=dict)
    frequencies: Mapping[str, Sequence[tuple[Any, int]]] = field(default_factory=dict)


def plain(value: Any) -> Any:
    """A measured value as JSON: numbers exact, dates and times as ISO text."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return json_number(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _share(n: Any, of: int) -> float | None:
    return None if n is None or of == 0 else int(n) / of


def column_event(
    run_id: str, table: str, column: ColumnPlan, plan: ProfilePlan, measured: Measured
) -> dict[str, Any]:
    """One column's ``profile_column`` line."""
    values = measured.values
    rows = int(values[RowCount()] or 0)

    def stat(name: str) -> Any:
        m = column.measure(name)
        return None if m is None else values.get(m)

    nulls = int(stat("nulls") or 0)
    count = rows - nulls
    exact = values.get(GroupStats((column.name,)))
    return {
        "event": "profile_column",
        "schema_version": PROFILE_SCHEMA_VERSION,
        "run_id": run_id,
        "table": table,
        "column": column.name,
        "type": column.type,
        "family": column.family,
        "sample": plan.options.sample,
        "row_count": rows,
        "count": count,
        "nulls": nulls,
        "null_percent": None if rows == 0 else 100 * nulls / rows,
        "nan": None if column.measure("nan") is None else int(stat("nan") or 0),
        "distinct_approx": _int(stat("distinct_approx")),
        "distinct_exact": None if exact is None else int(exact["groups"] or 0),
        "min": plain(stat("min")),
        "max": plain(stat("max")),
        "mean": plain(stat("avg")),
        "stddev": plain(stat("stddev")),
        "sum": plain(stat("sum")),
        "quantiles": _quantiles(plan, stat("quantiles")),
        **_strings(column, stat, count),
        **_frequencies(column, plan, measured, count),
        "histogram": _histogram(column.name, measured),
    }


def _quantiles(plan: ProfilePlan, found: Any) -> dict[str, Any] | None:
    if not found:
        return None
    return {f"{q:g}": plain(v) for q, v in zip(plan.options.quantiles, found, strict=True)}


def _strings(column: ColumnPlan, stat: Any, count: int) -> dict[str, Any]:
    if column.family != "string":
        return {"lengths": None, "empty": None, "parses": None, "formats": None}
    lengths = {"min": stat("length_min"), "max": stat("length_max"), "mean": stat("length_avg")}
    return {
        "lengths": None if count == 0 else {k: plain(v) for k, v in lengths.items()},
        "empty": int(stat("empty") or 0),
        "parses": {what: _share(stat(f"parses_{what}"), count) for what in PARSES},
        "formats": {fmt: _share(stat(f"format_{fmt}"), count) for fmt in FORMATS},
    }


def _frequencies(
    column: ColumnPlan, plan: ProfilePlan, measured: Measured, count: int
) -> dict[str, Any]:
    """The most frequent values of a low-cardinality column (nulls left out: they are
    ``nulls``), most frequent first, ties by value; ``frequencies_complete`` when they
    account for every value."""
    items = measured.frequencies.get(column.name)
    if items is None:
        top = column.measure("top")
        found = measured.values.get(top) if top is not None else None
        items = [(r[0], int(r[1])) for r in found] if found is not None else None
    distinct = measured.values.get(column.measure("distinct_approx"))
    if items is None or distinct is None or int(distinct) > plan.options.low_cardinality:
        return {"top_values": None, "frequencies_complete": None}
    kept = sorted(((v, n) for v, n in items if v is not None), key=lambda p: (-p[1], str(p[0])))
    listed = [{"value": plain(v), "count": n} for v, n in kept]
    return {"top_values": listed, "frequencies_complete": sum(n for _, n in kept) == count}


def _histogram(name: str, measured: Measured) -> dict[str, Any] | None:
    found = measured.histograms.get(name)
    if found is None:
        return None
    counts, (low, high) = found
    bins = len(counts)
    width = (high - low) / bins
    return {
        "bins": [
            {"lowerBound": low + i * width, "upperBound": high if i == bins - 1 else
             low + (i + 1) * width, "count": int(n)}
            for i, n in enumerate(counts)
        ]
    }  # fmt: skip


def candidate_keys(plan: ProfilePlan, measured: Measured) -> list[list[str]]:
    """Columns (or pairs) whose distinct count equals the row count, known exactly: an
    exact distinct count measured, or a group-by of the second plan."""
    rows = int(measured.values[RowCount()] or 0)
    found = [
        [c.name]
        for c in plan.columns
        if (g := measured.values.get(GroupStats((c.name,)))) is not None
        and rows > 1
        and int(g["groups"] or 0) == rows
    ]
    found += [list(cols) for cols, unique in measured.keys.items() if unique]
    return found


def table_event(
    run_id: str,
    table: str,
    source: str,
    plan: ProfilePlan,
    measured: Measured,
    plans: Sequence[dict[str, Any]],
    elapsed_ms: int,
) -> dict[str, Any]:
    """The table's ``profile_table`` line (after its columns')."""
    return {
        "event": "profile_table",
        "schema_version": PROFILE_SCHEMA_VERSION,
        "run_id": run_id,
        "table": table,
        "source": source,
        "sample": plan.options.sample,
        "row_count": int(measured.values[RowCount()] or 0),
        "columns": len(plan.columns),
        "candidate_keys": candidate_keys(plan, measured),
        "keys_checked": [list(k) for k in measured.keys],
        "spark_plans": len(plans),
        "plans": list(plans),
        "elapsed_ms": elapsed_ms,
    }

"""The profile's second look: what the first plan's values show needs one more plan.

At most one more Spark plan, cross-joining what is needed:

- **histograms** of numeric columns: equal-width bins need the min and max the first plan
  measured (the ``colstats`` histogram, :class:`~assay.planner.plan.HistogramPlan`);
- **candidate keys** checked exactly: a column without nulls whose approximate distinct
  count is within ``unique_margin`` of the row count (Deequ's
  ``UniqueIfApproximatelyUniqueRule``), and up to ``key_pairs`` pairs of columns without
  nulls whose approximate distinct counts multiply to at least the row count (pairs of
  integers and dates first, as keys mostly are, then the smallest products: the
  narrowest keys), each a group-by branch;
- **frequency tables** of low-cardinality columns (when the first plan has no
  ``approx_top_k``): one group-by over grouping sets, a set per column.

:func:`second_plan` decides from the values (pure); :func:`explain_second` says, before
any scan, what may be in it and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Any

from assay.planner.cost import group_partitions
from assay.planner.measures import GroupStats, Histogram, RowCount
from assay.planner.plan import GroupAggregate, HistogramColumn, HistogramPlan, Slot
from assay.planner.profile import CATEGORICAL, NUMERIC, ColumnPlan, ProfilePlan

KEY_FAMILIES = frozenset({"integral", "decimal", "string", "temporal"})
"""Families a candidate key may have (not floating numbers, booleans or nested values)."""


@dataclass(frozen=True, slots=True)
class FrequencyTable:
    """The exact frequency table of one column (a grouping set of the plan's one
    frequency group-by)."""

    column: str


@dataclass(frozen=True, slots=True)
class SecondPlan:
    """The second plan: histograms over ``bounds`` (by histogram name), candidate keys
    checked by group-bys, frequency tables; and why each part is there."""

    histograms: HistogramPlan | None
    bounds: dict[str, tuple[float, float]]
    keys: tuple[GroupAggregate, ...]
    frequencies: tuple[FrequencyTable, ...]
    reasons: tuple[str, ...]


def second_plan(
    plan: ProfilePlan, values: Mapping[Any, Any], size_bytes: int | None = None
) -> SecondPlan | None:
    """What needs a second look, from the first plan's ``values`` (by measure); None when
    nothing does."""
    rows = int(values[RowCount()] or 0)
    histograms, bounds = _histograms(plan, values)
    keys = _keys(plan, values, rows, size_bytes)
    frequencies = _frequencies(plan, values)
    reasons = []
    if histograms is not None:
        names = ", ".join(h.measure.column for h in histograms.columns)
        reasons.append(
            f"histograms of {len(histograms.columns)} numeric columns ({names}): equal-width"
            " bins need the min and max plan 1 measured"
        )
    if keys:
        names = "; ".join(", ".join(k.columns) for k in keys)
        reasons.append(
            f"{len(keys)} candidate keys checked exactly ({names}): no nulls, and approximate"
            f" distinct counts that reach the row count ({rows})"
        )
    if frequencies:
        names = ", ".join(f.column for f in frequencies)
        reasons.append(
            f"frequency tables of {len(frequencies)} low-cardinality columns ({names}):"
            f" at most {plan.options.low_cardinality} approximate distinct values each"
        )
    if not reasons:
        return None
    return SecondPlan(histograms, bounds, keys, frequencies, tuple(reasons))


def finite_bounds(low: object, high: object) -> tuple[float, float] | None:
    """``(low, high)`` as finite floats, or None."""
    if not isinstance(low, (int, float, Decimal)) or not isinstance(high, (int, float, Decimal)):
        return None
    bounds = (float(low), float(high))
    return bounds if all(math.isfinite(b) for b in bounds) else None


def _histograms(
    plan: ProfilePlan, values: Mapping[Any, Any]
) -> tuple[HistogramPlan | None, dict[str, tuple[float, float]]]:
    columns, bounds = [], {}
    for i, c in enumerate(plan.columns):
        if c.family not in NUMERIC:
            continue
        found = finite_bounds(_value(c, "min", values), _value(c, "max", values))
        if found is not None:
            name = f"h{i:03d}"
            columns.append(HistogramColumn(name, Histogram(c.name, plan.options.bins), ()))
            bounds[name] = found
    return (HistogramPlan(tuple(columns)) if columns else None), bounds


def _value(column: ColumnPlan, stat: str, values: Mapping[Any, Any]) -> Any:
    measure = column.measure(stat)
    return None if measure is None else values.get(measure)


def _distinct(column: ColumnPlan, values: Mapping[Any, Any]) -> int | None:
    exact = values.get(GroupStats((column.name,)))
    if exact is not None:
        return int(exact["groups"] or 0)
    approx = _value(column, "distinct_approx", values)
    return None if approx is None else int(approx)


def _keys(
    plan: ProfilePlan, values: Mapping[Any, Any], rows: int, size_bytes: int | None
) -> tuple[GroupAggregate, ...]:
    if rows < 2:
        return ()
    options = plan.options
    complete = [
        c for c in plan.columns if c.family in KEY_FAMILIES and _value(c, "nulls", values) == 0
    ]
    distinct = {c.name: _distinct(c, values) or 0 for c in complete}
    exact = options.exact_distinct
    singles = [
        c.name
        for c in complete
        if not exact and distinct[c.name] >= (1 - options.unique_margin) * rows
    ]
    known = {c.name for c in complete if exact and distinct[c.name] == rows}
    rest = [c.name for c in complete if c.name not in singles and c.name not in known]
    loose = {c.name for c in complete if c.family in ("string", "decimal")}
    pairs = sorted(
        ((a in loose) + (b in loose), distinct[a] * distinct[b], a, b)
        for a, b in combinations(rest, 2)
        if distinct[a] * distinct[b] >= rows
    )[: options.key_pairs]
    parts = group_partitions(size_bytes, options.planner)
    wanted = [(s,) for s in singles] + [(a, b) for *_, a, b in pairs]
    return tuple(
        GroupAggregate(cols, Slot(f"k{i:03d}", GroupStats(cols), ()), True, parts)
        for i, cols in enumerate(wanted)
    )


def _frequencies(plan: ProfilePlan, values: Mapping[Any, Any]) -> tuple[FrequencyTable, ...]:
    if plan.options.frequencies != "group_by" or not values[RowCount()]:
        return ()  # an empty table has no values to count
    low = plan.options.low_cardinality
    return tuple(
        FrequencyTable(c.name)
        for c in plan.columns
        if c.family in CATEGORICAL and (_distinct(c, values) or 0) <= low
    )


def explain_second(plan: ProfilePlan) -> list[str]:
    """What the second plan may hold and when (before any scan)."""
    options = plan.options
    numeric = [c.name for c in plan.columns if c.family in NUMERIC]
    keyed = [c.name for c in plan.columns if c.family in KEY_FAMILIES]
    lines = ["plan 2, only when plan 1 shows it is needed (at most one more Spark plan):"]
    if numeric:
        lines.append(
            f"  histograms ({options.bins} equal-width bins) of {', '.join(numeric)}: the bins"
            " need the min and max of plan 1 (a column without a finite min and max has none)"
        )
    if keyed:
        lines.append(
            f"  candidate keys among {', '.join(keyed)}: a column without nulls whose"
            f" approximate distinct count is within {options.unique_margin:.0%} of the row"
            f" count, and up to {options.key_pairs} pairs of columns without nulls whose"
            " distinct counts multiply to at least the row count, each checked exactly by"
            " a group-by"
        )
    if options.frequencies == "group_by":
        categorical = [c.name for c in plan.columns if c.family in CATEGORICAL]
        lines.append(
            f"  frequency tables of the columns among {', '.join(categorical)} with at most"
            f" {options.low_cardinality} approximate distinct values, a group-by each (plan 2"
            " holds the histograms anyway; the server may also lack approx_top_k)"
        )
    if len(lines) == 1:
        lines.append("  nothing: no numeric or key-like column")
    return lines

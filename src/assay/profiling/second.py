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
  ``approx_top_k``): one group-by over grouping sets, a set per column;
- **the statistics of text values** the first plan left (``ProfilePlan.deferred``): of a
  column with a frequency table, evaluated once per distinct value in it (the tests in
  Spark, so a regex is Java's) and summed by :func:`by_value`; of the others, a scan
  branch.

:func:`second_plan` decides from the values (pure); :func:`explain_second` says, before
any scan, what may be in it and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from itertools import combinations
from typing import Any

from assay.ir.sources import Source
from assay.planner.cost import group_partitions, scan_branches
from assay.planner.measures import (
    ColumnAgg,
    CountIf,
    ExprAggregate,
    GroupStats,
    Histogram,
    Measure,
    RowCount,
)
from assay.planner.plan import (
    AggregatePlan,
    GroupAggregate,
    HistogramColumn,
    HistogramPlan,
    ScanAggregate,
    Slot,
)
from assay.profiling.plan import NUMERIC, TABLED, ColumnPlan, ProfilePlan

KEY_FAMILIES = frozenset({"integral", "decimal", "string", "temporal"})
"""Families a candidate key may have (not floating numbers, booleans or nested values)."""


@dataclass(frozen=True, slots=True)
class FrequencyTable:
    """The exact frequency table of one column (a grouping set of the plan's one
    frequency group-by), with the statistics computed from it by value (``deferred``:
    the first plan's measures, by statistic name)."""

    column: str
    deferred: tuple[tuple[str, Measure], ...] = ()
    bucketed: tuple[float, float, int] | None = None
    """The column's histogram from the table, by value: ``(min, max, bins)``."""


@dataclass(frozen=True, slots=True)
class SecondPlan:
    """The second plan: histograms over ``bounds`` (by histogram name), candidate keys
    checked by group-bys, frequency tables; and why each part is there."""

    histograms: HistogramPlan | None
    bounds: dict[str, tuple[float, float]]
    keys: tuple[GroupAggregate, ...]
    frequencies: tuple[FrequencyTable, ...]
    reasons: tuple[str, ...]
    scanned: AggregatePlan | None = None
    """The deferred statistics of the text columns without a frequency table."""


def second_plan(
    plan: ProfilePlan,
    values: Mapping[Any, Any],
    size_bytes: int | None = None,
    source: Source | None = None,
    columnar: bool | None = None,
) -> SecondPlan | None:
    """What needs a second look, from the first plan's ``values`` (by measure); None when
    nothing does (``source``, ``size_bytes`` and ``columnar`` shape a scan branch)."""
    rows = int(values[RowCount()] or 0)
    frequencies = _frequencies(plan, values)
    histograms, bounds = _histograms(plan, values)
    if plan.options.by_value and histograms is not None:
        histograms, bounds, frequencies = _bucketed(histograms, bounds, frequencies)
    keys = _keys(plan, values, rows, size_bytes)
    scanned = _scanned(plan, frequencies, rows, source, size_bytes, columnar)
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
    by_value_columns = [f.column for f in frequencies if f.deferred or f.bucketed]
    if by_value_columns:
        reasons.append(
            f"the statistics left to plan 2 (and histograms) of {', '.join(by_value_columns)},"
            " once per distinct value from their frequency tables"
        )
    if scanned is not None:
        in_scan = {s.measure for s in scanned.slots}
        scanned_columns = [n for n, st in plan.deferred if any(m in in_scan for _, m in st)]
        reasons.append(
            f"the statistics left to plan 2 of {', '.join(scanned_columns)}, by a scan: too"
            " many distinct values for a frequency table"
        )
    if not reasons:
        return None
    return SecondPlan(histograms, bounds, keys, frequencies, tuple(reasons), scanned)


def _bucketed(
    histograms: HistogramPlan,
    bounds: dict[str, tuple[float, float]],
    frequencies: tuple[FrequencyTable, ...],
) -> tuple[HistogramPlan | None, dict[str, tuple[float, float]], tuple[FrequencyTable, ...]]:
    """The histograms of the columns that have a frequency table move to it (each
    distinct value's bucket, counted with the value's count), the others stay a scan."""
    tabled = {f.column for f in frequencies}
    moved = {h.measure.column: h for h in histograms.columns if h.measure.column in tabled}
    tables = tuple(
        replace(f, bucketed=(*bounds[moved[f.column].name], moved[f.column].measure.bins))
        if f.column in moved
        else f
        for f in frequencies
    )
    kept = tuple(h for h in histograms.columns if h.measure.column not in moved)
    kept_bounds = {h.name: bounds[h.name] for h in kept}
    return (HistogramPlan(kept) if kept else None), kept_bounds, tables


def histogram_by_value(table: FrequencyTable, found: list[dict[str, Any]]) -> list[int]:
    """The bucket counts of ``table``'s histogram: each distinct value's count added to
    its bucket (Spark computed the bucket, as :func:`~assay.emit.histogram.histogram_bucket`
    does for every row of a scan); a null or NaN value is in none."""
    assert table.bucketed is not None
    counts = [0] * table.bucketed[2]
    for r in found:
        if r["bucket"] is not None:
            counts[int(r["bucket"])] += int(r["n"])
    return counts


def _scanned(
    plan: ProfilePlan,
    frequencies: tuple[FrequencyTable, ...],
    rows: int,
    source: Source | None,
    size_bytes: int | None,
    columnar: bool | None,
) -> AggregatePlan | None:
    """The deferred statistics of the columns without a frequency table, as scan
    branches (none for an empty table: :func:`of_no_rows` knows them)."""
    tabled = {f.column for f in frequencies}
    wanted = [m for name, stats in plan.deferred if name not in tabled for _, m in stats]
    if not wanted or rows == 0:
        return None
    slots = tuple(Slot(plan.names[m], m, ()) for m in wanted)
    if source is None:  # shaped by nothing known of the source: one branch
        return AggregatePlan((ScanAggregate(slots),), ())
    options = plan.options.planner
    return AggregatePlan(scan_branches(slots, source, options, size_bytes, columnar), ())


def of_no_rows(plan: ProfilePlan) -> dict[Measure, Any]:
    """The deferred statistics of an empty table, as Spark gives them over no rows: a
    count of 0, no min, max or mean."""
    return {
        m: (0 if isinstance(m, CountIf) else None) for _, stats in plan.deferred for _, m in stats
    }


def nearest_rank(present: list[dict[str, Any]], quantiles: Any, accuracy: Any) -> list | None:
    """``percentile_approx(c, quantiles, accuracy)`` without its approximation, from the
    distinct values and their counts: for each q, the value at rank ``ceil(q * n)`` in
    ascending order (the minimum for ``q <= 1/accuracy``, the maximum for ``q >= 1 -
    1/accuracy``), as Spark's ``QuantileSummaries.query`` answers over a summary that
    kept every value; None without a value. A decimal is the value itself, where
    ``percentile_approx`` returns it through a double (docs/profile.md)."""
    ordered = sorted((r["value"], int(r["n"])) for r in present)
    n = sum(count for _, count in ordered)
    if n == 0:
        return None
    error = 1 / float(accuracy)
    found = []
    for q in quantiles:
        if q <= error:
            found.append(ordered[0][0])
            continue
        if q >= 1 - error:
            found.append(ordered[-1][0])
            continue
        rank, seen = math.ceil(q * n), 0
        for value, count in ordered:
            seen += count
            if seen >= rank:
                found.append(value)
                break
    return found


def by_value(table: FrequencyTable, found: list[dict[str, Any]]) -> dict[Measure, Any]:
    """The deferred statistics of ``table``'s column from its frequency table: ``found``
    has a row per distinct value (null included) with its count ``n``, its length
    ``length`` and a boolean per count (``t<k>``, the k-th deferred statistic's test, as
    Spark evaluated it on the value). Strings order as Spark's binary collation does (by
    code point, which is UTF-8 byte order); a mean is the sum over the count, as Spark's
    ``avg`` divides them."""
    present = [r for r in found if r["value"] is not None]
    counted = sum(int(r["n"]) for r in present)
    lengths = [(int(r["length"]), int(r["n"])) for r in present if "length" in r]
    out: dict[Measure, Any] = {}
    for k, (_, m) in enumerate(table.deferred):
        if isinstance(m, CountIf):
            out[m] = sum(int(r["n"]) for r in found if r[f"t{k}"])
        elif isinstance(m, ColumnAgg):
            chosen = min if m.fn == "min" else max
            out[m] = chosen((r["value"] for r in present), default=None)
        elif isinstance(m, ExprAggregate) and m.function in ("min", "max"):
            chosen = min if m.function == "min" else max
            out[m] = chosen((length for length, _ in lengths), default=None)
        elif isinstance(m, ExprAggregate) and m.function == "avg":
            out[m] = sum(length * n for length, n in lengths) / counted if counted else None
        elif isinstance(m, ExprAggregate) and m.function == "percentile_approx":
            out[m] = nearest_rank(present, m.args[0], m.args[1])
        else:  # pragma: no cover - BY_VALUE names no other statistic
            raise TypeError(f"no value by value for {m!r}")
    return out


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
    deferred = dict(plan.deferred)
    return tuple(
        FrequencyTable(c.name, deferred.get(c.name, ()))
        for c in plan.columns
        if c.family in TABLED and (_distinct(c, values) or 0) <= low
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
        categorical = [c.name for c in plan.columns if c.family in TABLED]
        lines.append(
            f"  frequency tables of the columns among {', '.join(categorical)} with at most"
            f" {options.low_cardinality} approximate distinct values, a group-by each (plan 2"
            " holds the histograms anyway; the server may also lack approx_top_k)"
        )
    if plan.deferred:
        names = ", ".join(name for name, _ in plan.deferred)
        lines.append(
            f"  the statistics plan 1 left of {names} (of text: min, max, lengths, empties,"
            " parses, formats; of whole numbers: quantiles): once per distinct value from"
            " the frequency table of a column that has one, else by a scan"
        )
    if len(lines) == 1:
        lines.append("  nothing: no numeric or key-like column")
    return lines

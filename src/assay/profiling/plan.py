"""The profile's first plan: every per-column statistic of a table as measures of ONE
aggregate plan, shaped by cost like a validation aggregate.

A profile is a list of measures (:mod:`assay.planner.measures`): a column's nulls are a
``count_if``, its min and max ``ColumnAgg``s, its approximate distinct count, quantiles,
string lengths and most frequent values ``ExprAggregate``s. Equal measures are one slot;
the scan slots are split into branches by :func:`assay.planner.cost.scan_branches` (the
object aggregates, which Spark runs without generated code, in a branch of their own), and
an exact distinct count (on request) is a group-by branch of the same plan. What needs a
second look once these values are known (histograms, candidate keys, frequency tables on
a server without ``approx_top_k``) is :mod:`assay.profiling.second`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from assay.ir.expr import (
    And,
    Col,
    Compare,
    Expr,
    HasText,
    IsNaN,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Parses,
)
from assay.ir.sources import Source
from assay.ir.values import Op
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions, group_partitions, scan_branches
from assay.planner.measures import (
    ColumnAgg,
    CountIf,
    ExprAggregate,
    GroupStats,
    Measure,
    RowCount,
    kind_of,
)
from assay.planner.plan import AggregatePlan, GroupAggregate, Slot

Family = Literal["integral", "fractional", "decimal", "string", "boolean", "temporal", "other"]
Frequencies = Literal["auto", "top_k", "group_by"]

NUMERIC: frozenset[str] = frozenset({"integral", "fractional", "decimal"})
CATEGORICAL: frozenset[str] = frozenset({"integral", "string", "boolean", "temporal"})
"""Families whose most frequent values are listed (Deequ lists strings, booleans and
numbers; fractional numbers are rarely categories, dates often are)."""
TABLED: frozenset[str] = CATEGORICAL | {"decimal"}
"""Families whose low-cardinality columns get a frequency table in plan 2 (decimals too:
prices, rates and quantities often have few values, and their quantiles are then exact
from the table)."""

_HEX = "[0-9a-fA-F]"
FORMATS: dict[str, str] = {
    "email": r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$",
    "uuid": f"^{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}$",
    "iso_date": r"^\d{4}-\d{2}-\d{2}$",
}
"""Recognised string formats: the Java regex a whole value must match."""

NUMBER = r"^(-|\+)? ?\d+((\.\d+)|((?:\.\d+)?[Ee][-+]?\d+))?$"
"""A number as Deequ's type detection reads one (its ``INTEGRAL`` and ``FRACTIONAL``
regexes, ``StatefulDataType``): a regex, where ``try_cast`` to a double would throw and
catch an exception inside Spark for every value that is not one (measured: the costliest
statistic of a text column)."""
PARSES = ("number", "date", "boolean")
"""What a string may be read as (the share of values that are)."""


BOOLEAN = "^(true|false)$"
"""A boolean as Deequ's type detection reads one: ``try_cast`` to a boolean, like the one
to a double, throws and catches an exception inside Spark for every other value (a text
column's branch several times slower)."""


def parse_test(c: Expr, what: str) -> Expr:
    """Whether a value reads as ``what``: a number by :data:`NUMBER`, a boolean by
    :data:`BOOLEAN` (Deequ's regexes), a date by Spark's ``try_cast`` (which parses
    without exceptions)."""
    if what == "number":
        return Matches(c, NUMBER)
    return Matches(c, BOOLEAN) if what == "boolean" else Parses(c, what)


@dataclass(frozen=True, slots=True)
class ProfileOptions:
    """What a profile computes. ``quantiles`` by ``percentile_approx`` with ``accuracy``
    (the rank of a returned value is within ``rows / accuracy`` of the exact rank);
    ``low_cardinality``: a column with at most this many approximate distinct values has
    its frequency table (Deequ's ``lowCardinalityHistogramThreshold``, 120); ``track``:
    the items ``approx_top_k`` tracks (exact while a column has fewer distinct values);
    ``key_pairs``: pairs of columns checked as candidate keys; ``frequencies``:
    ``top_k`` (``approx_top_k`` of every string, integral, boolean and date column in the
    first plan), ``group_by`` (a group-by per low-cardinality column in the second: also
    servers before Spark 4.1, which lack ``approx_top_k``) or ``auto``: ``group_by`` when
    a number column is profiled (its histogram needs the second plan anyway, and a
    group-by of one low-cardinality column costs less than a sketch over every row of
    every column), else ``top_k`` (the profile stays one plan)."""

    columns: tuple[str, ...] | None = None
    sample: float | None = None
    exact_distinct: bool = False
    quantiles: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
    accuracy: int = 10_000
    low_cardinality: int = 120
    track: int = 2048
    bins: int = 10
    key_pairs: int = 1
    unique_margin: float = 0.08
    frequencies: Frequencies = "auto"
    by_value: bool = True
    """Whether a text column's statistics of its values (min, max, lengths, empties, what
    its values parse as and their formats) wait for the second plan when one is certain:
    there they are computed once per distinct value from the column's frequency table
    when it has one (few distinct values), else by a scan branch (False: every statistic
    in the first plan, the plain form)."""
    planner: PlannerOptions = DEFAULT_OPTIONS


DEFAULT_PROFILE = ProfileOptions()


@dataclass(frozen=True, slots=True)
class ColumnPlan:
    """One profiled column: its Spark type, family, and each statistic's measure."""

    name: str
    type: str
    family: Family
    stats: tuple[tuple[str, Measure], ...]

    def measure(self, stat: str) -> Measure | None:
        """The measure of ``stat`` (None: not computed for this column)."""
        return dict(self.stats).get(stat)


@dataclass(frozen=True, slots=True)
class ProfilePlan:
    """The first plan of a profile: the columns and the ONE aggregate computing them."""

    columns: tuple[ColumnPlan, ...]
    aggregate: AggregatePlan
    options: ProfileOptions
    names: dict[Measure, str] = field(default_factory=dict)
    """Each measure's slot (output) name."""
    deferred: tuple[tuple[str, tuple[tuple[str, Measure], ...]], ...] = ()
    """The statistics left to the second plan, by column (:data:`BY_VALUE`)."""


_DECIMAL = re.compile(r"decimal\(\d+,\s*\d+\)")


def family_of(spark_type: str) -> Family:
    """The family of a Spark type's simple string (``bigint`` -> integral)."""
    t = spark_type.lower()
    if t in ("tinyint", "smallint", "int", "bigint", "byte", "short", "integer", "long"):
        return "integral"
    if t in ("float", "double", "real"):
        return "fractional"
    if _DECIMAL.fullmatch(t) or t == "decimal":
        return "decimal"
    if t == "string" or t.startswith(("varchar", "char")):
        return "string"
    if t == "boolean":
        return "boolean"
    if t in ("date", "timestamp", "timestamp_ntz", "timestamp_ltz"):
        return "temporal"
    return "other"


def column_stats(
    name: str, family: Family, options: ProfileOptions
) -> tuple[tuple[str, Measure], ...]:
    """The statistics of one column, by family (docs/profile.md lists them)."""
    c = Col(name)
    stats: list[tuple[str, Measure]] = [("nulls", CountIf(IsNull(c)))]
    if family == "other":
        return tuple(stats)
    stats.append(("distinct_approx", ExprAggregate("approx_count_distinct", c)))
    kept = Not(IsNaN(c)) if family == "fractional" else None
    if family == "fractional":
        stats.append(("nan", CountIf(IsNaN(c))))
    stats += [("min", ColumnAgg("min", name, kept)), ("max", ColumnAgg("max", name, kept))]
    if family in NUMERIC:
        stats += [(fn, ColumnAgg(fn, name, kept)) for fn in ("sum", "avg", "stddev")]
        args = (tuple(options.quantiles), options.accuracy)
        stats.append(("quantiles", ExprAggregate("percentile_approx", c, args, kept)))
    if family == "string":
        stats += _string_stats(c)
    if family in CATEGORICAL and options.frequencies == "top_k":
        k = options.low_cardinality + 1  # a null is one of the items
        stats.append(("top", ExprAggregate("approx_top_k", c, (k, max(options.track, k)))))
    return tuple(stats)


BY_VALUE: dict[str, frozenset[str]] = {
    "string": frozenset(
        {"min", "max", "length_min", "length_max", "length_avg", "empty"}
        | {f"parses_{what}" for what in PARSES}
        | {f"format_{fmt}" for fmt in FORMATS}
    ),
    "integral": frozenset({"quantiles"}),
    "decimal": frozenset({"quantiles"}),
}
"""By family, the statistics that are functions of a column's distinct values and their
counts: with few distinct values, computed once per value rather than once per row (a
text column's min, max, lengths and tests; a whole number's quantiles)."""


def _string_stats(c: Col) -> list[tuple[str, Measure]]:
    length = Length(c)
    stats: list[tuple[str, Measure]] = [
        (f"length_{fn}", ExprAggregate(fn, length)) for fn in ("min", "max", "avg")
    ]
    stats.append(("empty", CountIf(Compare(Op.EQ, c, Lit("")))))
    stats += [(f"parses_{what}", CountIf(parse_test(c, what))) for what in PARSES]
    stats += [(f"format_{fmt}", CountIf(format_test(c, fmt))) for fmt in FORMATS]
    return stats


def format_test(c: Expr, fmt: str) -> Expr:
    """A value has format ``fmt`` (:data:`FORMATS`): a cheap test first (an ``@``, the
    length), so the regex runs only on the values that may match."""
    pattern = FORMATS[fmt]
    if fmt == "email":
        guard: Expr = HasText(c, "@")
    elif fmt == "uuid":
        guard = Compare(Op.EQ, Length(c), Lit(36))
    else:
        guard = Compare(Op.EQ, Length(c), Lit(10))
    return And((guard, Matches(c, pattern)))


def plan_profile(
    schema: Iterable[tuple[str, str]],
    source: Source,
    options: ProfileOptions = DEFAULT_PROFILE,
    size_bytes: int | None = None,
    columnar: bool | None = None,
) -> ProfilePlan:
    """The first plan of a profile of ``schema``'s columns (``options.columns`` only, in
    schema order), over ``source`` whose size and columnarity shape the branches."""
    wanted = None if options.columns is None else {c.lower() for c in options.columns}
    schema = [(n, t) for n, t in schema if wanted is None or n.lower() in wanted]
    if options.frequencies == "auto":
        numeric = any(family_of(t) in NUMERIC for _, t in schema)
        options = replace(options, frequencies="group_by" if numeric else "top_k")
    columns = tuple(
        ColumnPlan(name, kind, family_of(kind), column_stats(name, family_of(kind), options))
        for name, kind in schema
    )
    deferred = _deferred(columns, options)
    later = {m for _, stats in deferred for _, m in stats}
    measures: dict[Measure, str] = {RowCount(): "p000_rows"}
    for column in columns:
        for _, m in column.stats:
            if m not in measures:
                measures[m] = f"p{len(measures):03d}_{_suffix(kind_of(m).suffix(m))}"
    slots = tuple(Slot(name, m, ()) for m, name in measures.items() if m not in later)
    scans = scan_branches(slots, source, options.planner, size_bytes, columnar)
    groups: tuple[GroupAggregate, ...] = ()
    if options.exact_distinct:
        parts = group_partitions(size_bytes, options.planner)
        groups = tuple(
            GroupAggregate((c.name,), Slot(f"g{i:03d}", GroupStats((c.name,)), ()), False, parts)
            for i, c in enumerate(columns)
            if c.family != "other"
        )
        measures.update({g.slot.measure: g.slot.name for g in groups})
    return ProfilePlan(columns, AggregatePlan(scans, groups), options, measures, deferred)


def _deferred(
    columns: tuple[ColumnPlan, ...], options: ProfileOptions
) -> tuple[tuple[str, tuple[tuple[str, Measure], ...]], ...]:
    """The columns' :data:`BY_VALUE` statistics, when the second plan is certain (a
    numeric column's histogram, and frequency tables by group-by) and ``by_value``."""
    certain = any(c.family in NUMERIC for c in columns) and options.frequencies == "group_by"
    if not (options.by_value and certain):
        return ()
    return tuple(
        (c.name, tuple((stat, m) for stat, m in c.stats if stat in BY_VALUE[c.family]))
        for c in columns
        if c.family in BY_VALUE
    )


def _suffix(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def render_profile(plan: ProfilePlan) -> str:
    """The first plan as text: its branches and their measures."""
    lines = [
        f"profile of {len(plan.columns)} columns: plan 1, {len(plan.aggregate.slots)} measures "
        f"in {len(plan.aggregate.scans)} scan branches"
        + (f" and {len(plan.aggregate.groups)} group-bys" if plan.aggregate.groups else "")
        + " (one Spark plan)"
    ]
    for i, scan in enumerate(plan.aggregate.scans):
        columns = sorted({c for s in scan.slots for c in kind_of(s.measure).columns(s.measure)})
        lines.append(f"  scan {i}: {len(scan.slots)} outputs reading {', '.join(columns) or '-'}")
        lines += [f"    {s.name} = {kind_of(s.measure).render(s.measure)}" for s in scan.slots]
    for g in plan.aggregate.groups:
        lines.append(f"  group-by {', '.join(g.columns)}: exact distinct count")
    if plan.deferred:
        names = ", ".join(name for name, _ in plan.deferred)
        lines.append(
            f"  left to plan 2: the statistics of the values of {names} (of text: min, max,"
            " lengths, empties, parses, formats; of whole numbers: quantiles)"
        )
    return "\n".join(lines)

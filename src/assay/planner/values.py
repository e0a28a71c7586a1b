"""Tests run once per distinct value: the counts of a column with few values, answered
by grouping its rows by value (pure).

A regex (``rlike``) or a parse (``try_cast``) costs Spark a Java ``String`` and an engine
run on every row. When a column holds few distinct values, the same count costs a hash
per row: the rows grouped by the column's value (a hash aggregate with partial
aggregation, so only a few groups per task cross the shuffle), each test evaluated once
per group, and the rows of the failing values summed::

    count_if(p(c))  =  sum(n) over the groups (v, n) of GROUP BY c where p(v)

This is exact for a deterministic test of the value alone: every row of a group holds
the same value, so gets the same answer; a null is a group of its own, and a value the
test answers null for counts no row, as in ``count_if``. A test mentioning anything but
the column (another column, a rule's filter, SQL text the config wrote) stays in the
scan. So does a column whose grouping would merge values a test tells apart: only a
plain ``string`` column qualifies (a collated string groups "A" with "a"; floating-point
group-bys merge -0.0 with 0.0 and every NaN, which a regex on their text tells apart).

When it pays (the cost model; measured on TPC-H SF1 ``lineitem``, 6 million rows, 2
cores, each query alone and warm): three regexes on ``l_shipmode`` (7 values) 0.81 s
in the scan against 0.30 s grouped by value, two on ``l_shipinstruct`` (4 values) 0.77
s against 0.27 s; the plain read of the column is 0.20 s. The group-by is a cost of its
own, so a column qualifies when one of its tests is expensive (a regex, a parse) and the
suite bounds its distinct values (a rule asserting membership in a set of at most
``PlannerOptions.value_max`` values: ``accepted_values``, a regex of a finite language),
or when the table groups by that column anyway (a distinct count of it): then every
count of the column moves to the one group-by (null counts, lengths and memberships
ride along for free, and the scans no longer read the column). A bound the data breaks
(an ``accepted_values`` rule failing on millions of distinct values) costs time, never
a wrong answer. Such columns share one group-by (their combinations of values) while
their bounds multiply to at most ``value_max`` (:func:`joined`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from assay.ir.expr import (
    Coalesce,
    Col,
    Expr,
    InSet,
    Matches,
    Not,
    Or,
    Parses,
    columns_of,
    walk,
)
from assay.ir.rules import RowCheck
from assay.ir.suite import Table
from assay.planner.measures import CountIf, GroupStats, Measure, simplified
from assay.planner.plan import Slot, ValueAggregate, expects_unique, value_column

PLAIN_STRING = "string"
"""The Spark type (``simpleString``) whose group-by keeps every two different values
apart: binary collation."""


def value_branches(
    slots: Sequence[Slot],
    table: Table,
    types: Mapping[str, str] | None,
    value_max: int,
    join: bool = True,
) -> tuple[tuple[Slot, ...], tuple[ValueAggregate, ...]]:
    """``(the slots left to the scans and group-bys, the value branches)``.

    ``types`` maps lower-case column names to Spark type strings (None: unknown, as in an
    ``explain`` without a server: every column is taken for a plain string). With
    ``join``, columns share a branch as :func:`joined` packs them."""
    bounds = declared_values(table)
    by_column: dict[str, list[Slot]] = {}
    for slot in slots:
        column = _value_column(slot, table)
        if column is not None and plain_string(column, types):
            by_column.setdefault(column, []).append(slot)
    chosen = {c: group for c, group in by_column.items() if _pays(group, bounds.get(c), value_max)}
    packs: list[tuple[str, ...]]
    packs = joined(list(chosen), bounds, value_max) if join else [(c,) for c in chosen]
    if join:
        others = [c for c, group in by_column.items() if c not in chosen and _counts(group)]
        packs = ridden(packs, others, bounds, value_max)
        chosen.update({c: by_column[c] for pack in packs for c in pack if c not in chosen})
    moved = {s.name for group in chosen.values() for s in group}
    rest = tuple(s for s in slots if s.name not in moved)
    return rest, tuple(
        ValueAggregate(columns, tuple(s for c in columns for s in chosen[c])) for columns in packs
    )


def joined(
    columns: Sequence[str], bounds: Mapping[str, int], value_max: int
) -> list[tuple[str, ...]]:
    """``columns`` packed into shared group-bys: a column with a declared bound joins the
    first pack whose bounds, multiplied with its own, stay within ``value_max`` (the
    combinations a joint group-by can meet, if the data keeps the suite's word); fewest
    values first. A column without a bound (grouped for a distinct count only) stays
    alone. Measured on TPC-H SF1 (6 M rows, 2 cores, warm): ``l_returnflag``,
    ``l_shipmode`` and ``l_shipinstruct`` grouped alone 0.40 + 0.44 + 0.40 s, together
    0.77 s: one scan and one hash of the three values per row.

    >>> joined(["d", "a", "b", "c"], {"a": 3, "b": 8, "c": 5000}, 10_000)
    [('d',), ('a', 'b'), ('c',)]
    >>> joined(["a", "b", "c"], {"a": 3, "b": 8, "c": 5}, 10_000)
    [('a', 'c', 'b')]
    """
    order = {c: i for i, c in enumerate(columns)}
    packs: list[tuple[list[str], int]] = []
    alone: list[str] = []
    for column in sorted(columns, key=lambda c: (bounds.get(c, value_max + 1), order[c])):
        bound = bounds.get(column)
        if bound is None:
            alone.append(column)
            continue
        for k, (pack, product) in enumerate(packs):
            if product * bound <= value_max:
                packs[k] = ([*pack, column], product * bound)
                break
        else:
            packs.append(([column], bound))
    found = [tuple(p) for p, _ in packs] + [(c,) for c in alone]
    return sorted(found, key=lambda pack: min(order[c] for c in pack))  # as the rules come


def ridden(
    packs: list[tuple[str, ...]],
    columns: Sequence[str],
    bounds: Mapping[str, int],
    value_max: int,
) -> list[tuple[str, ...]]:
    """``packs`` with each of ``columns`` that has a declared bound added to the first pack
    of bounded columns whose combinations, multiplied by its bound, stay within
    ``value_max``: a column whose tests are cheap (``IN`` lists, lengths, null tests) does
    not pay for a group-by of its own, but rides along one grouped anyway for a hash of
    its value per row, where each of its tests on every row of the scan compared bytes
    (a per-branch profile of TPC-H SF1, 100 rules: ``l_linestatus``'s four ``IN`` lists
    and its length were 34% of its scan's JVM samples, in ``UTF8String.equals``).

    >>> ridden([("a", "b")], ["c", "d", "e"], {"a": 3, "b": 8, "c": 2, "d": 500}, 1_000)
    [('a', 'b', 'c')]
    >>> ridden([("x",)], ["c"], {"c": 2}, 1_000)
    [('x',)]
    """
    grown = [list(p) for p in packs]
    for column in columns:
        bound = bounds.get(column)
        if bound is None:
            continue
        for pack in grown:
            product = 1
            for c in pack:
                product *= bounds.get(c, value_max + 1)
            if product * bound <= value_max:
                pack.append(column)
                break
    return [tuple(p) for p in grown]


def declared_values(table: Table) -> dict[str, int]:
    """Per column, the fewest values a rule of the table asserts it takes (a row fails
    when its value is outside a set): a bound on its distinct values, as the suite
    states it (a hint for cost; the data may break it).

    >>> from assay.ir.expr import IsNull
    >>> from assay.ir.origin import Origin
    >>> from assay.ir.rules import Rule
    >>> from assay.ir.suite import PathSource
    >>> fails = Or((IsNull(Col("c")), Not(InSet(Col("c"), ("a", "b")))))
    >>> here = Origin("c.yaml", "tables[0]")
    >>> rule = Rule("accepted_values", RowCheck(fails), here, ("c",))
    >>> declared_values(Table("t", PathSource("parquet", ("t.parquet",)), (rule,), here))
    {'c': 2}
    """
    found: dict[str, int] = {}
    for rule in table.rules:
        if rule.filter is not None or not isinstance(rule.check, RowCheck):
            continue
        failing = simplified(rule.check.failing)
        if len(columns_of(failing)) != 1:
            continue
        for column, size in _asserted_sets(failing, negated=False):
            found[column] = min(size, found.get(column, size))
    return found


def _asserted_sets(expr: Expr, negated: bool) -> Iterator[tuple[str, int]]:
    """``(column, size)`` of each set a failing predicate asserts membership in: an
    ``IN`` under an odd number of negations, reached through OR and COALESCE only (a
    row fails when its value is outside the set, whatever else)."""
    if isinstance(expr, Not):
        yield from _asserted_sets(expr.item, not negated)
    elif isinstance(expr, InSet) and negated and isinstance(expr.item, Col):
        yield expr.item.name, len(expr.values)
    elif isinstance(expr, (Or, Coalesce)) and not negated:
        for item in expr.items:
            yield from _asserted_sets(item, negated)


def _value_column(slot: Slot, table: Table) -> str | None:
    """The column a slot can be answered from by value, if any (:func:`value_column`),
    never a uniqueness check's groups (it expects every value distinct)."""
    if isinstance(slot.measure, GroupStats) and expects_unique(table, slot):
        return None
    return value_column(slot.measure)


def plain_string(column: str, types: Mapping[str, str] | None) -> bool:
    """Whether ``column`` is a string without collation (``types`` None: taken for one)."""
    return types is None or types.get(column.lower()) == PLAIN_STRING


def _counts(group: Sequence[Slot]) -> bool:
    """Whether the column's slots are counts only (none a group's statistics)."""
    return all(isinstance(s.measure, CountIf) for s in group)


def _pays(group: Sequence[Slot], bound: int | None, value_max: int) -> bool:
    """Whether grouping the column by value costs less than its tests on every row."""
    counts = [s.measure for s in group if isinstance(s.measure, CountIf)]
    if not counts:
        return False
    if any(isinstance(s.measure, GroupStats) for s in group):
        return True  # the column is grouped anyway: its counts ride along
    return bound is not None and bound <= value_max and any(map(_expensive, counts))


def _expensive(measure: Measure) -> bool:
    assert isinstance(measure, CountIf)
    return any(isinstance(n, (Matches, Parses)) for n in walk(measure.predicate))

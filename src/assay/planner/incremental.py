"""An incremental table's measures (docs/incremental.md), pure: which rules can be judged
on the whole table from the states of its partitions, the partial values each measure
keeps per partition, and their merge.

A measure is mergeable exactly when the whole table's value is a function of its
partitions' partial values: counts (summed), ``min`` and ``max`` (Spark's order: NaN above
every number), ``sum`` (the sum and the non-null count: no value without one), ``avg``
(sum and count; a DECIMAL column's mean rounded as Spark rounds it), ``stddev`` (count,
mean and M2, merged by Chan et al.'s parallel formula) and the groups of a key holding the
partition column (no group spans two partitions). A distinct count of one other column
is estimated from HLL sketches, and says so (``exact: false``, its bounds). Any other
measure (uniqueness of other keys, percentiles, drift, references, SQL) is refused at
its rule's line: its partitions' values do not add up to the table's, and assay never
approximates silently.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from assay.ir.metrics import GroupMetric
from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.origin import Origin
from assay.ir.rules import MetricCheck, Rule, SchemaCheck
from assay.ir.suite import Table
from assay.planner.measures import (
    ColumnAgg,
    CountIf,
    GroupStats,
    Measure,
    RowCount,
    kind_of,
    measures_of,
)

Partial = list[Any]
"""A measure's partial values over one partition (:func:`partial_names`)."""

PARTIALS: dict[str, tuple[str, ...]] = {
    "count": ("n",),
    "min": ("v",),
    "max": ("v",),
    "sum": ("s", "n"),
    "avg": ("s", "n"),
    "stddev": ("n", "mean", "m2"),
    "groups": ("groups", "rows", "dup_rows", "unique_rows"),
    "hll": ("sketch",),
}
"""The partial values each mergeable measure keeps per partition."""
HLL_LG_K = 12
"""The HLL sketches' log2 of buckets (Spark's ``hll_sketch_agg`` default): a relative
standard error of 1.04 / sqrt(2^12), about 1.6%."""
SKETCHED_TEXT = "\x00"
"""What a text (or binary) value ends in when it is sketched: Spark's ``hll_sketch_agg``
passes over the empty string, which an exact distinct count counts. A state's digest
names it, so a sketch of the texts as they were is not merged with these."""
HLL_DEVIATIONS = 2
"""The bounds a sketched value states: 2 standard deviations (about 95.4%)."""

_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")
_EXACT = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)
"""Room for any sum of DECIMAL(38, s) values a table can hold: additions stay exact."""


def partial_kind(measure: Measure, by: str = "") -> str | None:
    """The measure's :data:`PARTIALS` kind on a table partitioned by ``by``, or None when
    it cannot be merged. The groups of a key holding the partition column add up; those
    of one column (nulls left out) are counted by an HLL sketch, approximately."""
    if isinstance(measure, (RowCount, CountIf)):
        return "count"
    if isinstance(measure, ColumnAgg):
        return measure.fn
    if isinstance(measure, GroupStats):
        if by.lower() in _lower(measure.columns):
            return "groups"
        return "hll" if len(measure.columns) == 1 and measure.nulls == "any" else None
    return None


def refusal(rule: Rule, by: str = "") -> str | None:
    """Why the rule cannot be judged on an incremental table partitioned by ``by`` (None:
    it can)."""
    if isinstance(rule.check, (SchemaCheck, SchemaChangeCheck)):
        return None
    try:
        measures = measures_of(rule)
    except TypeError:
        measures = ()
    if not measures:
        return "it is not computed from measures of the table's rows (SQL, a validator function)"
    for measure in measures:
        kind = partial_kind(measure, by)
        if isinstance(measure, GroupStats) and kind != "groups":
            spans = f"its groups of equal ({', '.join(measure.columns)}) may span partitions"
            if not _distinct_only(rule):
                return (
                    f"{spans}: uniqueness and duplicates merge exactly only when the key"
                    f" holds the partition column {by}"
                )
            if kind is None:
                return (
                    f"{spans}, and only one column's distinct values (nulls left out) are"
                    " sketched yet"
                )
        if kind is None:
            name = type(measure).__name__
            return (
                f"its {name} measure is not mergeable across partitions exactly"
                " (percentiles, drift, frequencies, references, freshness and per-group"
                " metrics are not merged yet), and assay does not approximate silently"
            )
    return None


Refusal = tuple[str, Origin, str | None]
"""A config error: its message, place and hint (the executor raises it)."""


def refusals(table: Table, schema: Sequence[tuple[str, str]] = ()) -> list[Refusal]:
    """Every rule (and setting) of an incremental table that cannot be judged from its
    partitions' states, at its place, and a partition column ``schema`` lacks; none for a
    table that is not incremental."""
    spec = table.incremental
    if spec is None:
        said = (
            "scope: new: the rule's table is not incremental (it has no new data of its"
            " own): add 'incremental: {by: <column>}' to the table, or remove 'scope'"
        )
        return [(said, r.place("scope"), None) for r in table.rules if r.scope == "new"]
    problems: list[Refusal] = []
    if schema and spec.by.lower() not in column_types(schema):
        columns = ", ".join(name for name, _ in schema)
        said = f"incremental: by: the table has no column {spec.by} (its columns: {columns})"
        problems.append((said, spec.origin.child("by"), None))
    if table.outputs:
        said = ("incremental: a table writing outputs (failing rows, reports) is not"
                " incremental yet: its outputs would read the whole table")  # fmt: skip
        problems.append((said, spec.origin, None))
    for rule in table.rules:
        why = refusal(rule, spec.by)
        if why is not None:
            said = f"{rule.kind}: this rule cannot be judged on an incremental table"
            hint = "validate it in a table that is not incremental (the same source)"
            problems.append((f"{said} (by {spec.by}): {why}", rule.origin, hint))
    return problems


def _distinct_only(rule: Rule) -> bool:
    """Whether the rule reads only the number of groups (a distinct count), which a
    sketch estimates."""
    check = rule.check
    return (
        isinstance(check, MetricCheck)
        and isinstance(check.metric, GroupMetric)
        and check.metric.stat == "distinct_count"
        and not check.group_by
    )


def sketched(rule: Rule, by: str) -> bool:
    """Whether the rule's value is estimated by a sketch (``exact: false``)."""
    return refusal(rule, by) is None and any(partial_kind(m, by) == "hll" for m in _measures(rule))


def table_measures(rules: Iterable[Rule], by: str) -> tuple[Measure, ...]:
    """Every measure the rules (of a table partitioned by ``by``) are judged on, once
    each, the row count first."""
    found: dict[Measure, None] = {RowCount(): None}
    for rule in rules:
        if refusal(rule, by) is None:
            found.update(dict.fromkeys(measures_of(rule)))
    return tuple(found)


def empty_partial(measure: Measure, by: str) -> Partial:
    """A measure's partial values over a partition without rows."""
    kind = partial_kind(measure, by)
    assert kind is not None
    empty: dict[str, Partial] = {"count": [0], "min": [None], "max": [None], "sum": [None, 0],
                                 "avg": [None, 0], "stddev": [0, None, None],
                                 "groups": [0, None, None, 0], "hll": [None]}  # fmt: skip
    return empty[kind]


def merged(
    measure: Measure, partials: Sequence[Partial], column_type: str | None = None, by: str = ""
) -> object:
    """The whole table's value of ``measure`` from its partitions' ``partials``;
    ``column_type``: the Spark type of an ``avg``'s column (a DECIMAL mean is rounded to
    Spark's scale); ``by``: the partition column."""
    kind = partial_kind(measure, by)
    if kind == "count":
        return sum(int(p[0] or 0) for p in partials)
    values = [p for p in partials if p is not None]
    if kind in ("min", "max"):
        present = [p[0] for p in values if p[0] is not None]
        if not present:
            return None
        return (max if kind == "max" else min)(present, key=_spark_order)
    if kind in ("sum", "avg"):
        counted = [p for p in values if p[1]]
        n = sum(int(p[1]) for p in counted)
        if n == 0:
            return None
        total = _exact_sum(p[0] for p in counted)
        return total if kind == "sum" else _mean(total, n, column_type)
    if kind == "stddev":
        return _stddev(values)
    if kind == "hll":
        return _hll([p[0] for p in values])
    if kind == "groups":  # no group spans two partitions: each statistic adds up
        summed = [_sum_present(p[i] for p in values) for i in range(4)]
        return {"groups": summed[0] or 0, "rows": summed[1], "dup_rows": summed[2],
                "unique_rows": summed[3] or 0}  # fmt: skip
    raise TypeError(f"no merge for measure {type(measure).__name__}")


def _hll(sketches: Sequence[Any]) -> dict[str, Any]:
    """The distinct values of the partitions' HLL sketches (Spark's ``hll_sketch_agg``,
    Apache DataSketches' format) unioned: the estimate as the groups, and its bounds."""
    from datasketches import hll_sketch, hll_union

    union = hll_union(HLL_LG_K)
    for sketch in sketches:
        if sketch is not None:
            union.update(hll_sketch.deserialize(bytes(sketch)))
    result = _out_of_order(union.get_result())
    bounds = {
        "lower": result.get_lower_bound(HLL_DEVIATIONS),
        "upper": result.get_upper_bound(HLL_DEVIATIONS),
        "estimate": result.get_estimate(),
        "sketch": f"HLL (lgK {HLL_LG_K})",
        "deviations": HLL_DEVIATIONS,
    }
    groups = round(result.get_estimate())
    return {"groups": groups, "rows": None, "dup_rows": None, "unique_rows": None,
            "estimate": bounds}  # fmt: skip


_HLL_MODE, _OUT_OF_ORDER = 2, 16
"""An HLL sketch's image (Apache DataSketches' format): its mode in byte 7's low two bits
(2: HLL, past the exact list and set of a few hundred values), its out-of-order flag in
byte 5's bit 4."""


def _out_of_order(result: Any) -> Any:
    """The union's result read as out of order, as DataSketches reads any union of two
    sketches in HLL mode: its estimate and bounds (the composite estimator) are then of
    its registers alone, which hold each bucket's greatest value whatever the order the
    values came in. A sketch built in one stream (one partition read by one task, or the
    union of sketches of a few hundred values each, which adds their values one by one)
    keeps the HIP estimator instead, which depends on that order: the same values read in
    another order (another shape of the aggregate, another split into tasks) would be
    estimated a little differently. Below HLL mode the values are listed and counted."""
    from datasketches import hll_sketch

    image = bytearray(result.serialize_compact())
    if image[7] & 3 != _HLL_MODE:
        return result
    image[5] |= _OUT_OF_ORDER
    return hll_sketch.deserialize(bytes(image))


def _sum_present(values: Iterable[Any]) -> int | None:
    """The sum of the values that are not null (None when none is: Spark's ``sum``)."""
    present = [int(v) for v in values if v is not None]
    return sum(present) if present else None


def _spark_order(value: Any) -> tuple[int, Any]:
    """Spark's order of a column's values: NaN above every other number."""
    if isinstance(value, float) and math.isnan(value):
        return (1, 0.0)
    return (0, value)


def _exact_sum(values: Iterable[Any]) -> Any:
    total: Any = 0
    for value in values:
        if isinstance(value, Decimal):
            total = _EXACT.add(Decimal(total) if not isinstance(total, Decimal) else total, value)
        else:
            total = total + value
    return total


def _mean(total: Any, n: int, column_type: str | None) -> object:
    """``total / n`` as Spark's ``avg`` gives it: a DECIMAL(p, s) column's mean is a
    DECIMAL with scale min(s + 4, 38), rounded half up; any other column's a double."""
    match = _DECIMAL.fullmatch(column_type or "")
    if match is None or not isinstance(total, Decimal):
        return float(total) / n
    scale = min(int(match.group(2)) + 4, 38)
    return _EXACT.divide(total, Decimal(n)).quantize(Decimal(1).scaleb(-scale), context=_EXACT)


def _stddev(partials: Sequence[Partial]) -> float | None:
    """The sample standard deviation from each partition's (n, mean, M2), merged by Chan
    et al.'s formula; no value under two rows (Spark's ``stddev_samp``)."""
    n, mean, m2 = 0, 0.0, 0.0
    for part in partials:
        nb = int(part[0] or 0)
        if nb == 0:
            continue
        mb, m2b = float(part[1]), float(part[2])
        total = n + nb
        delta = mb - mean
        mean += delta * nb / total
        m2 += m2b + delta * delta * n * nb / total
        n = total
    if n < 2:
        return None
    return math.sqrt(m2 / (n - 1))


def column_types(schema: Sequence[tuple[str, str]]) -> Mapping[str, str]:
    """A schema's types by lower-cased column name."""
    return {name.lower(): kind for name, kind in schema}


MERGES = {
    "count": "summed",
    "min": "the least (NaN above every number)",
    "max": "the greatest (NaN above every number)",
    "sum": "sum and count, summed exactly",
    "avg": "sum and count, summed exactly, then divided",
    "stddev": "count, mean and M2, merged by Chan's formula",
    "groups": "groups, rows, rows in groups of 2+ and of 1, summed (the key holds the"
    " partition column: no group spans two partitions)",
    "hll": f"an HLL sketch (lgK {HLL_LG_K}), unioned: an estimate, exact: false",
}
"""How each kind of partial values is merged, in ``explain``'s words."""


def render_incremental(table: Table) -> list[str]:
    """``explain``'s lines for an incremental table: the plans a run submits, what it
    scans, and what each measure keeps per partition and how it is merged."""
    spec = table.incremental
    assert spec is not None
    by = spec.by
    lines = [
        f"  incremental by {by} (docs/incremental.md)",
        "  spark plans: 1 (the partitions' fingerprints: each file's path, size and time from"
        " the file listing; a hash of the rows of a source without files)",
        f"    +1 aggregate plan grouped by {by} over the partitions new or changed since the"
        " stored states, or without a state for a rule (every partition with --full)",
        "    +1 detail plan if a row-level rule fails on the partitions scanned (its samples)",
        "  merged with the stored states of the other partitions (deleted ones dropped):",
    ]
    rules = list(enumerate(table.rules))
    for index, measure in enumerate(table_measures(table.rules, by)):
        kind = partial_kind(measure, by)
        assert kind is not None
        users = [i for i, r in rules if refusal(r, by) is None and measure in _measures(r)]
        used = " ".join(f"rules[{i}]" for i in users) or "the table's row count"
        lines.append(f"    m{index} {kind_of(measure).render(measure)}: {MERGES[kind]}  {used}")
    new = [f"rules[{i}]" for i, r in rules if r.scope == "new"]
    if new:
        lines.append(f"  judged on the partitions scanned alone (scope: new): {' '.join(new)}")
    return lines


def incremental_json(table: Table) -> dict[str, Any]:
    """:func:`render_incremental` as JSON values (``assay explain --format json``'s
    ``plan.incremental``): the partition column, the plans a run submits, which
    partitions it scans and which states it merges, and each measure's partial values and
    merge with the rules judged on it (``rules``: indices; ``exact``: false for a sketch)."""
    spec = table.incremental
    assert spec is not None
    by, rules = spec.by, list(enumerate(table.rules))
    measures = []
    for index, measure in enumerate(table_measures(table.rules, by)):
        kind = partial_kind(measure, by)
        assert kind is not None
        users = [i for i, r in rules if refusal(r, by) is None and measure in _measures(r)]
        measures.append({"name": f"m{index}", "measure": kind_of(measure).render(measure),
                         "partials": list(PARTIALS[kind]), "merge": MERGES[kind],
                         "exact": kind != "hll", "rules": users})  # fmt: skip
    return {
        "by": by,
        "plans": {
            "fingerprint": 1,
            "aggregate": "when a partition is scanned",
            "detail": "when a row-level rule fails on the partitions scanned",
        },  # fmt: skip
        "scans": "the partitions new, changed (their fingerprint), or without a state for a"
        " rule (its digest) since the stored states; every partition with --full",
        "merges": "each other partition's newest stored state (its fingerprint's run, since"
        " the table's newest baseline); the deleted ones dropped",
        "measures": measures,
        "scope_new": [i for i, r in rules if r.scope == "new"],
    }


def _measures(rule: Rule) -> tuple[Measure, ...]:
    try:
        return measures_of(rule)
    except TypeError:
        return ()


def _lower(columns: Iterable[str]) -> set[str]:
    return {c.lower() for c in columns}

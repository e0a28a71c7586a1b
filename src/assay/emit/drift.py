"""The drift rules' branch of a referenced source (and filter) as a Spark Connect
DataFrame: every drifting column of the table and of the reference stacked as (column,
value) rows from ONE read of each, unioned and grouped by (column, value), then binned
per rule (and, for KS and Wasserstein, each column's running counts in value order) in
one line of operators, so that each source is scanned once for all the branch's rules
(:mod:`assay.planner.drift` says what and why).

Every function here is in Spark 4.0 (``count_if``, ``isnan``, ``floor``, ``least``,
``lead``, ``explode``, windows, ``collect_list``, ``sort_array``), the oldest server assay supports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from assay.emit.columns import col, column
from assay.planner.drift import (
    INFINITE_BIN,
    NAN_BIN,
    NULL_BIN,
    Distribution,
    Sketch,
    SketchCounts,
    ValueCounts,
)
from assay.planner.plan import Slot

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_V, _OURS, _T, _R = "_assay_v", "_assay_s", "_assay_t", "_assay_r"
_LOW, _HIGH, _NT, _NR = "_assay_lo", "_assay_hi", "_assay_nt", "_assay_nr"
_FINITE, _BIN, _FIRST = "_assay_f", "_assay_i", "_assay_b"
_CT, _CR, _NEXT, _DIFF, _GAP = "_assay_ct", "_assay_cr", "_assay_nx", "_assay_d", "_assay_w"
_KEY, _SLOT, _NB, _EACH = "_assay_k", "_assay_n", "_assay_nb", "_assay_e"

Key = tuple[str, str, bool]
"""What a distribution's groups depend on: its column, the referenced column, and
whether the values are numbers (cast to double) or categories (as they are)."""


def _key(m: Distribution) -> Key:
    return (m.column, m.reference_column, m.bins is not None)


def drift_frame(df: DataFrame, slots: Sequence[Slot], referenced: DataFrame) -> DataFrame:
    """One row over the table's rows ``df`` (where the slots' one filter holds) and the
    ``referenced`` source's: every slot's outputs (``<name>_bins``, ``_low``, ``_high``,
    ``_ks``, ``_wasserstein``).

    Each side is read once for every slot: its drifting columns stacked as (key,
    value) rows (one ``explode`` of a row's values), numbers in one double column, each
    category in a column of its own (its type), the others null; the union grouped by
    (key, value); the range and running counts windows partitioned by key; then each
    group once per slot of its key, binned by that slot's bins, summed per (slot, bin),
    and the slots' outputs read apart in one aggregate."""
    measures = [_distribution(s) for s in slots]
    where = measures[0].where
    assert all(m.where == where for m in measures)
    keys: dict[Key, int] = {}
    for m in measures:
        keys.setdefault(_key(m), len(keys))
    categories = [k for k in keys if not k[2]]
    rows = df.where(column(where)) if where is not None else df
    union = _stacked(rows, keys, categories, 0, True).union(
        _stacked(referenced, keys, categories, 1, False)
    )
    values = [_V, *(f"_assay_c{j}" for j in range(len(categories)))]
    groups = union.groupBy(_KEY, *values).agg(
        F.count_if(F.col(_OURS)).alias(_T), F.count_if(~F.col(_OURS)).alias(_R)
    )
    ordered = any(m.ordered for m in measures)
    ranged = _ranged(groups, ordered)
    of_key: dict[int, list[int]] = {}
    for n, m in enumerate(measures):
        of_key.setdefault(keys[_key(m)], []).append(n)
    each = F.explode(_case(F.col(_KEY), {k: F.array(*map(F.lit, v)) for k, v in of_key.items()}))
    bins = {n: F.lit(m.bins) for n, m in enumerate(measures) if m.bins is not None}
    spread = ranged.withColumn(_SLOT, each).withColumn(_NB, _case(F.col(_SLOT), bins))
    binned = _binned(spread, ordered)
    per_bin = binned.groupBy(_SLOT, _BIN, *values[1:]).agg(
        F.sum(_T).alias(_T),
        F.sum(_R).alias(_R),
        F.max(_DIFF).alias(_DIFF),
        F.sum(_GAP).alias(_GAP),
        F.first(_LOW).alias(_LOW),
        F.first(_HIGH).alias(_HIGH),
    )
    value_of = {k: f"_assay_c{j}" for j, k in enumerate(categories)}
    outputs = [
        c
        for n, (s, m) in enumerate(zip(slots, measures, strict=True))
        for c in _outputs(s.name, n, m, value_of.get(_key(m)))
    ]
    return per_bin.agg(*outputs)


def _distribution(slot: Slot) -> Distribution:
    assert isinstance(slot.measure, Distribution)
    return slot.measure


def _case(key: Column, values: Mapping[int, Column]) -> Column:
    """``values[key]`` (null for a key not among them)."""
    found: Any = F
    for k, v in values.items():
        found = found.when(key == F.lit(k), v)
    return found if values else F.lit(None).cast("int")


def _stacked(
    frame: DataFrame, keys: Mapping[Key, int], categories: Sequence[Key], side: int, ours: bool
) -> DataFrame:
    """``frame``'s values of every key as (``_assay_k``, ``_assay_v``, ``_assay_c<j>``...)
    rows, one per key and row of ``frame``, marked with the side (``side`` 0 reads the
    keys' columns, 1 their referenced columns)."""

    def value(k: Key) -> Column:
        return col(k[1] if side else k[0])

    none = F.lit(None).cast("double")
    elements = []
    for k, number in keys.items():
        fields = [F.lit(number).alias(_KEY), (value(k).cast("double") if k[2] else none).alias(_V)]
        fields += [  # a category's own column; the others null of their own type
            (value(c) if c == k else F.when(F.lit(False), value(c))).alias(f"_assay_c{j}")
            for j, c in enumerate(categories)
        ]
        elements.append(fields)
    if len(elements) == 1:
        stacked = frame.select(*elements[0])
    else:
        structs = F.array(*(F.struct(*fields) for fields in elements))
        stacked = frame.select(F.explode(structs).alias(_EACH)).select(f"{_EACH}.*")
    return stacked.withColumn(_OURS, F.lit(ours))


def _outputs(name: str, n: int, m: Distribution, category: str | None) -> list[Column]:
    """The slot ``n``'s outputs, read from its (slot, bin) rows."""
    mine = F.col(_SLOT) == F.lit(n)
    none = F.lit(None).cast("double")
    if category is not None:
        bins = F.collect_list(F.when(mine, _counted(category, "v")))
        nothing = ("low", "high", "ks", "wasserstein")
        return [bins.alias(f"{name}_bins"), *(none.alias(f"{name}_{k}") for k in nothing)]
    return [
        F.sort_array(F.collect_list(F.when(mine, _counted(_BIN, "i")))).alias(f"{name}_bins"),
        F.max(F.when(mine, F.col(_LOW))).alias(f"{name}_low"),
        F.max(F.when(mine, F.col(_HIGH))).alias(f"{name}_high"),
        (F.max(F.when(mine, F.col(_DIFF))) if m.ordered else none).alias(f"{name}_ks"),
        (F.sum(F.when(mine, F.col(_GAP))) if m.ordered else none).alias(f"{name}_wasserstein"),
    ]


def _counted(key: str, name: str) -> Column:
    """A bin as ``(key, table rows, referenced rows)``."""
    return F.struct(F.col(key).alias(name), F.col(_T).alias("t"), F.col(_R).alias("r"))


def _finite(value: Column) -> Column:
    return value.isNotNull() & ~F.isnan(value) & (F.abs(value) != F.lit(float("inf")))


def _ranged(groups: DataFrame, ordered: bool) -> DataFrame:
    """The groups with the union's finite range and, when ``ordered``, each side's
    finite rows, running counts up to each value and the next value."""
    v = F.col(_V)
    whole = Window.partitionBy(_KEY)  # each key's groups: a distribution's values
    kept = groups.withColumn(_FINITE, _finite(v))
    finite = F.col(_FINITE)
    kept = kept.withColumn(_LOW, F.min(F.when(finite, v)).over(whole)).withColumn(
        _HIGH, F.max(F.when(finite, v)).over(whole)
    )
    if not ordered:
        return kept
    ours, theirs = F.when(finite, F.col(_T)), F.when(finite, F.col(_R))
    by_value = Window.partitionBy(_KEY).orderBy(v)  # each key's distinct values, sorted
    return (
        kept.withColumn(_NT, F.sum(ours).over(whole))
        .withColumn(_NR, F.sum(theirs).over(whole))
        .withColumn(_CT, F.sum(ours).over(by_value))
        .withColumn(_CR, F.sum(theirs).over(by_value))
        .withColumn(_NEXT, F.lead(v).over(by_value))
    )


def _binned(groups: DataFrame, ordered: bool) -> DataFrame:
    """Each group with its bin (numpy.histogram's over its slot's bins ``_assay_nb``,
    equal widths of ``[low, high]``; a category's slot has none) and, when ``ordered``,
    its CDFs' difference and that difference times the gap to the next finite value."""
    v, low, high, bins = F.col(_V), F.col(_LOW), F.col(_HIGH), F.col(_NB)
    # one value: numpy's range is [value - 0.5, value + 0.5]
    one = low == high
    groups = groups.withColumns(
        {
            _LOW: F.when(one, low - 0.5).otherwise(low),
            _HIGH: F.when(one, high + 0.5).otherwise(high),
        }
    )
    width = high - low
    step = width / bins.cast("double")

    def edge(i: Column) -> Column:  # numpy.linspace(low, high, bins + 1)[i]
        return F.when(i >= bins, high).otherwise(i.cast("double") * step + low)

    # numpy's uniform-bins path: the index from the scaled offset, the last edge in the
    # last bin, then corrected against the edges themselves (rounding near an edge)
    # (a width still 0, a value too large for 0.5 to move: numpy refuses such bins too)
    scaled = F.floor((v - low) * (bins.cast("double") / width)).cast("int")
    # (only for a finite value: ANSI mode fails a NaN or an infinity cast to an int; a
    # range wider than a double has no bins at all, its finite values none: bin NULL)
    binnable = (width > 0) & (width < F.lit(float("inf"))) & F.col(_FINITE)
    guess = F.when(binnable, F.least(scaled, bins - 1))
    out = groups.withColumn(_FIRST, F.when(v < edge(guess), guess - 1).otherwise(guess))
    b = F.col(_FIRST)
    corrected = F.when((v >= edge(b + 1)) & (b != bins - 1), b + 1).otherwise(b)
    binned = (
        F.when(v.isNull(), F.lit(NULL_BIN))
        .when(F.isnan(v), F.lit(NAN_BIN))
        .when(~F.col(_FINITE), F.lit(INFINITE_BIN))
        .otherwise(corrected)
    )
    out = out.withColumn(_BIN, binned)
    if not ordered:
        nothing = F.lit(None).cast("double")
        return out.withColumn(_DIFF, nothing).withColumn(_GAP, nothing)
    finite = F.col(_FINITE)
    cdf_ours = F.col(_CT).cast("double") / F.col(_NT).cast("double")
    cdf_theirs = F.col(_CR).cast("double") / F.col(_NR).cast("double")
    # a side with no finite value has no CDF (and ANSI mode fails a division by 0)
    both = finite & (F.col(_NT) > 0) & (F.col(_NR) > 0)
    diff = F.when(both, F.abs(cdf_ours - cdf_theirs))
    nxt = F.col(_NEXT)
    gap = F.when(finite & _finite(nxt), (nxt - v) * diff)
    return out.withColumn(_DIFF, diff).withColumn(_GAP, gap)


def value_counts_frame(df: DataFrame, measure: ValueCounts, name: str) -> DataFrame:
    """One row: a categorical column's ``bound`` most frequent values (as text, ties by
    value) with their rows (``<name>_kept``: ``(v, n)`` pairs), the others' values and
    rows summed, the null rows (drift against history: its stored state)."""
    rows = df.where(column(measure.where)) if measure.where is not None else df
    counts = rows.groupBy(col(measure.column).cast("string").alias(_V)).agg(
        F.count(F.lit(1)).alias(_T)
    )
    value, n = F.col(_V), F.col(_T)
    order = Window.orderBy(value.isNull(), n.desc(), value)  # the distinct values, sorted
    ranked = counts.withColumn(_BIN, F.row_number().over(order))
    kept = value.isNotNull() & (F.col(_BIN) <= F.lit(measure.bound))
    other = value.isNotNull() & (F.col(_BIN) > F.lit(measure.bound))
    return ranked.agg(
        F.collect_list(F.when(kept, F.struct(value.alias("v"), n.alias("n")))).alias(
            f"{name}_kept"
        ),
        F.count_if(other).alias(f"{name}_others_values"),
        F.coalesce(F.sum(F.when(other, n)), F.lit(0)).alias(f"{name}_others_rows"),
        F.coalesce(F.sum(F.when(value.isNull(), n)), F.lit(0)).alias(f"{name}_nulls"),
    )


_STATS, _X = "_assay_st", "_assay_x"


def finite_parts(m: Sketch) -> tuple[Column, Column, Column, Column, Column]:
    """A sketched column's value as a double where finite (null elsewhere), and whether
    a row is kept and null, NaN, infinite or finite. ``typeof`` is folded by Spark's
    optimizer, so a column of another type than float or double is never tested for NaN
    nor infinity (it can hold neither) and its values are cast only where sketched (a
    DECIMAL's cast to double goes through a BigDecimal: it is what counting them cost)."""
    value = col(m.column)
    x = value.cast("double")
    floating = F.typeof(value).isin("float", "double")
    nan = floating & F.isnan(x)
    infinite = floating & (F.abs(x) == F.lit(float("inf")))
    finite = F.when(floating, F.when(~F.isnan(x) & (F.abs(x) != F.lit(float("inf"))), x))
    finite = finite.otherwise(x)
    counted = value.isNotNull() & ~(nan | infinite)
    if m.where is None:
        return finite, value.isNull(), nan, infinite, counted
    kept = column(m.where)
    return F.when(kept, finite), kept & value.isNull(), kept & nan, kept & infinite, kept & counted


def sketch_columns(measure: Sketch | SketchCounts, name: str) -> list[Column]:
    """A sketch slot's outputs as columns of one aggregate over every row (its filter
    kept): the KLL sketch of all its finite values and its counts; a
    :class:`SketchCounts`, the counts alone (generated code: ``count_if``)."""
    sketch = measure.sketch if isinstance(measure, SketchCounts) else measure
    finite, *tests = finite_parts(sketch)
    counts = [
        F.count_if(t).alias(f"{name}_{output}")
        for t, (_, output) in zip(tests, _COUNTED, strict=True)
    ]
    if isinstance(measure, SketchCounts):
        return counts
    kll = F.call_function("kll_sketch_agg_double", finite, F.lit(measure.k))
    return [kll.alias(f"{name}_sketch"), *counts]


def sketch_frame(df: DataFrame, slots: Sequence[Slot]) -> DataFrame:
    """One row: each sketch slot's outputs (``<name>_sketch``, ``_nulls``, ``_nan``,
    ``_infinite``, ``_values``), from two reads of the sketched columns, both with
    generated code below the sketches: one aggregate counting every slot's values
    exactly, and the rows sampled (each column about ``sample`` finite values), the
    finite doubles projected, and only the sampled ones sketched (the KLL update runs
    without generated code, so its rows are what it costs).

    When every slot knows how many values its column had (``Sketch.expected``, the
    newest stored run's count) that count sets its sampling rate and the two reads are
    independent (:func:`_at_stored_rates`); else the counts, a scalar subquery, set the
    rate first (:func:`_at_counted_rate`). Either way the counts are exact and a
    sketch's error bound comes from the values it actually read (its own ``n``)."""
    measures = [m for m in (s.form for s in slots) if isinstance(m, Sketch)]
    assert len(measures) == len(slots)
    parts = [finite_parts(m) for m in measures]
    if all(m.expected > 0 for m in measures):
        return _at_stored_rates(df, slots, measures, parts)
    return _at_counted_rate(df, slots, measures, parts)


_U = "_assay_u"
_COUNTED = (("n", "nulls"), ("a", "nan"), ("i", "infinite"), ("v", "values"))


def _at_stored_rates(
    df: DataFrame, slots: Sequence[Slot], measures: Sequence[Sketch], parts: Sequence[Any]
) -> DataFrame:
    """The sketches at the rates the stored counts give (each column's ``sample /
    expected``), the counts an aggregate of their own: two aggregates over ``df``
    cross-joined, no subquery. (One aggregate over every row, the counts beside sketches
    fed only the sampled values, costs more: an object aggregate runs without generated
    code over every row.) One uniform number per row: a row is read when it is below the
    largest rate, a column's value sketched when below its own. When the counts ride in
    another branch of the plan (``Sketch.counted``), the sketches alone."""
    rates = [m.sample / m.expected for m in measures]
    u = F.col(_U)
    rows = df.withColumn(_U, F.rand(17)).where(u < F.lit(max(rates)))
    projected = rows.select(
        *(
            (p[0] if rate >= max(rates) else F.when(u < F.lit(rate), p[0])).alias(f"{_X}{i}")
            for i, (p, rate) in enumerate(zip(parts, rates, strict=True))
        )
    )
    sketched = _sketched(projected, slots, measures)
    if all(m.counted for m in measures):
        return sketched
    counts = df.agg(
        *(
            F.count_if(test).alias(f"{s.name}_{output}")
            for s, (_, *tests) in zip(slots, parts, strict=True)
            for test, (_, output) in zip(tests, _COUNTED, strict=True)
        )
    )
    return sketched.crossJoin(counts)


def _sketched(projected: DataFrame, slots: Sequence[Slot], measures: Sequence[Sketch]) -> DataFrame:
    """The ``kll_sketch_agg_double`` of each projected column ``_assay_x<i>``."""
    return projected.agg(
        *(
            F.call_function("kll_sketch_agg_double", F.col(f"{_X}{i}"), F.lit(m.k)).alias(
                f"{s.name}_sketch"
            )
            for i, (s, m) in enumerate(zip(slots, measures, strict=True))
        )
    )


def _at_counted_rate(
    df: DataFrame, slots: Sequence[Slot], measures: Sequence[Sketch], parts: Sequence[Any]
) -> DataFrame:
    """The sketches at the rate the exact counts give (a scalar subquery: the smallest
    positive count sets one rate for all the columns)."""
    counts = []
    for i, (_, *tests) in enumerate(parts):
        counts += [
            F.count_if(t).alias(f"{k}{i}") for t, (k, _) in zip(tests, _COUNTED, strict=True)
        ]
    # The smallest positive count inside the subquery, so the plan reads it twice (the
    # rate, the outputs), not twice per column (each field read repeated the subquery).
    positive = [F.when(F.col(f"v{i}") > 0, F.col(f"v{i}")) for i in range(len(parts))]
    smallest = positive[0] if len(positive) == 1 else F.least(*positive)
    names = [F.col(c) for c in (f"{k}{i}" for i in range(len(parts)) for k in "naiv")]
    totals = df.agg(*counts).select(F.struct(*names, smallest.alias("m")).alias(_STATS))
    stats = totals.scalar()
    sample = min(m.sample for m in measures)
    rows = df.where(F.rand(17) * stats["m"] < F.lit(sample))  # none: no value to sketch
    projected = rows.select(*(p[0].alias(f"{_X}{i}") for i, p in enumerate(parts)))
    named = _sketched(projected, slots, measures).select("*", stats.alias(_STATS))
    outputs = [f"{s.name}_sketch" for s in slots]
    for i, s in enumerate(slots):
        for short, output in _COUNTED:
            outputs.append(F.col(_STATS)[f"{short}{i}"].alias(f"{s.name}_{output}"))  # type: ignore[arg-type]
    return named.select(*outputs)

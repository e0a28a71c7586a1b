"""A drift rule's branch as a Spark Connect DataFrame: the table's values and the
referenced side's, unioned and grouped by value, then binned (and, for KS and
Wasserstein, their running counts in value order) in one line of operators, so that
each source is scanned once (:mod:`assay.planner.drift` says what and why).

Every function here is in Spark 4.0 (``count_if``, ``isnan``, ``floor``, ``least``,
``lead``, windows, ``collect_list``, ``sort_array``), the oldest server assay supports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from assay.emit.columns import col, column
from assay.planner.drift import INFINITE_BIN, NAN_BIN, NULL_BIN, Distribution, ValueCounts
from assay.planner.plan import Slot

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_V, _OURS, _T, _R = "_assay_v", "_assay_s", "_assay_t", "_assay_r"
_LOW, _HIGH, _NT, _NR = "_assay_lo", "_assay_hi", "_assay_nt", "_assay_nr"
_FINITE, _BIN, _FIRST = "_assay_f", "_assay_i", "_assay_b"
_CT, _CR, _NEXT, _DIFF, _GAP = "_assay_ct", "_assay_cr", "_assay_nx", "_assay_d", "_assay_w"


def drift_frame(df: DataFrame, slot: Slot, referenced: DataFrame) -> DataFrame:
    """One row over the table's rows ``df`` and the ``referenced`` source's: the slot's
    outputs (``<name>_bins``, ``_low``, ``_high``, ``_ks``, ``_wasserstein``)."""
    m = slot.measure
    assert isinstance(m, Distribution)
    rows = df.where(column(m.where)) if m.where is not None else df
    ours, theirs = col(m.column), col(m.reference_column)
    if m.bins is not None:
        ours, theirs = ours.cast("double"), theirs.cast("double")
    union = rows.select(ours.alias(_V), F.lit(True).alias(_OURS)).union(
        referenced.select(theirs.alias(_V), F.lit(False).alias(_OURS))
    )
    groups = union.groupBy(_V).agg(
        F.count_if(F.col(_OURS)).alias(_T), F.count_if(~F.col(_OURS)).alias(_R)
    )
    name = slot.name
    if m.bins is None:
        none = F.lit(None).cast("double")
        return groups.agg(
            F.collect_list(_counted(_V, "v")).alias(f"{name}_bins"),
            *(none.alias(f"{name}_{k}") for k in ("low", "high", "ks", "wasserstein")),
        )
    binned = _binned(_ranged(groups, m.ordered), m.bins, m.ordered)
    per_bin = binned.groupBy(F.col(_BIN)).agg(
        F.sum(_T).alias(_T),
        F.sum(_R).alias(_R),
        F.max(_DIFF).alias(_DIFF),
        F.sum(_GAP).alias(_GAP),
        F.first(_LOW).alias(_LOW),
        F.first(_HIGH).alias(_HIGH),
    )
    return per_bin.agg(
        F.sort_array(F.collect_list(_counted(_BIN, "i"))).alias(f"{name}_bins"),
        F.max(_LOW).alias(f"{name}_low"),
        F.max(_HIGH).alias(f"{name}_high"),
        F.max(_DIFF).alias(f"{name}_ks"),
        F.sum(_GAP).alias(f"{name}_wasserstein"),
    )


def _counted(key: str, name: str) -> Column:
    """A bin as ``(key, table rows, referenced rows)``."""
    return F.struct(F.col(key).alias(name), F.col(_T).alias("t"), F.col(_R).alias("r"))


def _finite(value: Column) -> Column:
    return value.isNotNull() & ~F.isnan(value) & (F.abs(value) != F.lit(float("inf")))


def _ranged(groups: DataFrame, ordered: bool) -> DataFrame:
    """The groups with the union's finite range and, when ``ordered``, each side's
    finite rows, running counts up to each value and the next value."""
    v = F.col(_V)
    whole = Window.partitionBy()
    kept = groups.withColumn(_FINITE, _finite(v))
    finite = F.col(_FINITE)
    kept = kept.withColumn(_LOW, F.min(F.when(finite, v)).over(whole)).withColumn(
        _HIGH, F.max(F.when(finite, v)).over(whole)
    )
    if not ordered:
        return kept
    ours, theirs = F.when(finite, F.col(_T)), F.when(finite, F.col(_R))
    by_value = Window.orderBy(v)  # the distinct values, sorted: one partition
    return (
        kept.withColumn(_NT, F.sum(ours).over(whole))
        .withColumn(_NR, F.sum(theirs).over(whole))
        .withColumn(_CT, F.sum(ours).over(by_value))
        .withColumn(_CR, F.sum(theirs).over(by_value))
        .withColumn(_NEXT, F.lead(v).over(by_value))
    )


def _binned(groups: DataFrame, bins: int, ordered: bool) -> DataFrame:
    """Each group with its bin (numpy.histogram's over ``bins`` equal widths of
    ``[low, high]``) and, when ``ordered``, its CDFs' difference and that difference
    times the gap to the next finite value."""
    v, low, high = F.col(_V), F.col(_LOW), F.col(_HIGH)
    # one value: numpy's range is [value - 0.5, value + 0.5]
    one = low == high
    groups = groups.withColumns(
        {
            _LOW: F.when(one, low - 0.5).otherwise(low),
            _HIGH: F.when(one, high + 0.5).otherwise(high),
        }
    )
    width = high - low
    step = width / F.lit(float(bins))

    def edge(i: Column) -> Column:  # numpy.linspace(low, high, bins + 1)[i]
        return F.when(i >= F.lit(bins), high).otherwise(i.cast("double") * step + low)

    # numpy's uniform-bins path: the index from the scaled offset, the last edge in the
    # last bin, then corrected against the edges themselves (rounding near an edge)
    # (a width still 0, a value too large for 0.5 to move: numpy refuses such bins too)
    scaled = F.floor((v - low) * (F.lit(float(bins)) / width)).cast("int")
    # (only for a finite value: ANSI mode fails a NaN or an infinity cast to an int; a
    # range wider than a double has no bins at all, its finite values none: bin NULL)
    binnable = (width > 0) & (width < F.lit(float("inf"))) & F.col(_FINITE)
    guess = F.when(binnable, F.least(scaled, F.lit(bins - 1)))
    out = groups.withColumn(_FIRST, F.when(v < edge(guess), guess - 1).otherwise(guess))
    b = F.col(_FIRST)
    corrected = F.when((v >= edge(b + 1)) & (b != F.lit(bins - 1)), b + 1).otherwise(b)
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

"""The histogram pass (``colstats``): per column, the counts of its values in equal-width
buckets between its min and max, as ONE single-row Spark Connect DataFrame; the bucket of
a value is shared with the profile's frequency tables (``emit.profile``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F

from assay.emit.columns import col
from assay.planner.plan import HistogramPlan

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import Column, DataFrame


def histogram_frame(
    df: DataFrame, plan: HistogramPlan, bounds: Mapping[str, tuple[float, float]]
) -> DataFrame:
    """ONE single-row DataFrame with, per column of ``plan`` that has ``bounds`` (its
    finite min and max), an array of bucket counts under the column's output name.

    A value's bucket is ``min(bins - 1, floor((x - min) / width))`` with ``width =
    (max - min) / bins`` in double arithmetic (data-validator's formula), so the last
    bucket is closed; with min = max every value is in the first bucket. Each row's
    buckets are computed once, in a projection, then counted (computed inside every
    bucket's count, the 8 histograms of TPC-H lineitem at SF0.1 took 7-11 s; computed
    once, 0.9-2 s).
    """
    buckets, outputs = [], []
    for h in plan.columns:
        if h.name not in bounds:
            continue
        low, high = bounds[h.name]
        bins = h.measure.bins
        buckets.append(histogram_bucket(col(h.measure.column), low, high, bins).alias(h.name))
        counts = [F.count_if(F.col(h.name) == F.lit(i)) for i in range(bins)]
        outputs.append(F.array(*counts).alias(h.name))
    return df.select(*buckets).agg(*outputs)


def histogram_bucket(value: Column, low: float, high: float, bins: int) -> Column:
    """The bucket (an int in ``[0, bins)``) of ``value`` in :func:`histogram_frame`'s
    equal-width bins over ``[low, high]``; null for a null or NaN value."""
    x = value.cast("double")
    width = (high - low) / bins
    # least() skips nulls and ranks NaN above every number, so a null or NaN value
    # must stay out of every bucket explicitly.
    if width > 0:
        index = F.least(F.floor((x - F.lit(low)) / F.lit(width)), F.lit(bins - 1))
    else:
        index = F.lit(0)
    return F.when(x.isNotNull() & ~F.isnan(x), index).cast("int")

"""The Spark frames of a profile (:mod:`assay.planner.profile`): its first plan is the
validation aggregate's machinery (:func:`assay.emit.spark.aggregate_frame`), its second
cross-joins the histograms, the candidate keys' group-bys and the frequency tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F

from assay.emit.columns import balanced, col
from assay.emit.spark import aggregate_frame, group_frame, histogram_frame
from assay.planner.profile import ProfilePlan
from assay.planner.profile_second import FrequencyTable, SecondPlan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.connect.session import SparkSession


def first_frame(df: DataFrame, plan: ProfilePlan) -> DataFrame:
    """ONE single-row frame with every measure of the first plan."""
    return aggregate_frame(df, plan.aggregate)


def second_frame(df: DataFrame, second: SecondPlan) -> DataFrame:
    """ONE single-row frame: histograms, candidate keys' group statistics and frequency
    tables, cross-joined."""
    parts = []
    if second.histograms is not None:
        parts.append(histogram_frame(df, second.histograms, second.bounds))
    parts += [group_frame(df, g) for g in second.keys]
    parts += [frequency_frame(df, f) for f in second.frequencies]
    return balanced(parts, lambda a, b: a.crossJoin(b))


def frequency_frame(df: DataFrame, table: FrequencyTable) -> DataFrame:
    """One row: the column's values (null included) with their counts, as an array of
    ``{item, count}`` (the shape ``approx_top_k`` returns)."""
    value = col(table.column)
    counts = df.groupBy(value.alias("item")).agg(F.count(F.lit(1)).alias("count"))
    pairs = F.struct(F.col("item"), F.col("count"))
    return counts.agg(F.collect_list(pairs).alias(table.name))


def has_top_k(spark: SparkSession) -> bool:
    """Whether the server has ``approx_top_k`` (Spark 4.1+): one analysis RPC, no scan."""
    try:
        _ = spark.range(1).agg(F.call_function("approx_top_k", F.col("id"))).schema
        return True
    except Exception:  # noqa: BLE001 - an older server: group-by frequency tables
        return False

"""The frequencies of values (entropy, mutual information) as a group-by branch of the
table's aggregate plan: the rows where at least one column is not null, grouped by their
values, then ONE aggregate over the groups (:mod:`assay.planner.frequencies` says what
it sums and why). Two columns' marginal counts are windows over the groups, never a
group-by of their own: an aggregate of the groups joined back would make Spark scan the
table again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from assay.emit.columns import balanced, col, column
from assay.planner.frequencies import Frequencies

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_N = "_assay_n"


def frequencies_frame(df: DataFrame, measure: Frequencies, name: str) -> DataFrame:
    """One row: the measure's outputs (``<name>_groups``, ``_rows``, ``_paired``,
    ``_n_log_n``, ``_n_log_marginals``)."""
    values = [f"_assay_f{i}" for i in range(len(measure.columns))]
    keys = [col(c) for c in measure.columns]
    rows = df.where(column(measure.where)) if measure.where is not None else df
    rows = rows.where(balanced([k.isNotNull() for k in keys], lambda a, b: a | b))
    counts = rows.groupBy(*(k.alias(v) for k, v in zip(keys, values, strict=True))).agg(
        F.count(F.lit(1)).alias(_N)
    )
    n = F.col(_N).cast("double")
    paired = balanced([F.col(v).isNotNull() for v in values], lambda a, b: a & b)
    if len(values) == 1:
        marginals = F.log(n)
    else:
        marginals = F.lit(0.0)
        for v in values:
            marginals = marginals + F.log(F.sum(F.col(_N)).over(Window.partitionBy(v)))
        counts = counts.withColumn("_assay_m", marginals)
        marginals = F.col("_assay_m")
    return counts.agg(
        F.count_if(paired).alias(f"{name}_groups"),
        F.coalesce(F.sum(F.col(_N)), F.lit(0)).alias(f"{name}_rows"),
        F.coalesce(F.sum(F.when(paired, F.col(_N))), F.lit(0)).alias(f"{name}_paired"),
        F.sum(F.when(paired, n * F.log(n))).alias(f"{name}_n_log_n"),
        F.sum(F.when(paired, n * marginals)).alias(f"{name}_n_log_marginals"),
    )

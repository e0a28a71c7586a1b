"""The Spark frames of a profile (:mod:`assay.planner.profile`): its first plan is the
validation aggregate's machinery (:func:`assay.emit.spark.aggregate_frame`), its second
cross-joins the histograms, the candidate keys' group-bys and the frequency tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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
    if second.frequencies:
        parts.append(frequencies_frame(df, second.frequencies))
    return balanced(parts, lambda a, b: a.crossJoin(b))


FREQUENCIES = "_assay_frequencies"
"""The output of :func:`frequencies_frame`."""


def frequencies_frame(df: DataFrame, tables: Sequence[FrequencyTable]) -> DataFrame:
    """One row: every table's values (null included) with their counts, in ONE group-by
    over grouping sets (one scan, one shuffle, rather than one of each per column): an
    array of ``{v0, ..., g0, ..., n}``, the values of column ``i`` in ``v<i>`` where its
    grouping flag ``g<i>`` is 0 (:func:`frequency_rows` splits them)."""
    values = [col(t.column).alias(f"v{i}") for i, t in enumerate(tables)]
    names = [F.col(f"v{i}") for i in range(len(tables))]
    counts = df.select(*values).groupingSets([[n] for n in names], *names)
    flags = [F.grouping(n).alias(f"g{i}") for i, n in enumerate(names)]
    rows = counts.agg(F.count(F.lit(1)).alias("n"), *flags)
    fields = F.struct(*names, *(F.col(f"g{i}") for i in range(len(tables))), F.col("n"))
    return rows.agg(F.collect_list(fields).alias(FREQUENCIES))


def frequency_rows(tables: Sequence[FrequencyTable], found: Sequence[Any]) -> dict[str, list]:
    """Each table's ``(value, count)`` pairs from :func:`frequencies_frame`'s output."""
    split: dict[str, list] = {t.column: [] for t in tables}
    for r in found:
        i = next(i for i in range(len(tables)) if r[f"g{i}"] == 0)
        split[tables[i].column].append((r[f"v{i}"], int(r["n"])))
    return split


def has_top_k(spark: SparkSession) -> bool:
    """Whether the server has ``approx_top_k`` (Spark 4.1+): one analysis RPC, no scan."""
    try:
        _ = spark.range(1).agg(F.call_function("approx_top_k", F.col("id"))).schema
        return True
    except Exception:  # noqa: BLE001 - an older server: group-by frequency tables
        return False

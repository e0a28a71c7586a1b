"""spark-data-test's report frames of a comparison job: ``row_lvl_test_report``,
``unmatched_rows/<dataset>/<column>``, the overall and column reports built from already
aggregated values, and their writes (docs/compare.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F
from pyspark.sql.types import (
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from assay.comparison.plan import ColumnPlan, ComparePlan
from assay.emit.columns import col
from assay.emit.compare import (
    S,
    T,
    both_present,
    checksum_equal,
    column_mismatch,
    pair_values,
    sdt_after_tolerance,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


MISSING_AT_SOURCE = "MISSING_AT_SOURCE"
MISSING_AT_TARGET = "MISSTING_AT_TARGET"
"""spark-data-test's value, spelled as its code writes it (its README says MISSING_AT_TARGET)."""
PRESENT_IN_BOTH = "PRESENT_IN_BOTH"


_ROWS = (
    ("_source_absent", MISSING_AT_SOURCE, False),
    ("_target_absent", MISSING_AT_TARGET, False),
    ("_both_matched", PRESENT_IN_BOTH, True),
    ("_both_unmatched", PRESENT_IN_BOTH, False),
)
"""A key's flag, and the (``missing_row_status``, ``all_rows_matched``) row it gives."""


def _distinct_rows() -> Column:
    """The distinct rows of a key of the per-key flags (:data:`_ROWS`), as an array of
    structs, the rows whose flag is false left out."""
    return F.array_compact(  # not filter(): a lambda's code is compiled anew every plan
        F.array(
            *(
                F.when(
                    F.col(flag),
                    F.struct(
                        F.lit(status).alias("missing_row_status"),
                        F.lit(all_matched).alias("all_rows_matched"),
                    ),
                )
                for flag, status, all_matched in _ROWS
            )
        )
    )


def sdt_row_level(pairs: DataFrame, plan: ComparePlan, dataset: str) -> DataFrame:
    """``row_lvl_test_report`` of one dataset, with spark-data-test's values: a key's
    pairs are all matched when one of them matched after tolerance (its left join of the
    pairs with the tolerated pairs on the keys), ``duplicate_count`` is the key's pairs
    after that join, less one; one row per distinct (key, ``missing_row_status``,
    ``all_rows_matched``).

    Computed with ONE group-by on the key where spark-data-test counts over a window
    after that join and then takes distinct rows: a key's rows are either all of one side
    only (their ``all_rows_matched`` is false; null keys, which never pair, may have rows
    of both sides) or all pairs (``PRESENT_IN_BOTH``, matched or not), so four flags per
    key give its distinct rows; the join's effect is the key's number of tolerated pairs
    (``t``): each of its ``n`` pairs is joined to each of them, ``n * max(t, 1)`` rows,
    and every pair of a key with one is matched. (The join itself, over the differing
    keys' pairs, cost a second join of the sides and two more scans per dataset.)"""
    keys = list(plan.keys)
    tolerated = both_present() & ~checksum_equal() & sdt_after_tolerance(plan).eqNullSafe(True)
    per_key = pairs.groupBy(*(col(k) for k in keys)).agg(
        F.count(F.lit(1)).alias("_pairs"),
        F.count_if(tolerated).alias("_tolerated"),
        F.max(~S).alias("_source_absent"),
        F.max(~T).alias("_target_absent"),
        F.max(both_present() & checksum_equal()).alias("_both_equal"),
        F.max(both_present() & ~checksum_equal()).alias("_both_differ"),
    )
    any_tolerated = F.col("_tolerated") > 0
    flagged = per_key.select(
        *(col(k) for k in keys),
        (F.col("_pairs") * F.greatest(F.col("_tolerated"), F.lit(1)) - 1).alias("duplicate_count"),
        "_source_absent",
        "_target_absent",
        (F.col("_both_equal") | any_tolerated).alias("_both_matched"),
        (F.col("_both_differ") & ~any_tolerated).alias("_both_unmatched"),
    )
    present = _distinct_rows()
    return flagged.select(
        F.lit(dataset).alias("dataset_name"),
        *(col(k) for k in keys),
        "duplicate_count",
        F.explode(present).alias("_row"),
    ).select(
        "dataset_name",
        *(col(k) for k in keys),
        "duplicate_count",
        F.col("_row.missing_row_status").alias("missing_row_status"),
        F.col("_row.all_rows_matched").alias("all_rows_matched"),
    )


def sdt_unmatched_rows(pairs: DataFrame, plan: ComparePlan, c: ColumnPlan) -> DataFrame:
    """``unmatched_rows/<dataset>/<column>``: the keys and both values of the pairs where
    ``c`` did not match, distinct (no ``dataset_name`` column, as its code writes it)."""
    s, t = pair_values(c)
    return (
        pairs.where(column_mismatch(c, plan))
        .select(*(col(k) for k in plan.keys), s.alias(f"{c.name}_src"), t.alias(f"{c.name}_target"))
        .distinct()
    )


_COUNT_MAP = MapType(StringType(), LongType(), True)
OVERALL_SCHEMA = StructType(
    [
        StructField("dataset_name", StringType(), True),
        StructField("count", _COUNT_MAP, True),
        StructField("matched_count", LongType(), True),
        StructField("duplicate_count", _COUNT_MAP, True),
        StructField("missing_rows", _COUNT_MAP, True),
        StructField("test_status", StringType(), True),
    ]
)
COLUMN_SCHEMA = StructType(
    [
        StructField("dataset_name", StringType(), True),
        StructField("column_name", StringType(), True),
        StructField("unmatched_rows_count", LongType(), True),
    ]
)


def local_frame(spark: Any, rows: Sequence[Mapping[str, Any]], schema: StructType) -> DataFrame:
    """A small frame of already aggregated values (the overall and column reports)."""
    names = [f.name for f in schema.fields]
    return spark.createDataFrame([tuple(r[n] for n in names) for r in rows], schema)


def write(
    df: DataFrame,
    path: str,
    fmt: str,
    options: Mapping[str, str],
    partitions: int,
    order: str | None = None,
) -> None:
    """One overwrite of ``df`` at ``path`` (one Spark plan)."""
    if order is not None:
        df = df.orderBy(order)
    if partitions > 0:
        # spark-data-test coalesces or repartitions to exactly this many partitions (it
        # asks the RDD for the current count, which Spark Connect has not): repartition.
        df = df.repartition(partitions)
    df.write.options(**dict(options)).mode("overwrite").format(fmt).save(path)


__all__ = [
    "COLUMN_SCHEMA",
    "OVERALL_SCHEMA",
    "local_frame",
    "sdt_row_level",
    "sdt_unmatched_rows",
    "write",
]

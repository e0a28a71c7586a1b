"""The Spark frames of a profile (:mod:`assay.profiling.plan`): its first plan is the
validation aggregate's machinery (:func:`assay.emit.spark.aggregate_frame`), its second
cross-joins the histograms, the candidate keys' group-bys and the frequency tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F

from assay.emit.columns import balanced, col, column
from assay.emit.histogram import histogram_bucket, histogram_frame
from assay.emit.spark import aggregate_frame, group_frame
from assay.ir.expr import Col, Length, rebuild
from assay.planner.measures import CountIf, ExprAggregate
from assay.profiling.plan import ProfilePlan
from assay.profiling.second import FrequencyTable, SecondPlan

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.connect.session import SparkSession


def first_frame(df: DataFrame, plan: ProfilePlan) -> DataFrame:
    """ONE single-row frame with every measure of the first plan."""
    return aggregate_frame(df, plan.aggregate)


def second_frame(df: DataFrame, second: SecondPlan) -> DataFrame:
    """ONE single-row frame: histograms, candidate keys' group statistics, frequency
    tables (with their values' tests) and the deferred text statistics' scan branches,
    cross-joined."""
    parts = []
    if second.histograms is not None:
        parts.append(histogram_frame(df, second.histograms, second.bounds))
    parts += [group_frame(df, g) for g in second.keys]
    if second.frequencies:
        parts.append(frequencies_frame(df, second.frequencies))
    if second.scanned is not None:
        parts.append(aggregate_frame(df, second.scanned))
    return balanced(parts, lambda a, b: a.crossJoin(b))


FREQUENCIES = "_assay_frequencies"
"""The output of :func:`frequencies_frame`."""


def frequencies_frame(df: DataFrame, tables: Sequence[FrequencyTable]) -> DataFrame:
    """One row: every table's values (null included) with their counts, in ONE group-by
    over grouping sets (one scan, one shuffle, rather than one of each per column): an
    array of ``{v0, ..., g0, ..., n}``, the values of column ``i`` in ``v<i>`` where its
    grouping flag ``g<i>`` is 0 (:func:`value_rows` splits them)."""
    values = [col(t.column).alias(f"v{i}") for i, t in enumerate(tables)]
    names = [F.col(f"v{i}") for i in range(len(tables))]
    counts = df.select(*values).groupingSets([[n] for n in names], *names)
    flags = [F.grouping(n).alias(f"g{i}") for i, n in enumerate(names)]
    rows = counts.agg(F.count(F.lit(1)).alias("n"), *flags)
    tests = [t for i, table in enumerate(tables) for t in _value_tests(i, table)]
    if tests:
        rows = rows.select("*", *tests)
    extra = [F.col(name) for i, table in enumerate(tables) for name in _test_names(i, table)]
    fields = F.struct(*names, *(F.col(f"g{i}") for i in range(len(tables))), F.col("n"), *extra)
    return rows.agg(F.collect_list(fields).alias(FREQUENCIES))


def _measures_length(table: FrequencyTable) -> bool:
    return any(isinstance(m, ExprAggregate) and isinstance(m.expr, Length)
               for _, m in table.deferred)  # fmt: skip


def _test_names(i: int, table: FrequencyTable) -> list[str]:
    length = [f"l{i}"] if _measures_length(table) else []
    bucket = [f"b{i}"] if table.bucketed is not None else []
    return length + bucket + [f"t{i}_{k}" for k, (_, m) in enumerate(table.deferred)
                              if isinstance(m, CountIf)]  # fmt: skip


def _value_tests(i: int, table: FrequencyTable) -> list[Column]:
    """Each distinct value's length and the tests of the column's deferred counts,
    evaluated by Spark on the value (after the group-by: once per value)."""
    value = Col(f"v{i}")
    renamed = lambda e: value if e == Col(table.column) else e  # noqa: E731
    tests = [F.length(F.col(f"v{i}")).alias(f"l{i}")] if _measures_length(table) else []
    if table.bucketed is not None:
        low, high, bins = table.bucketed
        tests.append(histogram_bucket(F.col(f"v{i}"), low, high, bins).alias(f"b{i}"))
    for k, (_, m) in enumerate(table.deferred):
        if isinstance(m, CountIf):
            tests.append(column(rebuild(m.predicate, renamed)).alias(f"t{i}_{k}"))
    return tests


def value_rows(tables: Sequence[FrequencyTable], found: Sequence[Any]) -> dict[str, list[dict]]:
    """Each table's rows from :func:`frequencies_frame`'s output: ``value``, its count
    ``n`` and, for a table with deferred statistics, ``length`` and ``t<k>`` (the k-th
    deferred statistic's test), as :func:`assay.profiling.second.by_value` reads them."""
    split: dict[str, list[dict]] = {t.column: [] for t in tables}
    for r in found:
        i = next(i for i in range(len(tables)) if r[f"g{i}"] == 0)
        row = {"value": r[f"v{i}"], "n": int(r["n"])}
        if _measures_length(tables[i]):
            row["length"] = r[f"l{i}"]
        if tables[i].bucketed is not None:
            row["bucket"] = r[f"b{i}"]
        if tables[i].deferred:
            for k, (_, m) in enumerate(tables[i].deferred):
                row[f"t{k}"] = r[f"t{i}_{k}"] if isinstance(m, CountIf) else None
        split[tables[i].column].append(row)
    return split


def has_top_k(spark: SparkSession) -> bool:
    """Whether the server has ``approx_top_k`` (Spark 4.1+): one analysis RPC, no scan."""
    try:
        _ = spark.range(1).agg(F.call_function("approx_top_k", F.col("id"))).schema
        return True
    except Exception:  # noqa: BLE001 - an older server: group-by frequency tables
        return False

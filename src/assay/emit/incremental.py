"""The Spark plans of an incremental table (docs/incremental.md): its partitions'
fingerprints, and the partial values of its measures over the partitions it scans, in
one aggregate grouped by the partition column."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F

from assay.emit.columns import balanced, col, column
from assay.ir.expr import Col, rebuild
from assay.ir.sources import PathSource, Source
from assay.planner.incremental import HLL_LG_K, PARTIALS, SKETCHED_TEXT, partial_kind
from assay.planner.measures import ColumnAgg, CountIf, GroupStats, Measure, RowCount

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.connect.session import SparkSession

PART = "_assay_partition"
"""The partition's value in both frames."""
AGGREGATE = "_assay_aggregate"
"""The number of the aggregate a row of :func:`partition_states` comes from."""
_NOT_FILES = frozenset({"jdbc", "delta", "iceberg", "hudi", "kafka", "rate", "noop"})
"""Formats whose paths are not the files of the data (a Delta table's log names its
files; a rewritten version leaves the old ones): fingerprinted by their rows."""
_LISTING_OPTIONS = frozenset(
    {"basePath", "pathGlobFilter", "recursiveFileLookup", "modifiedBefore", "modifiedAfter"}
)
"""A path source's options that choose its files, given to the listing too."""


LISTED_TYPE = "_assay_listed_type"
"""The type Spark inferred for the partition column from the paths, in a listing taken
before the table's schema was known (:func:`file_listing` without ``kind``)."""


def file_listing(
    spark: SparkSession, source: Source, by: str, kind: str | None
) -> DataFrame | None:
    """Each file of a path source with its partition (``by``, hive layout, cast to the
    table's ``kind``), size and modification time: Spark's file listing through the
    ``binaryFile`` source, whose content is never read (one row per file, no data
    read). None for a source that is not files. Without ``kind`` (the table's schema not
    known yet) the partition as Spark infers it from the paths, as it does for the
    table's own reader, and that type's name (:data:`LISTED_TYPE`) beside it."""
    if not isinstance(source, PathSource) or not source.paths or source.format in _NOT_FILES:
        return None
    options = {k: v for k, v in source.options if k in _LISTING_OPTIONS}
    listing = spark.read.format("binaryFile").options(**options).load(list(source.paths))
    part = [col(by).cast(kind).alias(PART)] if kind else [col(by).alias(PART)]
    typed = [] if kind else [F.typeof(col(by)).alias(LISTED_TYPE)]
    return listing.select(*part, "path", "length", F.col("modificationTime").cast("string"), *typed)


def hashed_fingerprints(df: DataFrame, by: str, columns: Sequence[str]) -> DataFrame:
    """Each partition's rows and a sum of its rows' hashes (any source: every row read)."""
    hashed = F.xxhash64(*(col(c) for c in columns)) % F.lit(2147483647)
    return df.groupBy(col(by).alias(PART)).agg(
        F.count(F.lit(1)).alias("rows"), F.sum(hashed).cast("string").alias("hash")
    )


def in_partitions(
    df: DataFrame, by: str, values: Sequence[Any], one_task: bool = False
) -> DataFrame:
    """The rows of the partitions ``values`` (None: the null partition); ``one_task``: in
    one Spark partition (``coalesce(1)``, no shuffle: a plan over them then groups and
    windows them in one task, without exchanges,
    :attr:`~assay.planner.partitions.PartitionPlan.one_task`)."""
    present = [v for v in values if v is not None]
    kept: list[Column] = []
    if present:
        kept.append(col(by).isin(present))
    if len(present) < len(values):
        kept.append(col(by).isNull())
    rows = df.where(balanced(kept, lambda a, b: a | b)) if kept else df.where(F.lit(False))
    return rows.coalesce(1) if one_task else rows


def partition_states(
    df: DataFrame,
    by: str,
    measures: Sequence[Measure],
    types: Mapping[str, str],
    aggregates: Sequence[Sequence[int]],
    values: Mapping[int, Sequence[str]] | None = None,
    forms: Mapping[int, Measure] | None = None,
    keyed: Mapping[int, int | None] | None = None,
) -> DataFrame:
    """ONE plan: the aggregates of ``df`` grouped by the partition (``aggregates``: the
    measures' indices in each, :class:`~assay.planner.partitions.PartitionPlan`), their
    rows unioned, each tagged with its aggregate's number (:data:`AGGREGATE`), each
    measure's partial values (:data:`~assay.planner.incremental.PARTIALS`) as
    ``m<i>_<name>``. The statistics of the groups of a ``GroupStats`` (whose key holds
    the partition column) from a group-by of their own (an aggregate of that measure
    alone: a window over the key in a shared aggregate shuffled and sorted the whole
    rows twice, twice the CPU over one month at SF1, docs/incremental.md#what-it-costs).
    ``values``: the aggregates grouping the rows by the values of some columns first
    (their counts evaluated once per value, :func:`_value_partials`); ``forms``: the
    form each measure is computed in, its outputs named by the measure's index;
    ``keyed``: the key groups shuffled straight to their key's partition (into that many
    partitions; None: the session's), their keys expected unique."""
    values, forms, keyed = values or {}, forms or {}, keyed or {}
    frames = []
    for number, indices in enumerate(aggregates):
        members = [(i, forms.get(i, measures[i])) for i in indices]
        if number in values:
            frame = _value_partials(df, by, values[number], members, types)
        else:
            frame = _aggregate(df, by, members, types, keyed)
        frames.append(frame.withColumn(AGGREGATE, F.lit(number)))
    return balanced(frames, lambda a, b: a.unionByName(b, allowMissingColumns=True))


def _value_partials(
    df: DataFrame,
    by: str,
    columns: Sequence[str],
    members: Sequence[tuple[int, Measure]],
    types: Mapping[str, str],
) -> DataFrame:
    """Counts of the values of ``columns`` (each member a count whose condition reads one
    of them), as a full scan's value branch computes them (``emit.spark``'s
    ``value_frame``) grouped by the partition too: the rows counted per partition and
    combination of values (a null is a value), each condition evaluated once per group,
    the rows of the groups where it holds summed per partition; a sketched distinct
    count of one of the columns from its groups (each value once: the same registers as
    from every row, :func:`~assay.planner.partitions.partition_plan`)."""
    names = {c: f"_assay_v{k}" for k, c in enumerate(columns)}
    counts = df.groupBy(col(by).alias(PART), *(col(c).alias(names[c]) for c in columns)).agg(
        F.count(F.lit(1)).alias("_assay_n")
    )
    renamed = {Col(c): Col(names[c]) for c in columns}
    n, outputs = F.col("_assay_n"), []
    for index, measure in members:
        if isinstance(measure, GroupStats):  # a distinct count of a column grouped here
            outputs.extend(_partials(f"m{index}", measure, types, names))
            continue
        assert isinstance(measure, CountIf), measure
        predicate = rebuild(
            measure.predicate, lambda e: renamed.get(e, e) if isinstance(e, Col) else e
        )
        holds = column(predicate)
        outputs.append(F.coalesce(F.sum(F.when(holds, n)), F.lit(0)).alias(f"m{index}_n"))
    return counts.groupBy(PART).agg(*outputs)


def _aggregate(
    df: DataFrame,
    by: str,
    members: Sequence[tuple[int, Measure]],
    types: Mapping[str, str],
    keyed: Mapping[int, int | None],
) -> DataFrame:
    """One aggregate grouped by the partition: the partial values of ``members`` (a
    key's groups: that measure alone, :func:`_group_partials`)."""
    grouped = [(i, m) for i, m in members
               if isinstance(m, GroupStats) and partial_kind(m, by) == "groups"]  # fmt: skip
    if grouped:
        if len(members) != 1:
            raise ValueError("the groups of a key are a group-by of their own")
        ((index, measure),) = grouped
        return _group_partials(df, by, f"m{index}", measure, index in keyed, keyed.get(index))
    outputs = [c for i, m in members for c in _partials(f"m{i}", m, types)]
    return df.groupBy(col(by).alias(PART)).agg(*outputs)


def _kept(measure: GroupStats) -> Column | None:
    """Whether a row belongs to the groups (its filter, its keys' nulls); None: every row."""
    keys = [col(c) for c in measure.columns]
    kept = [] if measure.where is None else [column(measure.where)]
    if measure.nulls == "all":
        kept.append(balanced([k.isNotNull() for k in keys], lambda a, b: a | b))
    elif measure.nulls == "any":
        kept.append(balanced([k.isNotNull() for k in keys], lambda a, b: a & b))
    return balanced(kept, lambda a, b: a & b) if kept else None


def _sketchable(value: Column, kind: str) -> Column:
    """A value as ``hll_sketch_agg`` takes it (an INT, BIGINT, STRING or BINARY): any
    other type as its text (one text per value of the type). A text or binary value
    ends in one more character (byte), :data:`~assay.planner.incremental.SKETCHED_TEXT`:
    the sketch passes over an empty one (DataSketches ignores an empty update), which
    Spark's exact distinct count counts; the suffix keeps every two values apart."""
    if kind in ("tinyint", "smallint", "int"):
        return value.cast("int")
    if kind == "bigint":
        return value
    if kind == "binary":
        return F.concat(value, F.lit(bytearray(SKETCHED_TEXT.encode())))
    return F.concat(value if kind == "string" else value.cast("string"), F.lit(SKETCHED_TEXT))


def _group_partials(
    df: DataFrame,
    by: str,
    name: str,
    measure: GroupStats,
    by_key: bool = False,
    partitions: int | None = None,
) -> DataFrame:
    """Each partition's groups of equal key values (the rows a ``GroupStats`` keeps, as
    the full scan's branch keeps them), rows, rows in groups of 2+ and of 1. ``by_key``
    (keys expected unique): the rows shuffled straight to their key's partition, into
    ``partitions`` (None: the session's), as a full scan's group-by: a partial
    aggregation of unique keys keeps every row, and Spark's shuffle of it writes a file
    per partition of the session's 200 even for a few rows."""
    keys = [col(c) for c in measure.columns]
    kept = _kept(measure)
    rows = df if kept is None else df.where(kept)
    if by_key:  # the key holds the partition column: each partition's keys together
        rows = rows.repartition(partitions, *keys) if partitions else rows.repartition(*keys)
    n = F.col("_assay_n")
    counts = rows.groupBy(col(by).alias(PART), *keys).agg(F.count(F.lit(1)).alias("_assay_n"))
    return counts.groupBy(PART).agg(
        F.count(n).alias(f"{name}_groups"),
        F.sum(n).alias(f"{name}_rows"),
        F.sum(F.when(n > 1, n)).alias(f"{name}_dup_rows"),
        F.count_if(n == 1).alias(f"{name}_unique_rows"),
    )


def partial_columns(index: int, measure: Measure, by: str) -> list[str]:
    """The output names of measure ``index``'s partial values."""
    kind = partial_kind(measure, by)
    assert kind is not None
    return [f"m{index}_{name}" for name in PARTIALS[kind]]


def _partials(
    name: str, measure: Measure, types: Mapping[str, str], renamed: Mapping[str, str] | None = None
) -> list[Column]:
    """A measure's partial values (``renamed``: a column read under another name)."""
    renamed = renamed or {}
    if isinstance(measure, GroupStats):  # one column's distinct values, sketched
        (column_name,) = measure.columns
        read = F.col(renamed[column_name]) if column_name in renamed else col(column_name)
        value = _sketchable(read, types.get(column_name.lower(), "string"))
        if measure.where is not None:
            value = F.when(column(measure.where), value)
        return [F.hll_sketch_agg(value, F.lit(HLL_LG_K)).alias(f"{name}_sketch")]
    if isinstance(measure, RowCount):
        return [F.count(F.lit(1)).alias(f"{name}_n")]
    if isinstance(measure, CountIf):
        return [F.count_if(column(measure.predicate)).alias(f"{name}_n")]
    assert isinstance(measure, ColumnAgg)
    value = col(measure.column)
    if measure.where is not None:
        value = F.when(column(measure.where), value)
    if measure.fn in ("min", "max"):
        return [(F.min if measure.fn == "min" else F.max)(value).alias(f"{name}_v")]
    if measure.fn in ("sum", "avg"):
        return [F.sum(value).alias(f"{name}_s"), F.count(value).alias(f"{name}_n")]
    double = value.cast("double")
    return [
        F.count(double).alias(f"{name}_n"),
        F.avg(double).alias(f"{name}_mean"),
        (F.var_pop(double) * F.count(double)).alias(f"{name}_m2"),
    ]

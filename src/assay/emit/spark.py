"""Plan IR -> Spark Connect columns and DataFrames.

The only module that builds Spark plans. Every n-ary connective and every union of
parts is reduced as a balanced tree, so 1,000 rules stay ~10 levels deep (Spark
Connect fails on plans or expressions deeper than a few hundred levels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.column import Column
from pyspark.sql.connect.dataframe import DataFrame
from pyspark.sql.connect.session import SparkSession
from pyspark.sql.connect.window import Window

from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    InSet,
    IsNaN,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Or,
    Sql,
)
from assay.ir.suite import CatalogSource, Source, SqlSource
from assay.ir.values import Op
from assay.planner.measures import ColumnAgg, CountIf, Measure, RowCount, ServerNow
from assay.planner.plan import AggregatePlan, DetailPlan, GroupAggregate, ScanAggregate, SqlPlan
from assay.planner.render import quote

T = TypeVar("T")

_CMP: dict[Op, Callable[[Column, Column], Column]] = {
    Op.LT: lambda a, b: a < b,
    Op.LE: lambda a, b: a <= b,
    Op.EQ: lambda a, b: a == b,
    Op.NE: lambda a, b: a != b,
    Op.GE: lambda a, b: a >= b,
    Op.GT: lambda a, b: a > b,
}

_AGG: dict[str, Callable[[Column], Column]] = {
    "min": F.min,
    "max": F.max,
    "avg": F.avg,
    "sum": F.sum,
    "stddev": F.stddev_samp,
}


def balanced(items: Sequence[T], combine: Callable[[T, T], T]) -> T:
    """Reduce ``items`` pairwise as a balanced tree (depth log2 n, not n)."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return combine(balanced(items[:mid], combine), balanced(items[mid:], combine))


def col(name: str) -> Column:
    """A column by name; dots and spaces are literal parts of the name."""
    return F.col(quote(name))


def column(expr: Expr) -> Column:
    """Translate a row expression."""
    if isinstance(expr, Col):
        return col(expr.name)
    if isinstance(expr, Lit):
        return F.lit(expr.value)
    if isinstance(expr, Compare):
        return _CMP[expr.op](column(expr.left), column(expr.right))
    if isinstance(expr, And):
        return balanced([column(i) for i in expr.items], lambda a, b: a & b)
    if isinstance(expr, Or):
        return balanced([column(i) for i in expr.items], lambda a, b: a | b)
    if isinstance(expr, Coalesce):
        return F.coalesce(*(column(i) for i in expr.items))
    return _unary(expr)


def _unary(expr: Expr) -> Column:
    if isinstance(expr, Not):
        return ~column(expr.item)
    if isinstance(expr, IsNull):
        return column(expr.item).isNull()
    if isinstance(expr, IsNaN):
        return F.isnan(column(expr.item))
    if isinstance(expr, InSet):
        return column(expr.item).isin(*expr.values)
    if isinstance(expr, Matches):
        return column(expr.item).rlike(expr.pattern)
    if isinstance(expr, Length):
        return F.length(column(expr.item))
    if isinstance(expr, Sql):
        return F.expr(expr.text)
    raise TypeError(f"no Spark translation for {type(expr).__name__}")


# --- sources ------------------------------------------------------------------------------


def source_frame(spark: SparkSession, source: Source, row_filter: str | None) -> DataFrame:
    """The table's rows: its source read lazily, with the table filter applied."""
    if isinstance(source, CatalogSource):
        df = spark.read.table(source.table)
    elif isinstance(source, SqlSource):
        df = spark.sql(source.query)
    else:
        reader = spark.read.format(source.format).options(**dict(source.options))
        df = reader.load(list(source.paths)) if source.paths else reader.load()
    return df.where(F.expr(row_filter)) if row_filter else df


_SQL_FORMATS = {"parquet", "orc", "json", "csv", "avro", "text"}


def source_sql(source: Source, row_filter: str | None) -> str | None:
    """The table as SQL text when Spark SQL can express it (None: a path with options).

    Binding ``_validation_df`` as a CTE over this text keeps SQL rules to one Spark plan;
    a temp view would cost an extra command execution.
    """
    if isinstance(source, CatalogSource):
        text = f"SELECT * FROM {source.table}"
    elif isinstance(source, SqlSource):
        text = f"SELECT * FROM ({source.query}) AS _assay_source"
    elif source.format in _SQL_FORMATS and len(source.paths) == 1 and not source.options:
        text = f"SELECT * FROM {source.format}.{quote_path(source.paths[0])}"
    else:
        return None
    return f"{text} WHERE {row_filter}" if row_filter else text


def quote_path(path: str) -> str:
    """A path as a backticked SQL identifier."""
    return "`" + path.replace("`", "``") + "`"


# --- the aggregate pass -------------------------------------------------------------------


def measure_columns(name: str, measure: Measure) -> list[Column]:
    """The aggregate output column(s) of one scan slot."""
    if isinstance(measure, RowCount):
        return [F.count(F.lit(1)).alias(name)]
    if isinstance(measure, CountIf):
        return [F.count_if(column(measure.predicate)).alias(name)]
    if isinstance(measure, ColumnAgg):
        return [_AGG[measure.fn](col(measure.column)).alias(name)]
    if isinstance(measure, ServerNow):
        return [F.max(F.current_timestamp()).alias(name)]
    raise TypeError(f"no aggregate for {type(measure).__name__}")


def _scan_frame(df: DataFrame, scan: ScanAggregate) -> DataFrame:
    return df.agg(*(c for slot in scan.slots for c in measure_columns(slot.name, slot.measure)))


def _group_frame(df: DataFrame, group: GroupAggregate) -> DataFrame:
    keys = [col(c) for c in group.columns]
    not_null = balanced([k.isNotNull() for k in keys], lambda a, b: a & b)
    counts = df.where(not_null).groupBy(*keys).agg(F.count(F.lit(1)).alias("_assay_n"))
    n = F.col("_assay_n")
    name = group.slot.name
    return counts.agg(
        F.count(F.lit(1)).alias(f"{name}_groups"),
        F.sum(n).alias(f"{name}_rows"),
        F.sum(F.when(n > 1, n)).alias(f"{name}_dup_rows"),
        F.count_if(n == 1).alias(f"{name}_unique_rows"),
    )


def aggregate_frame(df: DataFrame, plan: AggregatePlan) -> DataFrame:
    """ONE single-row DataFrame computing every slot: scans and group-bys cross-joined."""
    parts = [_scan_frame(df, s) for s in plan.scans] + [_group_frame(df, g) for g in plan.groups]
    return balanced(parts, lambda a, b: a.crossJoin(b))


# --- SQL rules ----------------------------------------------------------------------------


def sql_text(plan: SqlPlan, validation_df: str) -> str:
    """One query evaluating every SQL rule: ``WITH _validation_df AS (...) SELECT (q0), ...``.

    A boolean rule yields ``struct(n, v)``: rows returned and the first value, so a
    query returning several rows is reported rather than failing the whole batch.
    """
    items = ", ".join(f"{_sql_item(q.check.query, q.check.mode)} AS {q.name}" for q in plan.queries)
    if plan.count_rows:
        items += ", (SELECT count(*) FROM _validation_df) AS _assay_rows"
    return f"WITH _validation_df AS ({validation_df}) SELECT {items}"


def _sql_item(query: str, mode: str) -> str:
    body = query.strip().rstrip(";")
    if mode == "failed_rows":
        return f"(SELECT count(*) FROM ({body}) AS _assay_q)"
    return f"(SELECT named_struct('n', count(*), 'v', first(_assay_c)) FROM ({body}) AS _assay_q(_assay_c))"


def single_sql_text(query: str, mode: str, validation_df: str) -> str:
    """One SQL rule alone (used to find which rule of a failing batch is at fault)."""
    return f"WITH _validation_df AS ({validation_df}) SELECT {_sql_item(query, mode)} AS q"


# --- the detail pass ----------------------------------------------------------------------


def detail_frame(df: DataFrame, plan: DetailPlan) -> DataFrame:
    """Up to ``sample_size`` failing rows per rule in one plan: a single scan keeps rows
    failing any sampled rule, tags them with the rules they fail, and keeps the first N
    per rule ordered by key (Spark pushes the ``row_number() <= N`` limit below the
    shuffle). Columns: ``_assay_rule`` (rule index) and ``_assay_row`` (JSON object).
    """
    windows = {
        n: F.count(F.lit(1)).over(Window.partitionBy(*(col(c) for c in e.group)))
        for n, e in enumerate(plan.entries)
        if e.group is not None
    }
    base = df.select("*", *(w.alias(f"_assay_dup{n}") for n, w in windows.items())) if windows else df
    tests = [_entry_test(n, e) for n, e in enumerate(plan.entries)]
    tagged = base.where(balanced(tests, lambda a, b: a | b)).select(
        *(col(k).alias(f"_assay_key{i}") for i, k in enumerate(plan.keys)),
        F.array(*(
            F.when(t, F.struct(F.lit(e.rule_index).alias("r"), _row_json(e.columns).alias("j")))
            for t, e in zip(tests, plan.entries, strict=True)
        )).alias("_assay_hits"),
    )
    hit = F.explode(F.filter("_assay_hits", lambda h: h.isNotNull())).alias("_assay_hit")
    keys = [F.col(f"_assay_key{i}") for i in range(len(plan.keys))]
    exploded = tagged.select(*keys, hit)
    order = Window.partitionBy(F.col("_assay_hit.r")).orderBy(*keys, F.col("_assay_hit.j"))
    return (
        exploded.withColumn("_assay_n", F.row_number().over(order))
        .where(F.col("_assay_n") <= plan.sample_size)
        .select(F.col("_assay_hit.r").alias("_assay_rule"), F.col("_assay_hit.j").alias("_assay_row"))
    )


def _entry_test(n: int, entry) -> Column:
    if entry.group is not None:
        keys = [col(c).isNotNull() for c in entry.group]
        return balanced(keys, lambda a, b: a & b) & (F.col(f"_assay_dup{n}") > 1)
    assert entry.predicate is not None
    return F.coalesce(column(entry.predicate), F.lit(False))


def _row_json(columns: Sequence[str]) -> Column:
    if not columns:
        return F.lit("{}")
    return F.to_json(F.struct(*(col(c).alias(c) for c in columns)), {"ignoreNullFields": "false"})

"""Plan IR -> Spark Connect DataFrames: a table's source, its aggregate and SQL passes (a
row expression's column is ``emit.columns``', the histogram pass ``emit.histogram``'s, the
detail pass ``emit.detail``'s).

Every union of parts is reduced as a balanced tree, so 1,000 rules stay ~10 levels deep
(Spark Connect fails on plans deeper than a few hundred levels).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession
from pyspark.sql.connect.window import Window

from assay.emit import groups
from assay.emit.columns import balanced, col, column, lit
from assay.emit.drift import sketch_columns, sketch_frame, value_counts_frame
from assay.emit.frequencies import frequencies_frame
from assay.emit.references import References, reference_frame
from assay.ir.expr import Col, Expr, rebuild
from assay.ir.suite import CatalogSource, DataFrameSource, Source, SqlSource
from assay.planner.drift import Sketch, SketchCounts, ValueCounts
from assay.planner.frequencies import Frequencies
from assay.planner.measures import (
    MEASURE_KINDS,
    AgeMicros,
    AggEquals,
    Aggregate,
    ColumnAgg,
    CountIf,
    ExprAggregate,
    GroupStats,
    Measure,
    PerGroup,
    RowCount,
    ServerNow,
    SqlAggregate,
)
from assay.planner.plan import (
    AggregatePlan,
    Branch,
    GroupAggregate,
    ReferenceAggregate,
    ScanAggregate,
    SqlPlan,
    ValueAggregate,
)
from assay.planner.render import quote
from assay.planner.sqlfold import without_final_semicolons

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import Column, DataFrame

_AGG: dict[str, Callable[[Column], Column]] = {
    "min": F.min,
    "max": F.max,
    "avg": F.avg,
    "sum": F.sum,
    "stddev": F.stddev_samp,
}


# --- sources ------------------------------------------------------------------------------


def source_frame(spark: SparkSession, source: Source, row_filter: str | None) -> DataFrame:
    """The table's rows: its source read lazily, with the table filter applied."""
    df: DataFrame
    if isinstance(source, CatalogSource):
        df = spark.read.table(source.table)
    elif isinstance(source, SqlSource):
        df = spark.sql(source.query)
    elif isinstance(source, DataFrameSource):
        raise TypeError("a DataFrame source is bound by the run (assay.executor.frames)")
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
        text = f"SELECT * FROM ({source.query}\n) AS _assay_source"
    elif isinstance(source, DataFrameSource):
        text = f"SELECT * FROM {source.sql_name}"  # bound by assay.executor.frames
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
    """The aggregate output column(s) of one scan slot (its kind's emitter)."""
    return _emit_measure(measure, name)


@functools.singledispatch
def _emit_measure(measure: object, name: str) -> list[Column]:
    raise TypeError(f"no Spark emitter for measure {type(measure).__name__}")


@_emit_measure.register(RowCount)
def _(measure: RowCount, name: str) -> list[Column]:
    return [F.count(F.lit(1)).alias(name)]


@_emit_measure.register(SqlAggregate)
def _(measure: SqlAggregate, name: str) -> list[Column]:
    return [F.expr(measure.text).alias(name)]


@_emit_measure.register(CountIf)
def _(measure: CountIf, name: str) -> list[Column]:
    return [F.count_if(column(measure.predicate)).alias(name)]


def _kept(value: Column, where: Expr | None) -> Column:
    """``value`` on the rows where ``where`` holds, null on the others (which the
    aggregate functions reading it ignore): a rule's filter inside the one scan."""
    return value if where is None else F.when(column(where), value)


@_emit_measure.register(ColumnAgg)
def _(measure: ColumnAgg, name: str) -> list[Column]:
    return [_AGG[measure.fn](_kept(col(measure.column), measure.where)).alias(name)]


@_emit_measure.register(Aggregate)
def _(measure: Aggregate, name: str) -> list[Column]:
    # a decimal argument is a fraction Spark reads as a DOUBLE (percentile's percentage)
    args = [F.array(*map(_arg, a)) if isinstance(a, tuple) else _arg(a) for a in measure.args]
    columns = [col(c) for c in (measure.column, *measure.more)]
    cast = [c if measure.cast is None else c.cast(measure.cast) for c in columns]
    values = [_kept(F.length(c) if measure.length else c, measure.where) for c in cast]
    return [F.call_function(measure.function, *values, *args).alias(name)]


def _arg(value: object) -> Column:
    return F.lit(float(value) if isinstance(value, Decimal) else value)


@_emit_measure.register(ExprAggregate)
def _(measure: ExprAggregate, name: str) -> list[Column]:
    args = [F.array(*map(F.lit, a)) if isinstance(a, tuple) else F.lit(a) for a in measure.args]
    value = _kept(column(measure.expr), measure.where)
    return [F.call_function(measure.function, value, *args).alias(name)]


_emit_measure.register(Sketch, sketch_columns)
_emit_measure.register(SketchCounts, sketch_columns)  # a sketch's counts in another branch


@_emit_measure.register(ServerNow)
def _(measure: ServerNow, name: str) -> list[Column]:
    return [F.max(F.current_timestamp()).alias(name)]


@_emit_measure.register(AggEquals)
def _(measure: AggEquals, name: str) -> list[Column]:
    value = _AGG[measure.fn](_kept(col(measure.column), measure.where))
    if not measure.representable:
        # the column's type cannot hold the value: no aggregate of it equals it
        return [F.when(value.isNotNull(), F.lit(False)).alias(name)]
    return [(value == lit(measure.value, measure.cast)).alias(name)]


@_emit_measure.register(AgeMicros)
def _(measure: AgeMicros, name: str) -> list[Column]:
    newest = F.max(_kept(col(measure.column), measure.where)).cast("timestamp")
    if measure.whole_seconds:
        age = F.unix_seconds(F.current_timestamp()) - F.unix_seconds(newest)
        return [(age * F.lit(1_000_000)).alias(name)]
    return [(F.unix_micros(F.current_timestamp()) - F.unix_micros(newest)).alias(name)]


def _check_emitters() -> None:
    """Every scan measure kind the planner knows has an emitter here (checked at import:
    a kind added in one layer and forgotten in the other never reaches a run)."""
    missing = [
        k.__name__
        for k, kind in MEASURE_KINDS.items()
        if kind.scan and _emit_measure.dispatch(k) is _emit_measure.dispatch(object)
    ]
    if missing:
        raise TypeError(f"measure kinds without a Spark emitter: {', '.join(missing)}")


_check_emitters()


def _scan_frame(df: DataFrame, scan: ScanAggregate) -> DataFrame:
    sketches = [s for s in scan.slots if isinstance(s.form, Sketch)]
    if sketches:  # drift against history: sampled, beside the branch's other slots
        rest = ScanAggregate(tuple(s for s in scan.slots if s not in sketches), scan.where)
        frame = sketch_frame(df, sketches)
        return _scan_frame(df, rest).crossJoin(frame) if rest.slots else frame
    if scan.where is None:
        return df.agg(*(c for slot in scan.slots for c in measure_columns(slot.name, slot.form)))
    # A statistics-prunable branch: only rows matching `where` are read and counted.
    rows = df.where(column(scan.where))
    if len(scan.slots) == 1:
        return rows.agg(F.count(F.lit(1)).alias(scan.slots[0].name))
    return rows.agg(*(c for slot in scan.slots for c in measure_columns(slot.name, slot.form)))


def _group_frame(df: DataFrame, group: GroupAggregate) -> DataFrame:
    keys = [col(c) for c in group.columns]
    measure = group.slot.measure
    if isinstance(measure, PerGroup):
        rows = groups.per_group_rows(df, measure, measure_columns)
        return groups.per_group_counts(rows, group.slot.name)
    if isinstance(measure, Frequencies):
        return frequencies_frame(df, measure, group.slot.name)
    if isinstance(measure, ValueCounts):
        return value_counts_frame(df, measure, group.slot.name)
    nulls = measure.nulls if isinstance(measure, GroupStats) else "any"
    if isinstance(measure, GroupStats) and measure.where is not None:
        df = df.where(column(measure.where))  # a rule's filter: the groups of its rows
    if nulls == "none":
        rows = df  # a null is a value: Spark groups nulls together
    elif nulls == "all":
        rows = df.where(balanced([k.isNotNull() for k in keys], lambda a, b: a | b))
    else:
        rows = df.where(balanced([k.isNotNull() for k in keys], lambda a, b: a & b))
    if group.by_key:
        # Straight to the key's partition: partial aggregation is wasted on unique keys.
        rows = (
            rows.repartition(group.partitions, *keys)
            if group.partitions
            else rows.repartition(*keys)
        )
    counts = rows.groupBy(*keys).agg(F.count(F.lit(1)).alias(_ROWS))
    return counts.agg(*_group_statistics(group.slot.name, F.col(_ROWS)))


_VALUE, _ROWS = "_assay_v", "_assay_n"


def _group_statistics(name: str, n: Column, kept: Column | None = None) -> list[Column]:
    """A ``GroupStats`` slot's outputs over groups of ``n`` rows (those where ``kept``
    holds): groups, rows, rows in groups of 2+, rows in groups of 1."""
    if kept is not None:
        n = F.when(kept, n)
    return [
        F.count(n).alias(f"{name}_groups"),
        F.sum(n).alias(f"{name}_rows"),
        F.sum(F.when(n > 1, n)).alias(f"{name}_dup_rows"),
        F.count_if(n == 1).alias(f"{name}_unique_rows"),
    ]


def _value_frame(df: DataFrame, branch: ValueAggregate) -> DataFrame:
    """The rows grouped by the branch's columns (a null is a value), then every slot in
    one aggregate over the groups: a count sums the rows of the groups whose value its
    predicate holds for (evaluated once per group), a column's groups' statistics read
    that column's values and keep the non-null ones (or all of them).

    With several columns a group is a combination of values: a column's statistics read
    each combination with the rows of its value of that column (a window over the few
    combinations) and count each value once (its first combination). Summing the
    combinations per value in an aggregate of their own would not do: Spark rewrites
    that into a second scan of the table."""
    names = {c: f"{_VALUE}{i}" for i, c in enumerate(branch.columns)}
    counts = df.groupBy(*(col(c).alias(names[c]) for c in branch.columns)).agg(
        F.count(F.lit(1)).alias(_ROWS)
    )
    n = F.col(_ROWS)
    renamed = {Col(c): Col(names[c]) for c in branch.columns}
    outputs: list[Column] = []
    for slot in branch.slots:
        measure = slot.measure
        value = names[branch.column_of(slot)]
        if isinstance(measure, CountIf):
            holds = column(
                rebuild(measure.predicate, lambda e: renamed.get(e, e) if isinstance(e, Col) else e)
            )
            outputs.append(F.coalesce(F.sum(F.when(holds, n)), F.lit(0)).alias(slot.name))
            continue
        assert isinstance(measure, GroupStats)
        kept = None if measure.nulls == "none" else F.col(value).isNotNull()
        if len(branch.columns) == 1:
            outputs += _group_statistics(slot.name, n, kept)
            continue
        total, first = f"{value}_rows", f"{value}_first"
        if total not in counts.columns:
            per_value = Window.partitionBy(value)
            counts = counts.withColumn(total, F.sum(n).over(per_value)).withColumn(
                first, F.row_number().over(per_value.orderBy(*map(F.col, names.values()))) == 1
            )
        outputs += _value_statistics(slot.name, n, F.col(total), F.col(first), kept)
    return counts.agg(*outputs)


def _value_statistics(
    name: str, n: Column, total: Column, first: Column, kept: Column | None
) -> list[Column]:
    """:func:`_group_statistics` of one column over combinations of values: ``n`` rows
    each, ``total`` rows with the combination's value of the column, ``first`` where the
    combination is that value's first."""
    if kept is not None:
        first, n = first & kept, F.when(kept, n)
    return [
        F.count_if(first).alias(f"{name}_groups"),
        F.sum(n).alias(f"{name}_rows"),
        F.sum(F.when(total > 1, n)).alias(f"{name}_dup_rows"),
        F.count_if(first & (total == 1)).alias(f"{name}_unique_rows"),
    ]


def references_of(df: DataFrame, refs: Mapping[Source, DataFrame] | None) -> References:
    """The referenced sources of a plan over ``df``: those given, the others read from
    ``df``'s session."""
    spark = df.sparkSession
    return References(lambda source: source_frame(spark, source, None), refs)  # type: ignore[arg-type]


def aggregate_frame(
    df: DataFrame, plan: AggregatePlan, refs: Mapping[Source, DataFrame] | None = None
) -> DataFrame:
    """ONE single-row DataFrame computing every slot: scans, group-bys and reference
    branches (over ``refs``, the referenced sources read) cross-joined."""
    sides = references_of(df, refs)
    parts = [_branch_frame(b, df, sides) for b in plan.branches]
    return balanced(parts, lambda a, b: a.crossJoin(b))


@functools.singledispatch
def _branch_frame(branch: Branch, df: DataFrame, sides: References) -> DataFrame:
    """One branch of the aggregate plan as a single-row DataFrame over ``df``."""
    raise NotImplementedError(f"no Spark frame for {type(branch).__name__}")


_branch_frame.register(ScanAggregate, lambda b, df, _: _scan_frame(df, b))
_branch_frame.register(GroupAggregate, lambda b, df, _: _group_frame(df, b))
_branch_frame.register(ReferenceAggregate, lambda b, df, sides: reference_frame(df, b, sides))
_branch_frame.register(ValueAggregate, lambda b, df, _: _value_frame(df, b))


# --- SQL rules ----------------------------------------------------------------------------


def sql_text(plan: SqlPlan, validation_df: str) -> str:
    """One query evaluating every SQL rule, a row per rule: ``WITH _validation_df AS
    (...) SELECT _assay_i, _assay_r FROM (branch0 UNION ALL branch1 ...)``.

    Each rule is a branch of a union (its query in a FROM clause), never a scalar
    subquery of one SELECT: Spark runs a query's scalar subqueries on a pool of 16
    threads (``spark.sql.subquery.maxThreadThreshold``) that 16 or more blocked
    subqueries exhaust for good, hanging the query and every later one with a subquery.
    A branch yields its rule's index and, as JSON text (so branches of any value type
    union), ``{"n": rows returned, "v": the first value}``; a query returning several
    rows is reported rather than failing the whole batch.

    No aggregate gathers the rows (``collect_list`` did: its stage's task carried the
    plan of every branch, 14.9 MiB for a DQX suite's 19 SQL rules, whose plan took 32 s
    against 14 s without it).
    """
    branches = [_sql_branch(q.rule_index, q.check.query, q.check.mode) for q in plan.queries]
    if plan.count_rows:
        branches.append(
            f"SELECT {ROWS_INDEX} AS _assay_i, {_COUNT} AS _assay_r FROM _validation_df"
        )
    union = "\nUNION ALL\n".join(branches)
    return (
        f"WITH _validation_df AS ({validation_df}\n) "
        f"SELECT _assay_i, _assay_r FROM ({union}\n) AS _assay_sql_rules"
    )


ROWS_INDEX = -1
"""The SQL plan's branch counting the table's rows (an index no rule has)."""

_COUNT = "to_json(named_struct('n', count(*)))"


def _sql_branch(index: int, query: str, mode: str) -> str:
    # the query as written, without its trailing semicolons; the newline ends a trailing
    # ``--`` comment before the parenthesis that closes the subquery
    # on lines of its own, so Spark's (line, pos) of an error in it maps back to the rule
    body = "\n" + without_final_semicolons(query) + "\n"
    if mode == "failed_rows":
        return f"SELECT {index} AS _assay_i, {_COUNT} AS _assay_r FROM ({body}) AS _assay_q"
    first = "to_json(named_struct('n', count(*), 'v', first(_assay_c)))"
    return f"SELECT {index} AS _assay_i, {first} AS _assay_r FROM ({body}) AS _assay_q(_assay_c)"


def uncompilable_patterns(spark: SparkSession, patterns: Sequence[str]) -> dict[str, Exception]:
    """The patterns Java's regex engine refuses, with Spark's error: every pattern is
    matched against a literal in one query that Spark's optimizer folds (an analysis RPC
    with ``explain``, no scan, no execution); only when that fails is each tried alone."""

    def folded(items: Sequence[str]) -> None:
        frame = spark.range(1).select(
            *(F.lit("").rlike(p).alias(f"p{n}") for n, p in enumerate(items))
        )
        explain: Callable[..., str] = getattr(frame, "_explain_string")  # noqa: B009
        explain(extended=False)

    if not patterns:
        return {}
    try:
        folded(patterns)
        return {}
    except Exception:  # noqa: BLE001 - found per pattern below
        pass
    bad: dict[str, Exception] = {}
    for pattern in patterns:
        try:
            folded([pattern])
        except Exception as exc:  # noqa: BLE001 - the caller reports it at the rule
            bad[pattern] = exc
    return bad


def snippet_types(df: DataFrame, texts: Sequence[str]) -> list[str]:
    """The Spark type of each SQL expression over ``df`` (one analysis RPC, no scan)."""
    frame = df.select(*(F.expr(t).alias(f"_assay_s{n}") for n, t in enumerate(texts)))
    return [f.dataType.simpleString() for f in frame.schema.fields]


def snippet_aggregates(df: DataFrame, texts: Sequence[str]) -> list[str]:
    """The Spark type of each SQL aggregate expression over ``df``, as the aggregate plan
    computes it (one analysis RPC, no scan): Spark refuses a column outside an aggregate."""
    frame = df.agg(*(F.expr(t).alias(f"_assay_s{n}") for n, t in enumerate(texts)))
    return [f.dataType.simpleString() for f in frame.schema.fields]


def snippet_counts(df: DataFrame, texts: Sequence[str]) -> list[str]:
    """Analyse each boolean SQL expression as the aggregate reads it, ``count_if(...)``
    (one analysis RPC, no scan): Spark refuses an aggregate or window function there."""
    frame = df.agg(*(F.count_if(F.expr(t)).alias(f"_assay_s{n}") for n, t in enumerate(texts)))
    return [f.dataType.simpleString() for f in frame.schema.fields]


def analysed(spark: SparkSession, text: str) -> None:
    """Have Spark parse and analyse a query (one analysis RPC, no scan, no command).
    Raises what Spark raises for it."""
    from pyspark.sql.connect.dataframe import DataFrame as ConnectFrame
    from pyspark.sql.connect.plan import SQL

    # a lazy relation: ``spark.sql`` would first run the text as a command
    _ = ConnectFrame(SQL(text, [], {}, []), spark).schema


def schema_stand_in(schema: Sequence[tuple[str, str]]) -> str:
    """A query with no rows and exactly ``schema``'s columns and types, to analyse SQL
    written against a table that has no SQL text (a path read with options): analysis
    sees only names and types.

    >>> schema_stand_in([("id", "bigint"), ("order id", "decimal(10,2)")])
    'SELECT CAST(NULL AS bigint) AS id, CAST(NULL AS decimal(10,2)) AS `order id` WHERE false'
    """
    columns = ", ".join(f"CAST(NULL AS {kind}) AS {quote(name)}" for name, kind in schema)
    return f"SELECT {columns} WHERE false"


def single_sql_text(query: str, mode: str, validation_df: str) -> tuple[str, int]:
    """One SQL rule alone (used to find which rule of a failing batch is at fault), and
    the line of that text where the rule's query starts (Spark counts lines from 1)."""
    head = f"WITH _validation_df AS ({validation_df}\n) "
    branch = _sql_branch(0, query, mode)
    return head + branch, head.count("\n") + branch.split("\n", 1)[0].count("\n") + 2


# public: benchmarks time each part of a plan
scan_frame, group_frame, value_frame = _scan_frame, _group_frame, _value_frame

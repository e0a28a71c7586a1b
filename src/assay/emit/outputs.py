"""Spark plans for the dialects' writes: failing rows, the valid/invalid split, SQL rows and
the rule report (each write is one Spark plan; none adds a scan beyond the write itself).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession

from assay.emit.columns import balanced, col, column, shared_count
from assay.emit.spark import references_of
from assay.ir.outputs import Sink
from assay.ir.rules import Rule

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import Column, DataFrame

REPORT_SCHEMA = (
    "pipeline string, rule_type string, check_name string, severity string, passed boolean, "
    "failed_count bigint, metric_value double, message string, validated_at timestamp"
)
"""sparquet's report columns, in its order."""

HISTORY_SCHEMA = REPORT_SCHEMA + ", run_id string, table string, rule_index int, location string"
"""A native ``history:`` output: the report's columns, then where each row comes from."""


def _group_test(columns: Sequence[str], nulls: str, window_col: Column) -> Column:
    if nulls == "none":
        return F.coalesce(window_col > 1, F.lit(False))
    present = [col(c).isNotNull() for c in columns]
    combine = (lambda a, b: a | b) if nulls == "all" else (lambda a, b: a & b)
    return balanced(present, combine) & (window_col > 1)


def failing_predicates(
    rules: Sequence[Rule],
) -> tuple[list[Column], list[Column]]:
    """``(windows, tests)``: window columns to add (one per uniqueness rule, aliased
    ``_assay_wN``) and, per rule, a never-null test true for its failing rows. A rule
    judged on the whole table (``has_size``, ``avg``, ``schema``, a boolean ``sql``...)
    has no failing row of its own: every row is its failing rows (what Metorikku writes
    for a failed ``hasSize``): :func:`assay.ir.rules.failing_rows_of`."""
    windows: list[Column] = []
    tests: list[Column] = []
    for rule in rules:
        rows = rule.failing_rows
        if rows.group:
            name = f"_assay_w{len(windows)}"
            windows.append(shared_count(rows.group, rows.where).alias(name))
            test = _group_test(rows.group, rows.nulls, F.col(name))
            if rows.where is not None:
                test = F.coalesce(column(rows.where), F.lit(False)) & test
            tests.append(test)
        elif rows.predicate is not None:
            tests.append(F.coalesce(column(rows.predicate), F.lit(False)))
        else:
            tests.append(F.lit(True))
    return windows, tests


def _looked_up(
    df: DataFrame, rules: Sequence[Rule], tests: list[Column]
) -> tuple[DataFrame, list[Column]]:
    """``df`` with a column per foreign key saying whether its key has a match among the
    referenced distinct keys (a left join with them: one row per row of ``df``), and each
    foreign key's test narrowed to the rows without a match (with one, when negated)."""
    refs = references_of(df, None)
    for n, rule in enumerate(rules):
        rows = rule.failing_rows
        lookup = rows.absent or rows.present
        if lookup is None:
            continue
        marker = f"_assay_m{n}"
        keys = refs.keys(lookup).select("*", F.lit(True).alias(marker))
        on = balanced(
            [col(c) == F.col(f"_assay_r{i}") for i, c in enumerate(lookup.columns)],
            lambda a, b: a & b,
        )
        refs_columns = [f"_assay_r{i}" for i in range(len(lookup.columns))]
        df = df.join(keys, on=on, how="left").drop(*refs_columns)
        found = F.col(marker).isNotNull()
        tests[n] = tests[n] & (found if rows.present is not None else ~found)
    return df, tests


def failing_rows(df: DataFrame, columns: Sequence[str], rule: Rule) -> DataFrame:
    """The rows of ``df`` failing ``rule`` (its original ``columns`` only); a foreign
    key's are those of its keyed rows without a match (with one, when negated)."""
    windows, tests = failing_predicates([rule])
    base = df.select("*", *windows) if windows else df
    base, tests = _looked_up(base, [rule], tests)
    return base.where(tests[0]).select(*(col(c) for c in columns))


def split_rows(
    df: DataFrame, columns: Sequence[str], rules: Sequence[Rule]
) -> tuple[DataFrame, DataFrame]:
    """``(valid, invalid)``: the rows breaking none / at least one of the row-level
    ``rules`` (uniqueness through a window count), with the original ``columns``."""
    windows, tests = failing_predicates(rules)
    base = df.select("*", *windows) if windows else df
    base, tests = _looked_up(base, rules, tests)
    invalid = balanced(tests, lambda a, b: a | b)
    keep = [col(c) for c in columns]
    return base.where(~invalid).select(*keep), base.where(invalid).select(*keep)


def sql_rows(spark: SparkSession, validation_sql: str, query: str) -> DataFrame:
    """What a ``failed_rows`` query returns, over ``_validation_df``."""
    body = query.strip().rstrip(";")
    return spark.sql(
        f"WITH _validation_df AS ({validation_sql}) SELECT * FROM ({body}) AS _assay_rows"
    )


def report_frame(
    spark: SparkSession, rows: Sequence[tuple], schema: str = REPORT_SCHEMA
) -> DataFrame:
    """sparquet's report rows as a DataFrame of literals (no scan).

    Not ``createDataFrame``: a local relation makes the client read session settings
    that servers older than the client do not have (a 4.3 client asks a 4.0 server for
    ``spark.sql.session.localRelationSizeLimit`` and fails); literals work on every
    server."""
    return literal_frame(spark, rows, schema)


def literal_frame(spark: SparkSession, rows: Sequence[tuple], schema: str) -> DataFrame:
    """``rows`` (tuples in the order of ``schema``, ``"name type, ..."``) as a DataFrame
    of typed literals: ``inline(array(struct(...), ...))`` over one row."""
    fields = [tuple(f.strip().split(" ", 1)) for f in schema.split(",")]
    typed = lambda value, kind: F.lit(value).cast(kind)  # noqa: E731
    if not rows:
        return spark.range(0, numPartitions=1).select(*(typed(None, k).alias(n) for n, k in fields))
    structs = [
        F.struct(*(typed(v, k).alias(n) for v, (n, k) in zip(row, fields, strict=True)))
        for row in rows
    ]
    return spark.range(1, numPartitions=1).select(F.inline(F.array(*structs)))


def write(frame: DataFrame, sink: Sink) -> None:
    """Write ``frame`` to ``sink`` (one Spark plan)."""
    writer = frame.write.format(sink.format)
    if sink.mode is not None:
        writer = writer.mode(sink.mode)
    if sink.options:
        writer = writer.options(**dict(sink.options))
    if sink.partition_by:
        writer = writer.partitionBy(*sink.partition_by)
    if sink.is_table:
        writer.saveAsTable(sink.target)
    else:
        writer.save(sink.target)


BUILTIN_FORMATS = frozenset({"parquet", "orc", "json", "csv", "text"})


def probe_format(spark: SparkSession, fmt: str) -> bool:
    """Whether the server knows the data source ``fmt`` (an analysis RPC on a path that
    does not exist: an unknown source fails differently from a missing path)."""
    if fmt in BUILTIN_FORMATS:
        return True
    probe = f"/nonexistent-assay-probe-{dt.datetime.now().strftime('%H%M%S%f')}"
    try:
        _ = spark.read.format(fmt).load(probe).schema
    except Exception as exc:  # noqa: BLE001 - classified by its text
        text = str(exc)
        return not ("DATA_SOURCE_NOT_FOUND" in text or "Failed to find the data source" in text)
    return True

"""A comparison plan -> Spark Connect DataFrames: the joined pairs, the one aggregate and
the samples union (docs/compare.md); a numeric tolerance's column is ``compare_tolerance``'s,
spark-data-test's report frames ``sdt_reports``'s.

Both sides are renamed to positional names first (``s_k0``, ``t_c3``...), so a column
name never clashes with another or needs quoting past this point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# Annotated with the parent classes pyspark's Connect functions are typed with, as
# emit.spark; every frame built here is a Connect one.
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from assay.comparison.plan import ColumnPlan, ComparePlan
from assay.comparison.tolerance import exact_difference
from assay.emit.columns import balanced, col
from assay.emit.compare_tolerance import decimal_type, within

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def narrowed(
    df: DataFrame, select_cols: Sequence[str] | None, drop_cols: Sequence[str]
) -> DataFrame:
    """A side after ``select_cols`` then ``drop_cols`` (spark-data-test's order)."""
    if select_cols is not None and list(select_cols) != ["*"]:
        df = df.select(*(col(c) for c in select_cols))
    return df.drop(*drop_cols) if drop_cols else df


_INTEGRAL = frozenset({"tinyint", "smallint", "int", "bigint"})


def _key_default(spark_type: str | None) -> Column | None:
    """A literal of the key's own type to stand for null in a split null-safe key (any
    value is right: the key's null flag tells a null from it); ``None`` for the types
    the key is not split for (floats, where ``-0.0`` and NaN are normalised in joins;
    nested types; sides of different types)."""
    if spark_type is None:
        return None
    if spark_type in _INTEGRAL or spark_type.startswith("decimal("):
        return F.lit(0).cast(spark_type)
    if spark_type == "string":
        return F.lit("")
    if spark_type in ("date", "timestamp", "timestamp_ntz"):
        return F.lit("1970-01-01").cast(spark_type)
    if spark_type == "boolean":
        return F.lit(False)
    return None


def _key_parts(plan: ComparePlan, p: str) -> list[tuple[str, Column | None]]:
    """Per key, the columns a side's window partitions by and the join equates, named
    with what computes them (``None``: the key column itself).

    A null-safe key of a shared simple type is split into ``coalesce(key, default)`` and
    ``isnull(key)``: ``a <=> b`` is exactly ``coalesce(a, d) = coalesce(b, d) AND
    isnull(a) = isnull(b)``. As columns of the side, they are what the window shuffles
    by and what the join equates, so both share one exchange per side; Spark's own
    rewrite of ``<=>`` in the join would shuffle every side a second time."""
    parts: list[tuple[str, Column | None]] = []
    for i, spark_type in enumerate(plan.key_types or (None,) * len(plan.keys)):
        key = F.col(f"{p}_k{i}")
        default = None if plan.sdt else _key_default(spark_type)
        if default is None:
            parts.append((f"{p}_k{i}", None))
        else:
            parts += [(f"{p}_j{i}", F.coalesce(key, default)), (f"{p}_n{i}", key.isNull())]
    return parts


def _side(df: DataFrame, plan: ComparePlan, p: str) -> DataFrame:
    casts = plan.key_casts or (None,) * len(plan.keys)
    cols = [
        (col(k).cast(cast) if cast else col(k)).alias(f"{p}_k{i}")
        for i, (k, cast) in enumerate(zip(plan.keys, casts, strict=True))
    ]
    cols += [col(c.name).alias(f"{p}_{c.slot}") for c in plan.columns]
    cols.append(F.lit(True).alias(f"{p}_present"))
    parts = _key_parts(plan, p)
    side = df.select(*cols)
    computed = [value.alias(name) for name, value in parts if value is not None]
    if computed:
        side = side.select("*", *computed)
    order = [F.col(name) for name, _ in parts]
    within = _pairing_order(plan, p) or order
    side = side.withColumn(
        f"{p}_rn", F.row_number().over(Window.partitionBy(*order).orderBy(*within))
    )
    if plan.sdt:  # rows of the key on this side (matched keys are counted with it)
        side = side.withColumn(f"{p}_cnt", F.count(F.lit(1)).over(Window.partitionBy(*order)))
    return side


_UNORDERED = ("map<", "variant")
"""Spark types no ``ORDER BY`` takes (alone or inside a struct or an array)."""


def _pairing_order(plan: ComparePlan, p: str) -> list[Column]:
    """How a native side's rows of one key are numbered (``row_number``), so that the
    i-th source row pairs with the i-th target row: by the compared columns' values as
    they are compared (:func:`as_compared`: cast to the type a string is compared in,
    trimmed / lower-cased strings), then as read, nulls first; map and variant columns,
    which Spark cannot order, are left out. spark-data-test pairs every row with every
    row of its key: its sides keep the key order."""
    if plan.sdt:
        return []
    orderable = [
        c
        for c in plan.columns
        if not any(t in (c.source_type if p == "s" else c.target_type) for t in _UNORDERED)
    ]
    values = [F.col(f"{p}_{c.slot}") for c in orderable]
    compared = [
        as_compared(v, c, plan) for c, v in zip(orderable, values, strict=True) if _recast(c, plan)
    ]
    return [v.asc_nulls_first() for v in (*compared, *values)]


def _recast(c: ColumnPlan, plan: ComparePlan) -> bool:
    """Whether ``c``'s values are compared as something else than read."""
    if c.compared_as is not None:
        return True
    changed = plan.comparison.ignore_case or plan.comparison.ignore_whitespace
    return c.kind == "string" and changed


def as_compared(value: Column, c: ColumnPlan, plan: ComparePlan) -> Column:
    """One side's value of ``c`` as the comparison compares it: cast to the type a
    string is compared in with a value of another type (Spark's own coercion, made
    explicit so that pairing orders by it too), strings trimmed / lower-cased when
    asked, else as read."""
    if c.compared_as is not None:
        return value.cast(c.compared_as)
    if c.kind == "string":
        return _normalized(value, plan)
    return value


def joined(source: DataFrame, target: DataFrame, plan: ComparePlan) -> DataFrame:
    """The pairs of a key and the rows of one side alone: a full outer join on the keys
    (null-safe unless spark-data-test's semantics). Native: a key with m source and n
    target rows gives min(m, n) pairs, the i-th row of each side together (its
    ``row_number``), and its other rows alone; spark-data-test: its m * n pairs."""
    s, t = _side(source, plan, "s"), _side(target, plan, "t")
    # Split parts and spark-data-test's keys are equated; a native key left whole keeps <=>.
    on = [
        F.col(a).eqNullSafe(F.col(b)) if split is None and not plan.sdt else F.col(a) == F.col(b)
        for (a, split), (b, _) in zip(_key_parts(plan, "s"), _key_parts(plan, "t"), strict=True)
    ]
    if not plan.sdt:
        # A condition of the join, not one of its keys (Spark would shuffle both sides
        # again by key and number; by key alone, the join reuses the windows' shuffles).
        on.append((F.col("s_rn") - F.col("t_rn")) == 0)
    pairs = s.join(t, on=balanced(on, lambda a, b: a & b), how="full_outer")
    keys = [
        F.coalesce(F.col(f"s_k{i}"), F.col(f"t_k{i}")).alias(k) for i, k in enumerate(plan.keys)
    ]
    if not plan.sdt:
        return pairs.select(*keys, "*")
    # spark-data-test's row checksum, sha2(concat_ws("", non-key columns)) per side:
    # compared as the concatenations themselves (the same verdict without the hash),
    # after the join, from the columns the pairs already hold (the shuffles stay narrow).
    checksums = [
        F.concat_ws("", *(F.col(f"{p}_{c.slot}") for c in plan.columns)) for p in ("s", "t")
    ]
    same = both_present() & (checksums[0] == checksums[1])
    return pairs.select(*keys, "*", same.alias("checksum_equal"))


# --- predicates over the pairs ------------------------------------------------------------

S = F.col("s_present").isNotNull()
T = F.col("t_present").isNotNull()


def both_present() -> Column:
    """A pair with both sides present."""
    return S & T


def pair_values(c: ColumnPlan) -> tuple[Column, Column]:
    """A pair's source and target values of ``c``."""
    return F.col(f"s_{c.slot}"), F.col(f"t_{c.slot}")


def _normalized(value: Column, plan: ComparePlan) -> Column:
    if plan.comparison.ignore_whitespace:
        value = F.trim(value)
    if plan.comparison.ignore_case:
        value = F.lower(value)
    return value


def native_equal(c: ColumnPlan, plan: ComparePlan) -> Column:
    """Whether a pair's values of ``c`` match (never null): null-safe equality of the
    values as compared (:func:`as_compared`; Spark's NaN equals NaN, ``-0.0`` equals
    ``0.0``); numbers within ``absolute + relative * |target|`` (:func:`within`)."""
    s, t = pair_values(c)
    equal = as_compared(s, c, plan).eqNullSafe(as_compared(t, c, plan))
    if c.bound is None:
        return equal
    return equal | F.coalesce(within(s, t, c.bound), F.lit(False))


def _sdt_matched(c: ColumnPlan, plan: ComparePlan) -> Column:
    """spark-data-test's per-column match: ``abs(s - t) <= difference_tolerance`` for its
    numeric types (null when a side is null), ``eqNullSafe`` for the rest."""
    s, t = pair_values(c)
    if c.sdt_numeric:
        return F.abs(s - t) <= F.lit(float(plan.comparison.tolerance.absolute))
    return s.eqNullSafe(t)


def sdt_after_tolerance(plan: ComparePlan) -> Column:
    matched = [_sdt_matched(c, plan) for c in plan.columns]
    return balanced(matched, lambda a, b: a & b) if matched else F.lit(True)


def checksum_equal() -> Column:
    """Both sides present and spark-data-test's row checksums equal (never null)."""
    return F.col("checksum_equal")


def _sdt_unmatched(plan: ComparePlan) -> Column:
    """A pair in spark-data-test's ``unmatched_records``: both sides, checksums differ and
    the columns, tolerance applied, are not all matched (null is neither)."""
    return both_present() & ~checksum_equal() & sdt_after_tolerance(plan).eqNullSafe(F.lit(False))


def row_matched(plan: ComparePlan) -> Column:
    """A pair whose every compared column matches."""
    if plan.sdt:
        after = sdt_after_tolerance(plan).eqNullSafe(F.lit(True))
        return checksum_equal() | (both_present() & after)
    equal = [native_equal(c, plan) for c in plan.columns]
    return both_present() & (balanced(equal, lambda a, b: a & b) if equal else F.lit(True))


def column_mismatch(c: ColumnPlan, plan: ComparePlan) -> Column:
    """A pair counted as a mismatch of ``c``."""
    if plan.sdt:
        return _sdt_unmatched(plan) & _sdt_matched(c, plan).eqNullSafe(F.lit(False))
    return both_present() & ~native_equal(c, plan)


def _count_if(condition: Column) -> Column:
    return F.count(F.when(condition, F.lit(1)))


def _difference(c: ColumnPlan) -> Column:
    """``|s - t|`` of a numeric column (null when a side is): exact for integers and
    decimals whose difference fits in 38 digits (the larger of ``s - t`` and ``t - s``:
    Spark's ``abs`` rounds decimals of more than 34 digits), else in doubles, where equal
    values differ by 0 (NaN and NaN, an infinity and itself) and a NaN or an infinite
    difference makes the maximum one (reported as no value)."""
    s, t = pair_values(c)
    shape = exact_difference(c.source_type, c.target_type)
    if shape is not None:
        common = decimal_type(*shape)
        sc, tc = s.cast(common), t.cast(common)
        return F.greatest(sc - tc, tc - sc)
    diff = F.abs(s.cast("double") - t.cast("double"))
    return F.when(s == t, F.lit(0.0)).otherwise(diff)


def aggregate(pairs: DataFrame, plan: ComparePlan) -> DataFrame:
    """The one aggregate: every count of the comparison, named as
    :meth:`ComparePlan.outputs`."""
    rn_s, rn_t = F.col("s_rn"), F.col("t_rn")
    # spark-data-test's m * n pairs hold a row once per row of the other side's key:
    # it is counted with the other side's first row; a native row is in one pair or alone.
    first_s = F.lit(True) if not plan.sdt else ~S | (rn_s == 1)
    first_t = F.lit(True) if not plan.sdt else ~T | (rn_t == 1)
    outputs = {
        "source_rows": _count_if(S & first_t),
        "target_rows": _count_if(T & first_s),
        "pairs": F.count(F.lit(1)),
        "compared": _count_if(both_present()),
        "matched_pairs": _count_if(row_matched(plan)),
        "missing_in_target": _count_if(S & ~T),
        "missing_in_source": _count_if(T & ~S),
        "missing_keys_target": _count_if(S & ~T & (rn_s == 1)),
        "missing_keys_source": _count_if(T & ~S & (rn_t == 1)),
        "duplicate_keys_source": _count_if((rn_s == 2) & first_t),
        "duplicate_keys_target": _count_if((rn_t == 2) & first_s),
        "duplicate_rows_source": _count_if((rn_s > 1) & first_t),
        "duplicate_rows_target": _count_if((rn_t > 1) & first_s),
    }
    if plan.sdt:
        # Distinct keys with a matched pair: a key with one row on each side has one
        # pair, so only the keys duplicated on a side need count(DISTINCT) (which then
        # holds few values, where over every key it would shuffle them all).
        keys = F.struct(*(col(k) for k in plan.keys))
        single = (F.col("s_cnt") == 1) & (F.col("t_cnt") == 1)
        matched = row_matched(plan)
        outputs["matched_keys"] = _count_if(matched & single) + F.count_distinct(
            F.when(matched & ~single, keys)
        )
        outputs["differing_pairs"] = _count_if(both_present() & ~checksum_equal())
    both = both_present()
    for c in plan.columns:
        s, t = pair_values(c)
        outputs[f"{c.slot}_mismatched"] = _count_if(column_mismatch(c, plan))
        outputs[f"{c.slot}_nulls"] = _count_if(both & (s.isNull() != t.isNull()))
        if c.kind == "numeric":
            outputs[f"{c.slot}_max_diff"] = F.max(F.when(both, _difference(c)))
    return pairs.agg(*(value.alias(name) for name, value in outputs.items()))


# --- samples ------------------------------------------------------------------------------


def _json(fields: Sequence[Column]) -> Column:
    return F.to_json(F.struct(*fields), {"ignoreNullFields": "false"})


DIFFERING_KEYS = "_differing_keys"


Branch = tuple[str, str | None, "Column", "Column"]
"""A samples branch: its kind, its column (``None``: a side's rows), which pairs it holds
and the JSON row of each."""


def _branches(
    plan: ComparePlan, mismatched: Sequence[ColumnPlan], differing_keys: bool
) -> list[Branch]:
    """The branches of :func:`samples`: one per mismatched column, one per missing side,
    and the differing keys' when asked."""
    keys = [col(k) for k in plan.keys]
    branches: list[Branch] = []
    for c in mismatched:
        s, t = pair_values(c)
        row = _json([*keys, s.alias("source"), t.alias("target")])
        branches.append(("mismatched", c.name, column_mismatch(c, plan), row))
    for kind, present, absent, p in (
        ("missing_in_target", S, T, "s"),
        ("missing_in_source", T, S, "t"),
    ):
        values = F.struct(*(F.col(f"{p}_{c.slot}").alias(c.name) for c in plan.columns))
        side = "source" if p == "s" else "target"
        branches.append((kind, None, present & ~absent, _json([*keys, values.alias(side)])))
    if differing_keys:
        differs = both_present() & ~checksum_equal()
        branches.append((DIFFERING_KEYS, None, differs, F.lit(None).cast("string")))
    return branches


def samples(
    pairs: DataFrame,
    plan: ComparePlan,
    mismatched: Sequence[ColumnPlan],
    n: int,
    differing_keys: bool = False,
) -> DataFrame:
    """Up to ``n`` rows per mismatched column and per missing side, ordered by key:
    ``kind``, ``column`` and ``row`` (JSON of the keys and both values).

    One pass over the pairs: a differing pair is exploded into the branches it belongs to
    (one per mismatched column, one per missing side), ranked by key within its branch
    with ``row_number() <= n`` (which Spark limits per partition before its shuffle), and
    only the kept rows are turned into JSON, in branch then key order.

    With ``differing_keys`` (spark-data-test jobs where few rows differ), the key of
    every pair whose checksums differ comes too, as rows of kind ``_differing_keys`` with
    the key in ``key``: the unmatched-rows writes and the search for tolerated pairs then
    join only those keys' rows (:func:`restricted`)."""
    keys = [col(k) for k in plan.keys]
    branches = _branches(plan, mismatched, differing_keys)
    # array_compact, not filter() with a lambda: a lambda's variable gets a fresh
    # expression id in every plan, so Spark would compile new code for every run
    ids = F.array_compact(
        F.array(*(F.when(where, F.lit(i)) for i, (_, _, where, _) in enumerate(branches)))
    )
    branch = F.col("_branch")
    ranked = (
        pairs.where(balanced([where for _, _, where, _ in branches], lambda a, b: a | b))
        .select("*", F.explode(ids).alias("_branch"))
        .withColumn("_rank", F.row_number().over(Window.partitionBy(branch).orderBy(*keys)))
    )
    kept = F.col("_rank") <= n
    if differing_keys:  # every row of the keys branch; its count was bounded beforehand
        kept = kept | (branch == len(branches) - 1)
    ranked = ranked.where(kept)

    def by_branch(values: list[Column]) -> Column:
        chosen = F.when(branch == 0, values[0])
        for i, value in enumerate(values[1:], start=1):
            chosen = chosen.when(branch == i, value)
        return chosen

    return ranked.orderBy(branch, "_rank").select(
        by_branch([F.lit(kind) for kind, _, _, _ in branches]).alias("kind"),
        by_branch([F.lit(column).cast("string") for _, column, _, _ in branches]).alias("column"),
        by_branch([row for _, _, _, row in branches]).alias("row"),
        F.when(branch == len(branches) - 1, F.struct(*keys)).alias("key")
        if differing_keys
        else F.lit(None).alias("key"),
    )


def restricted(
    spark: Any, source: DataFrame, target: DataFrame, plan: ComparePlan, keys: Sequence[tuple]
) -> tuple[DataFrame, DataFrame]:
    """Both sides narrowed to the rows of ``keys`` (a left semi join with them, sent as a
    small local relation and broadcast): the pairs of those keys are exactly those of the
    whole join, at the cost of a filtered scan. Keys are compared with ``=``
    (spark-data-test's join), so only non-null keys of a shared type are given."""
    names = [f"__assay_key{i}" for i in range(len(plan.keys))]
    schema = ", ".join(f"`{n}` {t}" for n, t in zip(names, plan.key_types, strict=True))
    wanted = F.broadcast(spark.createDataFrame(list(keys), schema))

    def semi(df: DataFrame) -> DataFrame:
        on = [col(k) == F.col(n) for k, n in zip(plan.keys, names, strict=True)]
        return df.join(wanted, on=balanced(on, lambda a, b: a & b), how="left_semi")

    return semi(source), semi(target)


__all__ = [
    "aggregate",
    "joined",
    "narrowed",
    "restricted",
    "samples",
]

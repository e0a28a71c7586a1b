"""Great Expectations' set expectations of a column's distinct values and of a column
pair's values, each with GX 1.x's Spark semantics (docs/dialects.md, "Great Expectations
suites"): ``expect_column_distinct_values_to_be_in_set`` / ``_to_contain_set`` /
``_to_equal_set`` count distinct values as GX's Spark metrics do
(``column.distinct_values.not_in_set.count``: ``countDistinct`` of the non-null values
``~isin(value_set)``; ``column.distinct_values.missing_from_column.count``: the length
of ``value_set`` less ``countDistinct`` of the values ``isin(value_set)``), each one more
aggregate of the table's one scan (a :class:`~assay.ir.metrics.SqlMetric`, the
``row_condition`` inside it); ``expect_column_pair_values_to_be_in_set`` is GX's row
condition (``A.eqNullSafe(x) & B.eqNullSafe(y)`` for any listed pair).
:mod:`assay.dialects.great_expectations_map` gathers them into ``EXPECTATIONS``."""

from __future__ import annotations

from decimal import Decimal

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.dialects.great_expectations_mapped import Builder, Expectation, Mapped
from assay.ir.expr import Col, Compare, Expr, IsNull, Lit, Not, Scalar, Sql, all_of, any_of, is_true
from assay.ir.metrics import SqlMetric
from assay.ir.rules import MetricCheck, RowCheck, SqlCheck
from assay.ir.values import ZERO_TOLERANCE, Comparison, Op, Threshold

NOT_IN_SET = "expect_column_distinct_values_to_be_in_set"
CONTAIN_SET = "expect_column_distinct_values_to_contain_set"
EQUAL_SET = "expect_column_distinct_values_to_equal_set"
DISTINCT_SETS = frozenset({NOT_IN_SET, CONTAIN_SET, EQUAL_SET})
"""The expectations of distinct values: GX reports ``unexpected_count`` (distinct values
outside the set) and ``missing_count`` (the set's values not found), ``observed_value``
null."""


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value: Scalar | None) -> str:
    """A value of a suite as Spark SQL reads what ``F.lit`` makes of it: a float a
    DOUBLE (``1.5D``), an int an INT or BIGINT, a string escaped, a null NULL."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value!r}D"
    if isinstance(value, (int, Decimal)):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return "'" + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text) + "'"


def sql_condition(expr: Expr) -> str:
    """A ``row_condition`` (:func:`kw.row_condition`) as Spark SQL text."""
    if isinstance(expr, Sql):
        return f"({expr.text})"
    if isinstance(expr, Not):
        return f"NOT ({sql_condition(expr.item)})"
    if isinstance(expr, IsNull) and isinstance(expr.item, Col):
        return f"{quoted(expr.item.name)} IS NULL"
    if isinstance(expr, Compare) and isinstance(expr.left, Col) and isinstance(expr.right, Lit):
        op = "=" if expr.op is Op.EQ else expr.op.value
        return f"{quoted(expr.left.name)} {op} {sql_literal(expr.right.value)}"
    raise TypeError(f"no SQL text for the row condition {expr!r}")


def _set(kwargs: Node, key: str = "value_set") -> tuple[Scalar | None, ...]:
    """``value_set`` as GX's validator reads it: a list (a null item kept: Spark's
    ``isin`` never matches it)."""
    node = kwargs.require(key)
    items = node.as_list("a list of values")
    what = "a value (a number, a string or a boolean)"
    return tuple(None if i.value is None else kw.scalar(i, what) for i in items)


def _distinct(column: str, condition: str) -> str:
    return f"count(DISTINCT CASE WHEN {condition} THEN {column} END)"


def _where(kwargs: Node, *parts: str) -> str:
    condition = kw.row_condition(kwargs)
    extra = (sql_condition(condition),) if condition is not None else ()
    return " AND ".join((*parts, *extra))


def _not_in_set(kwargs: Node, column: str, values: tuple[Scalar | None, ...]) -> SqlMetric:
    listed = ", ".join(sql_literal(v) for v in values)
    outside = (f"NOT ({column} IN ({listed}))",) if values else ()
    return SqlMetric(_distinct(column, _where(kwargs, f"{column} IS NOT NULL", *outside)))


def _missing(kwargs: Node, column: str, values: tuple[Scalar | None, ...]) -> SqlMetric:
    if not values:
        return SqlMetric("0")
    listed = ", ".join(sql_literal(v) for v in values)
    found = _distinct(column, _where(kwargs, f"{column} IS NOT NULL", f"{column} IN ({listed})"))
    return SqlMetric(f"{len(values)} - {found}")


_NONE = Comparison(Op.EQ, Decimal(0), "== 0")


def _distinct_set(kind: str) -> Builder:
    def build(kwargs: Node) -> Mapped:
        name = kw.column(kwargs)
        values = _set(kwargs)
        if kind == NOT_IN_SET and not values:
            raise kwargs.require("value_set").error("value_set must be a non-empty set-like object")
        column = quoted(name)
        checks: list[tuple[SqlMetric, Threshold]] = []
        if kind != CONTAIN_SET:
            checks.append((_not_in_set(kwargs, column, values), _NONE))
        if kind != NOT_IN_SET:
            checks.append((_missing(kwargs, column, values), _NONE))
        (first, must), *also = checks
        check = MetricCheck(first, must, also=tuple(also))
        shown = {NOT_IN_SET: "in", CONTAIN_SET: "contain"}.get(kind, "equal")
        return Mapped(check, (name,), ((name, "any"),), None, f"distinct values {shown} the set")

    return build


_PAIR_IGNORE = {"both_values_are_missing": "all", "either_value_is_missing": "any", "neither": ""}


def _null_safe(name: str, value: Scalar | None) -> Expr:
    """``col.eqNullSafe(F.lit(value))``: never null."""
    if value is None:
        return IsNull(Col(name))
    return is_true(Compare(Op.EQ, Col(name), Lit(value)))


def _pair_in_set(kwargs: Node) -> Mapped:
    """GX's Spark condition: the row's pair is null-safe equal to one listed pair
    (``value_pairs_set``: two nulls match a ``[null, null]`` pair)."""
    a, b = kw.column(kwargs, "column_A"), kw.column(kwargs, "column_B")
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    node = kwargs.require("value_pairs_set")
    # GX 1.x refuses a null set (pydantic); its Spark metric raises on an empty one
    pairs = node.as_list("a list of [A, B] pairs", non_empty=True)
    matched: list[Expr] = []
    for pair in pairs:
        items = pair.as_list("a pair of values [A, B]")
        if len(items) != 2:
            raise pair.error(f"a pair is [A, B], got {len(items)} values")
        x, y = (None if i.value is None else kw.scalar(i, "a value") for i in items)
        matched.append(all_of(_null_safe(a, x), _null_safe(b, y)))
    unexpected = Not(any_of(*matched))
    considered = _ignored(kwargs, a, b)
    check = RowCheck(unexpected, tolerance=tolerance)
    return Mapped(check, (a, b), ((a, "any"), (b, "any")), considered)


def _ignored(kwargs: Node, a: str, b: str) -> Expr | None:
    node = kwargs.get("ignore_row_if")
    text = "both_values_are_missing" if node is None or node.value is None else node.as_str()
    if text not in _PAIR_IGNORE:
        where = node if node is not None else kwargs
        raise where.error(f"ignore_row_if must be one of {', '.join(_PAIR_IGNORE)}, got {text!r}")
    nulls = (IsNull(Col(a)), IsNull(Col(b)))
    if _PAIR_IGNORE[text] == "all":
        return Not(all_of(*nulls))
    return Not(any_of(*nulls)) if _PAIR_IGNORE[text] == "any" else None


MOST_COMMON = "expect_column_most_common_value_to_be_in_set"
_ONE = Comparison(Op.EQ, Decimal(1), "== 1")


def _most_common(kwargs: Node) -> Mapped:
    """GX's ``column.most_common_value`` on Spark: the non-null values of the largest
    count (``column.value_counts``: a group-by), all of them when tied; with
    ``ties_okay`` one of them in ``value_set`` passes, without it there must be one,
    in the set. A query of its own over the table (a group-by, then the values of the
    top count), its one value 1 when the expectation holds; the ``row_condition`` is in
    its ``WHERE``."""
    name = kw.column(kwargs)
    values = _set(kwargs)
    ties_okay = kw.flag(kwargs, "ties_okay")
    column = quoted(name)
    listed = ", ".join(sql_literal(v) for v in values)
    hit = f"count_if(v IN ({listed}))" if values else "0"
    held = "hits > 0" if ties_okay else "modes = 1 AND hits = 1"
    query = (
        f"SELECT CAST({held} AS INT) FROM (SELECT count(*) AS modes, {hit} AS hits FROM "
        "(SELECT v, n, max(n) OVER () AS top FROM "
        f"(SELECT {column} AS v, count(*) AS n FROM _validation_df "
        f"WHERE {_where(kwargs, f'{column} IS NOT NULL')} GROUP BY {column})) WHERE n = top)"
    )
    check = SqlCheck(query, "value", must=_ONE)
    shown = "one of them in the set" if ties_okay else "in the set"
    return Mapped(check, (name,), ((name, "any"),), None, f"most common value {shown}")


_DISTINCT_KEYS = frozenset({"column", "value_set"}) | kw.CONDITION | kw.IGNORED

SETS: dict[str, Expectation] = {
    **{
        kind: Expectation(_distinct_set(kind), _DISTINCT_KEYS, filtered=False)
        for kind in (NOT_IN_SET, CONTAIN_SET, EQUAL_SET)
    },
    MOST_COMMON: Expectation(_most_common, _DISTINCT_KEYS | {"ties_okay"}, filtered=False),
    "expect_column_pair_values_to_be_in_set": Expectation(
        _pair_in_set,
        frozenset({"column_A", "column_B", "value_pairs_set", "ignore_row_if"})
        | kw.MOSTLY
        | kw.CONDITION
        | kw.IGNORED,
    ),
}
"""The expectations of this module, by GX's name."""

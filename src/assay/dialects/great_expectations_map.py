"""Great Expectations expectations -> IR checks, each with GX's own semantics (the
``expectations/core`` classes of great_expectations 1.x and their Spark metrics):
column-map expectations leave nulls out of the rows they consider (but for the null
expectations), ``mostly`` is GX's share of the considered rows, regexes are searched
(Spark ``rlike``) (docs/dialects.md, "Great Expectations suites")."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.dialects import great_expectations_types as types
from assay.dialects.great_expectations_mapped import Builder, Expectation, Mapped
from assay.dialects.great_expectations_mapped import column_map as _map
from assay.dialects.great_expectations_more import MORE
from assay.dialects.great_expectations_sets import SETS
from assay.dialects.great_expectations_table import TABLE
from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Scalar,
    Sql,
    all_of,
    any_of,
    is_true,
)
from assay.ir.metrics import AggregateMetric, ColumnFn, ColumnMetric, GroupMetric, RowCountMetric
from assay.ir.rules import MetricCheck, RowCheck, SchemaCheck, TypeFamily, UniqueCheck
from assay.ir.values import ZERO_TOLERANCE, Comparison, Op


def _not_be_null(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    return _map(kwargs, name, IsNull(Col(name)), nulls_considered=True)


def _be_null(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    return _map(kwargs, name, Not(IsNull(Col(name))), nulls_considered=True)


def _be_unique(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    check = UniqueCheck((name,), tolerance=tolerance)
    return Mapped(check, (name,), ((name, "any"),), Not(IsNull(Col(name))))


def _between(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    found = kw.bounds(kwargs)
    text = isinstance(found.low, str) or isinstance(found.high, str)
    # GX refuses number bounds on a string column ("Column values, min_value, and
    # max_value must either be None or of the same type")
    family: TypeFamily = "string_or_temporal" if text else "numeric"
    return _map(kwargs, name, found.outside(Col(name)), family)


def _values(kwargs: Node, *, nullable: bool) -> tuple[Scalar, ...] | None:
    """``value_set``; None when null and ``nullable`` (GX's Spark metric of
    ``_to_be_in_set`` then expects every value), or when it holds a null and ``nullable``
    (Spark's ``isin`` is then true or null, never false: GX finds no value unexpected).
    A null item is otherwise left out: ``isin`` never matches it."""
    node = kwargs.require("value_set")
    if node.value is None and nullable:
        return None
    items = node.as_list("a list of values")
    if nullable and any(item.value is None for item in items):
        return None
    what = "a value (a number, a string or a boolean)"
    return tuple(kw.scalar(item, what) for item in items if item.value is not None)


def _in_set(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    values = _values(kwargs, nullable=True)
    unexpected = Lit(False) if values is None else Not(InSet(Col(name), values))
    return _map(kwargs, name, unexpected)


def _not_in_set(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    values = _values(kwargs, nullable=False)
    return _map(kwargs, name, InSet(Col(name), values or ()))


def _regex(kwargs: Node, key: str = "regex") -> str:
    what = "a regular expression (Java, as Spark's rlike reads it)"
    return kwargs.require(key).as_str(what, allow_empty=True)


def _match_regex(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    return _map(kwargs, name, Not(Matches(Col(name), _regex(kwargs))), "string")


def _not_match_regex(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    return _map(kwargs, name, Matches(Col(name), _regex(kwargs)), "string")


def _regex_list(kwargs: Node) -> tuple[Expr, ...]:
    items = kwargs.require("regex_list").as_list("a list of regular expressions", non_empty=True)
    patterns = (item.as_str("a regular expression") for item in items)
    name = kw.column(kwargs)
    return tuple(Matches(Col(name), p) for p in patterns)


def _match_regex_list(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    node = kwargs.get("match_on")
    match_on = "any" if node is None or node.value is None else node.as_str()
    if match_on not in ("any", "all"):
        raise node.error(f"match_on must be 'any' or 'all', got {match_on!r}")  # type: ignore[union-attr]
    found = _regex_list(kwargs)
    matched = any_of(*found) if match_on == "any" else all_of(*found)
    return _map(kwargs, name, Not(matched), "string")


def _not_match_regex_list(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    return _map(kwargs, name, any_of(*_regex_list(kwargs)), "string")


def _lengths_between(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    found = kw.bounds(kwargs, numbers=True, strict=False, inverted=True)
    return _map(kwargs, name, found.outside(Length(Col(name))), "string")


def _length_equal(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    value = kwargs.require("value").as_int("a length", minimum=0)
    return _map(kwargs, name, Compare(Op.NE, Length(Col(name)), Lit(value)), "string")


def _row_count_between(kwargs: Node) -> Mapped:
    found = kw.bounds(kwargs, numbers=True, strict=False, unbounded=True)
    threshold = found.threshold()
    return Mapped(MetricCheck(RowCountMetric(), threshold), (), (), None, threshold.text)


def _row_count_equal(kwargs: Node) -> Mapped:
    value = kwargs.require("value").as_int("a row count", minimum=0)
    must = Comparison(Op.EQ, Decimal(value), f"== {value}")
    return Mapped(MetricCheck(RowCountMetric(), must), (), (), None, must.text)


def _column_exists(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    index = kwargs.get("column_index")
    if index is not None and index.value is not None:
        raise index.error(
            "column_index is not supported",
            hint="assay checks that the column exists; remove column_index",
        )
    check = SchemaCheck(required=(name,), case_sensitive=True)
    return Mapped(check, (name,), (), None, None)


def _columns_match(kwargs: Node, key: str, exactly: Literal["set", "order"]) -> Mapped:
    """GX's table columns against a list: in this order, or as a set (with
    ``exact_match``: nothing else; without: these at least). Names compare exactly."""
    node = kwargs.require(key)
    items = node.as_list("a list of column names") if node.value is not None else []
    names = tuple(item.as_str("a column name") for item in items)
    if node.value is None and exactly == "order":  # GX: no list is vacuously true
        check = SchemaCheck(case_sensitive=True, exactly="superset")
        return Mapped(check, (), (), None, None)
    if exactly == "set":
        names = tuple(dict.fromkeys(names))
        # GX 1.x: exact_match is True unless given (null or false: these at least)
        exactly_set = "exact_match" not in kwargs.as_mapping() or kw.flag(kwargs, "exact_match")
        check = SchemaCheck(
            required=names, case_sensitive=True, exactly="set" if exactly_set else "superset"
        )
    else:
        check = SchemaCheck(required=names, case_sensitive=True, exactly="order")
    return Mapped(check, (), (), None, None)


def _of_type(kwargs: Node) -> Mapped:
    """GX on Spark: the column's type is an instance of the ``pyspark.sql.types`` class
    named (:mod:`assay.dialects.great_expectations_types`); judged from the schema."""
    name = kw.column(kwargs)
    node = kwargs.require("type_")
    return _typed(kwargs, name, (_type_name(node, node.as_str("a type name")),))


def _column_type(kwargs: Node) -> Mapped:
    """GX 1.x's ``expect_column_type_to_be`` on Spark: the column (its name resolved as
    Spark resolves it, case-insensitively) is an instance of the named class; no
    ``mostly``."""
    name = kw.column(kwargs)
    node = kwargs.require("type_")
    typed = ((name, types.pattern((_type_name(node, node.as_str("a type name")),))),)
    check = SchemaCheck(required=(name,), types=typed, exactly="superset")
    return Mapped(check, (name,), (), None, None)


def _in_type_list(kwargs: Node) -> Mapped:
    """GX on Spark: names that are no class of ``pyspark.sql.types`` are skipped
    (``int``, ``INTEGER``: the names a suite gives for other backends), none known is
    an error; a null list is vacuously true."""
    name = kw.column(kwargs)
    node = kwargs.require("type_list")
    if node.value is None:
        return _typed(kwargs, name, ())
    items = node.as_list("a list of type names")
    names = tuple(item.as_str("a type name") for item in items)
    known = tuple(n for n in names if n in types.NAMES)
    if not known:
        _type_name(node, ", ".join(names) or "[]")
    return _typed(kwargs, name, known)


def _type_name(node: Node, text: str) -> str:
    if text not in types.NAMES:
        raise node.error(
            f"Great Expectations on Spark knows no type {text!r}",
            hint="name a class of pyspark.sql.types: " + ", ".join(types.NAMES),
        )
    return text


def _typed(kwargs: Node, name: str, names: tuple[str, ...]) -> Mapped:
    """A type expectation: ``mostly`` and ``row_condition`` are read (GX takes them) but
    change nothing, as on Spark GX judges the column's type, not its values."""
    kw.mostly(kwargs)
    typed = ((name, types.pattern(names)),) if names else ()
    check = SchemaCheck(required=(name,), types=typed, case_sensitive=True, exactly="superset")
    return Mapped(check, (name,), (), None, None)


def _column_stat(fn: ColumnFn) -> Builder:
    def build(kwargs: Node) -> Mapped:
        name = kw.column(kwargs)
        found = kw.bounds(kwargs, numbers=True, unbounded=fn in ("avg", "stddev"))
        threshold = found.threshold()
        family: TypeFamily = "numeric" if fn in ("avg", "sum", "stddev") else "orderable"
        check = MetricCheck(ColumnMetric(fn, name), threshold)
        return Mapped(check, (name,), ((name, family),), None, threshold.text)

    return build


def _median(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    threshold = kw.bounds(kwargs, numbers=True, unbounded=True).threshold()
    metric = AggregateMetric("percentile", name, (0.5,))
    check = MetricCheck(metric, threshold)
    return Mapped(check, (name,), ((name, "numeric"),), None, threshold.text)


def _unique_value_count(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    threshold = kw.bounds(kwargs, numbers=True, strict=False, unbounded=True).threshold()
    check = MetricCheck(GroupMetric((name,), "distinct_count"), threshold)
    return Mapped(check, (name,), ((name, "any"),), None, threshold.text)


def _proportion_unique(kwargs: Node) -> Mapped:
    name = kw.column(kwargs)
    threshold = kw.bounds(kwargs, numbers=True, unbounded=True).threshold()
    check = MetricCheck(GroupMetric((name,), "distinct_ratio"), threshold)
    return Mapped(check, (name,), ((name, "any"),), None, threshold.text)


_PAIR_IGNORE = {"both_values_are_missing": "all", "either_value_is_missing": "any", "neither": ""}
_MULTI_IGNORE = {"all_values_are_missing": "all", "any_value_is_missing": "any", "never": ""}


def _ignored_rows(kwargs: Node, names: tuple[str, ...], choices: dict[str, str]) -> Expr | None:
    """The rows GX considers by ``ignore_row_if`` (None: every row); the default is the
    first choice."""
    node = kwargs.get("ignore_row_if")
    text = next(iter(choices)) if node is None or node.value is None else node.as_str()
    if text not in choices:
        where = node if node is not None else kwargs
        raise where.error(f"ignore_row_if must be one of {', '.join(choices)}, got {text!r}")
    nulls = tuple(IsNull(Col(n)) for n in names)
    if choices[text] == "all":
        return Not(all_of(*nulls))
    return Not(any_of(*nulls)) if choices[text] == "any" else None


def _compound_unique(kwargs: Node) -> Mapped:
    names = kw.columns(kwargs, "column_list")
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = _ignored_rows(kwargs, names, _MULTI_IGNORE)
    check = UniqueCheck(names, tolerance=tolerance, nulls="none")
    return Mapped(check, names, tuple((n, "any") for n in names), considered)


def _pair(equal: bool) -> Builder:
    def build(kwargs: Node) -> Mapped:
        a, b = kw.column(kwargs, "column_A"), kw.column(kwargs, "column_B")
        tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
        considered = _ignored_rows(kwargs, (a, b), _PAIR_IGNORE)
        family: TypeFamily = "any" if equal else "orderable"
        check = RowCheck(_pair_unexpected(kwargs, a, b, equal), tolerance=tolerance)
        return Mapped(check, (a, b), ((a, family), (b, family)), considered)

    return build


def _pair_unexpected(kwargs: Node, a: str, b: str, equal: bool) -> Expr:
    """GX's Spark conditions: ``A.eqNullSafe(B)`` (a null beside a value is unexpected);
    ``A > B``, or ``(A >= B) | A.eqNullSafe(B)``, whose null (one side null) is never
    unexpected, as GX counts the rows where the negated condition is true."""
    both_null = all_of(IsNull(Col(a)), IsNull(Col(b)))
    if equal:
        return Not(any_of(both_null, is_true(Compare(Op.EQ, Col(a), Col(b)))))
    op = Op.GE if kw.flag(kwargs, "or_equal") else Op.GT
    return is_true(Not(Compare(op, Col(a), Col(b))))


def _null_safe_equal(a: str, b: str) -> Expr:
    """``a <=> b`` (Spark's ``eqNullSafe``): never null."""
    return any_of(all_of(IsNull(Col(a)), IsNull(Col(b))), is_true(Compare(Op.EQ, Col(a), Col(b))))


def _unique_within_record(kwargs: Node) -> Mapped:
    """GX's Spark condition: no two of the columns null-safe equal in the row; the rows
    where any pair is (``eqNullSafe``: two nulls are equal) are unexpected."""
    names = kw.columns(kwargs, "column_list")
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = _ignored_rows(kwargs, names, _MULTI_IGNORE)
    pairs = [_null_safe_equal(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    check = RowCheck(any_of(*pairs), tolerance=tolerance)
    return Mapped(check, names, tuple((n, "any") for n in names), considered)


def _multicolumn_equal(kwargs: Node) -> Mapped:
    """GX's Spark condition: every column null-safe equal (``eqNullSafe``) to the first;
    the rows where one is not are unexpected (``ignore_row_if``)."""
    names = kw.columns(kwargs, "column_list")
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = _ignored_rows(kwargs, names, _MULTI_IGNORE)
    equal = all_of(*(_null_safe_equal(names[0], b) for b in names[1:]))
    check = RowCheck(Not(equal), tolerance=tolerance)
    return Mapped(check, names, tuple((n, "any") for n in names), considered)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _multicolumn_sum(kwargs: Node) -> Mapped:
    """GX's Spark condition: the row's values (a null as 0) sum to ``sum_total``; the rows
    where they do not are unexpected (GX widens integral operands to DECIMAL(38, 0) on
    Spark 4, so the sum of longs cannot overflow; Spark adds them as they are here, and a
    sum past a long's range is the rule's error)."""
    names = kw.columns(kwargs, "column_list")
    total_node = kwargs.get("sum_total")
    if total_node is None:
        raise kwargs.error("expect_multicolumn_sum_to_equal needs sum_total")
    total = kw.scalar(total_node, "a number")
    if isinstance(total, bool) or not isinstance(total, (int, float, Decimal)):
        raise total_node.error(f"sum_total must be a number, got {total!r}")
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = _ignored_rows(kwargs, names, _MULTI_IGNORE)
    summed = Sql(" + ".join(f"coalesce({_quoted(n)}, 0)" for n in names))
    check = RowCheck(Not(is_true(Compare(Op.EQ, summed, Lit(total)))), tolerance=tolerance)
    return Mapped(check, names, tuple((n, "numeric") for n in names), considered)


_MAP = kw.MOSTLY | kw.CONDITION | kw.IGNORED
_COLUMN_MAP = frozenset({"column"}) | _MAP
_AGG = (
    frozenset({"column", "min_value", "max_value", "strict_min", "strict_max"})
    | kw.CONDITION
    | kw.IGNORED
)
_BETWEEN = frozenset({"min_value", "max_value", "strict_min", "strict_max"})

EXPECTATIONS: dict[str, Expectation] = {
    "expect_column_values_to_not_be_null": Expectation(_not_be_null, _COLUMN_MAP),
    "expect_column_values_to_be_null": Expectation(_be_null, _COLUMN_MAP),
    "expect_column_values_to_be_unique": Expectation(_be_unique, _COLUMN_MAP),
    "expect_column_values_to_be_between": Expectation(_between, _COLUMN_MAP | _BETWEEN),
    "expect_column_values_to_be_in_set": Expectation(_in_set, _COLUMN_MAP | {"value_set"}),
    "expect_column_values_to_not_be_in_set": Expectation(_not_in_set, _COLUMN_MAP | {"value_set"}),
    "expect_column_values_to_match_regex": Expectation(_match_regex, _COLUMN_MAP | {"regex"}),
    "expect_column_values_to_not_match_regex": Expectation(
        _not_match_regex, _COLUMN_MAP | {"regex"}
    ),
    "expect_column_values_to_match_regex_list": Expectation(
        _match_regex_list, _COLUMN_MAP | {"regex_list", "match_on"}
    ),
    "expect_column_values_to_not_match_regex_list": Expectation(
        _not_match_regex_list, _COLUMN_MAP | {"regex_list"}
    ),
    "expect_column_value_lengths_to_be_between": Expectation(
        _lengths_between, _COLUMN_MAP | {"min_value", "max_value"}
    ),
    "expect_column_value_lengths_to_equal": Expectation(_length_equal, _COLUMN_MAP | {"value"}),
    "expect_table_row_count_to_be_between": Expectation(
        _row_count_between, frozenset({"min_value", "max_value"}) | kw.CONDITION | kw.IGNORED
    ),
    "expect_table_row_count_to_equal": Expectation(
        _row_count_equal, frozenset({"value"}) | kw.CONDITION | kw.IGNORED
    ),
    "expect_column_to_exist": Expectation(
        _column_exists, frozenset({"column", "column_index"}) | kw.IGNORED
    ),
    "expect_table_columns_to_match_ordered_list": Expectation(
        lambda kwargs: _columns_match(kwargs, "column_list", "order"),
        frozenset({"column_list"}) | kw.IGNORED,
    ),
    "expect_table_columns_to_match_set": Expectation(
        lambda kwargs: _columns_match(kwargs, "column_set", "set"),
        frozenset({"column_set", "exact_match"}) | kw.IGNORED,
    ),
    "expect_column_values_to_be_of_type": Expectation(_of_type, _COLUMN_MAP | {"type_"}),
    "expect_column_values_to_be_in_type_list": Expectation(
        _in_type_list, _COLUMN_MAP | {"type_list"}
    ),
    "expect_column_mean_to_be_between": Expectation(_column_stat("avg"), _AGG),
    "expect_column_min_to_be_between": Expectation(_column_stat("min"), _AGG),
    "expect_column_max_to_be_between": Expectation(_column_stat("max"), _AGG),
    "expect_column_sum_to_be_between": Expectation(_column_stat("sum"), _AGG),
    "expect_column_stdev_to_be_between": Expectation(_column_stat("stddev"), _AGG),
    "expect_column_median_to_be_between": Expectation(_median, _AGG),
    "expect_column_unique_value_count_to_be_between": Expectation(_unique_value_count, _AGG),
    "expect_column_proportion_of_unique_values_to_be_between": Expectation(
        _proportion_unique, _AGG
    ),
    "expect_compound_columns_to_be_unique": Expectation(
        _compound_unique, frozenset({"column_list", "ignore_row_if"}) | _MAP
    ),
    "expect_column_pair_values_a_to_be_greater_than_b": Expectation(
        _pair(False), frozenset({"column_A", "column_B", "or_equal", "ignore_row_if"}) | _MAP
    ),
    "expect_column_pair_values_to_be_equal": Expectation(
        _pair(True), frozenset({"column_A", "column_B", "ignore_row_if"}) | _MAP
    ),
    "expect_select_column_values_to_be_unique_within_record": Expectation(
        _unique_within_record, frozenset({"column_list", "ignore_row_if"}) | _MAP
    ),
    "expect_multicolumn_values_to_be_equal": Expectation(
        _multicolumn_equal, frozenset({"column_list", "ignore_row_if"}) | _MAP
    ),
    "expect_column_type_to_be": Expectation(
        _column_type, frozenset({"column", "type_"}) | kw.IGNORED
    ),
    "expect_multicolumn_sum_to_equal": Expectation(
        _multicolumn_sum, frozenset({"column_list", "sum_total", "ignore_row_if"}) | _MAP
    ),
    **MORE,
    **SETS,
    **TABLE,
}
"""Every expectation assay runs, by GX's name; any other is a config error."""
NULL_EXPECTATIONS = frozenset(
    {"expect_column_values_to_not_be_null", "expect_column_values_to_be_null"}
)
"""The column-map expectations that consider every row (GX's own ``_validate``)."""
TYPE_EXPECTATIONS = frozenset(
    {
        "expect_column_values_to_be_of_type",
        "expect_column_values_to_be_in_type_list",
        "expect_column_type_to_be",
    }
)
"""The expectations judged from a column's type (GX's ``observed_value``: its class)."""

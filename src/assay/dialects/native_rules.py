"""The builders of the native rule types: a rule mapping (``Node``) -> :class:`Built`.

Each is named in its type's declaration in :mod:`assay.dialects.catalogue`, which is where
a rule type is added.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects.rule_spec import FILTER_KEY, OVER_TIME_KEYS, Built
from assay.dialects.validity import NATIVE, missing, validity
from assay.errors import ConfigError
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
    any_of,
    is_true,
)
from assay.ir.metrics import (
    ColumnFn,
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    GroupMetric,
    GroupStat,
    Metric,
    RowCountMetric,
)
from assay.ir.rules import (
    ColStatsCheck,
    EqualsCheck,
    MetricCheck,
    RowCheck,
    SchemaCheck,
    SqlCheck,
    TypeFamily,
    UniqueCheck,
)
from assay.ir.values import Between, Comparison, Op, to_decimal


def _needs(columns: tuple[str, ...], family: TypeFamily) -> tuple[tuple[str, TypeFamily], ...]:
    return tuple((c, family) for c in columns)


# --- row-level rules ----------------------------------------------------------------------


def row_rule(rule: Node, failing: Expr, columns: tuple[str, ...], family: TypeFamily) -> Built:
    """A row rule's result: rows fail where ``failing`` is true, within the rule's
    ``tolerance``."""
    tolerance, text = p.tolerance(rule)
    return Built(RowCheck(failing, tolerance), columns, _needs(columns, family), text)


def build_not_null(rule: Node) -> Built:
    cols = p.columns(rule)
    return row_rule(rule, any_of(*(IsNull(Col(c)) for c in cols)), cols, "any")


def build_unique(rule: Node) -> Built:
    cols = p.columns(rule)
    tolerance, text = p.tolerance(rule)
    return Built(UniqueCheck(cols, tolerance), cols, _needs(cols, "any"), text)


def build_range(rule: Node) -> Built:
    name = p.column(rule)
    low, high = (rule.get("min"), rule.get("max"))
    if low is None and high is None:
        raise rule.error("range needs 'min', 'max' or both")
    bounds = (
        p.bound(low) if low is not None else None,
        p.bound(high) if high is not None else None,
    )
    if bounds[0] is not None and bounds[1] is not None:
        p.ordered(bounds[0], bounds[1], rule)
    inclusive = rule.get("inclusive")
    strict = inclusive is not None and not inclusive.as_bool()
    col = Col(name)
    outside: list[Expr] = []
    if bounds[0] is not None:
        outside.append(Compare(Op.LE if strict else Op.LT, col, Lit(bounds[0])))
    if bounds[1] is not None:
        outside.append(Compare(Op.GE if strict else Op.GT, col, Lit(bounds[1])))
    # Numbers bound numeric columns, dates and timestamps temporal ones (anything else
    # would make Spark cast every value, and fail at run time on a string).
    family = p.bound_family(bounds[0] if bounds[0] is not None else bounds[1])  # type: ignore[arg-type]
    return row_rule(rule, is_true(any_of(*outside)), (name,), family)


def build_regex(rule: Node) -> Built:
    name = p.column(rule)
    pattern = rule.require("pattern").as_str("a regular expression")
    col = Col(name)
    return row_rule(rule, any_of(IsNull(col), Not(Matches(col, pattern))), (name,), "string")


def build_accepted_values(rule: Node) -> Built:
    name = p.column(rule)
    values = p.scalar_values(rule.require("values"), "a list of accepted values")
    return row_rule(rule, is_true(Not(InSet(Col(name), values))), (name,), "any")


def build_length(rule: Node, keys: tuple[str, str] = ("min", "max")) -> Built:
    name = p.column(rule)
    low, high = (rule.get(keys[0]), rule.get(keys[1]))
    if low is None and high is None:
        raise rule.error(f"{rule.require('type').as_str()} needs '{keys[0]}', '{keys[1]}' or both")
    what = "a length (an integer)"
    lo = low.as_int(what, minimum=0) if low is not None else None
    hi = high.as_int(what, minimum=0) if high is not None else None
    if lo is not None and hi is not None and lo > hi:
        raise rule.error(f"{keys[0]} ({lo}) is greater than {keys[1]} ({hi})")
    length = Length(Col(name))
    outside: list[Expr] = []
    if lo is not None:
        outside.append(Compare(Op.LT, length, Lit(lo)))
    if hi is not None:
        outside.append(Compare(Op.GT, length, Lit(hi)))
    return row_rule(rule, is_true(any_of(*outside)), (name,), "string")


# --- metric rules -------------------------------------------------------------------------

METRIC_KEYS = frozenset({"must_be", "warn", "group_by"}) | FILTER_KEY | OVER_TIME_KEYS
HAS_VALUE = Between(None, None, "has a value")
"""The own threshold of a metric judged over time only: any value holds (no value fails)."""


def metric_rule(rule: Node, metric: Metric, columns: tuple[str, ...], family: TypeFamily) -> Built:
    """A metric rule's result: ``metric`` judged by the rule's ``must_be`` (and ``warn``).
    A rule judged over time (``change``, ``anomaly``) may leave ``must_be`` out: its own
    check is then only that the metric has a value."""
    if rule.get("must_be") is None and OVER_TIME_KEYS & set(rule.keys()):
        if rule.get("warn") is not None:
            raise rule.require("warn").error("warn goes with must_be; a change has its own warn")
        return Built(MetricCheck(metric, HAS_VALUE), columns, _needs(columns, family), None)
    must, text = p.threshold(rule.require("must_be"))
    warn_node = rule.get("warn")
    warn = None
    if warn_node is not None:
        warn, warn_text = p.threshold(warn_node)
        text = f"{text}; warn: {warn_text}"
    return Built(MetricCheck(metric, must, warn), columns, _needs(columns, family), text)


def build_row_count(rule: Node) -> Built:
    low, high = (rule.get("min"), rule.get("max"))
    num_rows = rule.get("min_num_rows")
    if num_rows is not None:
        # data-validator's rowCount: at least this many rows (a positive count).
        if low is not None:
            raise rule.error("use either 'min' or 'min_num_rows', not both")
        num_rows.as_int("a row count (an integer)", minimum=1)
        low = num_rows
    if low is None and high is None:
        if rule.get("must_be") is None and not OVER_TIME_KEYS & set(rule.keys()):
            raise rule.error("row_count needs 'must_be' (or 'min'/'max', 'change', 'anomaly')")
        return metric_rule(rule, RowCountMetric(), (), "any")
    for key in ("must_be", "warn"):
        if rule.get(key) is not None:
            raise rule.require(key).error(f"use either '{key}' or 'min'/'max', not both")
    lo = low.as_int("a row count (an integer)", minimum=0) if low is not None else 0
    hi = high.as_int("a row count (an integer)", minimum=0) if high is not None else None
    if hi is not None and lo > hi:
        raise rule.error(f"min ({lo}) is greater than max ({hi})")
    text = f">= {lo}" if hi is None else f"between {lo} and {hi}"
    must = Between(Decimal(lo), None if hi is None else Decimal(hi), text)
    return Built(MetricCheck(RowCountMetric(), must), (), (), text)


def build_column_metric(fn: ColumnFn, family: TypeFamily, rule: Node) -> Built:
    name = p.column(rule)
    return metric_rule(rule, ColumnMetric(fn, name), (name,), family)


def build_missing(percent: bool, rule: Node) -> Built:
    name = p.column(rule)
    return metric_rule(rule, CountMetric(missing(rule, name), percent), (name,), "any")


def build_group(stat: GroupStat, rule: Node) -> Built:
    cols = p.columns(rule)
    return metric_rule(rule, GroupMetric(cols, stat), cols, "any")


# --- other rules --------------------------------------------------------------------------


def build_schema(rule: Node) -> Built:
    keys = ("required_columns", "forbidden_columns", "column_types")
    if all(rule.get(k) is None for k in keys):
        raise rule.error(f"schema needs at least one of: {', '.join(keys)}")
    required = _optional_columns(rule, "required_columns")
    forbidden = _optional_columns(rule, "forbidden_columns")
    for name in set(required) & set(forbidden):
        raise rule.error(f"column '{name}' is both required and forbidden")
    types_node = rule.get("column_types")
    types: tuple[tuple[str, str], ...] = ()
    if types_node is not None:
        mapping = types_node.as_mapping("a mapping of column name to type name")
        if not mapping:
            raise types_node.error("expected at least one column type, got an empty mapping")
        types = tuple((name, p.spark_type(node)) for name, node in mapping.items())
    mentioned = tuple(dict.fromkeys((*required, *forbidden, *(c for c, _ in types))))
    return Built(SchemaCheck(required, forbidden, types), mentioned)


def _optional_columns(rule: Node, key: str) -> tuple[str, ...]:
    node = rule.get(key)
    return () if node is None else p.column_list(node)


def build_sql(rule: Node) -> Built:
    given = [k for k in ("query", "failed_rows") if rule.get(k) is not None]
    if not given:
        rule.require("query")
    if len(given) > 1:
        raise rule.error("use either 'query' or 'failed_rows', not both")
    query = rule.require(given[0]).as_str("a SQL query")
    message = rule.get("error_message")
    if message is not None:
        message.as_str("a message")
    return Built(SqlCheck(query, "boolean" if given[0] == "query" else "failed_rows"))


# --- data-validator checks ----------------------------------------------------------------


def column_test(failing: Callable[[Col], Expr], family: TypeFamily) -> Callable[[Node], Built]:
    """The builder of a row rule on one ``column`` (of kind ``family``) whose row fails
    where ``failing(column)`` is true; where it is null (a null value) the row passes.
    A declaration's own test, written in place: ``column_test(lambda c: Compare(Op.LT, c,
    Lit(0)), "numeric")`` is data-validator's negativeCheck."""

    def build(rule: Node) -> Built:
        name = p.column(rule)
        return row_rule(rule, is_true(failing(Col(name))), (name,), family)

    return build


def build_range_check(rule: Node) -> Built:
    """data-validator's rangeCheck: bounds exclusive unless ``inclusive: true``; a bound
    may name another column with a leading backtick; nulls pass."""
    name = p.column(rule)
    low, high = (rule.get("min_value"), rule.get("max_value"))
    if low is None and high is None:
        raise rule.error("range_check needs 'min_value', 'max_value' or both")
    inclusive_node = rule.get("inclusive")
    inclusive = inclusive_node.as_bool() if inclusive_node is not None else False
    col = Col(name)
    columns, requires = [name], list[tuple[str, TypeFamily]]()
    literals: list[object] = []
    outside: list[Expr] = []
    for node, strict, loose in ((low, Op.LE, Op.LT), (high, Op.GE, Op.GT)):
        if node is None:
            continue
        other = p.column_ref(node)
        if other == name:
            raise node.error(f"a bound cannot be the checked column '{name}' itself")
        if other is not None:
            bound: Expr = Col(other)
            columns.append(other)
            requires.append((other, "orderable"))
        else:
            value, family = _range_value(node)
            bound = Lit(value)  # type: ignore[arg-type]
            literals.append(value)
            requires.append((name, family))
        outside.append(Compare(loose if inclusive else strict, col, bound))
    if len(literals) == 2:
        _check_order(rule, literals[0], literals[1], inclusive)
    if not any(c == name for c, _ in requires):
        requires.append((name, "orderable"))
    tolerance, text = p.tolerance(rule)
    return Built(
        RowCheck(is_true(any_of(*outside)), tolerance),
        tuple(dict.fromkeys(columns)),
        tuple(dict.fromkeys(requires)),
        text,
    )


def _range_value(node: Node) -> tuple[object, TypeFamily]:
    """A range_check bound: a number, a date/timestamp, or (for a string column) text."""
    if isinstance(node.value, str):
        try:
            value = p.bound(node)
        except ConfigError:
            return node.value, "string"
        return value, p.bound_family(value)
    value = p.bound(node)
    return value, p.bound_family(value)


def _check_order(rule: Node, low: object, high: object, inclusive: bool) -> None:
    if isinstance(low, str) != isinstance(high, str):
        raise rule.error("min_value and max_value must be of the same kind")
    if isinstance(low, str):
        if low > high:  # type: ignore[operator]
            raise rule.error(f"min_value ({low}) is greater than max_value ({high})")
        return
    p.ordered(low, high, rule)  # type: ignore[arg-type]
    if not inclusive and low == high:
        raise rule.error(
            f"min_value and max_value are both {low}: with inclusive false no value is in range",
            hint="set inclusive: true to require this exact value",
        )


def build_string_length_check(rule: Node) -> Built:
    """data-validator's stringLengthCheck: ``length(column)`` below ``min_length`` or
    above ``max_length`` fails (both inclusive; nulls pass). A bound is an integer (any
    sign, as data-validator accepts) or `` `other `` (another integer column of the row);
    min > max is an error, min = max is allowed."""
    name = p.column(rule)
    low, high = (rule.get("min_length"), rule.get("max_length"))
    if low is None and high is None:
        raise rule.error("string_length_check needs 'min_length', 'max_length' or both")
    length = Length(Col(name))
    columns = [name]
    requires: list[tuple[str, TypeFamily]] = [(name, "string")]
    outside: list[Expr] = []
    literals: list[int] = []
    for node, op in ((low, Op.LT), (high, Op.GT)):
        if node is None:
            continue
        other = p.column_ref(node)
        if other is not None:
            bound: Expr = Col(other)
            columns.append(other)
            requires.append((other, "numeric"))
        else:
            value = node.as_int("a length (an integer) or `other_column")
            literals.append(value)
            bound = Lit(value)
        outside.append(Compare(op, length, bound))
    if len(literals) == 2 and literals[0] > literals[1]:
        raise rule.error(
            f"min_length ({literals[0]}) must be less than or equal to max_length ({literals[1]})"
        )
    tolerance, text = p.tolerance(rule)
    return Built(
        RowCheck(is_true(any_of(*outside)), tolerance),
        tuple(dict.fromkeys(columns)),
        tuple(dict.fromkeys(requires)),
        text,
    )


def build_string_regex_check(rule: Node) -> Built:
    # data-validator's stringRegexCheck lets nulls pass (unlike regex, where they fail).
    name = p.column(rule)
    pattern = rule.require("regex").as_str("a regular expression")
    return row_rule(rule, is_true(Not(Matches(Col(name), pattern))), (name,), "string")


def build_column_sum_check(rule: Node) -> Built:
    """data-validator's columnSumCheck: sum(column) within (min_value, max_value),
    exclusive unless ``inclusive: true``."""
    name = p.column(rule)
    low_node, high_node = (rule.get("min_value"), rule.get("max_value"))
    if low_node is None and high_node is None:
        raise rule.error("column_sum_check needs 'min_value', 'max_value' or both")
    inclusive_node = rule.get("inclusive")
    inclusive = inclusive_node.as_bool() if inclusive_node is not None else False
    what = "a number"
    low = to_decimal(low_node.as_number(what)) if low_node is not None else None
    high = to_decimal(high_node.as_number(what)) if high_node is not None else None
    if low is not None and high is not None and low >= high:
        # data-validator refuses min >= max whether or not the bounds are inclusive
        raise rule.error(f"min_value ({low}) must be less than max_value ({high})")
    parts = []
    if low is not None:
        parts.append(f"{'>=' if inclusive else '>'} {low}")
    if high is not None:
        parts.append(f"{'<=' if inclusive else '<'} {high}")
    text = " and ".join(parts)
    must = Between(low, high, text, low_inclusive=inclusive, high_inclusive=inclusive)
    return Built(MetricCheck(ColumnMetric("sum", name), must), (name,), ((name, "numeric"),), text)


def build_column_max_check(rule: Node) -> Built:
    """data-validator's columnMaxCheck: max(column) equals ``value``, compared in the
    column's type (a number for a numeric column, a string for a string column)."""
    name = p.column(rule)
    value, family = p.typed_value(rule.require("value"))
    check = EqualsCheck(ColumnMetric("max", name), value)
    return Built(check, (name,), ((name, family),), f"= {rule.require('value').value}")


def build_colstats(rule: Node) -> Built:
    name = p.column(rule)
    return Built(ColStatsCheck(name), (name,), ((name, "numeric"),))


# --- Metorikku / deequ checks -------------------------------------------------------------


def build_has_size(rule: Node) -> Built:
    size = rule.require("size").as_int("a row count (an integer)", minimum=0)
    op, op_text = p.operator(rule.require("operator"))
    text = f"{op_text} {size}"
    return Built(MetricCheck(RowCountMetric(), Comparison(op, Decimal(size), text)), (), (), text)


def build_has_uniqueness(rule: Node) -> Built:
    """deequ's Uniqueness: the fraction of rows (where not every listed column is null)
    whose value occurs exactly once, compared with ``fraction`` by ``operator``."""
    cols = p.columns(rule)
    fraction_node = rule.get("fraction")
    fraction: int | float = 1.0
    if fraction_node is not None:
        fraction = fraction_node.as_number("a fraction between 0 and 1")
        if not 0 <= fraction <= 1:
            raise fraction_node.error(f"expected a fraction between 0 and 1, got {fraction}")
    op, op_text = p.operator(rule.get("operator"), "==")
    text = f"{op_text} {fraction}"
    value = to_decimal(fraction)
    assert value is not None
    metric = GroupMetric(cols, "uniqueness", nulls="all")
    return Built(MetricCheck(metric, Comparison(op, value, text)), cols, _needs(cols, "any"), text)


def build_is_contained_in(rule: Node) -> Built:
    # deequ's isContainedIn: the same row test as accepted_values (nulls pass).
    name = p.column(rule)
    values = p.scalar_values(rule.require("allowed_values"), "a list of allowed values")
    return row_rule(rule, is_true(Not(InSet(Col(name), values))), (name,), "any")


# --- sparquet / SODA metrics --------------------------------------------------------------


def build_invalid(percent: bool, rule: Node) -> Built:
    name = p.column(rule)
    found = validity(rule, name, NATIVE)
    built = metric_rule(rule, CountMetric(found.invalid, percent), (name,), "any")
    requires = tuple((name, f) for f in found.families) or built.requires
    return Built(built.check, built.columns, requires, built.threshold)


def build_freshness(rule: Node) -> Built:
    name = p.column(rule)
    return metric_rule(rule, FreshnessMetric(name), (name,), "temporal")

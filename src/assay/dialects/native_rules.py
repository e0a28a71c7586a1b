"""The native rule catalogue: rule type -> builder and allowed keys, as data.

Adding a rule type means one builder function (``Node -> Built``) and one :data:`RULES`
entry; aliases go in :data:`ALIASES`. :func:`build_rule` handles what every rule shares
(``type``, ``name``, ``level``, ``code``, unknown keys, params for display).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
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
from assay.ir.rules import (
    Check,
    ColumnFn,
    ColumnMetric,
    CountMetric,
    GroupMetric,
    GroupStat,
    Level,
    Metric,
    MetricCheck,
    RowCheck,
    RowCountMetric,
    Rule,
    SchemaCheck,
    SqlCheck,
    TypeFamily,
    UniqueCheck,
)
from assay.ir.values import Between, Op

COMMON_KEYS = frozenset({"type", "name", "level", "code"})
LEVELS: tuple[Level, ...] = ("error", "warn")


@dataclass(frozen=True, slots=True)
class Built:
    """What a builder contributes to a :class:`Rule` (the rest is common to all rules)."""

    check: Check
    columns: tuple[str, ...] = ()
    requires: tuple[tuple[str, TypeFamily], ...] = ()
    threshold: str | None = None


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """A rule type: its builder and the parameter keys it accepts besides COMMON_KEYS."""

    build: Callable[[Node], Built]
    keys: frozenset[str]


def _needs(columns: tuple[str, ...], family: TypeFamily) -> tuple[tuple[str, TypeFamily], ...]:
    return tuple((c, family) for c in columns)


# --- row-level rules ----------------------------------------------------------------------


def _row(rule: Node, failing: Expr, columns: tuple[str, ...], family: TypeFamily) -> Built:
    tolerance, text = p.tolerance(rule)
    return Built(RowCheck(failing, tolerance), columns, _needs(columns, family), text)


def _not_null(rule: Node) -> Built:
    cols = p.columns(rule)
    return _row(rule, any_of(*(IsNull(Col(c)) for c in cols)), cols, "any")


def _unique(rule: Node) -> Built:
    cols = p.columns(rule)
    tolerance, text = p.tolerance(rule)
    return Built(UniqueCheck(cols, tolerance), cols, _needs(cols, "any"), text)


def _range(rule: Node) -> Built:
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
    return _row(rule, is_true(any_of(*outside)), (name,), "orderable")


def _regex(rule: Node) -> Built:
    name = p.column(rule)
    pattern = rule.require("pattern").as_str("a regular expression")
    col = Col(name)
    return _row(rule, any_of(IsNull(col), Not(Matches(col, pattern))), (name,), "string")


def _accepted_values(rule: Node) -> Built:
    name = p.column(rule)
    values = p.scalar_values(rule.require("values"), "a list of accepted values")
    return _row(rule, is_true(Not(InSet(Col(name), values))), (name,), "any")


def _length(rule: Node) -> Built:
    name = p.column(rule)
    low, high = (rule.get("min"), rule.get("max"))
    if low is None and high is None:
        raise rule.error("length needs 'min', 'max' or both")
    what = "a length (an integer)"
    lo = low.as_int(what, minimum=0) if low is not None else None
    hi = high.as_int(what, minimum=0) if high is not None else None
    if lo is not None and hi is not None and lo > hi:
        raise rule.error(f"min ({lo}) is greater than max ({hi})")
    length = Length(Col(name))
    outside: list[Expr] = []
    if lo is not None:
        outside.append(Compare(Op.LT, length, Lit(lo)))
    if hi is not None:
        outside.append(Compare(Op.GT, length, Lit(hi)))
    return _row(rule, is_true(any_of(*outside)), (name,), "string")


# --- metric rules -------------------------------------------------------------------------

METRIC_KEYS = frozenset({"must_be", "warn"})


def _metric(rule: Node, metric: Metric, columns: tuple[str, ...], family: TypeFamily) -> Built:
    must, text = p.threshold(rule.require("must_be"))
    warn_node = rule.get("warn")
    warn = None
    if warn_node is not None:
        warn, warn_text = p.threshold(warn_node)
        text = f"{text}; warn: {warn_text}"
    return Built(MetricCheck(metric, must, warn), columns, _needs(columns, family), text)


def _row_count(rule: Node) -> Built:
    low, high = (rule.get("min"), rule.get("max"))
    if low is None and high is None:
        if rule.get("must_be") is None:
            raise rule.error("row_count needs 'must_be' (or 'min'/'max')")
        return _metric(rule, RowCountMetric(), (), "any")
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


def _column_metric(fn: ColumnFn, family: TypeFamily, rule: Node) -> Built:
    name = p.column(rule)
    return _metric(rule, ColumnMetric(fn, name), (name,), family)


def _missing(percent: bool, rule: Node) -> Built:
    name = p.column(rule)
    col = Col(name)
    counted: Expr = IsNull(col)
    extra = rule.get("missing_values")
    if extra is not None:
        values = p.scalar_values(extra, "a list of values counted as missing")
        counted = is_true(any_of(IsNull(col), InSet(col, values)))
    return _metric(rule, CountMetric(counted, percent), (name,), "any")


def _group(stat: GroupStat, rule: Node) -> Built:
    cols = p.columns(rule)
    return _metric(rule, GroupMetric(cols, stat), cols, "any")


# --- other rules --------------------------------------------------------------------------


def _schema(rule: Node) -> Built:
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


def _sql(rule: Node) -> Built:
    query = rule.require("query").as_str("a SQL query")
    message = rule.get("error_message")
    if message is not None:
        message.as_str("a message")
    return Built(SqlCheck(query, "boolean"))


# --- the catalogue ------------------------------------------------------------------------

_ROW = frozenset({"tolerance"})
_ONE = frozenset({"column"})
_ONE_OR_MANY = frozenset({"column", "columns"})

RULES: dict[str, RuleSpec] = {
    "not_null": RuleSpec(_not_null, _ROW | _ONE_OR_MANY),
    "unique": RuleSpec(_unique, _ROW | _ONE_OR_MANY),
    "range": RuleSpec(_range, _ROW | _ONE | {"min", "max", "inclusive"}),
    "regex": RuleSpec(_regex, _ROW | _ONE | {"pattern"}),
    "accepted_values": RuleSpec(_accepted_values, _ROW | _ONE | {"values"}),
    "length": RuleSpec(_length, _ROW | _ONE | {"min", "max"}),
    "row_count": RuleSpec(_row_count, METRIC_KEYS | {"min", "max"}),
    "min": RuleSpec(partial(_column_metric, "min", "orderable"), METRIC_KEYS | _ONE),
    "max": RuleSpec(partial(_column_metric, "max", "orderable"), METRIC_KEYS | _ONE),
    "avg": RuleSpec(partial(_column_metric, "avg", "numeric"), METRIC_KEYS | _ONE),
    "sum": RuleSpec(partial(_column_metric, "sum", "numeric"), METRIC_KEYS | _ONE),
    "stddev": RuleSpec(partial(_column_metric, "stddev", "numeric"), METRIC_KEYS | _ONE),
    "missing_count": RuleSpec(partial(_missing, False), METRIC_KEYS | _ONE | {"missing_values"}),
    "missing_percent": RuleSpec(partial(_missing, True), METRIC_KEYS | _ONE | {"missing_values"}),
    "duplicate_count": RuleSpec(partial(_group, "duplicate_count"), METRIC_KEYS | _ONE_OR_MANY),
    "distinct_count": RuleSpec(partial(_group, "distinct_count"), METRIC_KEYS | _ONE_OR_MANY),
    "schema": RuleSpec(
        _schema, frozenset({"required_columns", "forbidden_columns", "column_types"})
    ),
    "sql": RuleSpec(_sql, frozenset({"query", "error_message"})),
}
"""Canonical rule type -> spec. The order is the order of the reference docs."""

ALIASES: dict[str, str] = {"in_set": "accepted_values", "string_length": "length", "mean": "avg"}
"""Alternative type names -> canonical type (``Rule.kind`` is always canonical)."""


def build_rule(node: Node) -> Rule:
    """The IR rule for one rule mapping; its origin is the mapping's.

    Raises:
        ConfigError: unknown type or key (with did-you-mean), wrong or missing parameter.
    """
    node.as_mapping("a rule (a mapping with a 'type')")
    kind = rule_type(node)
    spec = RULES[kind]
    node.check_keys(COMMON_KEYS | spec.keys)
    built = spec.build(node)
    return Rule(
        kind=kind,
        check=built.check,
        origin=node.origin,
        columns=built.columns,
        name=_optional_text(node, "name"),
        level=_level(node),
        threshold=built.threshold,
        requires=built.requires,
        code=_optional_text(node, "code"),
        params=tuple((k, v.plain()) for k, v in node.as_mapping().items() if k not in COMMON_KEYS),
    )


def rule_type(node: Node) -> str:
    """The canonical type of a rule mapping (aliases resolved)."""
    type_node = node.require("type")
    name = type_node.as_str("a rule type such as 'not_null'")
    if name in RULES:
        return name
    if name in ALIASES:
        return ALIASES[name]
    raise type_node.error(unknown_message("rule type", name, RULES.keys() | ALIASES.keys()))


def _level(node: Node) -> Level:
    level_node = node.get("level")
    if level_node is None:
        return "error"
    level = level_node.as_str("'error' or 'warn'")
    if level not in LEVELS:
        raise level_node.error(f"expected 'error' or 'warn', got '{level}'")
    return level


def _optional_text(node: Node, key: str) -> str | None:
    child = node.get(key)
    return None if child is None else child.as_str("a string")

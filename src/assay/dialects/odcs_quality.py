"""A data contract's ``quality`` entries -> rules (docs/dialects.md, "Data contracts"):
ODCS's library metrics (``rowCount``, ``nullValues``, ``missingValues``,
``invalidValues``, ``duplicateValues``, in ``rows`` or ``percent``), ``sql`` queries
compared with their threshold, and ``custom`` checks of the engines assay reads as
dialects (:mod:`assay.dialects.odcs_engines`). The metrics mean what datacontract-cli
1.2.8's engine computes for them (``create_checks.py``, ``ibis_check_execute.py``).
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import odcs_engines, odcs_sql
from assay.dialects.base import Context
from assay.dialects.odcs_rules import Scope, level_of, odcs_rule, threshold_of, view
from assay.ir.expr import (
    Col,
    Expr,
    InSet,
    IsNull,
    Lit,
    Matches,
    Not,
    Scalar,
    all_of,
    any_of,
    is_true,
)
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.rules import Check, MetricCheck, Rule, SqlCheck, TypeFamily, UniqueCheck
from assay.ir.values import Between, Comparison, Op, Threshold, Tolerance

METRICS = {
    "rowCount": ("schema",),
    "duplicateValues": ("schema", "property"),
    "nullValues": ("property",),
    "missingValues": ("property",),
    "invalidValues": ("property",),
}
"""ODCS's library metrics and the levels each means something at (datacontract-cli's)."""
CHECK_TYPES = {
    ("rowCount", "schema"): "row_count",
    ("duplicateValues", "schema"): "model_duplicate_values",
    ("duplicateValues", "property"): "field_duplicate_values",
    ("nullValues", "property"): "field_null_values",
    ("missingValues", "property"): "field_missing_values",
    ("invalidValues", "property"): "field_invalid_values",
}
"""A library metric's check type as datacontract-cli names it (its key is the schema's,
the property's and this, joined by ``__``)."""
PERCENT_METRICS = ("nullValues", "missingValues", "invalidValues")
ARGUMENTS = {
    "rowCount": frozenset(),
    "nullValues": frozenset(),
    "missingValues": frozenset({"missingValues"}),
    "invalidValues": frozenset({"validValues", "pattern"}),
    "duplicateValues": frozenset({"properties"}),
}
DESCRIPTIVE = frozenset(
    {
        "id",
        "name",
        "description",
        "dimension",
        "businessImpact",
        "method",
        "schedule",
        "scheduler",
        "severity",
        "tags",
        "authoritativeDefinitions",
        "customProperties",
        "dialect",
    }
)
"""Keys of a quality entry that describe it: read (``name``, ``severity``) or ignored."""


def quality_rules(node: Node, scope: Scope, ctx: Context) -> list[Rule]:
    """The rules of a ``quality`` list (errors to ``ctx.errors``)."""
    items = ctx.attempt(node.as_list, "a list of quality checks") or []
    rules: list[Rule] = []
    for index, item in enumerate(items):
        where = dataclasses.replace(scope, quality=index)
        rules.extend(ctx.attempt(entry_rules, item, where, ctx) or ())
    return rules


def entry_rules(item: Node, scope: Scope, ctx: Context) -> list[Rule]:
    """The rules of one quality entry; ``type: text`` only describes (none)."""
    item.as_mapping("a quality check (a mapping)")
    kind = item.get("type")
    written = kind.as_str("a quality type (library, sql, custom, text)") if kind else None
    if written is None and item.get("rule") is not None and item.get("metric") is None:
        raise item.require("rule").error(
            "ODCS 3.0's 'rule' is not supported", hint="name the library metric with 'metric'"
        )
    if written is None:
        written = "library" if item.get("metric") is not None else None
    if written == "text":
        return []
    if written == "library":
        return [_library(item, scope)]
    if written == "sql":
        return [_sql(item, scope, ctx)]
    if written == "custom":
        return odcs_engines.custom_rules(item, scope, ctx)
    if written is None:
        raise item.error("a quality check needs 'type' (library, sql, custom, text) or 'metric'")
    raise (kind or item).error(
        f"quality type '{written}' is not supported",
        hint="assay runs 'library', 'sql' and 'custom' quality checks ('text' only describes)",
    )


def _unit(item: Node, metric: str) -> str:
    node = item.get("unit")
    if node is None or node.value is None:
        return "rows"
    text = node.as_str("a unit (rows or percent)").strip().lower()
    if text in ("percent", "percentage", "%"):
        if metric not in PERCENT_METRICS:
            raise node.error(
                f"'unit: percent' with {metric}",
                hint="a percentage of rows is for nullValues, missingValues or invalidValues",
            )
        return "percent"
    if text != "rows":
        raise node.error(f"unit '{text}' is not supported", hint="rows or percent")
    return "rows"


def _arguments(item: Node, metric: str) -> dict[str, Node]:
    node = item.get("arguments")
    if node is None or node.value is None:
        return {}
    node.as_mapping("the metric's arguments (a mapping)")
    node.check_keys(ARGUMENTS[metric])
    return node.as_mapping()


def _library(item: Node, scope: Scope) -> Rule:
    metric_node = item.require("metric")
    metric = metric_node.as_str("a library metric")
    if metric not in METRICS:
        raise metric_node.error(
            f"metric '{metric}' is not supported", hint="ODCS's metrics: " + ", ".join(METRICS)
        )
    level = "property" if scope.prop is not None else "schema"
    if level not in METRICS[metric]:
        raise metric_node.error(
            f"metric {metric} is only supported at {' or '.join(METRICS[metric])} level, "
            f"but this check is declared at {level} level"
        )
    unit = _unit(item, metric)
    args = _arguments(item, metric)
    threshold, text, written = threshold_of(item, unit="percent" if unit == "percent" else "")
    target = scope.prop or scope.schema
    name = _name(item) or f"{target} {metric} {text}"
    odcs = view(scope, CHECK_TYPES[metric, level], metric=metric, threshold=written, unit=unit)
    level = level_of(item)
    columns: tuple[str, ...] = ()
    needs: TypeFamily = "any"
    check: Check
    if metric == "rowCount":
        check = MetricCheck(RowCountMetric(), threshold)
    elif metric == "duplicateValues":
        columns = _duplicate_columns(item, args, scope)
        tolerance = _upper_bound(item, threshold, text)
        check = UniqueCheck(columns, tolerance=tolerance, counted="values", nulls="any")
    else:
        assert scope.column is not None
        columns = (scope.column,)
        counted = _counted(metric, scope.column, args, item)
        check = MetricCheck(CountMetric(counted, percent=unit == "percent"), threshold)
        needs = "string" if "pattern" in args else "any"
    requires = tuple((c, needs) for c in columns)
    return odcs_rule(
        item, metric, check, odcs, columns=columns, name=name, level=level, threshold=text,
        requires=requires,
    )  # fmt: skip


def _name(item: Node) -> str | None:
    node = item.get("name")
    return node.as_str("a name") if node is not None and node.value is not None else None


def _counted(metric: str, column: str, args: dict[str, Node], item: Node) -> Expr:
    """The rows a null, missing or invalid count counts, as datacontract-cli's engine:
    NULL (or a missing value); invalid is not NULL and not valid (in ``validValues`` and
    matching ``pattern``, searched anywhere in the value)."""
    col = Col(column)
    if metric == "nullValues":
        return IsNull(col)
    if metric == "missingValues":
        given = args.get("missingValues")
        values = _values(given, "missingValues") if given is not None else ()
        return is_true(any_of(IsNull(col), InSet(col, values))) if values else IsNull(col)
    valid: list[Expr] = []
    if "validValues" in args:
        values = _values(args["validValues"], "validValues")
        valid.append(InSet(col, values) if values else Lit(False))
    if "pattern" in args:
        valid.append(Matches(col, args["pattern"].as_str("a regular expression")))
    if not valid:
        raise item.error(
            "metric invalidValues needs a validValues or a pattern argument",
            hint="arguments: {validValues: [...]} or arguments: {pattern: '...'}",
        )
    return is_true(all_of(Not(IsNull(col)), Not(all_of(*valid))))


def _values(node: Node, key: str) -> tuple[Scalar, ...]:
    """A list of values (NULLs dropped: a NULL is the null count's business)."""
    items = node.as_list(f"'{key}' (a list of values)")
    values = tuple(i.value for i in items if i.value is not None)
    strings = all(isinstance(v, str) for v in values)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if not (strings or numbers or all(isinstance(v, bool) for v in values)):
        raise node.error(f"'{key}' holds only strings, only numbers or only booleans")
    return values  # type: ignore[return-value]


def _duplicate_columns(item: Node, args: dict[str, Node], scope: Scope) -> tuple[str, ...]:
    if scope.column is not None:
        if "properties" in args:
            raise args["properties"].error("'properties' is for a schema-level duplicateValues")
        return (scope.column,)
    node = args.get("properties")
    if node is None:
        raise item.error(
            "a schema-level duplicateValues needs arguments.properties",
            hint="arguments: {properties: [a, b]}: the columns whose combinations must be unique",
        )
    names = [
        n.as_str("a property name") for n in node.as_list("a list of properties", non_empty=True)
    ]
    return tuple(names)


def _upper_bound(item: Node, threshold: Threshold, text: str) -> Tolerance:
    """duplicateValues counts duplicated values: assay judges that count by an upper
    bound (``mustBe: 0``, ``mustBeLessThan``, ``mustBeLessOrEqualTo``, ``mustBeBetween``
    from 0 or below)."""
    allowed: Decimal | None = None
    if isinstance(threshold, Comparison):
        if threshold.op == Op.LT:
            allowed = Decimal(math.ceil(threshold.value) - 1)
        elif threshold.op == Op.LE:
            allowed = Decimal(math.floor(threshold.value))
        elif threshold.op == Op.EQ and threshold.value == 0:
            allowed = Decimal(0)
    elif (
        isinstance(threshold, Between)
        and not threshold.negate
        and threshold.low is not None
        and threshold.low <= 0
        and threshold.high is not None
    ):
        allowed = Decimal(math.floor(threshold.high))
    if allowed is None:
        raise item.error(
            f"duplicateValues {text}: assay judges duplicated values by an upper bound only",
            hint="mustBe: 0, mustBeLessThan, mustBeLessOrEqualTo, or mustBeBetween from 0",
        )
    return Tolerance("absolute", allowed, text)


def _sql(item: Node, scope: Scope, ctx: Context) -> Rule:
    """``type: sql``: the query's value (its first column of its one row) compared with
    the threshold, as one boolean SQL rule of the table's plan."""
    query_node = item.require("query")
    written = query_node.as_str("a SQL query")
    threshold, text, shown = threshold_of(item)
    query = odcs_sql.placed(written, scope, query_node, ctx)
    check = SqlCheck(odcs_sql.compared(query, threshold))
    check_type = ("field" if scope.prop else "model") + "_quality_sql"
    odcs = view(scope, check_type, threshold=shown, query=query)
    columns = (scope.column,) if scope.column is not None else ()
    name = _name(item) or f"{scope.prop or scope.schema} sql {text}"
    return odcs_rule(
        item, "sql", check, odcs, columns=columns, name=name, level=level_of(item),
        threshold=text, params=(("query", written),),
    )  # fmt: skip

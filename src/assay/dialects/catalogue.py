"""The rule catalogue: every native rule type declared once (:class:`RuleSpec`).

A declaration names the builder (:mod:`assay.dialects.native_rules`), the keys, the
aliases, the schema of the values where it differs from the shared vocabulary, what the
type requires, and its documentation; the JSON Schema and the rule tables of the docs are
generated from it (``python -m assay.schema.generate``). :func:`build_rule` handles what
every rule shares (``type``, ``name``, ``level``, ``code``, unknown keys, params for
display).
"""

# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

from decimal import Decimal
from functools import partial

from assay.config.node import Node, unknown_message
from assay.dialects.native_rules import (
    METRIC_KEYS,
    build_accepted_values,
    build_colstats,
    build_column_max_check,
    build_column_metric,
    build_column_sum_check,
    build_freshness,
    build_group,
    build_has_size,
    build_has_uniqueness,
    build_invalid,
    build_is_contained_in,
    build_length,
    build_missing,
    build_not_null,
    build_percentile,
    build_range,
    build_range_check,
    build_regex,
    build_row_count,
    build_schema,
    build_sql,
    build_string_length_check,
    build_string_regex_check,
    build_unique,
    column_test,
)
from assay.dialects.rule_spec import (
    COMMON_KEYS,
    KEY_VALUES,
    LEVELS,
    RuleDoc,
    RuleSpec,
    any_of,
    one_of,
    ref,
    required,
)
from assay.dialects.validity import VALIDITY_KEYS
from assay.ir.expr import Compare, Lit
from assay.ir.rules import Level, Rule
from assay.ir.values import Op

_ROW = frozenset({"tolerance"})
_ONE = frozenset({"column"})
_ONE_OR_MANY = frozenset({"column", "columns"})
_INVALID = METRIC_KEYS | _ONE | VALIDITY_KEYS | {"missing_values"}
_ROW_COUNT_FORMS = {
    "oneOf": [
        {**required("must_be"), "not": any_of("min", "max", "min_num_rows")},
        {
            **any_of("min", "max", "min_num_rows"),
            "not": {
                "anyOf": [required("must_be"), required("warn"), required("min", "min_num_rows")]
            },
        },
    ]
}
"""row_count: a threshold, or min/max/min_num_rows (never both kinds)."""

RULES: dict[str, RuleSpec] = {
    "not_null": RuleSpec(
        build_not_null,
        _ROW | _ONE_OR_MANY,
        aliases=("nullCheck", "null_check", "isComplete", "is_complete"),
        examples=(
            "{type: not_null, columns: [id, name]}",
            "{type: nullCheck, column: id}",
            "{type: null_check, column: email}",
            "{type: isComplete, column: status}",
            "{type: is_complete, column: day}",
        ),
        doc=RuleDoc(
            params="`column` or `columns`; `tolerance`",
            fails="a row has a null in any listed column",
            nulls="fail",
            columns="any",
            plan="agg",
        ),
    ),
    "unique": RuleSpec(
        build_unique,
        _ROW | _ONE_OR_MANY,
        aliases=("uniqueCheck", "unique_check", "isUnique", "is_unique"),
        examples=(
            "{type: unique, column: id}",
            "{type: uniqueCheck, columns: [id]}",
            "{type: unique_check, columns: [email]}",
            "{type: isUnique, column: email}",
            "{type: is_unique, column: name}",
        ),
        doc=RuleDoc(
            params="`column` or `columns`; `tolerance`",
            fails="a row's value (the combination) is shared with another row: every such row fails",
            nulls="rows with a null in a listed column are ignored",
            columns="any",
            plan="group",
        ),
    ),
    "range": RuleSpec(
        build_range,
        _ROW | _ONE | {"min", "max", "inclusive"},
        aliases=(),
        examples=("{type: range, column: qty, min: 0, max: 10}",),
        doc=RuleDoc(
            params="`column`; `min`, `max` (≥ 1 of them); `inclusive` (default `true`); `tolerance`",
            fails="value < `min` or > `max` (≤ / ≥ with `inclusive: false`)",
            nulls="pass",
            columns="numeric (number bounds) or temporal (date/timestamp bounds)",
            plan="agg",
        ),
        requires=(any_of("min", "max"),),
    ),
    "regex": RuleSpec(
        build_regex,
        _ROW | _ONE | {"pattern"},
        aliases=(),
        examples=("{type: regex, column: email, pattern: '@'}",),
        doc=RuleDoc(
            params="`column`, `pattern`; `tolerance`",
            fails="the value has no match of `pattern` (Java regex, searched anywhere)",
            nulls="**fail**",
            columns="string",
            plan="agg",
        ),
        requires=(required("pattern"),),
    ),
    "accepted_values": RuleSpec(
        build_accepted_values,
        _ROW | _ONE | {"values"},
        aliases=("in_set",),
        examples=(
            "{type: accepted_values, column: status, values: [a, b]}",
            "{type: in_set, column: status, values: [a, b]}",
        ),
        doc=RuleDoc(
            params="`column`, `values`; `tolerance`",
            fails="the value is not in `values`",
            nulls="pass",
            columns="any",
            plan="agg",
        ),
        requires=(required("values"),),
    ),
    "length": RuleSpec(
        build_length,
        _ROW | _ONE | {"min", "max"},
        aliases=("string_length",),
        examples=(
            "{type: length, column: name, min: 2, max: 3}",
            "{type: string_length, column: name, max: 3}",
        ),
        doc=RuleDoc(
            params="`column`; `min`, `max` (≥ 1, inclusive); `tolerance`",
            fails="length < `min` or > `max`",
            nulls="pass",
            columns="string",
            plan="agg",
        ),
        values={
            "min": ref("count", description="Shortest allowed length."),
            "max": ref("count", description="Longest allowed length."),
        },
        requires=(any_of("min", "max"),),
    ),
    "row_count": RuleSpec(
        build_row_count,
        METRIC_KEYS | {"min", "max", "min_num_rows"},
        aliases=("rowCount",),
        examples=(
            "{type: row_count, min: 5, max: 5}",
            "{type: rowCount, min_num_rows: 5}",
        ),
        doc=RuleDoc(
            params="`must_be`/`warn`, or `min`/`max` (`min` defaults to 0), or `min_num_rows` (≥ 1)",
            fails="the row count is outside the threshold",
            nulls="—",
            columns="—",
            plan="agg",
        ),
        values={
            "min": ref("count", description="At least this many rows (default 0)."),
            "max": ref("count", description="At most this many rows."),
        },
        requires=(_ROW_COUNT_FORMS,),
    ),
    "min": RuleSpec(
        partial(build_column_metric, "min", "numeric"),
        METRIC_KEYS | _ONE,
        aliases=(),
        examples=("{type: min, column: qty, must_be: '= 0'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the smallest value is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "max": RuleSpec(
        partial(build_column_metric, "max", "numeric"),
        METRIC_KEYS | _ONE,
        aliases=(),
        examples=("{type: max, column: qty, must_be: '= 10'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the largest value is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "avg": RuleSpec(
        partial(build_column_metric, "avg", "numeric"),
        METRIC_KEYS | _ONE,
        aliases=("mean",),
        examples=(
            "{type: avg, column: amount, must_be: '= 3.5'}",
            "{type: mean, column: qty, must_be: '= 5'}",
        ),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the average is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "sum": RuleSpec(
        partial(build_column_metric, "sum", "numeric"),
        METRIC_KEYS | _ONE,
        aliases=(),
        examples=("{type: sum, column: price, must_be: '= 11.93'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the sum is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "stddev": RuleSpec(
        partial(build_column_metric, "stddev", "numeric"),
        METRIC_KEYS | _ONE,
        aliases=(),
        examples=("{type: stddev, column: amount, must_be: '> 3'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the sample standard deviation is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "missing_count": RuleSpec(
        partial(build_missing, False),
        METRIC_KEYS | _ONE | {"missing_values"},
        aliases=(),
        examples=("{type: missing_count, column: name, must_be: 0}",),
        doc=RuleDoc(
            params="`column`; `missing_values`; `must_be`/`warn`",
            fails="the number of missing rows (null or in `missing_values`) is outside the threshold",
            nulls="counted as missing",
            columns="any",
            plan="agg",
        ),
    ),
    "missing_percent": RuleSpec(
        partial(build_missing, True),
        METRIC_KEYS | _ONE | {"missing_values"},
        aliases=(),
        examples=("{type: missing_percent, column: email, missing_values: [''], must_be: '= 0%'}",),
        doc=RuleDoc(
            params="as `missing_count`",
            fails="the same as a percentage (0–100) of the rows",
            nulls="counted as missing",
            columns="any",
            plan="agg",
        ),
    ),
    "duplicate_count": RuleSpec(
        partial(build_group, "duplicate_count"),
        METRIC_KEYS | _ONE_OR_MANY,
        aliases=(),
        examples=("{type: duplicate_count, column: id, must_be: 0}",),
        doc=RuleDoc(
            params="`column` or `columns`; `must_be`/`warn`",
            fails="the number of rows sharing their value with another row is outside the threshold",
            nulls="rows with a null in a listed column are ignored",
            columns="any",
            plan="group",
        ),
    ),
    "distinct_count": RuleSpec(
        partial(build_group, "distinct_count"),
        METRIC_KEYS | _ONE_OR_MANY,
        aliases=(),
        examples=("{type: distinct_count, column: status, must_be: 2}",),
        doc=RuleDoc(
            params="`column` or `columns`; `must_be`/`warn`",
            fails="the number of distinct values is outside the threshold",
            nulls="rows with a null in a listed column are ignored",
            columns="any",
            plan="group",
        ),
    ),
    "schema": RuleSpec(
        build_schema,
        frozenset({"required_columns", "forbidden_columns", "column_types"}),
        aliases=(),
        examples=(
            "{type: schema, required_columns: [id], column_types: {price: 'decimal(10,2)', id: long}}",
        ),
        doc=RuleDoc(
            params="`required_columns`, `forbidden_columns`, `column_types`",
            fails="a required column is missing, a forbidden one present, or a type differs",
            nulls="—",
            columns="—",
            plan="schema",
        ),
        requires=(any_of("required_columns", "forbidden_columns", "column_types"),),
    ),
    "sql": RuleSpec(
        build_sql,
        frozenset({"query", "failed_rows", "error_message"}),
        aliases=("custom_sql",),
        examples=(
            "{type: sql, query: 'SELECT count(*) = 5 FROM _validation_df'}",
            "{type: custom_sql, failed_rows: 'SELECT * FROM _validation_df WHERE qty < 0'}",
        ),
        doc=RuleDoc(
            params="`query` **or** `failed_rows`; `error_message`",
            fails="`query`: it does not return one row whose value is `true`; `failed_rows`: it returns any row (`failed_count` = rows returned)",
            nulls="—",
            columns="—",
            plan="**sql**",
        ),
        requires=(one_of("query", "failed_rows"),),
    ),
    "duplicate_percent": RuleSpec(
        partial(build_group, "duplicate_percent"),
        METRIC_KEYS | _ONE_OR_MANY,
        aliases=(),
        examples=("{type: duplicate_percent, column: email, must_be: 0}",),
        doc=RuleDoc(
            params="as `duplicate_count`",
            fails="the same as a percentage (0–100) of **all** the table's rows",
            nulls="ignored",
            columns="any",
            plan="group",
        ),
    ),
    "invalid_count": RuleSpec(
        partial(build_invalid, False),
        _INVALID,
        aliases=(),
        examples=("{type: invalid_count, column: email, valid_format: email, must_be: 0}",),
        doc=RuleDoc(
            params="`column`; validity options (≥ 1, below); `missing_values`; `must_be`/`warn`",
            fails="the number of invalid values is outside the threshold",
            nulls="missing, never invalid",
            columns="by the options: any / string / numeric / temporal",
            plan="agg",
        ),
    ),
    "invalid_percent": RuleSpec(
        partial(build_invalid, True),
        _INVALID,
        aliases=(),
        examples=("{type: invalid_percent, column: status, valid_values: [a, b], must_be: '= 0'}",),
        doc=RuleDoc(
            params="as `invalid_count`",
            fails="the same as a percentage (0–100) of the rows",
            nulls="missing, never invalid",
            columns="as above",
            plan="agg",
        ),
    ),
    "freshness": RuleSpec(
        build_freshness,
        METRIC_KEYS | _ONE,
        aliases=(),
        examples=("{type: freshness, column: day, must_be: '> 1d'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn` (durations: `< 1d`, `<= 2h`)",
            fails="the seconds from the newest value to now are outside the threshold",
            nulls="ignored",
            columns="temporal",
            plan="agg",
        ),
    ),
    "negative_check": RuleSpec(
        # data-validator's code counts `column < 0`: a null passes (its README says a null
        # fails; the code decides). NaN is not negative, -Infinity is.
        column_test(lambda c: Compare(Op.LT, c, Lit(0)), "numeric"),
        _ROW | _ONE,
        aliases=("negativeCheck",),
        examples=(
            "{type: negative_check, column: qty}",
            "{type: negativeCheck, column: price}",
        ),
        doc=RuleDoc(
            params="`column`; `tolerance`",
            fails="value < 0 (−∞ is; NaN is not)",
            nulls="pass",
            columns="numeric",
            plan="agg",
        ),
    ),
    "range_check": RuleSpec(
        build_range_check,
        _ROW | _ONE | {"min_value", "max_value", "inclusive"},
        aliases=("rangeCheck",),
        examples=(
            "{type: range_check, column: qty, min_value: 0, max_value: 10, inclusive: true}",
            "{type: rangeCheck, column: qty, min_value: -1, max_value: 11}",
        ),
        doc=RuleDoc(
            params="`column`; `min_value`, `max_value` (≥ 1): a number, date, timestamp, string, or `` `other `` (another column of the same row); `inclusive` (default **`false`**); `tolerance`",
            fails="value ≤ `min_value` or ≥ `max_value` (< / > with `inclusive: true`)",
            nulls="pass (also when the other column is null)",
            columns="numeric, temporal or string, by the literal bounds",
            plan="agg",
        ),
        values={"inclusive": {**KEY_VALUES["inclusive"], "default": False}},
        requires=(any_of("min_value", "max_value"),),
    ),
    "string_length_check": RuleSpec(
        build_string_length_check,
        _ROW | _ONE | {"min_length", "max_length"},
        aliases=("stringLengthCheck",),
        examples=(
            "{type: string_length_check, column: name, min_length: 2, max_length: 3}",
            "{type: stringLengthCheck, column: email, max_length: 20}",
        ),
        doc=RuleDoc(
            params="`column`; `min_length`, `max_length` (≥ 1 of them, inclusive): an integer of any sign or `` `other `` (another column); `tolerance`",
            fails="length < `min_length` or > `max_length`",
            nulls="pass",
            columns="string",
            plan="agg",
        ),
        requires=(any_of("min_length", "max_length"),),
    ),
    "string_regex_check": RuleSpec(
        build_string_regex_check,
        _ROW | _ONE | {"regex"},
        aliases=("stringRegexCheck",),
        examples=(
            "{type: string_regex_check, column: name, regex: '^[a-z]+$'}",
            "{type: stringRegexCheck, column: email, regex: '[.]'}",
        ),
        doc=RuleDoc(
            params="`column`, `regex`; `tolerance`",
            fails="the value has no match of `regex`",
            nulls="pass",
            columns="string",
            plan="agg",
        ),
        requires=(required("regex"),),
    ),
    "percentile": RuleSpec(
        partial(build_percentile, None),
        METRIC_KEYS | _ONE | {"fraction"},
        examples=("{type: percentile, column: qty, fraction: 0.75, must_be: '= 7'}",),
        doc=RuleDoc(
            params="`column`, `fraction` (0–1); `must_be`/`warn`",
            fails="the exact `fraction` percentile (Spark's `percentile`: linear interpolation between the two nearest values) is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
        values={
            "fraction": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "Which percentile: 0.5 is the median, 0.95 the 95th.",
            }
        },
        requires=(required("fraction"),),
    ),
    "median": RuleSpec(
        partial(build_percentile, Decimal("0.5")),
        METRIC_KEYS | _ONE,
        examples=("{type: median, column: amount, must_be: '= 2.5'}",),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the exact median (`percentile` at 0.5: the mean of the two middle values for an even count) is outside the threshold",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "column_sum_check": RuleSpec(
        build_column_sum_check,
        _ONE | {"min_value", "max_value", "inclusive"},
        aliases=("columnSumCheck",),
        examples=(
            "{type: column_sum_check, column: qty, min_value: 24, max_value: 25, inclusive: true}",
            "{type: columnSumCheck, column: price, max_value: 12}",
        ),
        doc=RuleDoc(
            params="`column`; `min_value`, `max_value` (≥ 1, numbers, min < max); `inclusive` (default **`false`**)",
            fails="the sum is not in (`min_value`, `max_value`) ([…] with `inclusive: true`)",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
        values={
            "min_value": {"type": "number", "description": "Lower bound of the sum."},
            "max_value": {"type": "number", "description": "Upper bound of the sum."},
            "inclusive": {**KEY_VALUES["inclusive"], "default": False},
        },
        requires=(any_of("min_value", "max_value"),),
    ),
    "column_max_check": RuleSpec(
        build_column_max_check,
        _ONE | {"value"},
        aliases=("columnMaxCheck",),
        examples=(
            "{type: column_max_check, column: email, value: eve@x.io}",
            "{type: columnMaxCheck, column: day, value: 2024-01-05}",
        ),
        doc=RuleDoc(
            params="`column`, `value`",
            fails="`max(column)` ≠ `value`, compared by Spark in the column's type",
            nulls="ignored",
            columns="by `value`: number → numeric, string → string (an ISO date string → string or temporal), boolean, date/timestamp → temporal",
            plan="agg",
        ),
        requires=(required("value"),),
    ),
    "colstats": RuleSpec(
        build_colstats,
        _ONE,
        aliases=(),
        examples=(
            "{type: colstats, column: amount}",
            "{type: colstats, column: qty}",
        ),
        doc=RuleDoc(
            params="`column`",
            fails="never (informational): reports count, mean, min, max, stdDev and a 10-bucket histogram in the result's `details`",
            nulls="ignored",
            columns="numeric",
            plan="agg + **hist**",
        ),
    ),
    "has_size": RuleSpec(
        build_has_size,
        frozenset({"size", "operator"}),
        aliases=("hasSize",),
        examples=(
            "{type: has_size, size: 5, operator: '=='}",
            "{type: hasSize, size: 4, operator: '>'}",
        ),
        doc=RuleDoc(
            params="`size` (≥ 0), `operator` (`==` `!=` `>=` `>` `<=` `<`)",
            fails="not `rows <operator> size`",
            nulls="—",
            columns="—",
            plan="agg",
        ),
        requires=(required("size", "operator"),),
    ),
    "has_uniqueness": RuleSpec(
        build_has_uniqueness,
        _ONE_OR_MANY | {"fraction", "operator"},
        aliases=("hasUniqueness",),
        examples=(
            "{type: has_uniqueness, columns: [id, status]}",
            "{type: hasUniqueness, columns: [status], fraction: 0, operator: '>='}",
        ),
        doc=RuleDoc(
            params="`column` or `columns`; `fraction` (0–1, default `1.0`); `operator` (default `==`)",
            fails="not `uniqueness <operator> fraction`, uniqueness = rows whose value occurs exactly once / rows considered",
            nulls="rows where **every** listed column is null are ignored; a null in some of them is a value",
            columns="any",
            plan="group",
        ),
        values={"operator": ref("operator", default="==")},
    ),
    "is_contained_in": RuleSpec(
        build_is_contained_in,
        _ROW | _ONE | {"allowed_values"},
        aliases=("isContainedIn",),
        examples=(
            "{type: is_contained_in, column: status, allowed_values: [a, b]}",
            "{type: isContainedIn, column: name, allowed_values: [ann, bob, cy, dee, eve]}",
        ),
        doc=RuleDoc(
            params="`column`, `allowed_values`; `tolerance`",
            fails="the value is not in `allowed_values`",
            nulls="pass",
            columns="any",
            plan="agg",
        ),
        requires=(required("allowed_values"),),
    ),
}
"""Canonical rule type -> spec: the one registry of rule types, in the order the docs list
them, and the types a plugin registers (:func:`assay.plugins.register_rule`, ``custom``
specs)."""

ALIASES: dict[str, str] = {alias: kind for kind, spec in RULES.items() for alias in spec.aliases}
"""Alternative type names -> canonical type (``Rule.kind`` is always canonical)."""


def build_rule(node: Node) -> Rule:
    """The IR rule for one rule mapping; its origin is the mapping's.

    Raises:
        ConfigError: unknown type or key (with did-you-mean), wrong or missing parameter.
    """
    node.as_mapping("a rule (a mapping with a 'type')")
    if node.get("targets") is not None:
        raise node.require("targets").error("'targets' must be expanded first (expand_targets)")
    kind = rule_type(node)
    spec = RULES[kind]
    node.check_keys(COMMON_KEYS | spec.keys)
    built = spec.build(node)
    return Rule(
        kind=kind,
        check=built.check,
        origin=node.origin,
        columns=built.columns,
        name=optional_text(node, "name"),
        level=rule_level(node),
        threshold=built.threshold,
        requires=built.requires,
        code=optional_text(node, "code"),
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
    known = RULES.keys() | ALIASES.keys()
    raise type_node.error(unknown_message("rule type", name, known))


def rule_level(node: Node) -> Level:
    """A rule's ``level``: ``error`` (default) or ``warn``."""
    level_node = node.get("level")
    if level_node is None:
        return "error"
    level = level_node.as_str("'error' or 'warn'")
    if level not in LEVELS:
        raise level_node.error(f"expected 'error' or 'warn', got '{level}'")
    return level


def optional_text(node: Node, key: str) -> str | None:
    """The string under ``key``, or ``None`` when it is not given."""
    child = node.get(key)
    return None if child is None else child.as_str("a string")

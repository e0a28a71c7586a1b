"""The row-level rule types of the catalogue (every row passes or fails; they take a
``tolerance``): their declarations (:class:`~assay.dialects.rule_spec.RuleSpec`).
"""


# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

from assay.config.node import Node
from assay.dialects.native_rules import (
    build_accepted_values,
    build_is_contained_in,
    build_length,
    build_not_null,
    build_range,
    build_range_check,
    build_regex,
    build_string_length_check,
    build_string_regex_check,
    build_unique,
    column_test,
    row_rule,
)
from assay.dialects.rule_spec import (
    KEY_VALUES,
    ONE_COLUMN,
    ONE_OR_MORE_COLUMNS,
    ROW_KEYS,
    Built,
    RuleDoc,
    RuleSpec,
    any_of,
    ref,
    required,
)
from assay.ir.expr import Compare, Lit, Not, Sql, is_true
from assay.ir.values import Op


def build_expression(rule: Node) -> Built:
    """A row condition in Spark SQL, analysed by Spark before any scan
    (:mod:`assay.executor.snippets`): a row fails where it is false or null (deequ's
    ``satisfies`` reads compliance as the rows where it is true)."""
    node = rule.require("expression")
    text = node.as_str("a SQL condition such as 'shipped_at >= ordered_at'")
    if not text.strip():
        raise node.error("the expression is empty: a SQL condition such as 'qty >= 0'")
    return row_rule(rule, Not(is_true(Sql(text))), (), "any")


ROW_RULES: dict[str, RuleSpec] = {
    "not_null": RuleSpec(
        build_not_null,
        ROW_KEYS | ONE_OR_MORE_COLUMNS,
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
        ROW_KEYS | ONE_OR_MORE_COLUMNS,
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
        ROW_KEYS | ONE_COLUMN | {"min", "max", "inclusive"},
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
        ROW_KEYS | ONE_COLUMN | {"pattern"},
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
        ROW_KEYS | ONE_COLUMN | {"values"},
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
        ROW_KEYS | ONE_COLUMN | {"min", "max"},
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
    "negative_check": RuleSpec(
        # data-validator's code counts `column < 0`: a null passes (its README says a null
        # fails; the code decides). NaN is not negative, -Infinity is.
        column_test(lambda c: Compare(Op.LT, c, Lit(0)), "numeric"),
        ROW_KEYS | ONE_COLUMN,
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
        ROW_KEYS | ONE_COLUMN | {"min_value", "max_value", "inclusive"},
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
        ROW_KEYS | ONE_COLUMN | {"min_length", "max_length"},
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
        ROW_KEYS | ONE_COLUMN | {"regex"},
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
    "is_contained_in": RuleSpec(
        build_is_contained_in,
        ROW_KEYS | ONE_COLUMN | {"allowed_values"},
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
    "expression": RuleSpec(
        build_expression,
        ROW_KEYS | {"expression"},
        examples=(
            "{type: expression, expression: 'qty >= 0 AND amount > 0'}",
            "{type: expression, expression: \"day >= DATE'2024-01-01' OR status = 'b'\", filter: 'qty > 0'}",
        ),
        doc=RuleDoc(
            params="`expression` (a Spark SQL condition on one row); `tolerance`",
            fails="the expression is false **or null** for the row (deequ's `satisfies`: only a true row complies; write `x IS NULL OR ...` to let nulls pass)",
            nulls="fail (the expression is unknown)",
            columns="any",
            plan="agg",
        ),
        values={
            "expression": {
                "type": "string",
                "minLength": 1,
                "description": "A Spark SQL condition over one row's columns (no aggregate or window function): the row fails where it is false or null.",
            }
        },
        requires=(required("expression"),),
    ),
}

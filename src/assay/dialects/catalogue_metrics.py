"""The catalogue's rule types judged on the whole table (metrics, schema, SQL, column
statistics): their declarations (:class:`~assay.dialects.rule_spec.RuleSpec`).
"""


# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

from decimal import Decimal
from functools import partial

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects.native_rules import (
    METRIC_KEYS,
    build_colstats,
    build_column_max_check,
    build_column_metric,
    build_column_sum_check,
    build_freshness,
    build_group,
    build_has_size,
    build_has_uniqueness,
    build_invalid,
    build_missing,
    build_row_count,
    build_schema,
    build_sql,
    metric_rule,
)
from assay.dialects.over_time import (
    ORDERS,
    SCHEMA_CHANGE_KEYS,
    SCHEMA_CHANGE_LIST,
    build_schema_change,
)
from assay.dialects.rule_spec import (
    FILTER_KEY,
    KEY_VALUES,
    ONE_COLUMN,
    ONE_OR_MORE_COLUMNS,
    Built,
    RuleDoc,
    RuleSpec,
    any_of,
    one_of,
    ref,
    required,
)
from assay.dialects.validity import VALIDITY_KEYS
from assay.ir.expr import Col, IsNaN, Not
from assay.ir.metrics import AggregateMetric


def build_percentile(quantile: Decimal | None, rule: Node) -> Built:
    """A percentile of a numeric column: at ``quantile`` (0-1; the median's 0.5), given
    or the rule's own (a quantile, as deequ's and numpy's: not a percentage). Exact
    (Spark's ``percentile``) unless the rule gives an ``accuracy``: then Spark's
    ``percentile_approx`` with that accuracy (a value of the column whose rank is within
    ``floor(n / accuracy + 1/2)`` of ``ceil(quantile * n)``, n its numbers: docs/rules.md)."""
    name = p.column(rule)
    if quantile is None:
        node = rule.require("quantile")
        quantile = Decimal(str(node.as_number("a quantile between 0 and 1")))
        if not 0 <= quantile <= 1:
            raise node.error(f"expected a quantile between 0 and 1 (0.95, not 95), got {quantile}")
    accuracy = rule.get("accuracy")
    if accuracy is None:
        metric = AggregateMetric("percentile", name, (quantile,))
    else:
        bound = accuracy.as_int(
            "an accuracy (an integer, the rank error 1/accuracy)", minimum=1, maximum=2**31 - 1
        )
        # percentile_approx ranks doubles (a decimal or bigint beyond a double's precision
        # came back rounded, or as null past the type's range): the column as a double,
        # explicitly; NaN breaks its ordering (its answers are then no rank at all), so it
        # is ignored like a null
        where = Not(IsNaN(Col(name)))
        metric = AggregateMetric("percentile_approx", name, (quantile, bound), where, "double")
    return metric_rule(rule, metric, (name,), "numeric")


ACCURACY = {
    "type": "integer",
    "minimum": 1,
    "maximum": 2**31 - 1,
    "description": "Approximate (Spark's percentile_approx) with this accuracy N: a value of the column whose rank is within floor(n/N + 1/2) of ceil(quantile * n), n the column's numbers (exact only when N > 2n).",
}
_INVALID = METRIC_KEYS | ONE_COLUMN | VALIDITY_KEYS | {"missing_values"}
_ROW_COUNT_FORMS = {
    "oneOf": [
        {**any_of("must_be", "change", "anomaly"), "not": any_of("min", "max", "min_num_rows")},
        {
            **any_of("min", "max", "min_num_rows"),
            "not": {
                "anyOf": [required("must_be"), required("warn"), required("min", "min_num_rows")]
            },
        },
    ]
}
"""row_count: a threshold (or only a judging over time), or min/max/min_num_rows (never
both kinds)."""

METRIC_RULES: dict[str, RuleSpec] = {
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
        METRIC_KEYS | ONE_COLUMN,
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
        METRIC_KEYS | ONE_COLUMN,
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
        METRIC_KEYS | ONE_COLUMN,
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
        METRIC_KEYS | ONE_COLUMN,
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
        METRIC_KEYS | ONE_COLUMN,
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
        METRIC_KEYS | ONE_COLUMN | {"missing_values"},
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
        METRIC_KEYS | ONE_COLUMN | {"missing_values"},
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
        METRIC_KEYS | ONE_OR_MORE_COLUMNS,
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
        METRIC_KEYS | ONE_OR_MORE_COLUMNS,
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
    "schema_change": RuleSpec(
        build_schema_change,
        SCHEMA_CHANGE_KEYS,
        aliases=(),
        examples=("{type: schema_change, fail_when: [removed, retyped], warn_when: [added]}",),
        doc=RuleDoc(
            params="`fail_when`, `warn_when`: `any` or a list of `added`, `removed`, `retyped`, `reordered` (default: every change not in `warn_when` fails); `order`: `relative` (default) or `index`",
            fails="the table's columns changed since the last run the metrics store holds: a column added, removed, of another type, or reordered ([monitoring.md](monitoring.md#schema-changes)); the first run passes",
            nulls="—",
            columns="—",
            plan="schema",
        ),
        values={
            "fail_when": SCHEMA_CHANGE_LIST,
            "warn_when": SCHEMA_CHANGE_LIST,
            "order": {
                "enum": list(ORDERS),
                "default": "relative",
                "description": "relative: the columns kept are in another order; index: a column kept is at another index (Soda's column index change).",
            },
        },
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
        METRIC_KEYS | ONE_OR_MORE_COLUMNS,
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
        METRIC_KEYS | ONE_COLUMN,
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
    "percentile": RuleSpec(
        partial(build_percentile, None),
        METRIC_KEYS | ONE_COLUMN | {"quantile", "accuracy"},
        examples=(
            "{type: percentile, column: qty, quantile: 0.75, must_be: '= 7'}",
            "{type: percentile, column: qty, quantile: 0.5, accuracy: 10000, must_be: '= 5'}",
        ),
        doc=RuleDoc(
            params="`column`, `quantile` (0–1: 0.5 the median, 0.95 the 95th percentile); `accuracy` (approximate); `must_be`/`warn`",
            fails="the percentile at `quantile` is outside the threshold: exact (Spark's `percentile`: linear interpolation between the two nearest values), or with `accuracy` Spark's `percentile_approx` (a value of the column whose rank is within ⌊n/accuracy + ½⌋ of ⌈quantile·n⌉, n its numbers)",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
        values={
            "quantile": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "Which percentile, as a quantile: 0.5 is the median, 0.95 the 95th percentile.",
            },
            "accuracy": ACCURACY,
        },
        requires=(required("quantile"),),
    ),
    "median": RuleSpec(
        partial(build_percentile, Decimal("0.5")),
        METRIC_KEYS | ONE_COLUMN | {"accuracy"},
        examples=(
            "{type: median, column: amount, must_be: '= 2.5'}",
            "{type: median, column: amount, accuracy: 100, must_be: '= 2.5'}",
        ),
        values={"accuracy": ACCURACY},
        doc=RuleDoc(
            params="`column`; `accuracy` (approximate); `must_be`/`warn`",
            fails="the median is outside the threshold: exact (`percentile` at 0.5: the mean of the two middle values for an even count), or with `accuracy` `percentile_approx` at 0.5 (a value of the column)",
            nulls="ignored",
            columns="numeric",
            plan="agg",
        ),
    ),
    "column_sum_check": RuleSpec(
        build_column_sum_check,
        ONE_COLUMN | FILTER_KEY | {"min_value", "max_value", "inclusive"},
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
        ONE_COLUMN | FILTER_KEY | {"value"},
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
        ONE_COLUMN,
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
        FILTER_KEY | {"size", "operator"},
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
        ONE_OR_MORE_COLUMNS | FILTER_KEY | {"fraction", "operator"},
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
}

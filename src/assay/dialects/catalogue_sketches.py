"""The catalogue's metrics after deequ's analyzers beyond plain aggregates: an
approximate distinct count (HyperLogLog++), a correlation, a compliance fraction, the
entropy and mutual information of value frequencies, and a column's non-null count
(their declarations and builders)."""

# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

from decimal import Decimal

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects.native_rules import METRIC_KEYS, metric_rule
from assay.dialects.rule_spec import Built, RuleDoc, RuleSpec, required
from assay.ir.expr import Col, IsNull, Not, Sql
from assay.ir.metrics import (
    AggregateMetric,
    ComplianceMetric,
    CountMetric,
    FrequencyMetric,
    FrequencyStat,
)

DEFAULT_RSD = Decimal("0.05")
"""Spark's (and deequ's) relative standard error of ``approx_count_distinct``."""
RSD_RANGE = (Decimal("0.005"), Decimal("0.39"))
"""The relative standard errors taken: Spark refuses more than 0.39 (fewer than 4 bits
of register address); below 0.005 the sketch's 2^p registers, p = ceil(2 log2(1.106 /
rsd)), grow past 64 Ki per aggregation buffer."""


def build_approx_distinct(rule: Node) -> Built:
    """Spark's ``approx_count_distinct`` (HyperLogLog++) of a column at ``rsd``."""
    name = p.column(rule)
    rsd = DEFAULT_RSD
    node = rule.get("rsd")
    if node is not None:
        rsd = Decimal(str(node.as_number("a relative standard error, 0.005 to 0.39")))
        low, high = RSD_RANGE
        if not low <= rsd <= high:
            raise node.error(f"expected a relative standard error from {low} to {high}, got {rsd}")
    return metric_rule(rule, AggregateMetric("approx_count_distinct", name, (rsd,)), (name,), "any")


def _pair(rule: Node) -> tuple[str, str]:
    node = rule.require("columns")
    names = p.column_list(node, "a list of two columns")
    if len(names) != 2:
        raise node.error(f"expected two columns, got {len(names)}")
    return names[0], names[1]


def build_correlation(rule: Node) -> Built:
    """Pearson's correlation of two numeric columns (Spark's ``corr``, rows with a null
    in either skipped)."""
    x, y = _pair(rule)
    return metric_rule(rule, AggregateMetric("corr", x, more=(y,)), (x, y), "numeric")


def build_compliance(rule: Node) -> Built:
    """The fraction of the rows where ``expression`` is true (deequ's Compliance)."""
    node = rule.require("expression")
    text = node.as_str("a SQL condition such as 'qty >= 0'")
    if not text.strip():
        raise node.error("the expression is empty: a SQL condition such as 'qty >= 0'")
    return metric_rule(rule, ComplianceMetric(Sql(text)), (), "any")


def build_frequency(stat: FrequencyStat, rule: Node) -> Built:
    """Entropy of a column, or mutual information of two (deequ's definitions)."""
    if rule.get("group_by") is not None:
        raise rule.require("group_by").error(
            f"group_by does not apply to {stat} (its frequencies are a group-by of their own)"
        )
    columns = (p.column(rule),) if stat == "entropy" else _pair(rule)
    return metric_rule(rule, FrequencyMetric(columns, stat), columns, "any")


def build_count(rule: Node) -> Built:
    """The column's non-null values (SQL ``count(column)``)."""
    name = p.column(rule)
    return metric_rule(rule, CountMetric(Not(IsNull(Col(name)))), (name,), "any")


def _entropy(rule: Node) -> Built:
    return build_frequency("entropy", rule)


def _mutual_information(rule: Node) -> Built:
    return build_frequency("mutual_information", rule)


_TWO_COLUMNS = {
    "columns": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": 2,
        "maxItems": 2,
        "uniqueItems": True,
        "description": "The two columns.",
    }
}
_UNGROUPED = METRIC_KEYS - {"group_by"}

SKETCH_RULES: dict[str, RuleSpec] = {
    "approx_distinct_count": RuleSpec(
        build_approx_distinct,
        METRIC_KEYS | {"column", "rsd"},
        examples=(
            "{type: approx_distinct_count, column: status, must_be: 2}",
            "{type: approx_distinct_count, column: id, rsd: 0.01, must_be: '= 5'}",
        ),
        doc=RuleDoc(
            params="`column`; `rsd` (relative standard error, default 0.05, 0.005–0.39); `must_be`/`warn`",
            fails="the approximate number of distinct values (Spark's `approx_count_distinct`, HyperLogLog++: deequ's ApproxCountDistinct) is outside the threshold",
            nulls="ignored",
            columns="any",
            plan="agg",
        ),
        values={
            "rsd": {
                "type": "number",
                "minimum": float(RSD_RANGE[0]),
                "maximum": float(RSD_RANGE[1]),
                "default": float(DEFAULT_RSD),
                "description": "The sketch's relative standard error (Spark's relativeSD).",
            }
        },
    ),
    "correlation": RuleSpec(
        build_correlation,
        METRIC_KEYS | {"columns"},
        examples=(
            "{type: correlation, columns: [id, qty], must_be: '> 0.5'}",
            "{type: correlation, columns: [qty, amount], filter: 'qty > 0', must_be: '< 0'}",
        ),
        doc=RuleDoc(
            params="`columns` (two); `must_be`/`warn`",
            fails="Pearson's correlation of the two columns (Spark's `corr`: deequ's Correlation) is outside the threshold; no value (fails) for fewer than 2 pairs or a constant column",
            nulls="a row with a null in either column is skipped",
            columns="numeric",
            plan="agg",
        ),
        values=_TWO_COLUMNS,
        requires=(required("columns"),),
    ),
    "compliance": RuleSpec(
        build_compliance,
        METRIC_KEYS | {"expression"},
        examples=(
            "{type: compliance, expression: 'qty > 2', must_be: '>= 0.5'}",
            "{type: compliance, expression: \"status = 'a'\", filter: 'qty > 0', must_be: '> 0'}",
        ),
        doc=RuleDoc(
            params="`expression` (a Spark SQL condition on one row); `must_be`/`warn` (a fraction 0–1)",
            fails="the fraction of rows where the expression is true (deequ's Compliance) is outside the threshold; no value (fails) without rows",
            nulls="a null expression is not compliant",
            columns="any",
            plan="agg",
        ),
        values={
            "expression": {
                "type": "string",
                "minLength": 1,
                "description": "A Spark SQL condition over one row's columns: the rows where it is true comply.",
            }
        },
        requires=(required("expression"),),
    ),
    "entropy": RuleSpec(
        _entropy,
        _UNGROUPED | {"column"},
        examples=(
            "{type: entropy, column: status, must_be: '> 0.6'}",
            "{type: entropy, column: id, filter: 'qty > 0', must_be: '<= 2'}",
        ),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the entropy of the column's values, `-Σ p ln p` over their shares p of the non-null rows (natural log: deequ's Entropy), is outside the threshold; no value without a non-null row",
            nulls="ignored",
            columns="any",
            plan="group",
        ),
    ),
    "mutual_information": RuleSpec(
        _mutual_information,
        _UNGROUPED | {"columns"},
        examples=(
            "{type: mutual_information, columns: [status, qty], must_be: '>= 0'}",
            "{type: mutual_information, columns: [id, status], must_be: '> 0.5'}",
        ),
        doc=RuleDoc(
            params="`columns` (two); `must_be`/`warn`",
            fails="the mutual information of the two columns, `Σ pxy ln(pxy / (px py))` over their pairs of values (natural log: deequ's MutualInformation), is outside the threshold; no value without a pair",
            nulls="rows where both are null are ignored; a pair with a null adds no term but counts in the shares (as deequ)",
            columns="any",
            plan="group",
        ),
        values=_TWO_COLUMNS,
        requires=(required("columns"),),
    ),
    "count": RuleSpec(
        build_count,
        METRIC_KEYS | {"column"},
        examples=(
            "{type: count, column: email, must_be: '>= 4'}",
            "{type: count, column: amount, group_by: status, must_be: '> 0'}",
        ),
        doc=RuleDoc(
            params="`column`; `must_be`/`warn`",
            fails="the number of non-null values of the column (SQL `count(column)`, DQX's `count` aggregate) is outside the threshold",
            nulls="not counted",
            columns="any",
            plan="agg",
        ),
    ),
}

"""The catalogue's ``drift`` rule: a column's distribution compared with a referenced
source's (its declaration and builder).

::

    {type: drift, column: amount, method: psi, bins: 10,
     references: {table: sales.orders_2024}, must_be: "< 0.2"}

The referenced side is written as foreign_key's (``references``: ``table``, ``path``
with ``format`` and ``options``, or ``sql``), with its ``column`` when it is not named
as the rule's. ``bins`` is a number of equal-width bins over the union's range, or
``values`` (each value its own bin: categories); each method has a default threshold
where the tools it follows have one (:data:`DEFAULT_THRESHOLDS`).
"""

# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

import os

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects import sources
from assay.dialects.native_rules import METRIC_KEYS, metric_rule
from assay.dialects.rule_spec import OVER_TIME_KEYS, Built, RuleDoc, RuleSpec, ref, required
from assay.grammar import parse_threshold
from assay.ir.drift import DRIFT_METHODS, ORDERED_METHODS, DriftMethod, DriftMetric
from assay.ir.references import Reference
from assay.ir.rules import MetricCheck, TypeFamily

DEFAULT_THRESHOLDS: dict[str, str] = {
    "psi": "< 0.2",
    "js": "< 0.1",
    "kl": "< 0.1",
    "ks": "< 0.1",
    "ks_p_value": "> 0.05",
    "chi_square_p_value": "> 0.05",
}
"""A method's threshold when the rule gives no ``must_be``: PSI below 0.2 (the usual
reading: under 0.1 no shift, 0.1 to 0.2 a moderate one, above 0.2 a significant one),
the Jensen-Shannon distance and KL divergence below 0.1 (Evidently's defaults), the KS
statistic below 0.1, a test's p-value above 0.05. The Wasserstein distance (in the
column's units) and the chi-square statistic (which grows with the rows) have none."""

MAX_BINS = 10_000


def build_drift(rule: Node) -> Built:
    """The drift metric of the rule's column against its ``references``' column."""
    column = p.column(rule)
    method = _method(rule)
    bins = _bins(rule, method)
    reference = _reference(rule, column)
    metric = DriftMetric(column, reference, method, bins)
    family: TypeFamily = "any" if bins is None else "numeric"
    if rule.get("must_be") is not None or OVER_TIME_KEYS & set(rule.keys()):
        return metric_rule(rule, metric, (column,), family)
    default = DEFAULT_THRESHOLDS.get(method)
    if default is None:
        raise rule.error(
            f"drift with method {method} needs 'must_be' (its statistic has no scale-free"
            " default threshold)"
        )
    if rule.get("warn") is not None:
        raise rule.require("warn").error("warn goes with must_be")
    must = parse_threshold(default, rule.origin)
    return Built(MetricCheck(metric, must), (column,), ((column, family),), default)


def _method(rule: Node) -> DriftMethod:
    node = rule.get("method")
    if node is None:
        return "psi"
    name = node.as_str("a drift method: " + ", ".join(DRIFT_METHODS))
    for method in DRIFT_METHODS:
        if method == name:
            return method
    raise node.error(unknown_message("drift method", name, DRIFT_METHODS))


def _bins(rule: Node, method: DriftMethod) -> int | None:
    node = rule.get("bins")
    if node is None:
        return None if method.startswith("chi_square") else 10
    if node.value == "values":
        if method in ORDERED_METHODS:
            raise node.error(f"{method} compares sorted numbers: bins must be a number")
        return None
    if isinstance(node.value, bool) or not isinstance(node.value, int):
        raise node.type_error(f"a number of bins (1 to {MAX_BINS}) or 'values'")
    if not 1 <= node.value <= MAX_BINS:
        raise node.error(f"expected 1 to {MAX_BINS} bins, got {node.value}")
    return node.value


def _reference(rule: Node, column: str) -> Reference:
    node = rule.require("references")
    base = os.path.dirname(os.path.abspath(node.origin.file))
    source = sources.table_source(node, base, frozenset({"column"}))
    theirs = column if node.get("column") is None else p.column(node)
    return Reference(source, (theirs,))


_SQL_REFERENCE = "SELECT * FROM VALUES (1), (2), (3), (4), (5) AS t(id)"
"""The examples' referenced side (beside the sample table's ``id``, 1 to 5)."""

DRIFT_RULES: dict[str, RuleSpec] = {
    "drift": RuleSpec(
        build_drift,
        (METRIC_KEYS - {"group_by"}) | {"column", "references", "method", "bins"},
        examples=(
            f'{{type: drift, column: id, references: {{sql: "{_SQL_REFERENCE}"}}, must_be: "< 0.2"}}',
            f'{{type: drift, column: id, method: ks, references: {{sql: "{_SQL_REFERENCE}"}}}}',
            f'{{type: drift, column: id, method: chi_square_p_value, references: {{sql: "{_SQL_REFERENCE}"}}}}',
            '{type: drift, column: status, method: js, bins: values, references: {sql: "SELECT \'a\' AS status"}, must_be: "< 1"}',
        ),
        doc=RuleDoc(
            params="`column`; `references`: a source (`table`, `path` + `format` + `options`, or `sql`) and its `column` (default: the rule's); `method`: `psi` (default), `js`, `kl`, `ks`, `ks_p_value`, `wasserstein`, `chi_square`, `chi_square_p_value`; `bins`: a number of equal-width bins (default 10) or `values` (default for chi-square); `must_be`/`warn` (a default per method)",
            fails="the column's distribution has moved from the referenced source's: the method's statistic (or p-value) is outside the threshold (Soda's distribution check, GX's KL divergence and chi-square expectations, scipy's definitions); no value to compare on either side fails",
            nulls="left out, counted (`details.drift`); NaN and infinities too",
            columns="numeric (with `bins: N`, and for `ks`, `wasserstein`); any with `bins: values`",
            plan="agg (both sources unioned and grouped by value, a branch of the aggregate plan)",
        ),
        values={
            "references": {
                "anyOf": [ref("source"), ref("reference")],
                "description": "The referenced source, and its column when it is not named as the rule's.",
            },
            "method": {"enum": list(DRIFT_METHODS), "default": "psi"},
            "bins": {
                "anyOf": [
                    {"type": "integer", "minimum": 1, "maximum": MAX_BINS},
                    {"const": "values"},
                ],
                "description": "Equal-width bins of the union's range, or each value its own bin.",
            },
        },
        requires=(required("references", "column"),),
    ),
}

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
from assay.ir.drift import (
    DRIFT_METHODS,
    ORDERED_METHODS,
    DriftMethod,
    DriftMetric,
    HistoryBaseline,
)
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
    if isinstance(reference, HistoryBaseline):
        _history_fits(rule, bins)
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


def _reference(rule: Node, column: str) -> Reference | HistoryBaseline:
    node = rule.require("references")
    if isinstance(node.value, dict) and node.get("history") is not None:
        return _history(node)
    base = os.path.dirname(os.path.abspath(node.origin.file))
    source = sources.table_source(node, base, frozenset({"column"}))
    theirs = column if node.get("column") is None else p.column(node)
    return Reference(source, (theirs,))


def _history_fits(rule: Node, bins: int | None) -> None:
    """Refuse what a history reference does not judge: a judging over time of the
    statistic itself (it is judged against the stored distributions already)."""
    over = sorted(OVER_TIME_KEYS & set(rule.keys()))
    if over:
        raise rule.require(over[0]).error(
            f"{over[0]}: a drift rule against history is judged against the stored"
            " distributions already, not over time"
        )


def _history(node: Node) -> HistoryBaseline:
    """``{history: last | {runs: N} | {run_id: ID}}``: the distribution earlier runs of
    the rule stored in the metrics store."""
    extra = sorted(set(node.keys()) - {"history"})
    if extra:
        raise node.require(extra[0]).error(
            f"unknown key '{extra[0]}': a history reference is {{history: ...}} alone"
        )
    found = node.require("history")
    if found.value == "last":
        return HistoryBaseline()
    if not isinstance(found.value, dict) or len(found.keys()) != 1:
        raise found.type_error("last, {runs: N} or {run_id: ID}")
    if found.get("runs") is not None:
        runs = found.require("runs")
        if isinstance(runs.value, bool) or not isinstance(runs.value, int):
            raise runs.type_error("a number of earlier runs (1 to 1000)")
        if not 1 <= runs.value <= MAX_RUNS:
            raise runs.error(f"expected 1 to {MAX_RUNS} runs, got {runs.value}")
        return HistoryBaseline(last=False, runs=runs.value)
    if found.get("run_id") is not None:
        pinned = found.require("run_id")
        return HistoryBaseline(last=False, run_id=pinned.as_str("a run id"))
    key = next(iter(found.keys()))
    raise found.require(key).error(unknown_message("history key", key, ("runs", "run_id")))


MAX_RUNS = 1000
"""The most earlier runs a history reference may average."""

_SQL_REFERENCE = "SELECT * FROM VALUES (1), (2), (3), (4), (5) AS t(id)"
"""The examples' referenced side (beside the sample table's ``id``, 1 to 5)."""

_HISTORY_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["history"],
    "properties": {
        "history": {
            "anyOf": [
                {"const": "last"},
                {"type": "object", "additionalProperties": False, "required": ["runs"],
                 "properties": {"runs": {"type": "integer", "minimum": 1, "maximum": MAX_RUNS}}},
                {"type": "object", "additionalProperties": False, "required": ["run_id"],
                 "properties": {"run_id": {"type": "string"}}},
            ],
            "description": "The newest earlier run, the average of the newest N, or a pinned run.",
        }
    },
}  # fmt: skip
"""A history reference's schema (beside a source's)."""

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
            params="`column`; `references`: a source (`table`, `path` + `format` + `options`, or `sql`) and its `column` (default: the rule's), or `{history: last}`, `{history: {runs: N}}`, `{history: {run_id: ID}}` (the distributions earlier runs stored in the metrics store); `method`: `psi` (default), `js`, `kl`, `ks`, `ks_p_value`, `wasserstein`, `chi_square`, `chi_square_p_value`; `bins`: a number of equal-width bins (default 10) or `values` (default for chi-square); `must_be`/`warn` (a default per method)",
            fails="the column's distribution has moved from the referenced source's: the method's statistic (or p-value) is outside the threshold (Soda's distribution check, GX's KL divergence and chi-square expectations, scipy's definitions); no value to compare on either side fails",
            nulls="left out, counted (`details.drift`); NaN and infinities too",
            columns="numeric (with `bins: N`, and for `ks`, `wasserstein`); any with `bins: values`",
            plan="agg (both sources unioned and grouped by value, a branch of the aggregate plan)",
        ),
        values={
            "references": {
                "anyOf": [ref("source"), ref("reference"), _HISTORY_SCHEMA],
                "description": "The referenced source, and its column when it is not named as the rule's; or {history: last | {runs: N} | {run_id: ID}}: the distribution earlier runs stored in the metrics store.",
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

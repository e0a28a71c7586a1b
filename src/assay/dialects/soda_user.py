"""SodaCL's user-defined metrics (soda-core 3.x: ``sodacl_parser.py``'s metric check
configuration, ``execution/check/metric_check.py``, ``execution/metric/
numeric_query_metric.py`` and ``user_defined_numeric_metric.py``), judged by the check's
fail and warn zones:

- ``avg_surface expression: avg(size * distance)``: Soda adds the expression to the
  dataset's aggregation query, so assay computes it in the table's one aggregate plan
  (:class:`~assay.ir.metrics.SqlMetric`); a check ``filter`` is refused as Soda refuses
  it ("can't be applied in combination with a custom metric aggregation expression");
- ``big_orders query: SELECT count(*) FROM orders WHERE amount > 100``: Soda runs the
  query alone and reads its first row, so assay runs it as a SQL rule of its own
  (``SqlCheck(mode="value")``), the dataset's name read as the checked table; Soda's
  partition filters do not apply to it (its metric has no partition).
"""

from __future__ import annotations

import dataclasses

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from assay.config.node import Node
from assay.dialects.soda_rule import (
    Dataset,
    Entry,
    metric_check,
    rule_of,
    threshold_text,
    zones_of,
)
from assay.ir.metrics import SqlMetric
from assay.ir.rules import Rule, SqlCheck

VIEW = "_validation_df"
SODA_METRICS = frozenset(
    {"row_count", "missing_count", "missing_percent", "invalid_count", "invalid_percent",
     "valid_count", "valid_percent", "duplicate_count", "duplicate_percent", "min", "max",
     "avg", "sum", "freshness", "min_length", "max_length", "avg_length", "percentile",
     "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"}
)  # fmt: skip
"""Soda's own metric names: a user-defined metric needs one of its own (Soda computes a
count metric as the count whatever the expression, and warns about a query)."""


def user_metric(
    got: Entry,
    metric: str,
    args: tuple[str, ...],
    written: tuple[str, Node],
    threshold: str | None,
    dataset: Dataset,
) -> Rule:
    """The rule of ``<metric> expression:`` or ``<metric> query:`` (``written``: the
    configuration key and its node)."""
    key, node = written
    kind = "expression" if key.endswith("expression") else "query"
    if key != f"{metric} {kind}":
        raise node.error(
            f'In configuration "{key}" the metric name must match exactly the metric '
            f'name in the check "{metric}"',
        )
    if metric in SODA_METRICS:
        raise got.node.error(
            f"'{metric}' is Soda's own metric: a user-defined metric needs a name of its own"
        )
    if args:
        raise got.node.error(f"the user-defined metric '{metric}' takes no column")
    filter_node = got.config.get("filter") if got.config else None
    if filter_node is not None and filter_node.value is not None:
        raise filter_node.error(
            f"a filter with '{key}': Soda does not apply it to a user-defined metric",
            hint="write the condition inside the " + kind,
        )
    text = dataset.resolve(node, node.as_str(f"the metric's {kind} (SQL)")).strip()
    if not text:
        raise node.error(f'In configuration "{key}" no value is provided')
    zones = zones_of(got, threshold, dataset)
    judged = metric_check(SqlMetric(text), zones)
    said = threshold_text(zones)
    if kind == "expression":
        rule = rule_of(got, metric, judged, (), dataset, threshold=said)
    else:
        query = over_dataset(text, dataset.name, node)
        check = SqlCheck(query, mode="value", must=judged.must, warn=judged.warn)
        rule = rule_of(got, metric, check, (), dataset, threshold=said)
    return dataclasses.replace(rule, places=(*rule.places, (kind, node.origin)))


def over_dataset(query: str, dataset: str, node: Node, *, one_value: bool = True) -> str:
    """``query`` with its dataset read as the checked table (``_validation_df``, aliased
    as the dataset so qualified columns still resolve): one query of one column, over
    that dataset alone. Without a dataset's name (a rule in SodaCL's words in a native
    table), the one table the query reads is the table's data."""
    try:
        trees = sqlglot.parse(query, read="spark")
    except SqlglotError as e:
        raise node.error(
            f"assay cannot read the query to find its dataset: {str(e).splitlines()[0]}"
        ) from None
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise node.error("the query is one SELECT")
    tree = trees[0]
    if one_value and (len(tree.selects) != 1 or isinstance(tree.selects[0], exp.Star)):
        raise node.error(
            "a user-defined metric's query selects one column",
            hint="Soda reads the last non-NULL column of the first row; write that value alone",
        )
    named = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        name = table.name
        if not table.db and name.lower() in named:
            continue
        dataset = dataset or name
        if table.db or table.catalog or name.lower() != dataset.lower():
            raise node.error(
                f"the query reads '{table.sql(dialect='spark')}': assay runs a "
                f"query over its own dataset ('{dataset}') only",
                hint="write one query per dataset, each in its own 'checks for' section",
            )
        alias = table.alias or name
        table.replace(exp.to_table(VIEW).as_(alias))
    return tree.sql(dialect="spark")

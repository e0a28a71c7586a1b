"""SodaCL's ``group by`` check (soda-core 3.x: ``sodacl_parser.parse_group_by_cfg``,
``execution/check/group_by_check.py``, ``execution/query/group_by_query.py``), as assay's
metrics judged per group (``MetricCheck.group_by``):

.. code-block:: yaml

    - group by:
        query: SELECT status, avg(amount) AS avg_amount FROM orders GROUP BY status
        fields: [status]
        checks:
          - avg_amount > 50:
              name: Average amount

Soda runs the query and judges each of its rows (a group, labelled by its ``fields``)
with each check of ``checks``, whose metric is a column of the query's rows (Soda names
the group's check ``<name> [<group values>]``). assay reads the query as the grouped
aggregate it is: one ``SELECT`` over the checked dataset, ``GROUP BY`` the ``fields``,
each other column an aggregate of a column (``count(*)``, ``count(x)``, ``min``,
``max``, ``avg``, ``sum``) and its ``WHERE`` the rows grouped. Each check is then one
rule, the metric judged for every group (fails when a group is in the fail zone, warns
when one is in the warn zone). Another query is refused at its line. Soda's partition
filters do not apply: Soda runs the query as written.
"""

from __future__ import annotations

import dataclasses
from typing import cast

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
from assay.ir.expr import Sql
from assay.ir.metrics import ColumnMetric, CountMetric, Metric, RowCountMetric
from assay.ir.rules import Rule, TypeFamily

GROUP_KEYS = frozenset({"name", "query", "fields", "checks", "group_limit", "attributes"})
INNER_KEYS = frozenset({"name", "fail", "warn", "attributes", "identity"})
_FNS = {"min": "min", "max": "max", "avg": "avg", "sum": "sum"}


@dataclasses.dataclass(frozen=True)
class _Aggregate:
    metric: Metric
    column: str | None


def one_group_rule(got: Entry, dataset: Dataset) -> Rule:
    """A ``group by`` read as one rule (a native table's ``sodacl:`` entry, what
    ``assay convert`` writes): it must hold one check, as each of its checks is a rule."""
    rules = group_rules(got, dataset)
    if len(rules) != 1:
        raise got.node.error(
            f"this group by holds {len(rules)} checks, each a rule: a 'sodacl:' entry is one",
            hint="write one group by per check, or keep it in a SodaCL checks file",
        )
    return rules[0]


def group_rules(got: Entry, dataset: Dataset) -> list[Rule]:
    """The rules of a ``group by`` check: one per check of its ``checks``."""
    config = got.config
    if config is None:
        raise got.node.error("a 'group by' check needs 'query', 'fields' and 'checks'")
    for key, value in config.as_mapping().items():
        if key not in GROUP_KEYS:
            raise value.error(f"invalid 'group by' configuration '{key}'")
    query_node = config.require("query")
    text = dataset.resolve(query_node, query_node.as_str("the query (SQL)")).strip()
    fields_node = config.require("fields")
    fields = tuple(
        str(f.as_str("a column of the query")).strip()
        for f in fields_node.as_list("a list of the query's group columns", non_empty=True)
    )
    aggregates, where = _grouped_query(text, fields, dataset.name, query_node)
    from assay.dialects.soda_checks import entry

    rules = []
    for item in config.require("checks").as_list("a list of checks", non_empty=True):
        inner = entry(item, dataset)
        rules.append(_inner_rule(inner, aggregates, fields, where, dataset, query_node))
    return rules


def _inner_rule(
    got: Entry,
    aggregates: dict[str, _Aggregate],
    fields: tuple[str, ...],
    where: str | None,
    dataset: Dataset,
    query_node: Node,
) -> Rule:
    """One check of the group by: ``<column of the query> <threshold>``, named."""
    metric, _, inline = got.text.partition(" ")
    if "(" in metric:
        raise got.node.error(
            f"'{got.text}': a group by's check judges a column of its query's rows, "
            "as '<column> <threshold>'"
        )
    for key, value in (got.config.as_mapping() if got.config else {}).items():
        if key not in INNER_KEYS:
            raise value.error(f"Soda configuration '{key}' is not supported in a group by")
    if got.config is None or got.config.get("name") is None:
        raise got.node.error(
            "a group by's check needs a 'name' (Soda: 'name property is required for the "
            "group check')"
        )
    found = aggregates.get(metric.lower())
    if found is None:
        raise got.node.error(
            f"'{metric}' is not a column of the group by's query",
            hint="the query's aggregates are " + ", ".join(sorted(aggregates)),
        )
    zones = zones_of(got, inline.strip() or None, dataset)
    check = dataclasses.replace(metric_check(found.metric, zones), group_by=fields)
    requires: list[tuple[str, TypeFamily]] = [(f, "any") for f in fields]
    if found.column is not None and not isinstance(found.metric, CountMetric):
        requires.append((found.column, "numeric"))
    rule = rule_of(
        got, metric, check, (found.column,) if found.column else (), dataset,
        tuple(requires), Sql(where) if where else None, threshold_text(zones),
    )  # fmt: skip
    return dataclasses.replace(rule, places=(*rule.places, ("query", query_node.origin)))


def _grouped_query(
    text: str, fields: tuple[str, ...], dataset: str, node: Node
) -> tuple[dict[str, _Aggregate], str | None]:
    """The aggregates (by their column's name, lower case) and the ``WHERE`` text of a
    grouped aggregate query over ``dataset``; an error at ``node`` for another query."""
    try:
        trees = sqlglot.parse(text, read="spark")
    except SqlglotError as e:
        raise node.error(f"assay cannot read the query: {str(e).splitlines()[0]}") from None
    if len(trees) != 1 or not isinstance(trees[0], exp.Select):
        raise _refused(node, "it is not one SELECT")
    tree = trees[0]
    for part, what in (("joins", "a join"), ("having", "HAVING"), ("limit", "LIMIT"),
                       ("with", "a WITH clause"), ("distinct", "DISTINCT")):  # fmt: skip
        if tree.args.get(part):
            raise _refused(node, f"it has {what}")
    tables = list(tree.find_all(exp.Table))
    source = tree.args.get("from") or tree.args.get("from_")
    if len(tables) != 1 or source is None or tree.find(exp.Subquery) is not None:
        raise _refused(node, "it does not read one table")
    table = tables[0]
    if table.db or table.catalog or (dataset and table.name.lower() != dataset.lower()):
        raise _refused(node, f"it reads '{table.sql(dialect='spark')}', not the dataset")
    _unqualify(tree)
    group = tree.args.get("group")
    keys = list(group.expressions) if group else []
    if not all(isinstance(k, exp.Column) for k in keys) or {k.name.lower() for k in keys} != {
        f.lower() for f in fields
    }:
        raise _refused(node, f"it is not grouped by its fields ({', '.join(fields)}) alone")
    aggregates: dict[str, _Aggregate] = {}
    for item in tree.selects:
        inner = cast(exp.Expression, item.this if isinstance(item, exp.Alias) else item)
        name = item.alias_or_name
        if isinstance(inner, exp.Column) and inner.name.lower() in {f.lower() for f in fields}:
            if name.lower() != inner.name.lower():
                raise _refused(node, f"its group column {inner.name} is renamed {name}")
            continue
        aggregates[name.lower()] = _aggregate(inner, name, node)
    missing = {f.lower() for f in fields} - {
        i.alias_or_name.lower() for i in tree.selects if isinstance(i, (exp.Column, exp.Alias))
    }
    if missing:
        raise _refused(node, f"it does not select its fields {', '.join(sorted(missing))}")
    where = tree.args.get("where")
    return aggregates, where.this.sql(dialect="spark") if where is not None else None


def _unqualify(tree: exp.Expression) -> None:
    for column in tree.find_all(exp.Column):
        if column.table:
            column.set("table", None)


def _aggregate(inner: exp.Expression, name: str, node: Node) -> _Aggregate:
    """The metric of one aggregate column of the query."""
    if isinstance(inner, exp.Count):
        arg = inner.this
        if isinstance(arg, exp.Distinct):
            raise _refused(node, f"its column {name} counts distinct values")
        if (
            arg is None
            or isinstance(arg, exp.Star)
            or (isinstance(arg, exp.Literal) and not arg.is_string)
        ):
            return _Aggregate(RowCountMetric(), None)
        if isinstance(arg, exp.Column):
            return _Aggregate(CountMetric(Sql(f"{_quoted(arg.name)} IS NOT NULL")), arg.name)
    fn = inner.key.lower() if isinstance(inner, (exp.Min, exp.Max, exp.Avg, exp.Sum)) else None
    if fn is not None and isinstance(inner.this, exp.Column):
        column = inner.this.name
        return _Aggregate(ColumnMetric(_FNS[fn], column), column)  # type: ignore[arg-type]
    raise _refused(
        node,
        f"its column {name} ({inner.sql(dialect='spark')}) is not count(*), count(x), "
        "min(x), max(x), avg(x) or sum(x) of a column",
    )


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _refused(node: Node, why: str) -> Exception:
    return node.error(
        f"a group by's query assay cannot read as a grouped aggregate: {why}",
        hint="assay runs 'SELECT <fields>, <aggregate> AS <name>, ... FROM <dataset> "
        "[WHERE ...] GROUP BY <fields>', the aggregates count(*), count(x), min, max, avg, "
        "sum of a column",
    )

"""A data contract's ``type: sql`` queries: their placeholders filled as datacontract-cli
fills them, and their value compared with the threshold in one boolean query that the
table's plan folds (docs/dialects.md, "Data contracts").

``{object}`` (``{model}``, ``{table}``, ``{schema}``, ``{dataset}``, ``{project}``,
``{catalog}``, ``{database}``, ``${...}`` alike) is the checked table (assay's view
``_validation_df``), ``{property}`` (``{field}``, ``{column}``) its column, backticked;
quotes written around a placeholder are dropped. ``${NAME}`` (ODCS 3.2's variables) is
the environment's ``NAME``, else the run's ``--var NAME=...``.
"""

from __future__ import annotations

import os
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from assay.config.node import Node
from assay.dialects.base import Context
from assay.dialects.odcs_rules import Scope
from assay.ir.values import Between, Comparison, Op, Threshold

TABLES = ("model", "table", "object", "schema", "dataset", "project", "catalog", "database")
COLUMNS = ("field", "column", "property")
_PLACEHOLDER = re.compile(rf"[\"'`]?\$?\{{({'|'.join(TABLES + COLUMNS)})\}}[\"'`]?")
_VARIABLE = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")
_SQL_OPS = {Op.EQ: exp.EQ, Op.NE: exp.NEQ, Op.LT: exp.LT, Op.LE: exp.LTE, Op.GT: exp.GT,
            Op.GE: exp.GTE}  # fmt: skip
_NOT_REWRITTEN = ("group", "having", "order", "limit", "offset", "distinct", "with", "qualify")


def placed(query: str, scope: Scope, node: Node, ctx: Context) -> str:
    """``query`` with its placeholders and variables filled."""

    def fill(found: re.Match[str]) -> str:
        name = found.group(1)
        if name in COLUMNS:
            if scope.column is None:
                raise node.error(
                    f"'{{{name}}}' in a schema-level query: there is no property",
                    hint="write the query at the property's quality, or name the column",
                )
            return "`" + scope.column.replace("`", "``") + "`"
        return scope.table_sql

    text = _PLACEHOLDER.sub(fill, query)

    def variable(found: re.Match[str]) -> str:
        name = found.group(1)
        if name in os.environ:
            return os.environ[name]
        if name in ctx.variables:
            return str(ctx.variables[name])
        raise node.error(
            f"undefined variable ${{{name}}}",
            hint=f"set it in the environment or pass --var {name}=VALUE",
        )

    return _VARIABLE.sub(variable, text)


def compared(query: str, threshold: Threshold) -> str:
    """A boolean query: ``query``'s value compared with ``threshold`` (NULL, no row, is
    not true: the check fails, as datacontract-cli's None does). A plain ``SELECT
    <value> FROM ... [WHERE ...]`` has its projection compared (so the aggregate pass can
    fold it); any other query is a scalar subquery."""
    try:
        tree = sqlglot.parse(query, read="spark")
    except SqlglotError:
        tree = []
    if len(tree) == 1 and isinstance(tree[0], exp.Select) and len(tree[0].expressions) == 1:
        select = tree[0]
        if not any(select.args.get(k) for k in _NOT_REWRITTEN):
            value = select.expressions[0].unalias()
            rewritten = select.copy()
            rewritten.set("expressions", [_comparison(value.copy(), threshold)])
            return rewritten.sql(dialect="spark")
    inner = exp.Subquery(this=exp.maybe_parse(f"({query})", dialect="spark").unnest())
    try:
        return exp.select(_comparison(inner, threshold)).sql(dialect="spark")
    except SqlglotError:
        return f"SELECT ({query}) {_text(threshold)}"


def _comparison(value: exp.Expression, threshold: Threshold) -> exp.Expression:
    if isinstance(threshold, Comparison):
        op = _SQL_OPS[threshold.op]
        return op(this=value, expression=_number(threshold.value))  # type: ignore[return-value]
    assert isinstance(threshold, Between)
    between = exp.Between(this=value, low=_number(threshold.low), high=_number(threshold.high))
    return exp.Not(this=exp.Paren(this=between)) if threshold.negate else between


def _number(value: object) -> exp.Expression:
    return exp.Literal.number(str(value))


def _text(threshold: Threshold) -> str:
    if isinstance(threshold, Comparison):
        return f"{threshold.op.value} {threshold.value}"
    assert isinstance(threshold, Between)
    said = f"BETWEEN {threshold.low} AND {threshold.high}"
    return f"NOT {said}" if threshold.negate else said

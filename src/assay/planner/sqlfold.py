"""Folding SQL rules that only count rows into the aggregate pass (pure).

Most SQL rules users write are a row count with a condition::

    SELECT count(*) = 0 FROM _validation_df WHERE l_receiptdate < l_shipdate   -- boolean
    SELECT * FROM _validation_df WHERE l_receiptdate < l_shipdate              -- failed_rows
    SELECT count(*) >= 1000 FROM _validation_df                                -- boolean

Run as queries, each is a scan of its own. Its answer is ``count_if(condition)`` (or the
row count) compared with the bound, which the table's aggregate scan computes alongside
the other rules for almost nothing. Only these shapes are recognised, conservatively: a
condition with any keyword that could change the query's shape (a subquery, ``GROUP
BY``, ``LIMIT``, a join, a comment...) or that names ``_validation_df`` stays a query. The executor
analyses every folded condition against the table before any scan; one Spark rejects
is planned as a query again, so its error is reported as for any SQL rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.ir.rules import SqlCheck
from assay.ir.values import Op

_COUNT = re.compile(
    r"\A\s*select\s+count\s*\(\s*(?:\*|1)\s*\)\s*(?P<op>==|=|!=|<>|<=|>=|<|>)\s*(?P<bound>\d{1,18})"
    r"\s+from\s+_validation_df(?:\s+where\s+(?P<pred>.+?))?\s*;?\s*\Z",
    re.IGNORECASE | re.DOTALL,
)
_ROWS = re.compile(
    r"\A\s*select\s+\*\s+from\s+_validation_df(?:\s+where\s+(?P<pred>.+?))?\s*;?\s*\Z",
    re.IGNORECASE | re.DOTALL,
)
_SHAPE_WORDS = re.compile(
    r"\b(select|from|where|group|having|order|sort|cluster|distribute|limit|offset|union|"
    r"intersect|except|minus|window|qualify|join|lateral|pivot|unpivot|tablesample|"
    r"_validation_df)\b|--|/\*|;|\bover\s*\(",
    re.IGNORECASE,
)
_OPS = {
    "=": Op.EQ,
    "==": Op.EQ,
    "!=": Op.NE,
    "<>": Op.NE,
    "<": Op.LT,
    "<=": Op.LE,
    ">": Op.GT,
    ">=": Op.GE,
}


@dataclass(frozen=True, slots=True)
class RowCountQuery:
    """A SQL rule that counts the rows matching ``condition`` (every row when None); for
    a ``boolean`` rule the query's value is ``count <op> bound``, for ``failed_rows`` the
    count itself."""

    condition: str | None
    op: Op | None = None
    bound: int | None = None

    def value(self, count: int) -> object:
        """What the query would have returned, from the count."""
        if self.op is None or self.bound is None:
            return count
        return {
            Op.EQ: count == self.bound,
            Op.NE: count != self.bound,
            Op.LT: count < self.bound,
            Op.LE: count <= self.bound,
            Op.GT: count > self.bound,
            Op.GE: count >= self.bound,
        }[self.op]


def row_count_query(check: SqlCheck) -> RowCountQuery | None:
    """The row-count form of a SQL rule, or None when its query has another shape.

    >>> row_count_query(SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE a < b"))
    RowCountQuery(condition='a < b', op=<Op.EQ: '='>, bound=0)
    >>> row_count_query(SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE a IN (SELECT 1)"))
    """
    pattern = _ROWS if check.mode == "failed_rows" else _COUNT
    match = pattern.match(check.query)
    if match is None:
        return None
    condition = match["pred"]
    if condition is not None and (_SHAPE_WORDS.search(condition) or not _balanced(condition)):
        return None
    if check.mode == "failed_rows":
        return RowCountQuery(condition)
    return RowCountQuery(condition, _OPS[match["op"]], int(match["bound"]))


def _balanced(text: str) -> bool:
    """Parentheses balance outside quotes, and every quote is closed (a condition that
    does not is left to Spark's SQL parser, as a query)."""
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and quote is None

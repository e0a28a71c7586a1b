"""Folding SQL rules that only count rows, or compare aggregates, into the aggregate pass
(pure).

Most SQL rules users write are a row count with a condition::

    SELECT count(*) = 0 FROM _validation_df WHERE l_receiptdate < l_shipdate   -- boolean
    SELECT * FROM _validation_df WHERE l_receiptdate < l_shipdate              -- failed_rows
    SELECT count(*) >= 1000 FROM _validation_df                                -- boolean
    SELECT count(DISTINCT status) <= 5 FROM _validation_df                     -- boolean

Run as queries, each is a scan of its own. Its answer is ``count_if(condition)`` (or the
row count) compared with the bound, which the table's aggregate scan computes alongside
the other rules for almost nothing; a distinct count is the number of groups of the
table's group-by of those columns (rows with a null in one of them left out, as
``count(DISTINCT)`` leaves them; over the rows matching the condition), shared with any
other rule counting the same groups. A boolean rule comparing aggregates of the whole
view (``SELECT max(qty) <= 50 FROM _validation_df``: :func:`aggregate_query`) is its
comparison's own text, one more output of the aggregate scan.

A fold must mean exactly what Spark makes of the query as written, so the shape is
recognised by a real SQL parser (sqlglot, Spark dialect), never by patterns: the query
parses as ONE ``SELECT`` whose only clauses are the projection, ``FROM _validation_df``
(no alias, no join) and an optional ``WHERE``; the projection is ``count(*)`` (or
``count(1)``, or ``count(DISTINCT ...)`` of plain column names) compared with an integer
literal, or ``*`` for ``failed_rows``; the
condition has no subquery, aggregate, window, table-qualified column or comment. The
condition folded is the query's own text after its ``WHERE`` token, up to its last token,
so nothing sqlglot would rewrite reaches Spark. A query sqlglot cannot parse (``WHERE a <
0 AND``, ``WHERE q > 19 banana``) is never folded: it runs as written and Spark's error
names the rule. The executor then has Spark parse every folded query as written and
analyse every folded condition before any scan; one Spark rejects is planned as a query
again, so its error is reported as for any SQL rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from assay.ir.rules import SqlCheck
from assay.ir.values import Op

VIEW = "_validation_df"
_DIALECT = "spark"
_OPS: dict[type[exp.Expression], Op] = {
    exp.EQ: Op.EQ,
    exp.NEQ: Op.NE,
    exp.LT: Op.LT,
    exp.LTE: Op.LE,
    exp.GT: Op.GT,
    exp.GTE: Op.GE,
}
_SELECT_CLAUSES = frozenset({"expressions", "from_", "where"})
"""The only clauses a foldable ``SELECT`` may have (sqlglot's argument names)."""
_NOT_IN_CONDITION = (exp.Query, exp.Subquery, exp.AggFunc, exp.Window, exp.Placeholder)
_NOT_IN_AGGREGATE = (
    exp.Query,
    exp.Subquery,
    exp.Window,
    exp.Placeholder,
    exp.Distinct,
    exp.Anonymous,
    exp.Star,
)
_MAX_BOUND = 10**18


@dataclass(frozen=True, slots=True)
class RowCountQuery:
    """A SQL rule that counts the rows matching ``condition`` (every row when None), or
    with ``distinct`` the distinct values of those columns among them (``count(DISTINCT
    a, b)``: rows with a null in one of them not counted); for a ``boolean`` rule the
    query's value is ``count <op> bound``, for ``failed_rows`` the count itself."""

    condition: str | None
    op: Op | None = None
    bound: int | None = None
    distinct: tuple[str, ...] = ()

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


@dataclass(frozen=True, slots=True)
class AggregateQuery:
    """A boolean SQL rule whose query compares aggregates of the whole view, ``SELECT
    max(qty) <= 50 FROM _validation_df``: ``projection`` is that comparison's own text,
    which Spark evaluates as one output of the table's aggregate scan, so its value is
    the query's."""

    projection: str
    condition: None = None


_SCAN_AGGREGATES = (exp.Min, exp.Max, exp.Sum, exp.Avg, exp.Count, exp.CountIf)
"""The aggregate functions an :class:`AggregateQuery` may use: those the scan aggregate
computes with generated code (an object aggregate such as a percentile would turn the
whole scan into an interpreted one)."""


def aggregate_query(check: SqlCheck) -> AggregateQuery | None:
    """The aggregate form of a boolean SQL rule, or None: ``SELECT <comparison> FROM
    _validation_df`` (no ``WHERE``: its filter would have to enter each aggregate) where
    the comparison's columns are all inside ``min``, ``max``, ``sum``, ``avg``, ``count``
    (not ``DISTINCT``) or ``count_if``, with no other function sqlglot does not know, no
    nested aggregate, subquery or window.

    >>> aggregate_query(SqlCheck("SELECT max(q) <= 50 FROM _validation_df"))
    AggregateQuery(projection='max(q) <= 50', condition=None)
    >>> aggregate_query(SqlCheck("SELECT percentile(q, 0.5) < 3 FROM _validation_df"))
    >>> aggregate_query(SqlCheck("SELECT q <= 50 FROM _validation_df"))
    """
    if check.mode != "boolean":
        return None
    parsed = _parsed(check.query)
    if parsed is None:
        return None
    select, tokens = parsed
    (projection,) = select.expressions
    if select.args.get("where") is not None or type(projection) not in _OPS:
        return None
    if projection.find(*_NOT_IN_AGGREGATE) is not None:
        return None
    functions = list(projection.find_all(exp.AggFunc))
    if not functions or any(not isinstance(f, _SCAN_AGGREGATES) for f in functions):
        return None
    if any(f.find_ancestor(exp.AggFunc) is not None for f in functions):
        return None
    for column in projection.find_all(exp.Column):
        if column.table or column.find_ancestor(exp.AggFunc) is None:
            return None
    text = _projection_text(check.query, tokens)
    return AggregateQuery(text) if text is not None else None


def row_count_query(check: SqlCheck) -> RowCountQuery | None:
    """The row-count form of a SQL rule, or None when its query has another shape.

    >>> row_count_query(SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE a < b"))
    RowCountQuery(condition='a < b', op=<Op.EQ: '='>, bound=0, distinct=())
    >>> row_count_query(SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE a IN (SELECT 1)"))
    >>> row_count_query(SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE q > 19 banana"))
    """
    if check.mode == "value":  # a number judged by thresholds, not a count
        return None
    text = check.query
    parsed = _parsed(text)
    if parsed is None:
        return None
    select, tokens = parsed
    where = select.args.get("where")
    condition = None
    if where is not None:
        if not _foldable_condition(where.this):
            return None
        condition = _condition_text(text, tokens)
        if condition is None:
            return None
    (projection,) = select.expressions
    if check.mode == "failed_rows":
        return RowCountQuery(condition) if _is_bare_star(projection) else None
    compared = _count_comparison(projection)
    if compared is None:
        return None
    op, bound, distinct = compared
    return RowCountQuery(condition, op, bound, distinct)


@functools.lru_cache(maxsize=1024)
def snippet_columns(text: str) -> tuple[str, ...]:
    """The column names a SQL expression snippet (a folded condition or comparison)
    reads, lower-cased and sorted; none when sqlglot cannot parse it. A cost hint for
    packing scans (:func:`assay.planner.cost.scan_branches`), never part of an answer:
    a name sqlglot takes for a column that is not one only moves a slot to another
    branch.

    >>> snippet_columns("l_extendedprice / L_Quantity > 2100")
    ('l_extendedprice', 'l_quantity')
    >>> snippet_columns("a <")
    ()
    """
    try:
        tree = sqlglot.parse_one(text, read=_DIALECT)
    except SqlglotError:
        return ()
    return tuple(sorted({c.name.lower() for c in tree.find_all(exp.Column) if c.name}))


def _parsed(text: str) -> tuple[exp.Select, list[Token]] | None:
    """The one plain ``SELECT`` of ``text`` and its tokens (less final semicolons), or
    None: for a comment, several statements, or what sqlglot cannot parse."""
    tokens = _tokens(text)
    if tokens is None or any(t.comments for t in tokens):
        return None
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
        tokens.pop()
    if not tokens or any(t.token_type == TokenType.SEMICOLON for t in tokens):
        return None
    try:
        trees = [t for t in sqlglot.parse(text, read=_DIALECT) if t is not None]
    except SqlglotError:
        return None
    if len(trees) != 1 or not isinstance(trees[0], exp.Select) or not _plain_select(trees[0]):
        return None
    return trees[0], tokens


def _projection_text(text: str, tokens: list[Token]) -> str | None:
    """The query's own text between its first token (``SELECT``) and its only top-level
    ``FROM``."""
    found = _only_top_level(tokens, TokenType.FROM)
    if found is None or found < 2 or tokens[0].token_type != TokenType.SELECT:
        return None
    return text[tokens[1].start : tokens[found - 1].end + 1].strip() or None


def without_final_semicolons(query: str) -> str:
    """A SQL rule's query as written, less the semicolons that end it (outside strings;
    comments stay): what Spark's parser accepts inside a subquery.

    >>> without_final_semicolons("SELECT ';' AS s ; -- done")
    "SELECT ';' AS s  -- done"
    """
    tokens = _tokens(query)
    if tokens is None:
        return query.strip().rstrip(";").rstrip()
    last = next((t for t in reversed(tokens) if t.token_type != TokenType.SEMICOLON), None)
    end = last.end + 1 if last is not None else 0
    return (query[:end] + query[end:].replace(";", "")).strip()


def _tokens(text: str) -> list[Token] | None:
    try:
        return list(sqlglot.Dialect.get_or_raise(_DIALECT).tokenize(text))
    except SqlglotError:
        return None


def _plain_select(tree: exp.Expression) -> bool:
    """``SELECT <one expression> FROM _validation_df [WHERE ...]`` and nothing else."""
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return False
    if any(v not in (None, [], False) for k, v in tree.args.items() if k not in _SELECT_CLAUSES):
        return False
    source = tree.args.get("from_")
    if source is None or {k for k, v in source.args.items() if v} != {"this"}:
        return False
    table = source.this
    if not isinstance(table, exp.Table) or {k for k, v in table.args.items() if v} != {"this"}:
        return False
    name = table.this
    return isinstance(name, exp.Identifier) and name.this.lower() == VIEW


def _foldable_condition(condition: exp.Expression) -> bool:
    """A row predicate over the view's columns alone."""
    if condition.find(*_NOT_IN_CONDITION) is not None:
        return False
    return all(not column.table for column in condition.find_all(exp.Column))


def _only_top_level(tokens: list[Token], kind: TokenType) -> int | None:
    """The index of the one token of ``kind`` outside every bracket (None: none or
    several)."""
    depth = 0
    found = None
    for i, token in enumerate(tokens):
        if token.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif token.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
        elif token.token_type == kind and depth == 0:
            if found is not None:
                return None
            found = i
    return found


def _condition_text(text: str, tokens: list[Token]) -> str | None:
    """The query's own text between its (only top-level) ``WHERE`` and its last token."""
    found = _only_top_level(tokens, TokenType.WHERE)
    if found is None or found == len(tokens) - 1:
        return None
    condition = text[tokens[found].end + 1 : tokens[-1].end + 1].strip()
    return condition or None


def _is_bare_star(projection: exp.Expression) -> bool:
    return isinstance(projection, exp.Star) and not any(projection.args.values())


def _count_comparison(projection: exp.Expression) -> tuple[Op, int, tuple[str, ...]] | None:
    """``count(*) <op> N`` (or ``count(1)``, or ``count(DISTINCT c, ...)`` of plain
    columns: their names) with N a non-negative integer literal."""
    op = _OPS.get(type(projection))
    if op is None:
        return None
    count, bound = projection.this, projection.expression
    if not isinstance(count, exp.Count) or count.args.get("distinct") or count.expressions:
        return None
    counted = count.this
    star = isinstance(counted, exp.Star) and not any(counted.args.values())
    one = isinstance(counted, exp.Literal) and not counted.is_string and counted.this == "1"
    distinct = _distinct_columns(counted)
    if not (star or one or distinct):
        return None
    if not isinstance(bound, exp.Literal) or bound.is_string or not bound.this.isdigit():
        return None
    value = int(bound.this)
    return (op, value, distinct) if value < _MAX_BOUND else None


def _distinct_columns(counted: exp.Expression) -> tuple[str, ...]:
    """The names of ``DISTINCT c, ...`` when each is a column of the view (no table, no
    expression), else ()."""
    if not isinstance(counted, exp.Distinct) or {k for k, v in counted.args.items() if v} != {
        "expressions"
    }:
        return ()
    names = []
    for item in counted.expressions:
        if not isinstance(item, exp.Column) or {k for k, v in item.args.items() if v} != {"this"}:
            return ()
        if not isinstance(item.this, exp.Identifier):
            return ()
        names.append(item.this.this)
    return tuple(names)

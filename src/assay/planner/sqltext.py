"""SQL text of IR expressions and literals (pure): what ``explain`` shows and measure
kinds render (:mod:`assay.planner.measures`)."""

from __future__ import annotations

import datetime as dt
import functools
import re
from decimal import Decimal

from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    HasText,
    InSet,
    IsNaN,
    IsNull,
    Length,
    LineBytes,
    Lit,
    Matches,
    Not,
    Or,
    Parses,
    Scalar,
    Sql,
    line_ends,
    require_translations,
)
from assay.ir.secrets import shown
from assay.ir.sources import CatalogSource, DataFrameSource, PathSource, Source, SqlSource

_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote(name: str) -> str:
    """A column name as SQL: bare when simple, else backticked.

    >>> quote("id"), quote("order id")
    ('id', '`order id`')
    """
    return name if _SIMPLE.fullmatch(name) else "`" + name.replace("`", "``") + "`"


def literal(value: Scalar, cast: str | None = None) -> str:
    """A literal as SQL text (``CAST(... AS cast)`` with a type).

    >>> literal("it's"), literal(True), literal(dt.date(2024, 1, 2))
    ("'it\\\\'s'", 'TRUE', "DATE '2024-01-02'")
    >>> print(literal("a" + chr(13) + chr(10) + chr(0x2028)))  # unprintable: SQL escapes
    'a\\r\\n\\u2028'
    """
    if cast is not None:
        return f"CAST({literal(value)} AS {cast.upper()})"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return "'" + "".join(ch if ch.isprintable() else _escape(ch) for ch in text) + "'"


def _escape(ch: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch)
    return named or (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")


@functools.singledispatch
def render_expr(expr: object) -> str:
    """An expression as readable SQL: one registration per node class of ``Expr``
    (checked at import); a node without one is refused, never skipped.

    >>> from assay.ir import Op
    >>> render_expr(Or((IsNull(Col("a")), Compare(Op.GT, Col("a"), Lit(5)))))
    '(a IS NULL OR a > 5)'
    """
    raise NotImplementedError(f"no SQL text for {type(expr).__name__}")


def _joined(word: str, items: tuple[Expr, ...]) -> str:
    return "(" + word.join(render_expr(i) for i in items) + ")"


def _has_text(expr: HasText) -> str:
    fn = {"start": "startswith", "end": "endswith"}.get(expr.where, "contains")
    return f"{fn}({render_expr(expr.item)}, {literal(expr.text)})"


def _line_bytes(expr: LineBytes) -> str:
    item = render_expr(expr.item)
    ends = " ".join(f"WHEN endswith({item}, {literal(t)}) THEN {n}" for t, n in line_ends())
    return f"(octet_length({item}) - CASE {ends} ELSE 0 END)"


def _length(expr: Length) -> str:
    item = render_expr(expr.item)
    if expr.ascii_run is None:
        return f"length({item})"
    wider = (("\u0085", 1), ("\u2028", 2), ("\u2029", 2))  # bytes over their one character
    ends = " ".join(f"WHEN endswith({item}, {literal(t)}) THEN {n}" for t, n in wider)
    by_bytes = f"octet_length({item}) - CASE {ends} ELSE 0 END"
    return (f"CASE WHEN {item} RLIKE {literal(expr.ascii_run)} THEN {by_bytes} "
            f"ELSE length({item}) END")  # fmt: skip


def _in_set(expr: InSet) -> str:
    values = ", ".join(literal(v, expr.type) for v in expr.values)
    return f"{render_expr(expr.item)} IN ({values})"


render_expr.register(Col, lambda e: quote(e.name))
render_expr.register(Lit, lambda e: literal(e.value, e.type))
render_expr.register(
    Compare, lambda e: f"{render_expr(e.left)} {e.op.value} {render_expr(e.right)}"
)
render_expr.register(And, lambda e: _joined(" AND ", e.items))
render_expr.register(Or, lambda e: _joined(" OR ", e.items))
render_expr.register(Coalesce, lambda e: "coalesce" + _joined(", ", e.items))
render_expr.register(Not, lambda e: f"NOT {render_expr(e.item)}")
render_expr.register(IsNull, lambda e: f"{render_expr(e.item)} IS NULL")
render_expr.register(IsNaN, lambda e: f"isnan({render_expr(e.item)})")
render_expr.register(InSet, _in_set)
render_expr.register(Matches, lambda e: f"{render_expr(e.item)} RLIKE {literal(e.pattern)}")
render_expr.register(HasText, _has_text)
render_expr.register(Length, _length)
render_expr.register(LineBytes, _line_bytes)
render_expr.register(
    Parses, lambda e: f"try_cast({render_expr(e.item)} AS {e.type.upper()}) IS NOT NULL"
)
render_expr.register(Sql, lambda e: f"({e.text})")
require_translations(render_expr, "SQL text (planner.sqltext.render_expr)")


def render_source(source: Source) -> str:
    """A one-line description of a table source."""
    if isinstance(source, CatalogSource):
        return f"table {source.table}"
    if isinstance(source, SqlSource):
        return "sql " + " ".join(source.query.split())
    if isinstance(source, DataFrameSource):
        return "dataframe (given to assay.validate)"
    assert isinstance(source, PathSource)
    options = "".join(f" {k}={shown(k, v)}" for k, v in source.options)  # no password
    return f"{source.format} {', '.join(source.paths)}{options}"

"""SQL text of IR expressions and literals (pure): what ``explain`` shows and measure
kinds render (:mod:`assay.planner.measures`)."""

from __future__ import annotations

import datetime as dt
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
    Lit,
    Matches,
    Not,
    Or,
    Scalar,
    Sql,
)

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


def render_expr(expr: Expr) -> str:
    """An expression as readable SQL.

    >>> from assay.ir import Op
    >>> render_expr(Or((IsNull(Col("a")), Compare(Op.GT, Col("a"), Lit(5)))))
    '(a IS NULL OR a > 5)'
    """
    if isinstance(expr, Col):
        return quote(expr.name)
    if isinstance(expr, Lit):
        return literal(expr.value, expr.type)
    if isinstance(expr, Compare):
        return f"{render_expr(expr.left)} {expr.op.value} {render_expr(expr.right)}"
    if isinstance(expr, (And, Or)):
        word = " AND " if isinstance(expr, And) else " OR "
        return "(" + word.join(render_expr(i) for i in expr.items) + ")"
    if isinstance(expr, Coalesce):
        return "coalesce(" + ", ".join(render_expr(i) for i in expr.items) + ")"
    return _render_unary(expr)


def _render_unary(expr: Expr) -> str:
    if isinstance(expr, Not):
        return f"NOT {render_expr(expr.item)}"
    if isinstance(expr, IsNull):
        return f"{render_expr(expr.item)} IS NULL"
    if isinstance(expr, IsNaN):
        return f"isnan({render_expr(expr.item)})"
    if isinstance(expr, InSet):
        values = ", ".join(literal(v, expr.type) for v in expr.values)
        return f"{render_expr(expr.item)} IN ({values})"
    if isinstance(expr, Matches):
        return f"{render_expr(expr.item)} RLIKE {literal(expr.pattern)}"
    if isinstance(expr, HasText):
        fn = {"start": "startswith", "end": "endswith"}.get(expr.where, "contains")
        return f"{fn}({render_expr(expr.item)}, {literal(expr.text)})"
    if isinstance(expr, Length):
        return f"length({render_expr(expr.item)})"
    if isinstance(expr, Sql):
        return f"({expr.text})"
    raise TypeError(f"cannot render {type(expr).__name__}")

"""Row expressions (``ir/expr.py``) -> Spark Connect columns: the ``column`` translator,
one registration per node class, and the column builders every plan of ``emit`` uses
(``col``, ``lit``, ``balanced``).

Every n-ary connective is reduced as a balanced tree (``balanced``), so 1,000 rules stay
~10 levels deep (Spark Connect fails on expressions deeper than a few hundred levels).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

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
    Parses,
    Scalar,
    Sql,
    require_translations,
)
from assay.ir.values import Op
from assay.planner.render import quote

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with this parent class; every column here is
    # a Connect one.
    from pyspark.sql import Column

T = TypeVar("T")

COMPARISONS: dict[Op, Callable[[Column, Column], Column]] = {
    Op.LT: lambda a, b: a < b,
    Op.LE: lambda a, b: a <= b,
    Op.EQ: lambda a, b: a == b,
    Op.NE: lambda a, b: a != b,
    Op.GE: lambda a, b: a >= b,
    Op.GT: lambda a, b: a > b,
}


def balanced(items: Sequence[T], combine: Callable[[T, T], T]) -> T:
    """Reduce ``items`` pairwise as a balanced tree (depth log2 n, not n)."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return combine(balanced(items[:mid], combine), balanced(items[mid:], combine))


def col(name: str) -> Column:
    """A column by name; dots and spaces are literal parts of the name."""
    return F.col(quote(name))


def lit(value: Scalar, cast: str | None = None) -> Column:
    """A literal, cast to ``cast`` when given. A timestamp without a UTC offset is a
    wall-clock time in the Spark session time zone (as in SQL ``TIMESTAMP '...'``), not in
    the client's local zone (which is what ``F.lit`` of a naive ``datetime`` would assume)."""
    if cast is not None:
        return lit(value).cast(cast)
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return F.lit(value.isoformat(sep=" ")).cast("timestamp")
    return F.lit(value)


@functools.singledispatch
def column(expr: object) -> Column:
    """Translate a row expression: one registration per node class of ``Expr`` (checked
    at import); a node without one is refused, never skipped."""
    raise NotImplementedError(f"no Spark translation for {type(expr).__name__}")


def _has_text(expr: HasText) -> Column:
    item, text = column(expr.item), F.lit(expr.text)
    if expr.where == "start":
        return item.startswith(text)
    return item.endswith(text) if expr.where == "end" else item.contains(text)


column.register(Col, lambda e: col(e.name))
column.register(Lit, lambda e: lit(e.value, e.type))
column.register(Compare, lambda e: COMPARISONS[e.op](column(e.left), column(e.right)))
column.register(And, lambda e: balanced([column(i) for i in e.items], lambda a, b: a & b))
column.register(Or, lambda e: balanced([column(i) for i in e.items], lambda a, b: a | b))
column.register(Coalesce, lambda e: F.coalesce(*(column(i) for i in e.items)))
column.register(Not, lambda e: ~column(e.item))
column.register(IsNull, lambda e: column(e.item).isNull())
column.register(IsNaN, lambda e: F.isnan(column(e.item)))
column.register(InSet, lambda e: column(e.item).isin(*(lit(v, e.type) for v in e.values)))
column.register(Matches, lambda e: column(e.item).rlike(e.pattern))
column.register(HasText, _has_text)
column.register(Length, lambda e: F.length(column(e.item)))
column.register(Parses, lambda e: column(e.item).try_cast(e.type).isNotNull())
column.register(Sql, lambda e: F.expr(e.text))
require_translations(column, "a Spark translation (emit.columns.column)")


def shared_count(group: Sequence[str], where: Expr | None) -> Column:
    """Per row, how many rows share its ``group`` value (among those where ``where``
    holds: a rule's filter), as a window count."""
    one = F.lit(1) if where is None else F.when(column(where), F.lit(1))
    return F.count(one).over(Window.partitionBy(*(col(c) for c in group)))

"""Row expressions (``ir/expr.py``) -> Spark Connect columns: the ``column`` translator,
one registration per node class, and the column builders every plan of ``emit`` uses
(``col``, ``lit``, ``balanced``).

Every n-ary connective is reduced as a balanced tree (``balanced``), so 1,000 rules stay
~10 levels deep (Spark Connect fails on expressions deeper than a few hundred levels).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
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
from assay.ir.values import OPERATORS, Op
from assay.planner.render import quote

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with this parent class; every column here is
    # a Connect one.
    from pyspark.sql import Column

T = TypeVar("T")

COMPARISONS: Mapping[Op, Callable[[Column, Column], Column]] = OPERATORS
"""A comparison of two columns: Python's operator on them (``Column.__lt__``...)."""


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
    the client's local zone (which is what ``F.lit`` of a naive ``datetime`` would assume).

    A whole number cast to a DECIMAL of at most 18 digits is sent as an integer: Spark
    holds the cast integer as a long (its compact decimal form), where a decimal literal
    stays a ``BigDecimal``, and comparing a column's compact values with a ``BigDecimal``
    allocates one per row (about ten times slower; the value is the same)."""
    if cast is not None:
        whole = _compact_whole(value, cast)
        return F.lit(whole).cast(cast) if whole is not None else lit(value).cast(cast)
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return F.lit(value.isoformat(sep=" ")).cast("timestamp")
    return F.lit(value)


@functools.singledispatch
def column(expr: object) -> Column:
    """Translate a row expression: one registration per node class of ``Expr`` (checked
    at import); a node without one is refused, never skipped."""
    raise NotImplementedError(f"no Spark translation for {type(expr).__name__}")


_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)$")
_COMPACT_DIGITS = 18
"""Spark keeps a DECIMAL of at most this many digits as a long (``Decimal.longVal``)."""
_DOUBLE_DIGITS = 15
"""Decimals of at most this many significant digits are distinct doubles (``DBL_DIG``)."""


def _decimal_digits(spark_type: str | None) -> int | None:
    """The precision of a DECIMAL type, None for any other type."""
    found = _DECIMAL.match(spark_type or "")
    return int(found[1]) if found else None


def _compact_whole(value: Scalar, cast: str) -> int | None:
    """``value`` as an integer when it is a whole number and ``cast`` a DECIMAL Spark
    holds as a long, else None.

    >>> _compact_whole(Decimal("50.00"), "decimal(15,2)"), _compact_whole(7, "decimal(5,0)")
    (50, 7)
    >>> _compact_whole(Decimal("0.5"), "decimal(15,2)"), _compact_whole(3, "decimal(20,2)")
    (None, None)
    """
    digits = _decimal_digits(cast)
    if digits is None or digits > _COMPACT_DIGITS or isinstance(value, bool):
        return None
    if not isinstance(value, (int, Decimal)):
        return None
    number = Decimal(value)
    if not number.is_finite() or number != number.to_integral_value() or abs(number) >= 2**63:
        return None
    return int(number)


def _fraction_as_double(value: Scalar, kind: str | None) -> float | None:
    """``value`` as the double it is compared as, when it is a fraction of a DECIMAL of
    at most 15 digits (a column of that type is then compared in doubles), else None.

    Why exact: Spark converts a compact decimal to the nearest double (``BigDecimal.
    doubleValue``: the exact long over an exact power of ten, one rounding), the literal
    is sent as its nearest double, and rounding to nearest keeps order; decimals of at
    most 15 significant digits never round to the same double, so ``<``, ``=``, ``IN``
    and the rest answer as they do on the decimals. Why: a fraction cannot be sent in
    Spark's compact form (see :func:`lit`), and a double comparison costs what a long
    one does.

    >>> _fraction_as_double(Decimal("-0.01"), "decimal(15,2)")
    -0.01
    >>> _fraction_as_double(Decimal("2"), "decimal(15,2)"), _fraction_as_double(0.5, "double")
    (None, None)
    """
    digits = _decimal_digits(kind)
    if digits is None or digits > _DOUBLE_DIGITS or isinstance(value, bool):
        return None
    if not isinstance(value, (int, Decimal)) or not Decimal(value).is_finite():
        return None
    return float(value) if _compact_whole(value, kind or "") is None else None


def _compare(expr: Compare) -> Column:
    """``left op right``; a column against a fraction of its DECIMAL type (at most 15
    digits) in doubles (:func:`_fraction_as_double`)."""
    left, right = expr.left, expr.right
    # the literal is of the column's type: planner.literals types it so
    if isinstance(left, Col) and isinstance(right, Lit):
        as_double = _fraction_as_double(right.value, right.type)
        if as_double is not None:
            return COMPARISONS[expr.op](column(left).cast("double"), F.lit(as_double))
    return COMPARISONS[expr.op](column(left), column(right))


def _in_set(expr: InSet) -> Column:
    """``item IN (values)``; in doubles when a value is a fraction of the item's DECIMAL
    type of at most 15 digits (:func:`_fraction_as_double`: whole values are doubles
    exactly there too)."""
    item = column(expr.item)
    if isinstance(expr.item, Col) and any(
        _fraction_as_double(v, expr.type) is not None for v in expr.values
    ):
        return item.cast("double").isin(*(F.lit(float(v)) for v in expr.values))  # type: ignore[arg-type]
    return item.isin(*(lit(v, expr.type) for v in expr.values))


def _has_text(expr: HasText) -> Column:
    item, text = column(expr.item), F.lit(expr.text)
    if expr.where == "start":
        return item.startswith(text)
    return item.endswith(text) if expr.where == "end" else item.contains(text)


def _line_bytes(expr: LineBytes) -> Column:
    """``octet_length`` less the bytes of the line terminator ending the string: byte
    tests on the UTF-8 value, no decoding (``octet_length`` is the stored size)."""
    item = column(expr.item)
    ends = [(item.endswith(F.lit(end)), F.lit(size)) for end, size in line_ends()]
    cut = F.when(*ends[0])
    for test, size in ends[1:]:
        cut = cut.when(test, size)
    return F.octet_length(item) - cut.otherwise(F.lit(0))


_WIDER_ENDS = (("\u0085", 1), ("\u2028", 2), ("\u2029", 2))
"""The line terminators longer in UTF-8 bytes than in characters, with the difference."""


def _length(expr: Length) -> Column:
    """``length``; with ``ascii_run`` (a run of one ASCII class holding no terminator),
    where that regex matches, the bytes less what a final line terminator has in bytes
    over its one character (``\u0085`` 2 bytes, ``\u2028`` and ``\u2029`` 3): no
    decoding. Where it does not match (or the value is null), ``length`` itself. The
    regex is the one the column's class-run rules test already, so Spark evaluates it
    once per row for all of them (subexpression elimination)."""
    item = column(expr.item)
    if expr.ascii_run is None:
        return F.length(item)
    wider = F.when(item.endswith(F.lit(_WIDER_ENDS[0][0])), F.lit(_WIDER_ENDS[0][1]))
    for end, extra in _WIDER_ENDS[1:]:
        wider = wider.when(item.endswith(F.lit(end)), F.lit(extra))
    by_bytes = F.octet_length(item) - wider.otherwise(F.lit(0))
    return F.when(item.rlike(expr.ascii_run), by_bytes).otherwise(F.length(item))


column.register(Col, lambda e: col(e.name))
column.register(Lit, lambda e: lit(e.value, e.type))
column.register(Compare, _compare)
column.register(And, lambda e: balanced([column(i) for i in e.items], lambda a, b: a & b))
column.register(Or, lambda e: balanced([column(i) for i in e.items], lambda a, b: a | b))
column.register(Coalesce, lambda e: F.coalesce(*(column(i) for i in e.items)))
column.register(Not, lambda e: ~column(e.item))
column.register(IsNull, lambda e: column(e.item).isNull())
column.register(IsNaN, lambda e: F.isnan(column(e.item)))
column.register(InSet, _in_set)
column.register(Matches, lambda e: column(e.item).rlike(e.pattern))
column.register(HasText, _has_text)
column.register(Length, _length)
column.register(LineBytes, _line_bytes)
column.register(Parses, lambda e: column(e.item).try_cast(e.type).isNotNull())
column.register(Sql, lambda e: F.expr(e.text))
require_translations(column, "a Spark translation (emit.columns.column)")


def shared_count(group: Sequence[str], where: Expr | None) -> Column:
    """Per row, how many rows share its ``group`` value (among those where ``where``
    holds: a rule's filter), as a window count."""
    one = F.lit(1) if where is None else F.when(column(where), F.lit(1))
    return F.count(one).over(Window.partitionBy(*(col(c) for c in group)))

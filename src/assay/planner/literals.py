"""Literals in the type of the column they meet (pure: takes the schema as data).

A rule's bound or value is written in YAML or JSON, where ``0.1`` is a number, not a type.
Spark compares a literal with a column in a common type, and the one it picks is not
always exact: a DECIMAL(38,18) column against a double ``0.1`` is compared as doubles
(0.100000000000000001 "equals" 0.1), a FLOAT column against a double 0.1 as doubles too
(``CAST(0.1 AS FLOAT)`` is then "greater" than 0.1), a string column against ``1`` casts
every value to a number (``'x'`` fails the whole plan under ANSI), and a bound beyond the
column's range fails it (``VALUE_NOT_BETWEEN``). Here every literal that meets a column
(or a string length) takes the column's type before planning, so Spark compares exactly:

- **integers and decimals** (fixed scale s): the literal, an exact decimal, is compared
  at scale s without rounding its meaning: for x of scale s and a literal L finer than s,
  ``x > L`` is ``x > floor_s(L)``, ``x < L`` is ``x <= floor_s(L)``, ``x = L`` is never
  true; a literal outside the type's range decides the comparison for every value. A
  literal that fits is cast to the column's type (exact).
- **float and double**: the literal as a value of the column's type (``CAST(0.1 AS
  FLOAT)`` for a FLOAT column), as SQL's ``f = CAST(0.1 AS FLOAT)``; a literal beyond
  FLOAT's range is compared as a double (exact, since every float is a double).
- **strings**: a number or boolean is compared as its text (``1`` is ``'1'``).

Values of ``IN`` lists follow the same rules; a value with no representation in the
column's type is dropped (no value of the column equals it). A comparison decided for
every value keeps SQL's null: it becomes ``x = x`` (true for every value, NaN included,
null for null) or ``x != x`` (false, null for null).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation, localcontext

from assay.ir.expr import Col, Compare, Expr, InSet, Length, Lit, Scalar, rebuild
from assay.ir.metrics import CountMetric
from assay.ir.rules import Check, EqualsCheck, MetricCheck, RowCheck, Rule
from assay.ir.suite import Table
from assay.ir.values import Op

_INTEGRAL = {
    "tinyint": 7,
    "smallint": 15,
    "int": 31,
    "bigint": 63,
}
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)$")
_PRECISION = 400  # digits: a double's exact value has at most ~770, a YAML literal its own
_FLOAT_MAX = Decimal("3.4028234663852886e38")
_MIRROR = {Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE, Op.EQ: Op.EQ, Op.NE: Op.NE}


@dataclasses.dataclass(frozen=True, slots=True)
class _Fixed:
    """An integer or decimal type: its scale and the largest magnitude it holds."""

    name: str
    scale: int
    largest: Decimal

    @property
    def smallest(self) -> Decimal:
        """The most negative value (integers reach one further than their largest)."""
        return -self.largest - (1 if self.scale == 0 else 0)

    def floor(self, number: Decimal) -> Decimal:
        """``number`` rounded down to this type's scale."""
        return number.quantize(Decimal(1).scaleb(-self.scale), rounding="ROUND_FLOOR")

    def holds(self, number: Decimal) -> bool:
        """Whether ``number`` is a value of this type, exactly."""
        return self.floor(number) == number and self.smallest <= number <= self.largest


def _fixed(spark_type: str) -> _Fixed | None:
    """
    >>> _fixed("decimal(5,2)")
    _Fixed(name='decimal(5,2)', scale=2, largest=Decimal('999.99'))
    >>> _fixed("tinyint").largest, _fixed("double")
    (Decimal('127'), None)
    """
    if spark_type in _INTEGRAL:
        return _Fixed(spark_type, 0, Decimal(2 ** _INTEGRAL[spark_type] - 1))
    match = _DECIMAL.match(spark_type)
    if match is None:
        return None
    precision, scale = int(match[1]), int(match[2])
    digits = "9" * (precision - scale) or "0"
    return _Fixed(spark_type, scale, Decimal(digits + ("." + "9" * scale if scale else "")))


def exact(value: Scalar) -> Decimal | None:
    """A literal's exact number (a float by its shortest repr, as written in YAML or
    JSON), or None when it is not a number.

    >>> exact(0.1), exact(3), exact(True), exact(" 2.50 ")
    (Decimal('0.1'), Decimal('3'), None, Decimal('2.50'))
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def typed_table(table: Table, types: Mapping[str, str]) -> Table:
    """``table`` with every literal of its rules in the type of the column it meets;
    ``types`` maps lower-case column names to Spark type strings (as preflight resolves
    names)."""
    with localcontext() as context:
        context.prec = _PRECISION  # exact for every literal against any Spark type
        rules = tuple(_typed_rule(rule, types) for rule in table.rules)
    return table if rules == table.rules else dataclasses.replace(table, rules=rules)


def _typed_rule(rule: Rule, types: Mapping[str, str]) -> Rule:
    check = rule.check

    def typed(expr: Expr) -> Expr:
        return rebuild(expr, lambda node: _typed(node, types))

    new: Check
    if isinstance(check, RowCheck):
        new = dataclasses.replace(
            check, failing=typed(check.failing), summed=tuple(typed(e) for e in check.summed)
        )
    elif isinstance(check, MetricCheck) and isinstance(check.metric, CountMetric):
        metric = dataclasses.replace(check.metric, counted=typed(check.metric.counted))
        new = dataclasses.replace(check, metric=metric)
    elif isinstance(check, EqualsCheck):
        new = _typed_equals(check, types.get(check.metric.column.lower()))
    else:
        return rule
    return rule if new == check else dataclasses.replace(rule, check=new)


def _type_of(expr: Expr, types: Mapping[str, str]) -> str | None:
    if isinstance(expr, Col):
        return types.get(expr.name.lower())
    if isinstance(expr, Length):
        return "int"
    return None


def _typed(node: Expr, types: Mapping[str, str]) -> Expr:
    if isinstance(node, Compare):
        if isinstance(node.right, Lit) and node.right.type is None:
            kind = _type_of(node.left, types)
            return _compare(node.op, node.left, node.right.value, kind) if kind else node
        if isinstance(node.left, Lit) and node.left.type is None:
            kind = _type_of(node.right, types)
            mirrored = _MIRROR[node.op]
            return _compare(mirrored, node.right, node.left.value, kind) if kind else node
        return node
    if isinstance(node, InSet) and node.type is None and node.values:
        kind = _type_of(node.item, types)
        if kind is None:
            return node
        values = _in_type(node.values, kind)
        if values is None:
            return node
        if not values:
            return Compare(Op.NE, node.item, node.item)
        # strings stay plain literals (a cast to varchar(n) could truncate or fail)
        return InSet(node.item, values, None if _is_string(kind) else kind)
    return node


def _compare(op: Op, item: Expr, value: Scalar, kind: str) -> Expr:
    """``item <op> value`` with ``value`` in ``kind``, the type of ``item``."""
    fixed = _fixed(kind)
    number = exact(value)
    if fixed is not None and number is not None and not isinstance(value, str):
        return _fixed_compare(op, item, number, fixed)
    if kind in ("float", "double") and number is not None and not isinstance(value, str):
        if kind == "float" and abs(number) > _FLOAT_MAX:
            return Compare(op, item, Lit(float(number), "double"))
        return Compare(op, item, Lit(float(number), kind))
    if _is_string(kind) and not isinstance(value, str):
        return Compare(op, item, Lit(_text(value)))
    return Compare(op, item, Lit(value))


def _fixed_compare(op: Op, item: Expr, number: Decimal, fixed: _Fixed) -> Expr:
    always, never = Compare(Op.EQ, item, item), Compare(Op.NE, item, item)
    floor = fixed.floor(number)
    if floor != number:
        # between two values of the type: x >= L is x > floor, x <= L is x <= floor
        if op in (Op.EQ, Op.NE):
            return never if op == Op.EQ else always
        op = {Op.GE: Op.GT, Op.LT: Op.LE}.get(op, op)
        number = floor
    if number > fixed.largest:
        return always if op in (Op.LT, Op.LE, Op.NE) else never
    if number < fixed.smallest:
        return always if op in (Op.GT, Op.GE, Op.NE) else never
    value: Scalar = int(number) if fixed.scale == 0 else number
    return Compare(op, item, Lit(value, fixed.name))


def _in_type(values: tuple[Scalar, ...], kind: str) -> tuple[Scalar, ...] | None:
    """``values`` as values of ``kind`` (those it cannot hold dropped), or None when
    ``kind`` is not one this module types."""
    fixed = _fixed(kind)
    out: list[Scalar] = []
    if fixed is not None:
        for v in values:
            number = exact(v)
            if number is None:
                if isinstance(v, (str, bool)):
                    continue  # no number: no value of the column equals it
                return None
            if fixed.holds(number):
                out.append(int(number) if fixed.scale == 0 else fixed.floor(number))
        return tuple(dict.fromkeys(out))
    if kind in ("float", "double"):
        for v in values:
            number = exact(v)
            if number is None:
                if isinstance(v, (str, bool)):
                    continue
                return None
            if kind == "float" and abs(number) > _FLOAT_MAX:
                continue
            out.append(float(number))
        return tuple(dict.fromkeys(out))
    if _is_string(kind):
        return tuple(dict.fromkeys(_text(v) if not isinstance(v, str) else v for v in values))
    return None


def _typed_equals(check: EqualsCheck, kind: str | None) -> EqualsCheck:
    """``fn(column) = value`` with ``value`` in the column's type (never equal when the
    type cannot hold it)."""
    if kind is None or isinstance(check.value, bool):
        return check
    number = exact(check.value)
    fixed = _fixed(kind)
    if fixed is not None and number is not None and not isinstance(check.value, str):
        if not fixed.holds(number):
            return dataclasses.replace(check, cast=kind, representable=False)
        value: Scalar = int(number) if fixed.scale == 0 else number
        return dataclasses.replace(check, value=value, cast=kind)
    if kind in ("float", "double") and number is not None and not isinstance(check.value, str):
        if kind == "float" and abs(number) > _FLOAT_MAX:
            return dataclasses.replace(check, value=float(number), cast="double")
        return dataclasses.replace(check, value=float(number), cast=kind)
    if _is_string(kind) and isinstance(check.value, (int, float, Decimal)):
        return dataclasses.replace(check, value=_text(check.value))
    return check


def _is_string(kind: str) -> bool:
    return kind == "string" or kind.startswith(("varchar(", "char("))


def _text(value: Scalar) -> str:
    """A number, boolean, date or timestamp as Spark casts it to a string.

    >>> _text(True), _text(1), _text(0.5), _text(dt.date(2024, 1, 31))
    ('true', '1', '0.5', '2024-01-31')
    >>> _text(dt.datetime(2024, 1, 31, 12, 30))
    '2024-01-31 12:30:00'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return repr(value) if isinstance(value, float) else str(value)

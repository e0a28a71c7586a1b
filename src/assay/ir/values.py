"""Judgement values: thresholds (`must_be`/`warn` DSL) and error tolerances.

A threshold never becomes a Spark expression: the measure produces a number and
:func:`Threshold.holds` decides on the client. Numbers are ``Decimal`` so bounds
compare exactly (``= 0.3`` means 0.3, not the nearest double).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any, Literal

Unit = Literal["number", "percent", "seconds"]


class Pairs(tuple):  # type: ignore[type-arg]
    """A mapping of a config as immutable plain data: a tuple of ``(key, value)`` pairs
    that still says it was a mapping (a result line shows it as an object)."""

    __slots__ = ()


class Op(Enum):
    """A comparison operator of the threshold DSL."""

    LT = "<"
    LE = "<="
    EQ = "="
    NE = "!="
    GE = ">="
    GT = ">"

    def apply(self, left: Decimal, right: Decimal) -> bool:
        """``left <op> right``."""
        return bool(OPERATORS[self](left, right))


OPERATORS: dict[Op, Callable[[Any, Any], Any]] = {
    Op.LT: operator.lt,
    Op.LE: operator.le,
    Op.EQ: operator.eq,
    Op.NE: operator.ne,
    Op.GE: operator.ge,
    Op.GT: operator.gt,
}
"""Each operator as Python's: a bool of two numbers, a Spark column of two columns
(``emit.columns.COMPARISONS``)."""


def to_decimal(value: int | float | Decimal) -> Decimal | None:
    """A measured value as an exact ``Decimal``; ``None`` for NaN (never satisfies a bound).

    Floats go through ``repr`` so ``0.1 + 0.2`` stays ``0.30000000000000004``.

    >>> to_decimal(3), to_decimal(0.5), to_decimal(float("nan"))
    (Decimal('3'), Decimal('0.5'), None)
    """
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return Decimal("Infinity") if value > 0 else Decimal("-Infinity")
        return Decimal(repr(value))
    return Decimal(value)


@dataclass(frozen=True, slots=True)
class Comparison:
    """``<op> value``, e.g. ``< 5%`` or ``<= 2h`` (durations are stored in seconds).

    >>> Comparison(Op.LT, Decimal(5), "< 5").holds(4)
    True
    """

    op: Op
    value: Decimal
    text: str
    unit: Unit = "number"
    floats: bool = False
    """Compare as doubles (sparquet-cola's thresholds): the bound and the measured value
    are Python floats, so NaN satisfies only ``!=``."""

    def holds(self, measured: int | float | Decimal) -> bool:
        """Whether the measured value satisfies this threshold."""
        if self.floats:
            return bool(self.op.apply(float(measured), float(self.value)))  # type: ignore[arg-type]
        m = to_decimal(measured)
        return m is not None and self.op.apply(m, self.value)


@dataclass(frozen=True, slots=True)
class Between:
    """``between low and high`` (inclusive both ends unless said otherwise); ``negate`` for
    ``not between``.

    >>> Between(Decimal(10), Decimal(20), "between 10 and 20").holds(20)
    True
    >>> Between(Decimal(1), Decimal(2), "not between 1 and 2", negate=True).holds(1.5)
    False
    """

    low: Decimal | None
    high: Decimal | None
    text: str
    negate: bool = False
    low_inclusive: bool = True
    high_inclusive: bool = True
    unit: Unit = "number"
    floats: bool = False
    """Compare as doubles (sparquet-cola's thresholds): NaN is never between two bounds,
    so it satisfies ``not between``."""

    def holds(self, measured: int | float | Decimal) -> bool:
        """Whether the measured value satisfies this threshold."""
        if self.floats:
            value = float(measured)
            low = float(self.low) if self.low is not None else -math.inf
            high = float(self.high) if self.high is not None else math.inf
            return (low <= value <= high) != self.negate
        m = to_decimal(measured)
        if m is None:
            return False
        inside = True
        if self.low is not None:
            inside = m >= self.low if self.low_inclusive else m > self.low
        if inside and self.high is not None:
            inside = m <= self.high if self.high_inclusive else m < self.high
        return inside != self.negate


Threshold = Comparison | Between


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How many failing rows a row-level rule may have (data-validator ``threshold``).

    ``absolute``: at most ``value`` rows; ``fraction``: at most ``value * row_count`` rows
    (``0.25`` and ``25%`` both parse to the fraction 0.25). ``dv_percent`` / ``dv_number``:
    data-validator's own arithmetic on the double ``value`` (``N%`` / a plain number),
    truncated to whole rows (:func:`_dv_allowed`). ``gx_mostly``: Great Expectations'
    ``mostly``, ``(rows - failed) / rows >= value`` in doubles (:func:`_mostly_allowed`).

    >>> Tolerance("fraction", Decimal("0.25"), "25%").allowed(100)
    Decimal('25.00')
    >>> Tolerance("absolute", Decimal(3), "3").passes(3, 10)
    True
    """

    kind: Literal["absolute", "fraction", "dv_percent", "dv_number", "gx_mostly"]
    value: Decimal
    text: str

    def allowed(self, row_count: int) -> Decimal:
        """The largest failing-row count that still passes."""
        if self.kind == "absolute":
            return self.value
        if self.kind in ("dv_percent", "dv_number"):
            return Decimal(_dv_allowed(self.kind == "dv_percent", float(self.value), row_count))
        if self.kind == "gx_mostly":
            return Decimal(_mostly_allowed(float(self.value), row_count))
        return self.value * row_count

    def passes(self, failed_count: int, row_count: int) -> bool:
        """Whether ``failed_count`` failing rows are within the tolerance."""
        return Decimal(failed_count) <= self.allowed(row_count)


ZERO_TOLERANCE = Tolerance("absolute", Decimal(0), "0")


_LONG_MAX = 2**63 - 1


def _mostly_allowed(mostly: float, rows: int) -> int:
    """The most failing rows of ``rows`` Great Expectations' ``_mostly_success`` passes:
    ``float(rows - failed) / float(rows) >= mostly``, in doubles (no row: none allowed,
    and none fails).

    >>> _mostly_allowed(0.9, 10), _mostly_allowed(0.8999, 10), _mostly_allowed(1.0, 5)
    (1, 1, 0)
    """
    if rows <= 0:
        return 0
    guess = max(0, min(rows, int((1.0 - mostly) * rows)))
    for failed in range(min(rows, guess + 2), max(-1, guess - 3), -1):
        if float(rows - failed) / float(rows) >= mostly:
            return failed
    return 0


def _dv_allowed(percent: bool, threshold: float, row_count: int) -> int:
    """data-validator's ``RowBased.calcErrorCountThreshold``, in its double arithmetic:
    ``N%`` allows ``(N * (rows / 100.0)).toLong`` rows, a number below 1 ``(t *
    rows).toLong``, any other number ``t.toLong`` (``toLong`` truncates, saturating).

    >>> _dv_allowed(True, 10.0, 99), _dv_allowed(False, 0.57, 100), _dv_allowed(True, 57.0, 100)
    (9, 56, 57)
    """
    if percent:
        allowed = threshold * (row_count / 100.0)
    elif threshold < 1.0:
        allowed = threshold * row_count
    else:
        allowed = threshold
    if math.isnan(allowed):
        return 0
    if math.isinf(allowed):
        return _LONG_MAX
    return min(int(allowed), _LONG_MAX)

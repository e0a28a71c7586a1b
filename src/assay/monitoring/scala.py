"""The few JVM behaviours the port of Deequ's strategies relies on: IEEE division, Scala's
clamped ``slice`` and Java's ``Double.toString`` (the numbers in Deequ's detail texts)."""

from __future__ import annotations

import math
from decimal import Decimal


def div(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as the JVM computes it: a nonzero value over zero is an
    infinity (signed by both operands), zero or NaN over zero is NaN.

    Example:
        >>> div(1.0, 0.0), div(-1.0, 0.0), div(1.0, -0.0), math.isnan(div(0.0, 0.0))
        (inf, -inf, -inf, True)
    """
    if denominator != 0.0:
        return numerator / denominator
    if numerator == 0.0 or math.isnan(numerator):
        return math.nan
    return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)


def scala_slice(length: int, start: int, end: int) -> tuple[int, int]:
    """The bounds Scala's ``slice(start, end)`` keeps of a sequence of ``length`` values:
    both clamped to ``[0, length]``, empty when ``end <= start``.

    Example:
        >>> scala_slice(5, 3, 2**31 - 1), scala_slice(5, -2, 2), scala_slice(5, 7, 9)
        ((3, 5), (0, 2), (5, 5))
    """
    lo = min(max(start, 0), length)
    return lo, max(lo, min(end, length))


def scala_str(value: float) -> str:
    """Java's ``Double.toString``: the shortest digits, positional between 1e-3 and 1e7,
    ``d.dddE±n`` outside, ``Infinity``, ``NaN``.

    Example:
        >>> [scala_str(x) for x in (2.0, -1.7976931348623157e308, 1e-05, 12345678.0, -math.inf)]
        ['2.0', '-1.7976931348623157E308', '1.0E-5', '1.2345678E7', '-Infinity']
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0 or 1e-3 <= abs(value) < 1e7:
        return repr(value)  # Python's shortest form is positional in this range too
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    mantissa = text[0] + "." + (text[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{power}"

"""Numeric tolerances of a dataset comparison (pure): how ``|s - t| <= absolute + relative *
|t|`` is evaluated for the two sides' Spark types, exactly for integers and decimals and in
doubles for floats (docs/compare.md); ``emit.compare`` writes the bound as Spark columns."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from assay.ir.compare import NumericTolerance

# A native tolerance admits a pair of numbers when |s - t| <= absolute + relative * |t|
# (docs/compare.md). Integers and decimals compare exactly, whatever their magnitude:
# in one decimal type when every term fits in 38 digits (``DecimalBound``), else as exact
# integer arithmetic on 16-digit limbs of the unscaled values (``LimbBound``). Floats and
# doubles compare in IEEE doubles between finite values (``FloatingBound``).

Arithmetic = Literal["decimal", "float", "double"]

_INTEGRAL_PRECISION = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}
_DECIMAL_TYPE = re.compile(r"decimal\((\d+),\s*(\d+)\)")
MAX_PRECISION = 38
"""Spark's widest decimal: an operation whose result type would be wider is rounded to
fewer fractional digits (``decimal(38,18) - decimal(38,18)`` is ``decimal(38,17)``)."""
LIMB_DIGITS = 16
LIMB = 10**LIMB_DIGITS


def exact_shape(spark_type: str) -> tuple[int, int] | None:
    """The ``(precision, scale)`` of an exact number type: a decimal's own, an integer's
    the decimal holding all its values; ``None`` for floats and doubles.

    >>> exact_shape("decimal(38,18)"), exact_shape("bigint"), exact_shape("double")
    ((38, 18), (20, 0), None)
    """
    if spark_type in _INTEGRAL_PRECISION:
        return _INTEGRAL_PRECISION[spark_type], 0
    m = _DECIMAL_TYPE.fullmatch(spark_type)
    return (int(m.group(1)), int(m.group(2))) if m else None


def arithmetic(source_type: str, target_type: str) -> Arithmetic:
    """Where a tolerance between two numeric types is evaluated: exactly when both are
    integers or decimals; else in doubles, the tolerance being a float when both sides
    are floats.

    >>> arithmetic("int", "decimal(12,2)"), arithmetic("float", "float")
    ('decimal', 'float')
    >>> arithmetic("float", "double"), arithmetic("decimal(38,18)", "double")
    ('double', 'double')
    """
    if exact_shape(source_type) and exact_shape(target_type):
        return "decimal"
    return "float" if source_type == target_type == "float" else "double"


@dataclass(frozen=True, slots=True)
class FloatingBound:
    """``abs(s - t) <= absolute + relative * abs(t)`` evaluated in IEEE doubles, for finite
    ``s`` and ``t`` only (a NaN or an infinity is within no tolerance of another value).
    The tolerance is written in ``literal_type``: with two float sides it is the float
    nearest to it (``CAST('0.1' AS FLOAT)``), widened to a double; else the double nearest."""

    absolute: Decimal
    relative: Decimal
    literal_type: Literal["float", "double"]


@dataclass(frozen=True, slots=True)
class DecimalBound:
    """``abs(s - t) <= absolute + relative * abs(t)`` exactly, in one decimal type: both
    sides and both terms are cast to ``decimal(precision, scale)``, which holds them, and
    the difference and the sum (one digit more) are at most 38 digits, so Spark rounds
    nothing. ``relative * abs(t)`` is computed as ``decimal(relative_type) *
    decimal(target)`` (its exact type fits too)."""

    precision: int
    scale: int
    absolute: Decimal
    relative: Decimal
    relative_type: tuple[int, int]
    target: tuple[int, int]


Term = tuple[int, Literal["x", "y"], int]
"""``(coefficient, value, limb)``: a coefficient limb times limb ``limb`` of X or Y."""


@dataclass(frozen=True, slots=True)
class LinearForm:
    """Whether ``kx * X + ky * Y + k0 >= 0``, for the unscaled magnitudes
    ``X = |s| * 10^s1`` and ``Y = |t| * 10^s2`` (integers below ``10^precision``).

    In base ``LIMB``: ``limbs[j]`` (least significant first) lists the products of a
    coefficient limb and a value limb landing in limb ``j``, and a constant limb; each
    such sum is below ``10^33`` in magnitude, so nothing carries. The sign of
    ``sum(limbs[j] * LIMB^j)`` is read from the top limb down: ``h = clamp(h * LIMB +
    limbs[j])`` with ``clamp`` bounding ``h`` to ``[-clamp, clamp]``. Once ``|h|``
    reaches ``clamp`` the lower limbs together are smaller than ``h``'s weight, so the
    sign is the total's, and it stays clamped; until then ``h`` is exact. Every value
    stays below ``10^38``: exact in ``decimal(38,0)``."""

    kx: int
    ky: int
    k0: int
    limbs: tuple[tuple[tuple[Term, ...], int], ...]
    clamp: int


@dataclass(frozen=True, slots=True)
class LimbBound:
    """``|s - t| <= a + r * |t|`` exactly for any two exact types, with ``x = |s|``,
    ``y = |t|``: when ``s`` and ``t`` have the same sign (or one is 0), ``|s - t| = |x - y|``
    and the bound holds when ``x <= (1 + r) * y + a`` and ``y <= x + r * y + a``; of
    opposite signs ``|s - t| = x + y``, within when ``x + y <= a + r * y``. No difference is
    computed, so nothing overflows; each inequality is a :class:`LinearForm`.
    ``source`` / ``target``: the exact types; ``value_limbs``: limbs of X and of Y."""

    source: tuple[int, int]
    target: tuple[int, int]
    value_limbs: tuple[int, int]
    same_sign: tuple[LinearForm, ...]
    opposite_sign: tuple[LinearForm, ...]


ToleranceBound = FloatingBound | DecimalBound | LimbBound


def exact_difference(source_type: str, target_type: str) -> tuple[int, int] | None:
    """The ``(precision, scale)`` both sides are cast to for ``max_abs_diff`` in exact
    decimals: their difference then takes one more digit, which must fit in 38; ``None``
    when it does not (or a side is a float or double): the difference is taken in doubles.

    >>> exact_difference("decimal(12,2)", "int"), exact_difference("double", "int")
    ((12, 2), None)
    >>> exact_difference("decimal(38,18)", "decimal(38,18)") is None  # 39 digits
    True
    """
    shapes = exact_shape(source_type), exact_shape(target_type)
    if shapes[0] is None or shapes[1] is None:
        return None
    whole = max(p - s for p, s in shapes)  # type: ignore[misc]
    scale = max(s for _, s in shapes)  # type: ignore[misc]
    return (whole + scale, scale) if whole + scale + 1 <= MAX_PRECISION else None


def _decimal_scale(value: Fraction) -> int:
    """The fractional digits of a decimal value held as a fraction."""
    d, twos, fives = value.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    assert d == 1, value
    return max(twos, fives)


def _as_decimal(value: Fraction) -> Decimal:
    """A decimal fraction as a ``Decimal``, exactly (a string: no context rounding)."""
    scale = _decimal_scale(value)
    unscaled = value * 10**scale
    return Decimal(f"{unscaled.numerator}E-{scale}")


def _digits(n: int) -> int:
    """Decimal digits of the integer ``n`` (0 has none)."""
    return len(str(abs(n))) if n else 0


def _signed_limbs(k: int) -> list[int]:
    """``k`` in base ``LIMB``, least significant first, every limb of ``k``'s sign."""
    sign, m, found = (-1 if k < 0 else 1), abs(k), []
    while m:
        found.append(sign * (m % LIMB))
        m //= LIMB
    return found


def linear_form(kx: int, ky: int, k0: int, x_limbs: int, y_limbs: int) -> LinearForm:
    """The limb layout of ``kx * X + ky * Y + k0 >= 0`` (X, Y of that many limbs).

    >>> f = linear_form(-1, 3, 10**20, 2, 2)
    >>> [len(terms) for terms, _ in f.limbs], [k for _, k in f.limbs], f.clamp
    ([2, 2], [0, 10000], 6)
    """
    terms: dict[int, list[Term]] = {}
    for coefficient, value, n in ((kx, "x", x_limbs), (ky, "y", y_limbs)):
        for m, c in enumerate(_signed_limbs(coefficient)):
            if c:
                for i in range(n):
                    terms.setdefault(m + i, []).append((c, value, i))  # type: ignore[arg-type]
    constant = dict(enumerate(_signed_limbs(k0)))
    top = max([*terms, *constant], default=-1) + 1
    limbs = tuple((tuple(terms.get(j, ())), constant.get(j, 0)) for j in range(top))
    widest = max(
        (sum(abs(c) for c, _, _ in ts) * (LIMB - 1) + abs(k) for ts, k in limbs), default=0
    )
    kappa = max(1, -(-widest // (LIMB - 1)))
    clamp = kappa + 1
    assert clamp * LIMB + widest < 10**MAX_PRECISION, (kx, ky, k0)
    return LinearForm(kx, ky, k0, limbs, clamp)


def tolerance_bound(
    source_type: str, target_type: str, tolerance: NumericTolerance, limbs: bool = False
) -> ToleranceBound:
    """How ``|s - t| <= absolute + relative * |t|`` is evaluated for these types.

    The constants are first reduced without changing any verdict: an absolute tolerance
    above every possible ``|s - t|`` to that bound, a relative one admitting every pair
    with ``t != 0`` to the least that does, and the absolute one rounded down to the
    scale of ``|s - t| - relative * |t|`` (which it is compared with). ``limbs``: the limb
    formulation even where one decimal type would do (the tests compare the two).

    >>> b = tolerance_bound("decimal(12,2)", "decimal(12,2)", NumericTolerance(Decimal("0.005")))
    >>> b.precision, b.scale, b.absolute  # 0.005 admits what 0 does between cents
    (12, 2, Decimal('0'))
    >>> b = tolerance_bound("decimal(38,18)", "decimal(38,18)", NumericTolerance(Decimal(1)))
    >>> type(b).__name__, b.value_limbs, len(b.same_sign), len(b.opposite_sign)
    ('LimbBound', (3, 3), 2, 1)
    """
    arith = arithmetic(source_type, target_type)
    if arith != "decimal":
        literal: Literal["float", "double"] = "float" if arith == "float" else "double"
        return FloatingBound(tolerance.absolute, tolerance.relative, literal)
    (p1, s1), (p2, s2) = exact_shape(source_type), exact_shape(target_type)  # type: ignore[misc]
    mx, my = 10 ** (p1 - s1), 10 ** (p2 - s2)  # |s| < mx, |t| < my
    a, r = Fraction(tolerance.absolute), Fraction(tolerance.relative)
    a = min(a, Fraction(mx + my))  # |s - t| < mx + my: a larger a admits the same pairs
    # r * |t| >= |s| + |t| for every t != 0 (|t| >= 10^-s2) once r >= mx * 10^s2 + 1
    r = min(r, Fraction(mx * 10**s2 + 1))
    scale = max(s1, s2, s2 + _decimal_scale(r))
    # |s - t| - r * |t| is a multiple of 10^-scale: comparing it with a or with a rounded
    # down to that scale is the same
    a = Fraction(math.floor(a * 10**scale), 10**scale)
    r_scale = _decimal_scale(r)
    r_precision = max(_digits(int(r * 10**r_scale)), r_scale, 1)
    whole = max(p1 - s1, p2 - s2, _digits(math.floor(a)), _digits(math.floor(r * my)))
    fits = whole + scale + 1 <= MAX_PRECISION and (r == 0 or r_precision + p2 + 1 <= MAX_PRECISION)
    if fits and not limbs:
        return DecimalBound(
            whole + scale, scale, _as_decimal(a), _as_decimal(r), (r_precision, r_scale), (p2, s2)
        )
    nx, ny = -(-(p1 + 1) // LIMB_DIGITS), -(-(p2 + 1) // LIMB_DIGITS)  # + a leading "0."
    ux, uy, k0 = 10 ** (scale - s1), Fraction(10 ** (scale - s2)), a * 10**scale

    def form(sign_x: int, ry: Fraction) -> LinearForm:
        ky = ry * uy
        assert ky.denominator == 1 and k0.denominator == 1
        return linear_form(sign_x * ux, int(ky), int(k0), nx, ny)

    same = [form(-1, 1 + r)]  # x <= (1 + r) * y + a
    if r < 1:  # y <= x + r * y + a (always, when r >= 1)
        same.append(form(1, r - 1))
    opposite = (form(-1, r - 1),)  # x + y <= a + r * y
    return LimbBound((p1, s1), (p2, s2), (nx, ny), tuple(same), opposite)

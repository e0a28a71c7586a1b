"""A comparison's numeric tolerance as a Spark column: ``|s - t| <= absolute + relative *
|t|`` as :mod:`assay.comparison.tolerance` formulates it for the two sides' types
(docs/compare.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F

from assay.comparison.tolerance import (
    LIMB,
    LIMB_DIGITS,
    DecimalBound,
    FloatingBound,
    LimbBound,
    LinearForm,
    ToleranceBound,
)
from assay.emit.columns import balanced

if TYPE_CHECKING:
    from pyspark.sql import Column


def within(s: Column, t: Column, bound: ToleranceBound) -> Column:
    """``|s - t| <= absolute + relative * |t|`` as ``bound`` formulates it for the two
    types: exact for integers and decimals (no difference that can overflow, no rounded
    result type), IEEE doubles between finite floats or doubles. Null when a side is."""
    if isinstance(bound, FloatingBound):
        return _within_floating(s, t, bound)
    if isinstance(bound, DecimalBound):
        return _within_decimal(s, t, bound)
    return _within_limbs(s, t, bound)


def _within_floating(s: Column, t: Column, bound: FloatingBound) -> Column:
    ds, dt_ = s.cast("double"), t.cast("double")
    infinity = F.lit("Infinity").cast("double")
    # Spark orders NaN above every number, so only finite values are below infinity.
    finite = (F.abs(ds) < infinity) & (F.abs(dt_) < infinity)

    def tolerance(value: Decimal) -> Column:  # the float or double nearest the decimal
        return F.lit(format(value, "f")).cast(bound.literal_type).cast("double")

    terms = []
    if bound.absolute:
        terms.append(tolerance(bound.absolute))
    if bound.relative:
        terms.append(tolerance(bound.relative) * F.abs(dt_))
    limit = terms[0] + terms[1] if len(terms) == 2 else terms[0]
    return finite & (F.abs(ds - dt_) <= limit)


def decimal_type(precision: int, scale: int) -> str:
    """The Spark decimal type of that precision and scale."""
    return f"decimal({precision},{scale})"


def _decimal_lit(value: Decimal | int, spark_type: str) -> Column:
    return F.lit(format(Decimal(value), "f")).cast(spark_type)


def _within_decimal(s: Column, t: Column, bound: DecimalBound) -> Column:
    """Both differences, ``s - t`` and ``t - s``, against the bound: Spark's ``abs`` and
    unary minus of a decimal round it to 34 significant digits (``abs(-1234...567BD)``
    with 37 digits ends in ``000``), its binary subtraction is exact."""
    common = decimal_type(bound.precision, bound.scale)
    wider = decimal_type(bound.precision + 1, bound.scale)
    sc, tc = s.cast(common), t.cast(common)
    terms = []
    if bound.absolute:
        terms.append(_decimal_lit(bound.absolute, common))
    if bound.relative:
        relative = _decimal_lit(bound.relative, decimal_type(*bound.relative_type))
        terms.append((relative * _magnitude(t, bound.target)).cast(common))
    if not terms:
        limit = _decimal_lit(0, wider)
    else:
        limit = (terms[0] + terms[1] if len(terms) == 2 else terms[0]).cast(wider)
    return ((sc - tc).cast(wider) <= limit) & ((tc - sc).cast(wider) <= limit)


def _magnitude(value: Column, shape: tuple[int, int]) -> Column:
    """``|value|`` in ``decimal(shape)`` (at most 37 digits: ``0 - value`` is exact)."""
    spark_type = decimal_type(*shape)
    typed = value.cast(spark_type)
    negated = (_decimal_lit(0, spark_type) - typed).cast(spark_type)
    return F.when(typed < _decimal_lit(0, spark_type), negated).otherwise(typed)


_LIMB_TYPE = decimal_type(LIMB_DIGITS, 0)
_WIDE = decimal_type(38, 0)


def _value_limbs(value: Column, shape: tuple[int, int], n: int) -> list[Column]:
    """The limbs (least significant first) of ``|value| * 10^scale``, from its exact text:
    Spark writes a decimal with all its fractional digits and no exponent, so without its
    sign and point it is the unscaled integer, left-padded to ``n`` limbs. (Not ``abs``:
    Spark rounds a negative decimal's magnitude to 34 digits.)"""
    text = value.cast(decimal_type(*shape)).cast("string")
    digits = F.lpad(F.translate(text, "-.", ""), n * LIMB_DIGITS, "0")
    return [
        F.substring(digits, (n - 1 - i) * LIMB_DIGITS + 1, LIMB_DIGITS).cast(_LIMB_TYPE)
        for i in range(n)
    ]


def _nonnegative(form: LinearForm, values: Mapping[str, list[Column]]) -> Column:
    if not form.limbs:
        return F.lit(True)
    clamp = _decimal_lit(form.clamp, _WIDE)
    floor = _decimal_lit(-form.clamp, _WIDE)
    base = _decimal_lit(LIMB, decimal_type(LIMB_DIGITS + 1, 0))

    def limb(terms: Sequence[tuple[int, str, int]], constant: int) -> Column:
        parts = [_decimal_lit(c, _LIMB_TYPE) * values[v][i] for c, v, i in terms]
        if constant or not parts:
            parts.append(_decimal_lit(constant, _LIMB_TYPE))
        return balanced(parts, lambda a, b: a + b).cast(_WIDE)

    head: Column | None = None
    for terms, constant in reversed(form.limbs):
        value = limb(terms, constant) if head is None else (head * base + limb(terms, constant))
        head = F.greatest(F.least(value.cast(_WIDE), clamp), floor)
    assert head is not None
    return head >= _decimal_lit(0, _WIDE)


def _within_limbs(s: Column, t: Column, bound: LimbBound) -> Column:
    nx, ny = bound.value_limbs
    values = {"x": _value_limbs(s, bound.source, nx), "y": _value_limbs(t, bound.target, ny)}
    signs = []
    for value, shape in ((s, bound.source), (t, bound.target)):
        spark_type = decimal_type(*shape)
        signs.append((value.cast(spark_type), _decimal_lit(0, spark_type)))
    (st, s0), (tt, t0) = signs
    same_sign = ((st >= s0) & (tt >= t0)) | ((st <= s0) & (tt <= t0))
    same = balanced([_nonnegative(f, values) for f in bound.same_sign], lambda a, b: a & b)
    opposite = balanced([_nonnegative(f, values) for f in bound.opposite_sign], lambda a, b: a & b)
    # greatest() and least() skip nulls: a null side must not reach the limbs
    return F.when(s.isNull() | t.isNull(), F.lit(None).cast("boolean")).otherwise(
        F.when(same_sign, same).otherwise(opposite)
    )

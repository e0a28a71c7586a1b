"""Lark trees -> IR values: one small method per grammar rule or terminal.

Semantic errors (bounds in the wrong order, mixed units, a negative tolerance) are raised
here as :class:`~assay.errors.ThresholdSyntaxError`; lark wraps them in ``VisitError`` and
:mod:`assay.grammar.parser` unwraps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, NamedTuple

from lark import Token, Transformer, v_args

from assay.errors import ThresholdSyntaxError
from assay.ir.origin import Origin
from assay.ir.values import Between, Comparison, Op, Threshold, Tolerance, Unit

SECONDS_PER_UNIT: dict[str, int] = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
"""Duration suffixes of the threshold DSL, in seconds."""

_OPS: dict[str, Op] = {
    "LT": Op.LT,
    "LE": Op.LE,
    "EQ": Op.EQ,  # both "=" and "=="
    "NE": Op.NE,
    "GE": Op.GE,
    "GT": Op.GT,
}

_KIND: dict[str, str] = {"number": "a number", "percent": "a percentage", "seconds": "a duration"}
"""How a unit is named when the two bounds of a range disagree."""

_HUNDRED = Decimal(100)


@dataclass(frozen=True, slots=True)
class VarRef:
    """A variable reference inside a template: ``$name`` or (``braced``) ``${name}``.

    >>> str(VarRef("run_date", braced=True)), str(VarRef("env", braced=False))
    ('${run_date}', '$env')
    """

    name: str
    braced: bool

    def __str__(self) -> str:
        return f"${{{self.name}}}" if self.braced else f"${self.name}"


class Quantity(NamedTuple):
    """A number with its unit, as written in a threshold (durations already in seconds)."""

    value: Decimal
    unit: Unit
    written: str


def _seconds(number: Decimal, suffix: str) -> Decimal:
    """``number`` ``suffix``-units in seconds, without a spurious fraction (``1.5h`` -> 5400)."""
    seconds = number * SECONDS_PER_UNIT[suffix]
    return seconds.quantize(Decimal(1)) if seconds == seconds.to_integral_value() else seconds


@v_args(inline=True)
class ThresholdTransformer(Transformer[Token, Threshold]):
    """Builds a :data:`~assay.ir.values.Threshold` from a ``threshold`` tree."""

    def __init__(self, text: str, origin: Origin) -> None:
        super().__init__()
        self.text = text
        self.origin = origin

    def comparison(self, op: Op, q: Quantity) -> Comparison:
        return Comparison(op, q.value, self.text, q.unit)

    def equals(self, q: Quantity) -> Comparison:
        return Comparison(Op.EQ, q.value, self.text, q.unit)

    def between(self, low: Quantity, high: Quantity) -> Between:
        return self._range(low, high, negate=False)

    def not_between(self, low: Quantity, high: Quantity) -> Between:
        return self._range(low, high, negate=True)

    def op(self, token: Token) -> Op:
        return _OPS[token.type]

    def number(self, n: Token) -> Quantity:
        return Quantity(Decimal(n), "number", str(n))

    def percent(self, n: Token) -> Quantity:
        return Quantity(Decimal(n), "percent", f"{n}%")

    def duration(self, n: Token, suffix: Token) -> Quantity:
        return Quantity(_seconds(Decimal(n), str(suffix)), "seconds", f"{n}{suffix}")

    def _range(self, low: Quantity, high: Quantity, negate: bool) -> Between:
        if low.unit != high.unit:
            raise self._error(
                f"mixes units: {low.written} is {_KIND[low.unit]}, {high.written} is "
                f"{_KIND[high.unit]}",
                hint="write both bounds the same way, e.g. between 1% and 5% or between 1h and 2d",
            )
        if low.value > high.value:
            raise self._error(
                f"has its lower bound {low.written} above its upper bound {high.written}",
                hint=f"write between {high.written} and {low.written}",
            )
        return Between(low.value, high.value, self.text, negate=negate, unit=low.unit)

    def _error(self, problem: str, hint: str) -> ThresholdSyntaxError:
        return ThresholdSyntaxError(
            f'invalid threshold "{self.text}": the range {problem}', origin=self.origin, hint=hint
        )


@v_args(inline=True)
class ToleranceTransformer(Transformer[Token, Tolerance]):
    """Builds a :class:`~assay.ir.values.Tolerance` from a ``tolerance`` tree."""

    def __init__(self, text: str, origin: Origin) -> None:
        super().__init__()
        self.text = text
        self.origin = origin

    def count(self, n: Token) -> Tolerance:
        value = self._non_negative(Decimal(n))
        # 0 is ZERO_TOLERANCE, 1 is one row
        kind: Literal["fraction", "absolute"] = "fraction" if 0 < value < 1 else "absolute"
        return Tolerance(kind, value, self.text)

    def share(self, n: Token) -> Tolerance:
        value = self._non_negative(Decimal(n))
        if value > _HUNDRED:
            raise ThresholdSyntaxError(
                f'invalid tolerance "{self.text}": a percentage cannot exceed 100%',
                origin=self.origin,
                hint="100% already allows every row to fail",
            )
        return Tolerance("fraction", value / _HUNDRED, self.text)

    def _non_negative(self, value: Decimal) -> Decimal:
        if value < 0:
            raise ThresholdSyntaxError(
                f'invalid tolerance "{self.text}": it cannot be negative',
                origin=self.origin,
                hint="0 means no failing row is allowed",
            )
        return value


@v_args(inline=True)
class TemplateTransformer(Transformer[Token, tuple[str | VarRef, ...]]):
    """Builds the parts of a template: literal strings (adjacent ones merged) and VarRefs."""

    def start(self, *parts: str | VarRef) -> tuple[str | VarRef, ...]:
        return _merge_literals(parts)

    def braced(self, name: Token) -> VarRef:
        return VarRef(str(name), braced=True)

    def BRACED(self, token: Token) -> VarRef:  # noqa: N802 - the syntax without escapes
        return VarRef(token[2:-1], braced=True)

    def VAR(self, token: Token) -> VarRef:  # noqa: N802 - lark calls terminal callbacks by name
        return VarRef(token[1:], braced=False)

    def TEXT(self, token: Token) -> str:  # noqa: N802
        return str(token)

    def ESCAPE(self, _token: Token) -> str:  # noqa: N802
        return "$"

    def DOLLAR(self, _token: Token) -> str:  # noqa: N802
        return "$"


def _merge_literals(parts: tuple[str | VarRef, ...]) -> tuple[str | VarRef, ...]:
    """Join runs of adjacent literal strings (``$$`` and lone ``$`` become separate tokens)."""
    merged: list[str | VarRef] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return tuple(merged)

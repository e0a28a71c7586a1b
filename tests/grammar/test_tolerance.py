"""Row-level tolerances (data-validator ``threshold``): counts, fractions and percentages."""

from __future__ import annotations

from decimal import Decimal

import pytest

from assay.errors import ThresholdSyntaxError
from assay.grammar import parse_tolerance
from assay.ir.origin import Origin
from assay.ir.values import Tolerance

ORIGIN = Origin("checks.yaml", "tables[0].rules[0].threshold", line=12)
D = Decimal


def caret_column(message: str) -> int:
    """The column the caret of a syntax error points at, relative to the shown text."""
    lines = message.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    return lines[caret].index("^") - 4


ACCEPTED = [
    pytest.param(1000, Tolerance("absolute", D(1000), "1000"), id="int-count"),
    pytest.param("1000", Tolerance("absolute", D(1000), "1000"), id="str-count"),
    pytest.param(0, Tolerance("absolute", D(0), "0"), id="zero-is-absolute"),
    pytest.param("0", Tolerance("absolute", D(0), "0"), id="str-zero"),
    pytest.param(1, Tolerance("absolute", D(1), "1"), id="one-is-absolute"),
    pytest.param("1.0", Tolerance("absolute", D("1.0"), "1.0"), id="one-point-zero-is-absolute"),
    pytest.param("1.5", Tolerance("absolute", D("1.5"), "1.5"), id="fractional-count"),
    pytest.param(0.25, Tolerance("fraction", D("0.25"), "0.25"), id="float-fraction"),
    pytest.param("0.25", Tolerance("fraction", D("0.25"), "0.25"), id="str-fraction"),
    pytest.param(0.999, Tolerance("fraction", D("0.999"), "0.999"), id="just-below-one"),
    pytest.param(1e-05, Tolerance("fraction", D("0.00001"), "0.00001"), id="float-exponent"),
    pytest.param("33%", Tolerance("fraction", D("0.33"), "33%"), id="percent"),
    pytest.param(" 33 % ", Tolerance("fraction", D("0.33"), "33 %"), id="percent-spaced"),
    pytest.param("12.5%", Tolerance("fraction", D("0.125"), "12.5%"), id="percent-decimal"),
    pytest.param("0%", Tolerance("fraction", D(0), "0%"), id="zero-percent"),
    pytest.param("100%", Tolerance("fraction", D(1), "100%"), id="hundred-percent"),
    pytest.param("1%", Tolerance("fraction", D("0.01"), "1%"), id="one-percent"),
]


@pytest.mark.parametrize(("value", "expected"), ACCEPTED)
def test_accepted(value: str | int | float, expected: Tolerance) -> None:
    assert parse_tolerance(value, ORIGIN) == expected


@pytest.mark.parametrize(
    ("value", "failed", "rows", "passes"),
    [
        pytest.param("1.5", 1, 100, True, id="fractional-count-allows-one-row"),
        pytest.param("1.5", 2, 100, False, id="fractional-count-not-two-rows"),
        pytest.param("25%", 25, 100, True, id="percent-of-rows"),
        pytest.param(0.25, 26, 100, False, id="fraction-of-rows"),
        pytest.param(0, 0, 100, True, id="zero-tolerance"),
        pytest.param(0, 1, 100, False, id="zero-tolerance-fails"),
    ],
)
def test_passes(value: str | float, failed: int, rows: int, passes: bool) -> None:
    assert parse_tolerance(value, ORIGIN).passes(failed, rows) is passes


REJECTED_SYNTAX = [
    ("abc", 0, "expected a number"),
    ("", 0, "expected a number"),
    ("5h", 1, "expected one of: %, end of input"),
    ("5%%", 2, "expected end of input"),
    ("1 2", 2, "expected one of: %, end of input"),
    ("> 5", 0, "expected a number"),
    ("--1", 0, "expected a number"),
    ("1e3", 1, "expected one of: %, end of input"),
    ("%5", 0, "expected a number"),
]


@pytest.mark.parametrize(
    ("value", "column", "expected"), REJECTED_SYNTAX, ids=[repr(v) for v, _, _ in REJECTED_SYNTAX]
)
def test_rejected_with_caret(value: str, column: int, expected: str) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_tolerance(value, ORIGIN)
    message = info.value.message
    assert message.splitlines()[0] == f'invalid tolerance "{value}"'
    assert caret_column(message) == column
    assert message.splitlines()[-1] == expected
    assert info.value.origin is ORIGIN
    assert info.value.hint and "percentage" in info.value.hint


REJECTED_MEANING = [
    pytest.param("101%", "cannot exceed 100%", id="percent-above-100"),
    pytest.param("100.5%", "cannot exceed 100%", id="percent-just-above-100"),
    pytest.param(-1, "cannot be negative", id="negative-int"),
    pytest.param("-0.5", "cannot be negative", id="negative-fraction"),
    pytest.param("-5%", "cannot be negative", id="negative-percent"),
    pytest.param(True, "expected a number or a string", id="bool"),
    pytest.param(float("nan"), "expected a number or a string", id="nan"),
    pytest.param(None, "expected a number or a string", id="none"),
]


@pytest.mark.parametrize(("value", "fragment"), REJECTED_MEANING)
def test_rejected_values(value: object, fragment: str) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_tolerance(value, ORIGIN)  # type: ignore[arg-type]
    assert type(info.value) is ThresholdSyntaxError  # not lark's VisitError
    assert fragment in info.value.message
    assert info.value.message.startswith("invalid tolerance ")
    assert info.value.origin is ORIGIN

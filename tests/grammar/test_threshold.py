"""The threshold DSL of ``must_be``/``warn``: accepted forms, their IR, and rejected forms."""

from __future__ import annotations

import logging
import subprocess
import sys
from decimal import Decimal

import pytest
from lark import Lark
from lark.exceptions import LexError

from assay.errors import ThresholdSyntaxError
from assay.grammar import parse_threshold
from assay.grammar.parser import _THRESHOLD, _threshold_lark
from assay.ir.origin import Origin
from assay.ir.values import Between, Comparison, Op

ORIGIN = Origin("checks.yaml", "tables[0].rules[2].must_be", line=7)
D = Decimal


def caret_column(message: str) -> int:
    """The column the caret of a syntax error points at, relative to the shown text."""
    lines = message.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    return lines[caret].index("^") - 4


def cmp(op: Op, value: str | int, text: str, unit: str = "number") -> Comparison:
    return Comparison(op, D(value), text, unit)  # type: ignore[arg-type]


def rng(low: str | int, high: str | int, text: str, negate: bool = False, unit: str = "number"):
    return Between(D(low), D(high), text, negate=negate, unit=unit)  # type: ignore[arg-type]


ACCEPTED = [
    ("> 0", cmp(Op.GT, 0, "> 0")),
    (">= 100", cmp(Op.GE, 100, ">= 100")),
    ("< 5", cmp(Op.LT, 5, "< 5")),
    ("<= 10", cmp(Op.LE, 10, "<= 10")),
    ("= 0", cmp(Op.EQ, 0, "= 0")),
    ("== 0", cmp(Op.EQ, 0, "== 0")),
    ("!= 0", cmp(Op.NE, 0, "!= 0")),
    (">0", cmp(Op.GT, 0, ">0")),
    ("<=10", cmp(Op.LE, 10, "<=10")),
    ("==3", cmp(Op.EQ, 3, "==3")),
    ("0", cmp(Op.EQ, 0, "0")),
    ("-3", cmp(Op.EQ, -3, "-3")),
    ("> -1.5", cmp(Op.GT, "-1.5", "> -1.5")),
    ("<= 0.5", cmp(Op.LE, "0.5", "<= 0.5")),
    ("= 0.30", cmp(Op.EQ, "0.30", "= 0.30")),
    ("  > 0  ", cmp(Op.GT, 0, "> 0")),
    ("\t>=\t1\n", cmp(Op.GE, 1, ">=\t1")),
    ("< 5%", cmp(Op.LT, 5, "< 5%", "percent")),
    ("< 5 %", cmp(Op.LT, 5, "< 5 %", "percent")),
    ("<= 0.5%", cmp(Op.LE, "0.5", "<= 0.5%", "percent")),
    ("5%", cmp(Op.EQ, 5, "5%", "percent")),
    ("< 1d", cmp(Op.LT, 86400, "< 1d", "seconds")),
    ("<= 2h", cmp(Op.LE, 7200, "<= 2h", "seconds")),
    ("> 30m", cmp(Op.GT, 1800, "> 30m", "seconds")),
    ("< 45s", cmp(Op.LT, 45, "< 45s", "seconds")),
    ("<= 1w", cmp(Op.LE, 604800, "<= 1w", "seconds")),
    ("<= 1.5h", cmp(Op.LE, 5400, "<= 1.5h", "seconds")),
    ("< 0.5s", cmp(Op.LT, "0.5", "< 0.5s", "seconds")),
    ("< 2 h", cmp(Op.LT, 7200, "< 2 h", "seconds")),
    ("between 10 and 20", rng(10, 20, "between 10 and 20")),
    ("BETWEEN 10 AND 20", rng(10, 20, "BETWEEN 10 AND 20")),
    ("Between -5 And 5", rng(-5, 5, "Between -5 And 5")),
    ("between 5 and 5", rng(5, 5, "between 5 and 5")),
    ("between 0.1 and 0.25", rng("0.1", "0.25", "between 0.1 and 0.25")),
    ("not between 1 and 2", rng(1, 2, "not between 1 and 2", negate=True)),
    ("NOT  between 1 and 2", rng(1, 2, "NOT  between 1 and 2", negate=True)),
    ("between 1% and 5%", rng(1, 5, "between 1% and 5%", unit="percent")),
    ("between 1h and 2d", rng(3600, 172800, "between 1h and 2d", unit="seconds")),
    ("between 90m and 2h", rng(5400, 7200, "between 90m and 2h", unit="seconds")),
    ("not between 1s and 1m", rng(1, 60, "not between 1s and 1m", negate=True, unit="seconds")),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED, ids=[t for t, _ in ACCEPTED])
def test_accepted(text: str, expected: Comparison | Between) -> None:
    assert parse_threshold(text, ORIGIN) == expected


NUMERIC_INPUT = [
    pytest.param(0, cmp(Op.EQ, 0, "0"), id="int-0"),
    pytest.param(100, cmp(Op.EQ, 100, "100"), id="int-100"),
    pytest.param(-2, cmp(Op.EQ, -2, "-2"), id="int-negative"),
    pytest.param(0.5, cmp(Op.EQ, "0.5", "0.5"), id="float-0.5"),
    pytest.param(0.1, cmp(Op.EQ, "0.1", "0.1"), id="float-0.1-exact"),
    pytest.param(1e-05, cmp(Op.EQ, "0.00001", "0.00001"), id="float-exponent-written-out"),
    pytest.param(1e20, cmp(Op.EQ, 10**20, "100000000000000000000"), id="float-large"),
]


@pytest.mark.parametrize(("value", "expected"), NUMERIC_INPUT)
def test_yaml_numbers_are_bare_numbers(value: int | float, expected: Comparison) -> None:
    assert parse_threshold(value, ORIGIN) == expected


def test_numbers_are_exact_decimals() -> None:
    threshold = parse_threshold("= 0.3", ORIGIN)
    assert isinstance(threshold.value, Decimal)
    assert str(threshold.value) == "0.3"
    assert threshold.holds(0.3)
    assert not threshold.holds(0.1 + 0.2)


@pytest.mark.parametrize(
    ("text", "measured", "holds"),
    [
        pytest.param("< 5%", 4.99, True, id="percent-number-is-the-number"),
        pytest.param("< 5%", 5, False, id="percent-strict"),
        pytest.param("<= 2h", 7200, True, id="duration-in-seconds"),
        pytest.param("between 10 and 20", 10, True, id="between-inclusive-low"),
        pytest.param("between 10 and 20", 20, True, id="between-inclusive-high"),
        pytest.param("between 10 and 20", 20.5, False, id="between-outside"),
        pytest.param("not between 1 and 2", 2, False, id="not-between-inclusive"),
        pytest.param("not between 1 and 2", 3, True, id="not-between-outside"),
        pytest.param("0", 0, True, id="bare-number-is-equality"),
        pytest.param("!= 0", 0, False, id="not-equal"),
    ],
)
def test_holds(text: str, measured: float, holds: bool) -> None:
    assert parse_threshold(text, ORIGIN).holds(measured) is holds


# (text, caret column in the shown text, fragment of the "expected" line)
REJECTED_SYNTAX = [
    ("betwen 10 and 20", 0, "expected one of: <, <=, =, !=, >=, >, between, not between, a number"),
    ("", 0, "a number"),
    ("between 10", 10, "expected and"),
    ("between 10 and", 14, "expected a number"),
    ("< ", 1, "expected a number"),  # the text is stripped first: "<"
    ("<> 5", 1, "expected a number"),
    ("> five", 2, "expected a number"),
    ("5 %%", 3, "expected end of input"),
    ("> 5 foo", 4, "expected one of: %, a duration unit (s, m, h, d, w), end of input"),
    (">= 1x", 4, "a duration unit"),
    ("not 5", 4, "expected between"),
    ("between a and b", 8, "expected a number"),
    ("1 2", 2, "end of input"),
    ("=> 3", 1, "expected a number"),
    ("> 5%h", 4, "expected end of input"),
    ("--1", 0, "a number"),
    ("- 1", 0, "a number"),
    ("+-5", 0, "a number"),
    ("+ 5", 0, "a number"),
    (".5", 0, "a number"),
    ("5.", 1, "end of input"),
    ("1e3", 1, "end of input"),
    ("1,000", 1, "end of input"),
    ("> 5 seconds", 5, "expected end of input"),
    ("> 5 and 6", 4, "expected end of input"),
    ("between 1 foo 2", 10, "expected one of: %, a duration unit (s, m, h, d, w), and"),
    ("between 1 and 2 and 3", 16, "expected end of input"),
    ("< 5H", 3, "a duration unit"),
    ("≥ 5", 0, ">="),
]


@pytest.mark.parametrize(
    ("text", "column", "expected"), REJECTED_SYNTAX, ids=[repr(t) for t, _, _ in REJECTED_SYNTAX]
)
def test_rejected_with_caret(text: str, column: int, expected: str) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_threshold(text, ORIGIN)
    message = info.value.message
    assert message.splitlines()[0] == f'invalid threshold "{text.strip()}"'
    assert message.splitlines()[1] == f"    {text.strip()}"
    assert caret_column(message) == column
    assert expected in message.splitlines()[-1]


def test_error_matches_documented_layout() -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_threshold("betwen 10 and 20", ORIGIN)
    assert info.value.message == (
        'invalid threshold "betwen 10 and 20"\n'
        "    betwen 10 and 20\n"
        "    ^\n"
        "expected one of: <, <=, =, !=, >=, >, between, not between, a number"
    )
    assert info.value.origin is ORIGIN
    assert info.value.code == "SYNTAX"
    assert info.value.hint and "between 10 and 20" in info.value.hint
    assert str(info.value).startswith("checks.yaml:7 tables[0].rules[2].must_be: invalid threshold")


REJECTED_MEANING = [
    pytest.param("between 20 and 10", ["20", "10", "lower bound"], id="bounds-reversed"),
    pytest.param("not between 2 and 1", ["2", "1", "lower bound"], id="not-between-reversed"),
    pytest.param("between 1d and 2h", ["1d", "2h", "lower bound"], id="durations-reversed"),
    pytest.param(
        "between 1% and 2h", ["1%", "percentage", "2h", "duration"], id="percent-vs-duration"
    ),
    pytest.param("between 1h and 5%", ["1h", "5%"], id="duration-vs-percent"),
    pytest.param("between 0 and 5%", ["0", "a number", "5%"], id="number-vs-percent"),
    pytest.param("between 1 and 2d", ["1", "2d", "duration"], id="number-vs-duration"),
]


@pytest.mark.parametrize(("text", "fragments"), REJECTED_MEANING)
def test_rejected_ranges(text: str, fragments: list[str]) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:  # not lark's VisitError
        parse_threshold(text, ORIGIN)
    assert type(info.value) is ThresholdSyntaxError
    assert info.value.message.startswith(f'invalid threshold "{text}": the range ')
    for fragment in fragments:
        assert fragment in info.value.message
    assert info.value.origin is ORIGIN


def test_reversed_bounds_hint_swaps_them() -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_threshold("between 20 and 10", ORIGIN)
    assert info.value.hint == "write between 10 and 20"


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(True, id="bool"),
        pytest.param(None, id="none"),
        pytest.param(float("nan"), id="nan"),
        pytest.param(float("inf"), id="inf"),
        pytest.param([1, 2], id="list"),
    ],
)
def test_rejects_non_numeric_scalars(value: object) -> None:
    with pytest.raises(ThresholdSyntaxError, match="expected a number or a string"):
        parse_threshold(value, ORIGIN)  # type: ignore[arg-type]


def test_every_terminal_has_words_for_errors() -> None:
    names = {t.name for t in _threshold_lark().terminals} - {"WS"}
    assert names <= set(_THRESHOLD.words)


def test_parser_is_built_once() -> None:
    assert _threshold_lark() is _threshold_lark()


def test_grammar_has_no_lalr_conflicts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lark")
    Lark.open_from_package(
        "assay.grammar",
        "threshold.lark",
        parser="lalr",
        debug=True,
        start=["threshold", "tolerance"],
    )
    assert not [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]


def test_conflict_check_is_not_vacuous(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lark")
    Lark('e: e "-" e | "1"', start="e", parser="lalr", debug=True)  # the classic ambiguity
    assert any("Shift/Reduce" in r.getMessage() for r in caplog.records)


def test_grammar_builds_in_strict_mode() -> None:
    # strict mode refuses terminals whose regexes can match the same text (it needs
    # interegular, which the test extra installs: without it this fails, never skips)
    Lark.open_from_package(
        "assay.grammar",
        "threshold.lark",
        parser="lalr",
        strict=True,
        start=["threshold", "tolerance"],
    )


def test_strict_check_is_not_vacuous() -> None:
    with pytest.raises(LexError, match="Collision"):
        Lark("start: A | B\nA: /a+/\nB: /ab?/", parser="lalr", strict=True)


def test_import_assay_does_not_import_lark() -> None:
    code = "import sys, assay; assert 'lark' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)

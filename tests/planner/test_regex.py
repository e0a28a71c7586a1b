"""Literal regexes become plain string tests; everything else keeps RLIKE."""

from __future__ import annotations

import pytest

from assay.ir import Col, HasText, InSet, IsNull, Matches, Not, Or
from assay.ir.expr import Coalesce, Lit
from assay.planner.regex import cheaper, literal_form, literal_text

TERMINATORS = ("\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029")
A = Col("a")


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("abc", "abc"), ("a-b_c d@e", "a-b_c d@e"), (r"a\.b", "a.b"), (r"\$5", "$5"), ("", ""),
     ("é", "é")],
)  # fmt: skip
def test_literal_text(pattern, text):
    assert literal_text(pattern) == text


@pytest.mark.parametrize(
    "pattern", ["a.b", "a+", "[ab]", "a|b", "(ab)", r"\d", r"\Qa\E", "a{2}", "(?i)a", "a\\"]
)
def test_not_literal(pattern):
    assert literal_text(pattern) is None
    assert literal_form(A, pattern) is None


def test_forms():
    assert literal_form(A, "abc") == HasText(A, "abc")
    assert literal_form(A, "^abc") == HasText(A, "abc", "start")
    assert literal_form(A, "^abc$") == InSet(A, ("abc", *(f"abc{t}" for t in TERMINATORS)))
    end = literal_form(A, "abc$")
    assert isinstance(end, Or)
    assert end.items == tuple(HasText(A, "abc" + t, "end") for t in ("", *TERMINATORS))
    # an escaped dollar is text, not the end anchor
    assert literal_form(A, r"abc\$") == HasText(A, "abc$")


def test_cheaper_rewrites_inside_rule_predicates_only_where_literal():
    failing = Coalesce((Or((IsNull(A), Not(Matches(A, "^ab")))), Lit(False)))
    assert cheaper(failing) == Coalesce(
        (Or((IsNull(A), Not(HasText(A, "ab", "start")))), Lit(False))
    )
    kept = Not(Matches(A, "^[a-z]+$"))
    assert cheaper(kept) == kept

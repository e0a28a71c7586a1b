"""Column validity for ``invalid_count``/``invalid_percent`` and missing values for
``missing_*`` (SODA-style options), as row expressions.

A value is **missing** when it is null or one of ``missing_values``. A value is
**invalid** when it is not missing and fails at least one configured validity test
(every test must hold for a value to be valid, as in SODA). See docs/rules.md for why
this reading was chosen over the literal "fails every configured rule".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects.formats import FORMATS, format_valid
from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    all_of,
    any_of,
    is_true,
)
from assay.ir.rules import TypeFamily
from assay.ir.values import Op

VALIDITY_KEYS = frozenset(
    {
        "valid_values",
        "invalid_values",
        "valid_format",
        "valid_regex",
        "valid_min",
        "valid_max",
        "valid_min_length",
        "valid_max_length",
        "valid_length",
    }
)


@dataclass(frozen=True, slots=True)
class Validity:
    """The invalid-row predicate of a column and the column kinds its tests need."""

    invalid: Expr
    families: tuple[TypeFamily, ...]


@dataclass(frozen=True, slots=True)
class Reading:
    """How a dialect reads the validity options: the explicit parameter of the one
    builder, :func:`validity`, for what the dialects genuinely read differently (assay's
    own reading, :data:`NATIVE`; sparquet-cola's, ``sparquet_rules.SPARQUET_VALIDITY``).
    ``valid_values`` and ``invalid_values`` are read alike by both."""

    text: Callable[[str], Expr]
    """What the string tests (``valid_format``, ``valid_regex``, the lengths) read, from
    the column's name: the column itself, or the column cast to a string."""
    text_family: TypeFamily | None
    """The column kind those tests need (None when they read a cast, which any column has)."""
    valid_format: Callable[[Node, str], Expr]
    """The test of ``valid_format`` (its node, the column's name)."""
    regex_wins: bool
    """Whether ``valid_regex`` replaces ``valid_format`` when both are given, rather than
    both having to hold."""
    in_order: bool
    """Whether ``valid_min`` > ``valid_max``, or ``valid_min_length`` > ``valid_max_length``,
    is refused (bounds of different kinds too), rather than read as written."""
    lengths: tuple[str, ...]
    """The length options in the order their tests are written."""
    invalid: Callable[[Node, str, Expr], Expr]
    """The invalid predicate from the rule, the column's name and the test that every
    validity option holds: where nulls and missing values come in."""
    hint: str | None
    """The hint of the error for a rule with no validity option."""


def missing(rule: Node, name: str) -> Expr:
    """True for a missing value: null, or one of ``missing_values``."""
    col = Col(name)
    extra = rule.get("missing_values")
    if extra is None:
        return IsNull(col)
    values = p.scalar_values(extra, "a list of values counted as missing")
    return is_true(any_of(IsNull(col), InSet(col, values)))


def validity(rule: Node, name: str, reading: Reading) -> Validity:
    """The validity options of ``rule`` for column ``name`` (at least one is required),
    read as ``reading`` says.

    Raises:
        ConfigError: no option, an unknown format, bounds out of order (``in_order``).
    """
    if all(rule.get(k) is None for k in VALIDITY_KEYS):
        raise rule.error(
            f"{rule.require('type').value} needs at least one validity option: "
            + ", ".join(sorted(VALIDITY_KEYS)),
            hint=reading.hint,
        )
    col = Col(name)
    valid: list[Expr] = []
    families: list[TypeFamily] = []
    node = rule.get("valid_values")
    if node is not None:
        valid.append(InSet(col, p.scalar_values(node, "a list of valid values")))
    node = rule.get("invalid_values")
    if node is not None:
        valid.append(Not(InSet(col, p.scalar_values(node, "a list of invalid values"))))
    patterns = _patterns(rule, name, reading)
    bounds = _bounds(rule, col, reading.in_order)
    lengths = _lengths(rule, reading.text(name), reading)
    for tests, family in (*patterns, *bounds, *lengths):
        valid += tests
        if family is not None:
            families.append(family)
    invalid = reading.invalid(rule, name, all_of(*valid))
    return Validity(invalid, tuple(dict.fromkeys(families)))


Tests = tuple[tuple[list[Expr], TypeFamily | None], ...]
"""Tests of some validity options, each with the column kind it needs (None: any)."""


def _patterns(rule: Node, name: str, reading: Reading) -> Tests:
    fmt, regex = rule.get("valid_format"), rule.get("valid_regex")
    found: list[tuple[list[Expr], TypeFamily | None]] = []
    if fmt is not None and not (reading.regex_wins and regex is not None):
        found.append(([reading.valid_format(fmt, name)], reading.text_family))
    if regex is not None:
        test = Matches(reading.text(name), regex.as_str("a regular expression"))
        found.append(([test], reading.text_family))
    return tuple(found)


def _bounds(rule: Node, col: Col, in_order: bool) -> Tests:
    low_node, high_node = rule.get("valid_min"), rule.get("valid_max")
    low = p.bound(low_node) if low_node is not None else None
    high = p.bound(high_node) if high_node is not None else None
    if in_order and low is not None and high is not None:
        p.ordered(low, high, rule)
    found: list[tuple[list[Expr], TypeFamily | None]] = []
    for op, bound in ((Op.GE, low), (Op.LE, high)):
        if bound is not None:
            found.append(([Compare(op, col, Lit(bound))], p.bound_family(bound)))
    return tuple(found)


_LENGTH_OPS = {"valid_min_length": Op.GE, "valid_max_length": Op.LE, "valid_length": Op.EQ}


def _lengths(rule: Node, text: Expr, reading: Reading) -> Tests:
    low, high = _length(rule, "valid_min_length"), _length(rule, "valid_max_length")
    if reading.in_order and low is not None and high is not None and low > high:
        raise rule.error(f"valid_min_length ({low}) is greater than valid_max_length ({high})")
    given = {"valid_min_length": low, "valid_max_length": high}
    given["valid_length"] = _length(rule, "valid_length")
    tests: list[Expr] = [
        Compare(_LENGTH_OPS[key], Length(text), Lit(value))
        for key in reading.lengths
        if (value := given[key]) is not None
    ]
    return ((tests, reading.text_family),) if tests else ()


def _length(rule: Node, key: str) -> int | None:
    node = rule.get(key)
    return node.as_int("a length (an integer)", minimum=0) if node is not None else None


def _format_name(node: Node) -> str:
    name = node.as_str("a format name such as 'email'").strip().lower()
    if name not in FORMATS:
        raise node.error(unknown_message("format", name, FORMATS))
    return name


NATIVE = Reading(
    text=Col,
    text_family="string",
    valid_format=lambda node, name: format_valid(name, _format_name(node)),
    regex_wins=False,
    in_order=True,
    lengths=("valid_length", "valid_min_length", "valid_max_length"),
    # Every test is non-null for a non-null value, so NOT(all valid) is exact there.
    invalid=lambda rule, name, valid: all_of(
        Not(IsNull(Col(name))), Not(missing(rule, name)), Not(valid)
    ),
    hint=None,
)
"""assay's own reading: the string tests need a string column, ``valid_format`` and
``valid_regex`` must both hold, bounds and lengths in order."""

"""Column validity for ``invalid_count``/``invalid_percent`` and missing values for
``missing_*`` (SODA-style options), as row expressions.

A value is **missing** when it is null or one of ``missing_values``. A value is
**invalid** when it is not missing and fails at least one configured validity test
(every test must hold for a value to be valid, as in SODA). See docs/rules.md for why
this reading was chosen over the literal "fails every configured rule".
"""

from __future__ import annotations

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


def missing(rule: Node, name: str) -> Expr:
    """True for a missing value: null, or one of ``missing_values``."""
    col = Col(name)
    extra = rule.get("missing_values")
    if extra is None:
        return IsNull(col)
    values = p.scalar_values(extra, "a list of values counted as missing")
    return is_true(any_of(IsNull(col), InSet(col, values)))


def validity(rule: Node, name: str) -> Validity:
    """The validity options of ``rule`` for column ``name`` (at least one is required).

    Raises:
        ConfigError: no option, an unknown format, bounds out of order.
    """
    if all(rule.get(k) is None for k in VALIDITY_KEYS):
        raise rule.error(
            f"{rule.require('type').value} needs at least one validity option: "
            + ", ".join(sorted(VALIDITY_KEYS))
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
    node = rule.get("valid_format")
    if node is not None:
        valid.append(format_valid(name, _format_name(node)))
        families.append("string")
    node = rule.get("valid_regex")
    if node is not None:
        valid.append(Matches(col, node.as_str("a regular expression")))
        families.append("string")
    bounds = _bounds(rule, col)
    if bounds is not None:
        valid += bounds[0]
        families.append(bounds[1])
    lengths = _lengths(rule, col)
    if lengths:
        valid += lengths
        families.append("string")
    # Every test is non-null for a non-null value, so NOT(all valid) is exact there.
    invalid = all_of(Not(IsNull(col)), Not(missing(rule, name)), Not(all_of(*valid)))
    return Validity(invalid, tuple(dict.fromkeys(families)))


def _format_name(node: Node) -> str:
    name = node.as_str("a format name such as 'email'").strip().lower()
    if name not in FORMATS:
        raise node.error(unknown_message("format", name, FORMATS))
    return name


def _bounds(rule: Node, col: Col) -> tuple[list[Expr], TypeFamily] | None:
    low_node, high_node = rule.get("valid_min"), rule.get("valid_max")
    if low_node is None and high_node is None:
        return None
    low = p.bound(low_node) if low_node is not None else None
    high = p.bound(high_node) if high_node is not None else None
    if low is not None and high is not None:
        p.ordered(low, high, rule)
    tests: list[Expr] = []
    if low is not None:
        tests.append(Compare(Op.GE, col, Lit(low)))
    if high is not None:
        tests.append(Compare(Op.LE, col, Lit(high)))
    return tests, p.bound_family(low if low is not None else high)  # type: ignore[arg-type]


def _lengths(rule: Node, col: Col) -> list[Expr]:
    what = "a length (an integer)"
    exact_node = rule.get("valid_length")
    low_node, high_node = rule.get("valid_min_length"), rule.get("valid_max_length")
    low = low_node.as_int(what, minimum=0) if low_node is not None else None
    high = high_node.as_int(what, minimum=0) if high_node is not None else None
    if low is not None and high is not None and low > high:
        raise rule.error(f"valid_min_length ({low}) is greater than valid_max_length ({high})")
    length = Length(col)
    tests: list[Expr] = []
    if exact_node is not None:
        tests.append(Compare(Op.EQ, length, Lit(exact_node.as_int(what, minimum=0))))
    if low is not None:
        tests.append(Compare(Op.GE, length, Lit(low)))
    if high is not None:
        tests.append(Compare(Op.LE, length, Lit(high)))
    return tests

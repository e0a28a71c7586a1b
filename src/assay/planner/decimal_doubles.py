"""Folded SQL conditions comparing DECIMAL arithmetic with a literal, decided in doubles
where doubles are certain and computed as written where they are not (pure).

A folded SQL rule's condition is its own text (:mod:`assay.planner.sqlfold`), and Spark
computes ``l_extendedprice / l_quantity > 2100`` or ``l_extendedprice * (1 - l_discount)
<= 0`` in ``BigDecimal``: every product and quotient of two DECIMAL values allocates one
per row (TPC-H SF1: about 40% of the CPU of the 100-rule benchmark's scan branch of those
columns). The same arithmetic in doubles costs what a long comparison costs but rounds;
so the condition becomes ``CASE WHEN <the doubles are certain> THEN <their verdict> ELSE
(<the condition as written>) END``: a row whose doubles land within a bound of their
rounding of the literal (and a null, and a divisor of zero) is computed as written, by
Spark, with its value and its error.

Why the verdict is the condition's wherever it is taken. Every column is DECIMAL and
every operation's DECIMAL result fits Spark's 38 digits without the precision loss Spark
applies past them (checked here by Spark's typing rules, with an integer literal as
wide as Spark may make it), so ``+``, ``-`` and ``*`` are exact in Spark and a quotient
``N / D`` is the exact one rounded at its scale ``s`` (at least 6): within ``10^-s`` of
it. In doubles, each column's value is within 2 ulps of the decimal (a long's conversion
and one division by a power of ten), each operation rounds once, so the value computed
for an expression of ``k`` nodes is within about ``(k + 2) * 2^-53`` times ``M`` of the
exact one, where ``M`` is the same expression over the values' absolute values (minus as
plus). The bound taken is ``1e-12 * M`` (over 9,000 ulps; expressions of at most
:data:`MAX_NODES` nodes), plus ``2 * 10^-6 * |D|`` for a quotient's rounding; where the
difference between the two sides exceeds it, its sign is the exact difference's, so the
comparison answers as Spark's would. A divisor counts as certain only when its doubles
are farther from 0 than its own bound (the exact divisor is not 0: Spark's division by
zero, an error under ANSI mode and null without, stays Spark's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

MAX_NODES = 64
"""The largest expression rewritten (its bound assumes far fewer roundings than 9,000)."""
_MAX_PRECISION = 38
_RELATIVE = "1e-12"
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)$")
_NUMBER = re.compile(r"([0-9]+)(?:\.([0-9]+))?")
_FLIPPED: dict[type, type] = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE}
_SIGNS: dict[type, str] = {
    exp.GT: ">", exp.GTE: ">", exp.LT: "<", exp.LTE: "<", exp.EQ: "=", exp.NEQ: "<>"
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Term:
    """An arithmetic expression: its value in doubles (SQL text), the same expression
    over absolute values (``M``), its DECIMAL type in Spark, whether it reads a column,
    and its nodes."""

    value: str
    magnitude: str
    precision: int
    scale: int
    reads: bool
    nodes: int


def in_doubles(condition: str, types: Mapping[str, str] | None) -> str | None:
    """The condition decided in doubles where they are certain (see the module
    docstring), or None when it is not one comparison of DECIMAL arithmetic (``+``,
    ``-``, ``*``, one ``/`` at the top) over DECIMAL columns (``types``: lower-case names)
    with a number literal.

    >>> text = in_doubles("a / b > 2100", {"a": "decimal(15,2)", "b": "decimal(15,2)"})
    >>> text.startswith("CASE WHEN CAST(`b` AS DOUBLE) <> 0 AND abs(CAST(`b` AS DOUBLE)) >")
    True
    >>> text.endswith("ELSE (a / b > 2100) END")
    True
    >>> in_doubles("a / b > 2100", {"a": "double", "b": "decimal(15,2)"}) is None
    True
    >>> in_doubles("a > 2100", {"a": "decimal(15,2)"}) is None  # no arithmetic: left as is
    True
    """
    if not types:
        return None
    try:
        tree = sqlglot.parse_one(condition, read="spark")
    except SqlglotError:
        return None
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if type(tree) not in _SIGNS:
        return None
    kind, left, right = type(tree), tree.this, tree.expression
    if _literal(right) is None:
        left, right = right, left
        kind = _FLIPPED.get(kind, kind)
    bound = _literal(right)
    if bound is None:
        return None
    top = _unwrapped(left)
    divided = isinstance(top, exp.Div)
    parts = (top.this, top.expression) if divided else (top,)
    found = [_term(p, types) for p in parts]
    terms = [t for t in found if t is not None and t.reads]
    if len(terms) != len(found) or sum(t.nodes for t in terms) > MAX_NODES:
        return None
    if not divided and not (isinstance(top, (exp.Add, exp.Sub, exp.Mul))):
        return None  # a column alone: compared by Spark as a long already
    return _rewritten(condition, kind, terms, bound, divided)


def _rewritten(
    condition: str, kind: type, terms: list[_Term], bound: _Term, divided: bool
) -> str | None:
    """The CASE form, or None when Spark's typing of it would lose precision."""
    numerator = terms[0]
    if divided:
        denominator = terms[1]
        scale = max(6, numerator.scale + denominator.precision + 1)
        precision = numerator.precision - numerator.scale + denominator.scale + scale
        value = (precision, scale)
    else:
        value = (numerator.precision, numerator.scale)
    if value[0] > _MAX_PRECISION or _wider(value, (bound.precision, bound.scale)) > _MAX_PRECISION:
        return None
    if not divided:
        difference = f"({numerator.value} - {bound.value})"
        error = f"{_RELATIVE} * ({numerator.magnitude} + {bound.magnitude})"
        certain = f"abs{difference} > {error}"
        above = f"{difference} > 0"
    else:
        d = terms[1]
        difference = f"({numerator.value} - {bound.value} * {d.value})"
        # the quotient's rounding: at its scale, at least 6 whatever Spark makes of a
        # literal in the divisor
        error = (f"{_RELATIVE} * ({numerator.magnitude} + {bound.magnitude} * {d.magnitude})"
                 f" + 2.000001e-6 * abs({d.value})")  # fmt: skip
        certain = f"{d.value} <> 0 AND abs({d.value}) > {_RELATIVE} * {d.magnitude} AND " + (
            f"abs{difference} > {error}"
        )
        above = f"({difference} > 0) = ({d.value} > 0)"
    verdict = {">": above, "<": f"NOT ({above})", "=": "false", "<>": "true"}[_SIGNS[kind]]
    return f"CASE WHEN {certain} THEN {verdict} ELSE ({condition}) END"


def _wider(a: tuple[int, int], b: tuple[int, int]) -> int:
    """The precision of the DECIMAL Spark compares two types in."""
    return max(a[0] - a[1], b[0] - b[1]) + max(a[1], b[1])


def _unwrapped(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _literal(node: exp.Expression) -> _Term | None:
    """A number literal (digits, a point, digits; or its negation) as a term; an integer
    as wide as Spark may type it (``INT``: 10 digits, ``BIGINT``: 20), a decimal as
    Spark types it (its digits)."""
    node = _unwrapped(node)
    negative = isinstance(node, exp.Neg)
    if negative:
        node = _unwrapped(node.this)
    if not isinstance(node, exp.Literal) or node.is_string:
        return None
    found = _NUMBER.fullmatch(node.this)
    if found is None:
        return None
    whole, fraction = found.group(1), found.group(2) or ""
    digits = len(whole.lstrip("0")) + len(fraction)
    if fraction:
        precision, scale = max(digits, len(fraction), 1), len(fraction)
    else:
        precision, scale = (10 if int(whole) < 2**31 else 20), 0
        if int(whole) >= 2**63:
            return None
    text = f"{'-' if negative else ''}{whole}{'.' + fraction if fraction else ''}D"
    return _Term(f"({text})", f"abs({text})", max(precision, scale), scale, False, 1)


def _term(node: exp.Expression, types: Mapping[str, str]) -> _Term | None:
    """An arithmetic expression of DECIMAL columns and number literals, or None."""
    node = _unwrapped(node)
    if isinstance(node, exp.Column):
        if node.table or not isinstance(node.this, exp.Identifier):
            return None
        found = _DECIMAL.match(types.get(node.name.lower(), "").replace(" ", ""))
        if found is None:
            return None
        name = "`" + node.name.replace("`", "``") + "`"
        value = f"CAST({name} AS DOUBLE)"
        return _Term(value, f"abs({value})", int(found[1]), int(found[2]), True, 1)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        left, right = _term(node.this, types), _term(node.expression, types)
        if left is None or right is None or not (left.reads or right.reads):
            return None
        if isinstance(node, exp.Mul):
            precision, scale = left.precision + right.precision + 1, left.scale + right.scale
            value = f"({left.value} * {right.value})"
            magnitude = f"({left.magnitude} * {right.magnitude})"
        else:
            scale = max(left.scale, right.scale)
            precision = max(left.precision - left.scale, right.precision - right.scale) + scale + 1
            op = "+" if isinstance(node, exp.Add) else "-"
            value = f"({left.value} {op} {right.value})"
            magnitude = f"({left.magnitude} + {right.magnitude})"
        if precision > _MAX_PRECISION:
            return None
        return _Term(value, magnitude, precision, scale, True, left.nodes + right.nodes + 1)
    return _literal(node)

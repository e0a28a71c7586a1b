"""Reading the kwargs of a Great Expectations expectation as GX reads them: the column,
bounds with their strictness, ``mostly``, ``row_condition`` (docs/dialects.md, "Great
Expectations suites")."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

from assay.config.node import Node
from assay.ir.expr import And, Col, Compare, Expr, IsNull, Lit, Not, Scalar, Sql, any_of
from assay.ir.values import Between, Op, Tolerance, to_decimal

IGNORED = frozenset({"result_format", "catch_exceptions", "include_config", "meta"})
"""kwargs that shape only GX's output (or its exception handling): read and ignored."""
CONDITION = frozenset({"row_condition", "condition_parser"})
MOSTLY = frozenset({"mostly"})


@dataclass(frozen=True, slots=True)
class Bounds:
    """``min_value``/``max_value`` (either may be absent) with ``strict_min``/``strict_max``."""

    low: Scalar | None
    high: Scalar | None
    strict_low: bool = False
    strict_high: bool = False

    def text(self) -> str:
        low = "" if self.low is None else f"{'>' if self.strict_low else '>='} {self.low}"
        high = "" if self.high is None else f"{'<' if self.strict_high else '<='} {self.high}"
        return " and ".join(t for t in (low, high) if t)

    def outside(self, item: Expr) -> Expr:
        """True for a (non-null) value outside the bounds."""
        parts: list[Expr] = []
        if self.low is not None:
            parts.append(Compare(Op.LE if self.strict_low else Op.LT, item, Lit(self.low)))
        if self.high is not None:
            parts.append(Compare(Op.GE if self.strict_high else Op.GT, item, Lit(self.high)))
        return any_of(*parts)

    def threshold(self) -> Between:
        """The bounds as a metric's threshold (numbers only)."""
        low = to_decimal(self.low) if isinstance(self.low, (int, float)) else None
        high = to_decimal(self.high) if isinstance(self.high, (int, float)) else None
        return Between(
            low,
            high,
            self.text(),
            low_inclusive=not self.strict_low,
            high_inclusive=not self.strict_high,
        )


def column(kwargs: Node, key: str = "column") -> str:
    node = kwargs.require(key)
    return node.as_str("a column name")


def columns(kwargs: Node, key: str) -> tuple[str, ...]:
    items = kwargs.require(key).as_list("a list of column names", non_empty=True)
    return tuple(dict.fromkeys(item.as_str("a column name") for item in items))


def scalar(node: Node, what: str) -> Scalar:
    """A value GX compares with a column: a number, a string or a boolean."""
    value = node.value
    if isinstance(value, float) and not math.isfinite(value):
        raise node.error(f"expected {what}, got {value}")
    if isinstance(value, (bool, int, float, str)):
        return value
    raise node.type_error(what)


def _optional(kwargs: Node, key: str) -> Node | None:
    node = kwargs.get(key)
    return None if node is None or node.value is None else node


def flag(kwargs: Node, key: str) -> bool:
    node = _optional(kwargs, key)
    return node.as_bool() if node is not None else False


def bounds(
    kwargs: Node,
    *,
    numbers: bool = False,
    strict: bool = True,
    unbounded: bool = False,
    inverted: bool = False,
) -> Bounds:
    """``min_value``/``max_value`` with GX's refusals: both absent (unless ``unbounded``:
    GX's aggregates are then vacuously true), min above max (unless ``inverted``: GX's
    value lengths then fail every value). GX's own fixtures say which aggregates are
    vacuously true without bounds (mean, median, stdev, unique value count, row count)
    and which raise (min, max, sum)."""
    found: dict[str, Scalar | None] = {}
    for key in ("min_value", "max_value"):
        node = _optional(kwargs, key)
        if node is None:
            found[key] = None
        elif numbers:
            found[key] = node.as_number("a number")
        else:
            found[key] = scalar(node, "a number or a string")
    low, high = found["min_value"], found["max_value"]
    if low is None and high is None and not unbounded:
        raise kwargs.error(
            "min_value and max_value cannot both be None",
            hint="Great Expectations refuses an expectation without bounds; give one or both",
        )
    if low is not None and high is not None:
        if isinstance(low, str) != isinstance(high, str):
            raise kwargs.error("min_value and max_value must be of the same type")
        if low > high and not inverted:  # type: ignore[operator]
            node = kwargs.require("min_value")
            raise node.error("min_value cannot be greater than max_value")
    strict_low = flag(kwargs, "strict_min") if strict else False
    strict_high = flag(kwargs, "strict_max") if strict else False
    return Bounds(low, high, strict_low, strict_high)


def mostly(kwargs: Node) -> Tolerance | None:
    """``mostly`` (0-1) as GX judges it: ``(considered - unexpected) / considered >=
    mostly`` in doubles."""
    node = _optional(kwargs, "mostly")
    if node is None:
        return None
    value = node.as_number("a number between 0 and 1")
    if not 0 <= value <= 1:
        raise node.error(f"mostly must be between 0 and 1, got {value}")
    return Tolerance("gx_mostly", Decimal(repr(float(value))), repr(float(value)))


_GX_CONDITION = re.compile(
    r"""\s*col\(\s*(?P<q>["'])(?P<name>[^"']+)(?P=q)\s*\)\s*
        (?P<op>==|!=|>=|<=|>|<)\s*
        (?P<value>"[^"]*"|'[^']*'|-?\d+(\.\d+)?([eE][+-]?\d+)?|True|False)\s*""",
    re.VERBOSE,
)
_GX_NULL = re.compile(
    r"""\s*col\(\s*(["'])(?P<name>[^"']+)\1\s*\)\.(?P<fn>notNull|isNull)\(\)\s*"""
)
_OPS = {"==": Op.EQ, "!=": Op.NE, ">=": Op.GE, "<=": Op.LE, ">": Op.GT, "<": Op.LT}


def row_condition(kwargs: Node) -> Expr | None:
    """``row_condition`` with ``condition_parser`` ``spark`` (a Spark SQL predicate, run as
    written) or ``great_expectations`` (one ``col("x") <op> literal`` or
    ``col("x").notNull()``)."""
    node = _optional(kwargs, "row_condition")
    if node is None:
        return None
    text = node.as_str("a row condition")
    parser_node = _optional(kwargs, "condition_parser")
    parser = parser_node.as_str("a condition parser") if parser_node is not None else None
    if parser == "spark":
        return Sql(text)
    if parser in ("great_expectations", "great_expectations__experimental__"):
        return _gx_condition(node, text)
    where = parser_node or kwargs
    raise where.error(
        f"condition_parser {parser!r} is not supported with Spark",
        hint="use condition_parser 'spark' (a Spark SQL predicate) or 'great_expectations'",
    )


def _gx_condition(node: Node, text: str) -> Expr:
    null = _GX_NULL.fullmatch(text)
    if null:
        test: Expr = IsNull(Col(null.group("name")))
        return Not(test) if null.group("fn") == "notNull" else test
    found = _GX_CONDITION.fullmatch(text)
    if found is None:
        raise node.error(
            f"cannot read the row_condition {text!r}",
            hint='assay reads one comparison col("x") <op> value, or col("x").notNull(); '
            "write anything else with condition_parser: spark",
        )
    raw = found.group("value")
    value: Scalar
    if raw[0] in "\"'":
        value = raw[1:-1]
    elif raw in ("True", "False"):
        value = raw == "True"
    else:
        value = int(raw) if re.fullmatch(r"-?\d+", raw) else float(raw)
    return Compare(_OPS[found.group("op")], Col(found.group("name")), Lit(value))


def both(*parts: Expr | None) -> Expr | None:
    kept = tuple(p for p in parts if p is not None)
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else And(kept)

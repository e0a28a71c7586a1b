"""Row-level expression IR: the per-row predicates rules compile to.

Nodes are frozen and compare by value, so two rules asking the same question of a
row share one aggregate slot. ``emit/spark.py`` is the only place these become
Spark columns. Boolean connectives are n-ary (``And(items)``), never nested
pairs, so 1,000 predicates stay shallow (Spark Connect fails on deep trees).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from assay.ir.values import Op

Scalar = int | float | Decimal | str | bool | dt.date | dt.datetime


@dataclass(frozen=True, slots=True)
class Col:
    """A column of the table, by name (never parsed as SQL)."""

    name: str


@dataclass(frozen=True, slots=True)
class Lit:
    """A literal value; with ``type``, a value of that Spark type (``CAST(value AS
    type)``, exact: :mod:`assay.planner.literals` chooses it)."""

    value: Scalar
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Compare:
    """``left <op> right``; SQL null semantics (null if either side is null)."""

    op: Op
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class And:
    """All of ``items`` (n-ary)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """Any of ``items`` (n-ary)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """Negation."""

    item: Expr


@dataclass(frozen=True, slots=True)
class IsNull:
    """``item IS NULL``."""

    item: Expr


@dataclass(frozen=True, slots=True)
class IsNaN:
    """``isnan(item)`` (false for null)."""

    item: Expr


@dataclass(frozen=True, slots=True)
class InSet:
    """``item IN (values)``; with ``type``, each value cast to that Spark type."""

    item: Expr
    values: tuple[Scalar, ...]
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Matches:
    """``item RLIKE pattern`` (Java regex, searched anywhere unless anchored)."""

    item: Expr
    pattern: str


@dataclass(frozen=True, slots=True)
class HasText:
    """``item`` contains ``text`` (``where="anywhere"``), starts or ends with it:
    Spark's ``contains``/``startswith``/``endswith``, exact and case-sensitive."""

    item: Expr
    text: str
    where: Literal["anywhere", "start", "end"] = "anywhere"


@dataclass(frozen=True, slots=True)
class Length:
    """Character length of a string."""

    item: Expr


@dataclass(frozen=True, slots=True)
class Coalesce:
    """First non-null of ``items`` (used to turn ``null`` into a definite true/false)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Sql:
    """A SQL expression snippet from the config (a table filter, a condition).

    Config snippets are code: they run on the server exactly as written.
    """

    text: str


Expr = (
    Col
    | Lit
    | Compare
    | And
    | Or
    | Not
    | IsNull
    | IsNaN
    | InSet
    | Matches
    | HasText
    | Length
    | Coalesce
    | Sql
)


def all_of(*items: Expr) -> Expr:
    """``And`` of the items, flattening nested ``And`` and dropping duplicates.

    >>> all_of(IsNull(Col("a")))
    IsNull(item=Col(name='a'))
    """
    flat: list[Expr] = []
    for item in items:
        for part in item.items if isinstance(item, And) else (item,):
            if part not in flat:
                flat.append(part)
    return flat[0] if len(flat) == 1 else And(tuple(flat))


def any_of(*items: Expr) -> Expr:
    """``Or`` of the items, flattening nested ``Or`` and dropping duplicates.

    >>> any_of(IsNull(Col("a")), IsNull(Col("a")))
    IsNull(item=Col(name='a'))
    """
    flat: list[Expr] = []
    for item in items:
        for part in item.items if isinstance(item, Or) else (item,):
            if part not in flat:
                flat.append(part)
    return flat[0] if len(flat) == 1 else Or(tuple(flat))


def is_true(expr: Expr) -> Expr:
    """``expr`` with null read as false (``coalesce(expr, false)``)."""
    return Coalesce((expr, Lit(False)))


def children(expr: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node, in order (none for a leaf).

    >>> children(Compare(Op.GT, Col("a"), Lit(1)))
    (Col(name='a'), Lit(value=1, type=None))
    """
    if isinstance(expr, (And, Or, Coalesce)):
        return expr.items
    if isinstance(expr, Compare):
        return (expr.left, expr.right)
    if isinstance(expr, (Not, IsNull, IsNaN, InSet, Matches, HasText, Length)):
        return (expr.item,)
    if isinstance(expr, (Col, Lit, Sql)):
        return ()
    raise TypeError(f"not an expression node: {type(expr).__name__}")


def rebuild(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``expr`` rebuilt bottom-up: every node's children first, then ``fn`` of the node.

    >>> rebuild(Not(Col("a")), lambda e: Col("b") if e == Col("a") else e)
    Not(item=Col(name='b'))
    """
    if isinstance(expr, (And, Or, Coalesce)):
        node: Expr = type(expr)(tuple(rebuild(i, fn) for i in expr.items))
    elif isinstance(expr, Compare):
        node = Compare(expr.op, rebuild(expr.left, fn), rebuild(expr.right, fn))
    elif isinstance(expr, (Not, IsNull, IsNaN, InSet, Matches, HasText, Length)):
        node = dataclasses.replace(expr, item=rebuild(expr.item, fn))
    else:
        children(expr)  # raises on an unknown node
        node = expr
    return fn(node)


def patterns_of(expr: Expr) -> tuple[str, ...]:
    """The regular expressions an expression matches with, in first-use order.

    >>> patterns_of(And((Matches(Col("a"), "^x"), Not(Matches(Col("b"), "y+")))))
    ('^x', 'y+')
    """
    seen: list[str] = []
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Matches) and node.pattern not in seen:
            seen.append(node.pattern)
        stack.extend(reversed(children(node)))
    return tuple(seen)


def columns_of(expr: Expr) -> tuple[str, ...]:
    """Column names an expression reads, in first-use order (``Sql`` snippets are opaque).

    >>> columns_of(And((IsNull(Col("a")), Compare(Op.GT, Col("b"), Col("a")))))
    ('a', 'b')
    """
    seen: list[str] = []
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Col):
            if node.name not in seen:
                seen.append(node.name)
        else:
            stack.extend(reversed(children(node)))
    return tuple(seen)

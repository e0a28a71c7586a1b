"""Row-level expression IR: the per-row predicates rules compile to.

Nodes are frozen and compare by value, so two rules asking the same question of a
row share one aggregate slot. ``emit/spark.py`` is the only place these become
Spark columns. Boolean connectives are n-ary (``And(items)``), never nested
pairs, so 1,000 predicates stay shallow (Spark Connect fails on deep trees).
"""

from __future__ import annotations

import datetime as dt
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
    """A literal value."""

    value: Scalar


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
    """``item IN (values)``."""

    item: Expr
    values: tuple[Scalar, ...]


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
        elif isinstance(node, (And, Or, Coalesce)):
            stack.extend(reversed(node.items))
        elif isinstance(node, Compare):
            stack.extend((node.right, node.left))
        elif isinstance(node, (Not, IsNull, IsNaN, InSet, Matches, HasText, Length)):
            stack.append(node.item)
    return tuple(seen)

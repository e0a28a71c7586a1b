"""Row-level expression IR: the per-row predicates rules compile to.

Nodes are frozen and compare by value, so two rules asking the same question of a
row share one aggregate slot. ``emit/spark.py`` is the only place these become
Spark columns. Boolean connectives are n-ary (``And(items)``), never nested
pairs, so 1,000 predicates stay shallow (Spark Connect fails on deep trees).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, Protocol

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
    """Character length of a string. With ``ascii_run``, a regex that is a run of one
    class of ASCII characters holding no line terminator (``^[a-z ,.]*$``: a match proves
    the value is such characters, then at most one line terminator), the length is
    computed from the value's bytes where that regex matches and counted by characters
    where it does not: the same number (:func:`assay.planner.regex_runs.lengths_by_bytes`)."""

    item: Expr
    ascii_run: str | None = None


LINE_TERMINATORS = ("\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029")
"""The line terminators Java's regex engine knows (``$`` without MULTILINE matches before
one that ends the input, except between the two halves of ``\\r\\n``)."""


def line_ends() -> tuple[tuple[str, int], ...]:
    """``(terminator, its UTF-8 length)`` longest first: the order a string's ending is
    told by (``\\r\\n`` before ``\\n``).

    >>> [n for _, n in line_ends()]
    [2, 1, 1, 2, 3, 3]
    """
    return tuple(sorted(((t, len(t.encode())) for t in LINE_TERMINATORS), key=lambda e: -len(e[0])))


@dataclass(frozen=True, slots=True)
class LineBytes:
    """UTF-8 length in bytes of a string, not counting one line terminator ending it (the
    end Java's ``$`` accepts: ``\\r\\n``, else one of ``\\n``, ``\\r``, ``\\u0085``,
    ``\\u2028``, ``\\u2029``); null for null."""

    item: Expr


@dataclass(frozen=True, slots=True)
class Parses:
    """``try_cast(item AS type) IS NOT NULL``: whether Spark reads the value as ``type``
    (false for null)."""

    item: Expr
    type: str


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
    | LineBytes
    | Parses
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


# --- the one traversal --------------------------------------------------------------------
#
# Which fields of a node hold sub-expressions is read from the dataclass fields once, at
# import: a field typed ``Expr`` (or one node class, or a union of them) holds one child, a
# field typed ``tuple[Expr, ...]`` a sequence of children, any other field is data. So a
# new node class needs no edit here, only its place in the ``Expr`` union; a field holding
# expressions in another shape (``Expr | None``, a tuple of pairs) stops the import.

NODES: tuple[type, ...] = typing.get_args(Expr)
"""Every node class of the ``Expr`` union."""


def _is_expr(hint: object) -> bool:
    if hint in NODES:
        return True
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    return origin in (typing.Union, types.UnionType) and all(a in NODES for a in args)


def _mentions_expr(hint: object) -> bool:
    return hint in NODES or any(_mentions_expr(a) for a in typing.get_args(hint))


def _expr_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """``(field name, holds a tuple of expressions)`` of each field of ``cls`` holding
    sub-expressions, in declaration order."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"expression node {cls.__name__} is not a dataclass")
    hints = typing.get_type_hints(cls)
    out: list[tuple[str, bool]] = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        args = typing.get_args(hint)
        if _is_expr(hint):
            out.append((field.name, False))
        elif typing.get_origin(hint) is tuple and args[1:] == (...,) and _is_expr(args[0]):
            out.append((field.name, True))
        elif _mentions_expr(hint):
            raise TypeError(
                f"{cls.__name__}.{field.name} holds expressions as {hint}: "
                "children() walks only Expr and tuple[Expr, ...] fields"
            )
    return tuple(out)


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {cls: _expr_fields(cls) for cls in NODES}


def _fields_of(expr: Expr) -> tuple[tuple[str, bool], ...]:
    try:
        return _FIELDS[type(expr)]
    except KeyError:
        raise TypeError(f"not an expression node: {type(expr).__name__}") from None


def children(expr: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node, in field order (none for a leaf).

    >>> children(Compare(Op.GT, Col("a"), Lit(1)))
    (Col(name='a'), Lit(value=1, type=None))
    """
    out: list[Expr] = []
    for name, many in _fields_of(expr):
        value = getattr(expr, name)
        if many:
            out.extend(value)
        else:
            out.append(value)
    return tuple(out)


def rebuild(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``expr`` rebuilt bottom-up: every node's children first, then ``fn`` of the node.

    >>> rebuild(Not(Col("a")), lambda e: Col("b") if e == Col("a") else e)
    Not(item=Col(name='b'))
    """
    changes: dict[str, Any] = {}
    for name, many in _fields_of(expr):
        value = getattr(expr, name)
        changes[name] = tuple(rebuild(i, fn) for i in value) if many else rebuild(value, fn)
    return fn(dataclasses.replace(expr, **changes) if changes else expr)


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of ``expr``, parents before children, left to right.

    >>> [type(n).__name__ for n in walk(Not(And((Col("a"), Lit(1)))))]
    ['Not', 'And', 'Col', 'Lit']
    """
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


class _Translator(Protocol):
    """A ``functools.singledispatch`` function over expression nodes."""

    def dispatch(self, cls: Any, /) -> Callable[..., object]: ...


def untranslated(translator: _Translator) -> tuple[str, ...]:
    """The node classes of ``Expr`` a singledispatch ``translator`` has no registration
    for (it would reach the fallback, which refuses the node)."""
    fallback = translator.dispatch(object)
    return tuple(c.__name__ for c in NODES if translator.dispatch(c) is fallback)


def require_translations(translator: _Translator, what: str) -> None:
    """Raise unless ``translator`` knows every node class of ``Expr``: each translator
    calls it at import, so a node added without its translation never reaches a run."""
    missing = untranslated(translator)
    if missing:
        raise TypeError(f"expression nodes without {what}: {', '.join(missing)}")


def patterns_of(expr: Expr) -> tuple[str, ...]:
    """The regular expressions an expression matches with, in first-use order.

    >>> patterns_of(And((Matches(Col("a"), "^x"), Not(Matches(Col("b"), "y+")))))
    ('^x', 'y+')
    """
    return tuple(dict.fromkeys(n.pattern for n in walk(expr) if isinstance(n, Matches)))


def columns_of(expr: Expr) -> tuple[str, ...]:
    """Column names an expression reads, in first-use order (``Sql`` snippets are opaque).

    >>> columns_of(And((IsNull(Col("a")), Compare(Op.GT, Col("b"), Col("a")))))
    ('a', 'b')
    """
    return tuple(dict.fromkeys(n.name for n in walk(expr) if isinstance(n, Col)))

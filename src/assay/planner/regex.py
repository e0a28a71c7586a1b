"""Cheaper exact forms of literal regexes (pure).

``rlike`` runs Java's regex engine on every row (a ``String`` copy and a ``Matcher`` per
row and pattern). A pattern that is only literal text asks a plain string question that
Spark answers on the UTF-8 bytes directly:

=================  ==========================================================
``abc``            ``contains(x, 'abc')`` (``find`` of a literal = substring)
``^abc``           ``startswith(x, 'abc')`` (``^`` without MULTILINE: position 0)
``abc$``           ``endswith`` of ``abc`` or of ``abc`` + a line terminator
``^abc$``          ``x IN ('abc', 'abc\\n', 'abc\\r\\n', ...)``
=================  ==========================================================

``$`` (without MULTILINE) also matches before a line terminator that ends the input, so
the forms with ``$`` list each terminator Java accepts there: ``\\n``, ``\\r\\n``, ``\\r``,
``\\u0085``, ``\\u2028``, ``\\u2029``. Literal text is any character outside Java's
metacharacters, or a backslash-escaped non-alphanumeric character; anything else
(classes, quantifiers, groups, ``\\Q``, flags) keeps ``rlike``.
"""

from __future__ import annotations

from assay.ir.expr import (
    And,
    Coalesce,
    Compare,
    Expr,
    HasText,
    InSet,
    Matches,
    Not,
    Or,
    any_of,
)

_META = set("\\^$.|?*+()[]{}")
_TERMINATORS = ("\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029")


def literal_text(pattern: str) -> str | None:
    """The text a pattern matches literally, or None when it is not plain text.

    >>> literal_text(r"a\\.b-c")
    'a.b-c'
    >>> literal_text("a.b") is None
    True
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1].isalnum() or ord(pattern[i + 1]) > 127:
                return None
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch in _META:
            return None
        out.append(ch)
        i += 1
    return "".join(out)


def literal_form(item: Expr, pattern: str) -> Expr | None:
    """``item RLIKE pattern`` as an equivalent plain string test, or None."""
    start = pattern.startswith("^")
    body = pattern[1:] if start else pattern
    end = body.endswith("$") and not body.endswith("\\$")
    body = body[:-1] if end else body
    text = literal_text(body)
    if text is None:
        return None
    if start and end:
        return InSet(item, (text, *(text + t for t in _TERMINATORS)))
    if end:
        return any_of(*(HasText(item, text + t, "end") for t in ("", *_TERMINATORS)))
    return HasText(item, text, "start" if start else "anywhere")


def cheaper(expr: Expr) -> Expr:
    """``expr`` with every literal regex replaced by its plain string form."""
    if isinstance(expr, Matches):
        return literal_form(expr.item, expr.pattern) or expr
    if isinstance(expr, And):
        return And(tuple(cheaper(i) for i in expr.items))
    if isinstance(expr, Or):
        return Or(tuple(cheaper(i) for i in expr.items))
    if isinstance(expr, Coalesce):
        return Coalesce(tuple(cheaper(i) for i in expr.items))
    if isinstance(expr, Not):
        return Not(cheaper(expr.item))
    if isinstance(expr, Compare):
        return Compare(expr.op, cheaper(expr.left), cheaper(expr.right))
    return expr

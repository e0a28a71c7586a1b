"""Measures over a second source (a rule's ``references``) (pure; their branches of the
aggregate plan: :mod:`assay.planner.joins`).

A foreign key counts the table's rows whose key has no match among the referenced
side's keys (:class:`Unmatched`), a negated one those whose key has one (:class:`Matched`,
a semi join, or the matches counted); a row count match counts the referenced side's rows
(:class:`ReferenceRows`). Each is a branch of the table's ONE aggregate plan
(:class:`ReferenceAggregate`), cross-joined with its scans and group-bys: the foreign
keys of one lookup (same columns, same reference) share one anti join, each rule's
filter a ``count_if`` over its rows; the referenced side's distinct keys are one frame
however many lookups read it (:mod:`assay.emit.references`).
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.expr import Expr
from assay.ir.references import ForeignKeyCheck, Lookup
from assay.ir.sources import Source
from assay.planner.sqltext import quote, render_expr, render_source


@dataclass(frozen=True, slots=True)
class Unmatched:
    """Rows with no null in ``lookup.columns`` whose key no row of the referenced side
    has, among the rows where ``where`` holds (a rule's filter)."""

    lookup: Lookup
    where: Expr | None = None


@dataclass(frozen=True, slots=True)
class Matched:
    """Rows with no null in ``lookup.columns`` whose key some row of the referenced side
    has, among the rows where ``where`` holds (a negated foreign key); with ``matches``,
    each such row counted once per referenced row equal to it (Soda's LEFT JOIN)."""

    lookup: Lookup
    where: Expr | None = None
    matches: bool = False


def foreign_key_measure(check: ForeignKeyCheck) -> Unmatched | Matched:
    """The failed count of a foreign key: its rows without a match, or (negated) with
    one, or their matches (``counted: matches``)."""
    if not check.negate:
        return Unmatched(check.lookup)
    return Matched(check.lookup, matches=check.counted == "matches")


def counted_words(measure: Unmatched | Matched) -> str:
    """What a foreign key's failed count counts, as its message says it."""
    if isinstance(measure, Unmatched):
        return "rows have no match"
    return "rows' keys matched (each match counted)" if measure.matches else "rows have a match"


@dataclass(frozen=True, slots=True)
class ReferenceRows:
    """``count(*)`` of a referenced source."""

    source: Source


def _columns(columns: tuple[str, ...]) -> str:
    return ", ".join(quote(c) for c in columns)


def render_lookup(lookup: Lookup) -> str:
    """``(customer_id) LEFT ANTI JOIN DISTINCT (id) OF table crm.customers``."""
    ref = lookup.reference
    return (
        f"({_columns(lookup.columns)}) not null LEFT ANTI JOIN DISTINCT"
        f" ({_columns(ref.columns)}) OF {render_source(ref.source)}"
    )


def render_unmatched(m: Unmatched) -> str:
    """An :class:`Unmatched` measure as ``explain`` shows it."""
    where = f" FILTER (WHERE {render_expr(m.where)})" if m.where is not None else ""
    return f"count(*){where} OF {render_lookup(m.lookup)}"


def render_semi_lookup(lookup: Lookup, matches: bool = False) -> str:
    """``(customer_id) LEFT SEMI JOIN DISTINCT (id) OF table crm.blocked``, or with
    ``matches`` ``(customer_id) JOIN COUNT(*) BY (id) OF ...`` (each match counted)."""
    ref = lookup.reference
    join = "JOIN count(*) BY" if matches else "LEFT SEMI JOIN DISTINCT"
    return (
        f"({_columns(lookup.columns)}) not null {join}"
        f" ({_columns(ref.columns)}) OF {render_source(ref.source)}"
    )


def render_matched(m: Matched) -> str:
    """A :class:`Matched` measure as ``explain`` shows it."""
    where = f" FILTER (WHERE {render_expr(m.where)})" if m.where is not None else ""
    counted = "sum(matches)" if m.matches else "count(*)"
    return f"{counted}{where} OF {render_semi_lookup(m.lookup, m.matches)}"


def render_reference_rows(m: ReferenceRows) -> str:
    """A :class:`ReferenceRows` measure as ``explain`` shows it."""
    return f"count(*) OF {render_source(m.source)}"

"""Measures over a second source (a rule's ``references``) (pure; their branches of the
aggregate plan: :mod:`assay.planner.joins`).

A foreign key counts the table's rows whose key has no match among the referenced
side's keys (:class:`Unmatched`); a row count match counts the referenced side's rows
(:class:`ReferenceRows`). Each is a branch of the table's ONE aggregate plan
(:class:`ReferenceAggregate`), cross-joined with its scans and group-bys: the foreign
keys of one lookup (same columns, same reference) share one anti join, each rule's
filter a ``count_if`` over its rows; the referenced side's distinct keys are one frame
however many lookups read it (:mod:`assay.emit.references`).
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.expr import Expr
from assay.ir.references import Lookup
from assay.ir.sources import Source
from assay.planner.sqltext import quote, render_expr, render_source


@dataclass(frozen=True, slots=True)
class Unmatched:
    """Rows with no null in ``lookup.columns`` whose key no row of the referenced side
    has, among the rows where ``where`` holds (a rule's filter)."""

    lookup: Lookup
    where: Expr | None = None


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


def render_reference_rows(m: ReferenceRows) -> str:
    """A :class:`ReferenceRows` measure as ``explain`` shows it."""
    return f"count(*) OF {render_source(m.source)}"

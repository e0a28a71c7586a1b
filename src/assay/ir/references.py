"""Rules that read a second source besides their table's: a foreign key (the table's
keys must be among another source's) and a row count compared with another source's.

The referenced side is any source a table can have; the planner reads it in a branch of
the table's one aggregate plan (:mod:`assay.planner.references`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.ir.expr import And, Col, Expr, IsNull, Not
from assay.ir.sources import Source
from assay.ir.values import ZERO_TOLERANCE, Tolerance


@dataclass(frozen=True, slots=True)
class Reference:
    """The referenced side of a rule: a source and, for a foreign key, its key columns
    (as many as the table's, matched in order)."""

    source: Source
    columns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Lookup:
    """The table's ``columns`` looked up among the ``reference``'s key columns: a row
    has a match when some referenced row equals it in every column."""

    columns: tuple[str, ...]
    reference: Reference


Counted = Literal["rows", "matches"]
"""What a negated foreign key counts: its failing ``rows`` (each once), or its rows'
``matches`` (a row found k times among the referenced rows counts k: Soda's LEFT JOIN)."""


@dataclass(frozen=True, slots=True)
class ForeignKeyCheck:
    """Every row's key (``lookup.columns``) is among the referenced side's keys. A row
    fails when none of its key columns is null and no referenced row matches it (a
    row with a null key passes, as an SQL foreign key); passes within ``tolerance``.

    ``negate``: the keys must NOT be among the referenced side's: a row fails when none
    of its key columns is null and some referenced row matches it (a null key still
    passes: DQX's ``foreign_key`` with ``negate``, Soda's ``must not exist in``), counted
    as ``counted`` says."""

    lookup: Lookup
    tolerance: Tolerance = ZERO_TOLERANCE
    negate: bool = False
    counted: Counted = "rows"


@dataclass(frozen=True, slots=True)
class RowCountMatchMetric:
    """The table's rows (after its filters) as a percentage of the referenced side's
    rows: ``100 * rows / referenced rows``; no value when the referenced side is empty."""

    reference: Reference


def keyed(columns: tuple[str, ...]) -> Expr:
    """True for a row with no null in ``columns`` (one a foreign key looks up)."""
    tests = tuple(Not(IsNull(Col(c))) for c in columns)
    return tests[0] if len(tests) == 1 else And(tests)

"""What a check reads of the rows (its failing rows, its row expressions), and the check
that a registry over a union of IR kinds is complete: the shared ground of
:mod:`assay.ir.metrics` and :mod:`assay.ir.rules`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from assay.ir.expr import Expr
from assay.ir.references import Lookup

GroupNulls = Literal["any", "all", "none"]
"""Which rows a group statistic ignores: those with a null in ``any`` key column (SQL
``UNIQUE``), only those where ``all`` key columns are null (deequ's frequencies), or
``none`` (a null is a value like any other, as Spark's ``groupBy``,
``count(DISTINCT struct(...))`` and ``df.distinct()`` read it: data-validator's
``uniqueCheck``, sparquet-cola)."""


@dataclass(frozen=True, slots=True)
class FailingRows:
    """The rows that fail a check: those where ``predicate`` is true; with ``group``,
    those whose value of these columns another row shares (rows ignored as ``nulls``
    says); with neither, every row (a check judged on the whole table has no failing row
    of its own: Metorikku writes the whole table for a failed ``hasSize``). ``sampled``:
    a failure shows samples of them (the detail pass)."""

    predicate: Expr | None = None
    group: tuple[str, ...] = ()
    nulls: GroupNulls = "any"
    sampled: bool = False
    where: Expr | None = None
    """With ``group``: only rows where this holds are grouped (a rule's filter)."""
    absent: Lookup | None = None
    """With ``predicate``: only those of its rows whose key has no match in another
    source (a foreign key)."""
    present: Lookup | None = None
    """With ``predicate``: only those of its rows whose key has a match in another source
    (a negated foreign key)."""


@dataclass(frozen=True, slots=True)
class CheckShape:
    """What the IR says of one kind of check (or metric): its failing rows, and the row
    expressions it evaluates (what a pass over the IR's expressions visits: literal
    typing, regex checks)."""

    rows: Callable[[Any], FailingRows]
    expressions: Callable[[Any], tuple[Expr, ...]] = lambda check: ()


WHOLE_TABLE = CheckShape(lambda check: FailingRows())
"""The shape of a check judged on the whole table: no failing row of its own."""


def complete(registry: Mapping[type, object], union: object, name: str) -> None:
    """Fail at import when ``registry`` does not have exactly the classes of ``union``."""
    wanted = set(get_args(union))
    if set(registry) != wanted:
        missing = sorted(t.__name__ for t in wanted - set(registry))
        extra = sorted(t.__name__ for t in set(registry) - wanted)
        raise TypeError(f"{name} is not complete: missing {missing}, unknown {extra}")

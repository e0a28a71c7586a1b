"""What a Great Expectations expectation compiles to (:class:`Mapped`), how an
expectation is registered (:class:`Expectation`: its builder and the kwargs it reads) and
the column-map shape most expectations share (:func:`column_map`: GX's rows after its
null rule, ``mostly``), for the modules mapping expectations
(:mod:`assay.dialects.great_expectations_map` and the modules it gathers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.ir.expr import Col, Expr, IsNull, Not, is_true
from assay.ir.rules import Check, RowCheck, TypeFamily
from assay.ir.values import ZERO_TOLERANCE


@dataclass(frozen=True, slots=True)
class Mapped:
    """What one expectation compiles to: its check, the columns it reads and their kinds,
    the rows it considers (``considered``: GX's rows after its null rule, beside the
    ``row_condition``) and the threshold it shows."""

    check: Check
    columns: tuple[str, ...]
    requires: tuple[tuple[str, TypeFamily], ...] = ()
    considered: Expr | None = None
    threshold: str | None = None


Builder = Callable[[Node], Mapped]


@dataclass(frozen=True, slots=True)
class Expectation:
    """An expectation assay runs: its builder and the kwargs it reads."""

    build: Builder
    keys: frozenset[str]
    filtered: bool = True
    """Whether the ``row_condition`` is the rule's filter; False when the builder
    writes it into the check itself (an SQL metric takes no filter)."""


def column_map(
    kwargs: Node,
    name: str,
    unexpected: Expr,
    family: TypeFamily = "any",
    *,
    nulls_considered: bool = False,
) -> Mapped:
    """A column-map expectation: ``unexpected`` is true for a failing non-null value."""
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = None if nulls_considered else Not(IsNull(Col(name)))
    failing = unexpected if nulls_considered else is_true(unexpected)
    return Mapped(
        RowCheck(failing, tolerance=tolerance),
        (name,),
        ((name, family),),
        considered,
        threshold=f"mostly {tolerance.text}" if tolerance.value else None,
    )

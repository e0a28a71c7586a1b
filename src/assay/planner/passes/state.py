"""What the planner's passes read and write: a frozen context and a frozen state.

Every pass is a function ``(PlanState, PlanContext) -> PlanState``
(:mod:`assay.planner.passes`): the context is what the executor hands the planner
(the column types, the source's size, the options, the rules left out...), the same for
every pass; the state is the table and its plan as they are built, each pass returning a
new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay.ir.suite import Table
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions
from assay.planner.plan import Branch, DetailPlan, FoldedSql, Slot


@dataclass(frozen=True, slots=True)
class PlanContext:
    """What the planner is told of a table's source and run.

    ``types`` maps the source's lower-case column names to Spark types (None: unknown,
    as in ``explain`` without a server); ``size_bytes`` and ``columnar`` are the
    server's view of the source (:func:`assay.planner.cost.splits`); the rules in
    ``unfold`` keep their SQL queries (Spark rejected their fold), those in ``without``
    are left out of every plan (their referenced source cannot be read); ``key_range``
    names a key column (a number or a date) whose min and max bound the detail plan's
    heavy branches."""

    options: PlannerOptions = DEFAULT_OPTIONS
    types: Mapping[str, str] | None = None
    size_bytes: int | None = None
    columnar: bool | None = None
    unfold: frozenset[int] = frozenset()
    without: frozenset[int] = frozenset()
    key_range: str | None = None


@dataclass(frozen=True, slots=True)
class PlanState:
    """A table's plan as it is built: the table (its literals typed once that pass ran),
    the SQL rules folded into the aggregate, the slots not yet in a branch, the branches
    of the aggregate plan, the detail plan's template and the key whose range the
    aggregate measures."""

    table: Table
    folded: tuple[FoldedSql, ...] = ()
    slots: tuple[Slot, ...] = ()
    branches: tuple[Branch, ...] = ()
    detail: DetailPlan | None = None
    key_range: str | None = None

"""What the prepare stage hands the later ones: :class:`Planned` (pure: the plan and what
planning read of the table) and :class:`Prepared` (it, with the Spark frames the real
submitter runs the plans over)."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.ir.suite import Source
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions
from assay.planner.plan import TablePlan

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import DataFrame

Schema = tuple[tuple[str, str], ...]
"""``(column, Spark simple type)`` pairs, in the source's order."""


@dataclass(frozen=True)
class Planned:
    """A table planned: its plan, its schema and resolved keys, the options it was
    planned with, the rules left out of its plans (with why: a referenced source that
    cannot be read), the plans preparing it submitted (a temp view binding
    ``_validation_df``) and the planner calls it cost (``plan_table``)."""

    plan: TablePlan
    schema: Schema
    keys: tuple[str, ...]
    options: PlannerOptions = DEFAULT_OPTIONS
    rule_errors: Mapping[int, str] = field(default_factory=dict)
    setup_plans: int = 0
    planner_calls: int = 1


@dataclass(frozen=True)
class Prepared:
    """A table ready to run: :class:`Planned`, its lazy DataFrame, ``_validation_df`` as
    SQL text (when it has SQL rules), the seconds one of its plans may run
    (:mod:`assay.executor.deadline`), the sources its rules reference, read
    (:mod:`assay.executor.references`), and an incremental table's file listing started
    while it was prepared (:func:`assay.executor.stages.incremental.start_listing`)."""

    planned: Planned
    df: DataFrame
    validation_sql: str | None = None
    timeout: float | None = None
    refs: Mapping[Source, DataFrame] = field(default_factory=dict)
    listing: Future[Any] | None = None

    @property
    def plan(self) -> TablePlan:
        return self.planned.plan

    @property
    def schema(self) -> Schema:
        return self.planned.schema

    @property
    def keys(self) -> tuple[str, ...]:
        return self.planned.keys

"""The verdict on one rule (:class:`Outcome`) and what a rule is judged from
(:class:`Evidence`): the words every judge speaks (:mod:`assay.judge.evaluate`,
:mod:`assay.judge.own`). Pure; no Spark."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from assay.ir.rules import Rule
from assay.monitoring.schemas import Earlier

if TYPE_CHECKING:
    from assay.dialects.validator_functions import ValidatorResult

Severity = Literal["pass", "warn", "fail", "error"]
Number = int | float | Decimal
Values = Mapping[Any, Any]
"""Measured values by measure, as the result row holds them (Spark's Python types)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict on one rule."""

    severity: Severity
    failed_count: int | None
    metric_value: Number | None
    message: str
    details: Mapping[str, Any] | None = None
    held: bool | None = None
    """Whether the condition held, when the severity alone does not say (a metric's own
    warn threshold: severity ``warn``, condition held)."""
    rows: int | None = None
    """The rows the rule considered, when not the table's (a rule's filter)."""

    @property
    def passed(self) -> bool:
        """Whether the rule's condition held (``pass``, or a metric's own warning)."""
        return self.held if self.held is not None else self.severity == "pass"


@dataclass(frozen=True)
class Evidence:
    """What a rule is judged from, each part given by the stage that has it: ``values``,
    the aggregate plan's values by measure; ``schema``, the table's ``(column, Spark
    type)`` pairs (read before any scan); ``answer``, a SQL rule's own query's (rows
    returned, first value); ``verdict``, what a validator function returned (a text: why
    it returned nothing usable); ``earlier``, the table's newest schema in the metrics
    store from an earlier run (None: none stored; a text: why the store was not read)."""

    values: Values = field(default_factory=dict)
    schema: Sequence[tuple[str, str]] = ()
    answer: tuple[int, Any] | None = None
    verdict: ValidatorResult | str | None = None
    earlier: Earlier | str | None = None


def failed_severity(rule: Rule) -> Severity:
    """The severity of a failed ``rule``: ``warn`` at level ``warn``, else ``fail`` (the
    one place a level becomes a severity)."""
    return "warn" if rule.level == "warn" else "fail"

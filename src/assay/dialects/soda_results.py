"""Soda's numbers of a check's result, read from what assay measured (the result's
``details.soda``, docs/dialects.md "SodaCL checks files"): ``value``, the check's value
as Soda reports it (a percentage rounded to two decimals, duplicated values, the rows a
reference or failed rows check counts), and ``outcome``, Soda's ``pass``, ``warn``,
``fail``, or None when Soda does not evaluate the check (no value: an aggregate of no
row)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from assay.dialects.soda_checks import is_soda
from assay.ir.metrics import CountMetric
from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import MetricCheck, Rule, SchemaCheck, UniqueCheck

KEY = "soda"
"""The key of Soda's numbers in a result's ``details``."""


def soda_value(rule: Rule, failed_count: int | None, metric_value: object) -> object:
    """The check's value as Soda reports it (None for a schema check)."""
    check = rule.check
    if isinstance(check, (UniqueCheck, ForeignKeyCheck)):
        return failed_count
    if not isinstance(check, MetricCheck) or metric_value is None:
        return None
    if isinstance(check.metric, CountMetric) and check.metric.percent:
        return float(round(float(metric_value), 2))  # type: ignore[arg-type]
    if isinstance(metric_value, Decimal):
        return float(metric_value)
    return metric_value


def soda_outcome(rule: Rule, severity: str, metric_value: object) -> str | None:
    """Soda's outcome: assay's severity (the judging is Soda's), but for a metric with no
    value (Soda: not evaluated) or NaN (in no zone of Soda's, so it passes)."""
    if severity == "error":
        return None
    if isinstance(rule.check, MetricCheck) and not isinstance(rule.check.metric, CountMetric):
        if metric_value is None:
            return None
        if isinstance(metric_value, float) and math.isnan(metric_value):
            return "pass"
    return severity


def with_soda_numbers(
    details: Mapping[str, Any] | None,
    rule: Rule,
    severity: str,
    failed_count: int | None,
    metric_value: object,
) -> dict[str, Any] | None:
    """A result's ``details`` with Soda's numbers under :data:`KEY` when the rule is a
    Soda check (unchanged otherwise)."""
    if not is_soda(rule):
        return dict(details) if details is not None else None
    numbers = {
        "outcome": soda_outcome(rule, severity, metric_value),
        "value": None if isinstance(rule.check, SchemaCheck) else soda_value(
            rule, failed_count, metric_value
        ),
    }  # fmt: skip
    return {**(details or {}), KEY: numbers}

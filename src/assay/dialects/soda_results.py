"""Soda's numbers of a check's result, read from what assay measured (the result's
``details.soda``, docs/dialects.md "SodaCL checks files"): ``value``, the check's value
as Soda reports it (a percentage rounded to two decimals, duplicated values, the rows a
reference or failed rows check counts), and ``outcome``, Soda's ``pass``, ``warn``,
``fail``, or None when there is no value to judge (an aggregate of no row, which Soda
does not evaluate, or a NaN, which assay's result does not carry). A change check has
none: its value and outcome are the result's ``baseline`` (``change``, ``verdict``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from assay.dialects.soda_checks import is_soda
from assay.ir.metrics import CountMetric, GroupMetric
from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.references import ForeignKeyCheck, RowCountMatchMetric
from assay.ir.rules import MetricCheck, Rule, SchemaCheck, SqlCheck, UniqueCheck
from assay.ir.values import Threshold

KEY = "soda"
"""The key of Soda's numbers in a result's ``details``."""


def soda_value(rule: Rule, failed_count: int | None, metric_value: object) -> object:
    """The check's value as Soda reports it (None for a schema check)."""
    check = rule.check
    if isinstance(check, (UniqueCheck, ForeignKeyCheck)) or (
        isinstance(check, SqlCheck) and check.mode == "failed_rows"
    ):
        return failed_count
    if _judged_value(check) is None or metric_value is None:
        return None
    if isinstance(check, MetricCheck) and (
        (isinstance(check.metric, CountMetric) and check.metric.percent)
        or (isinstance(check.metric, GroupMetric) and check.metric.stat.endswith("percent"))
    ):
        return float(round(float(metric_value), 2))  # type: ignore[arg-type]
    if isinstance(metric_value, Decimal):
        return float(metric_value)
    return metric_value


def soda_outcome(
    rule: Rule, failed_count: int | None, rows: int | None, value: object
) -> str | None:
    """Soda's outcome, judged again from what was measured: its fail zone, then its warn
    zone; None when Soda does not evaluate the check (a metric with no value). A NaN is in
    no zone of Soda's: it passes."""
    check = rule.check
    zones = _judged_value(check)
    if zones is not None:
        must, warn = zones
        if value is None:
            return None
        if isinstance(value, float) and math.isnan(value):
            return "pass"
        if must is not None and not must.holds(value):  # type: ignore[arg-type]
            return "fail"
        return "warn" if warn is not None and not warn.holds(value) else "pass"  # type: ignore[arg-type]
    if failed_count is None:
        return None
    if isinstance(check, (UniqueCheck, ForeignKeyCheck)):
        return "pass" if check.tolerance.passes(failed_count, rows or 0) else "fail"
    if failed_count == 0:
        return "pass"
    return "warn" if rule.level == "warn" else "fail"


def _judged_value(check: object) -> tuple[Threshold | None, Threshold | None] | None:
    """The zones of a check judged by a value (a metric, a user-defined metric's query)."""
    if isinstance(check, MetricCheck):
        return check.must, check.warn
    if isinstance(check, SqlCheck) and check.mode == "value":
        return check.must, check.warn
    return None


def with_soda_numbers(
    details: Mapping[str, Any] | None,
    rule: Rule,
    failed_count: int | None,
    rows: int | None,
    metric_value: object,
) -> dict[str, Any] | None:
    """A result's ``details`` with Soda's numbers under :data:`KEY` when the rule is a
    Soda check (unchanged otherwise)."""
    if not is_soda(rule) or rule.over_time is not None:
        # a change check: Soda's value and outcome are the change and the verdict over
        # time, the result's ``baseline``
        return dict(details) if details is not None else None
    if isinstance(rule.check, MetricCheck) and rule.check.group_by:
        return {**(details or {}), KEY: {"outcome": _grouped(details), "value": None}}
    if isinstance(rule.check, MetricCheck) and isinstance(rule.check.metric, RowCountMatchMetric):
        diff = _row_count_difference(rows, metric_value)
        said = "pass" if diff == 0 else "fail"
        return {**(details or {}), KEY: {"outcome": said, "value": diff}}
    numbers = {
        "outcome": _changed(details) if isinstance(rule.check, SchemaChangeCheck) else soda_outcome(
            rule, failed_count, rows, metric_value
        ),
        "value": None if isinstance(rule.check, SchemaCheck) else soda_value(
            rule, failed_count, metric_value
        ),
    }  # fmt: skip
    return {**(details or {}), KEY: numbers}


def _changed(details: Mapping[str, Any] | None) -> str | None:
    """Soda's outcome of ``when schema changes``: none without an earlier schema (Soda
    skips the check), else fail or warn by the changes found."""
    said = (details or {}).get("schema_change") or {}
    if said.get("earlier") is None:
        return None
    return "fail" if said["failing"] else "warn" if said["warning"] else "pass"


def _grouped(details: Mapping[str, Any] | None) -> str | None:
    """Soda's outcome of a group by's check over its groups: fail when a group's check
    fails, else warn when one warns (Soda's group by check itself passes then)."""
    said = details or {}
    if "groups" not in said:
        return None
    if said.get("failed_groups"):
        return "fail"
    return "warn" if said.get("warned_groups") else "pass"


def _row_count_difference(rows: int | None, percent: object) -> int | None:
    """Soda's value of ``row_count same as``: the rows minus the other dataset's, from
    the rows and their percentage of the other's (none when the other is empty: then
    the other has 0 rows); None when the rows are 0 of a non-empty other's."""
    if rows is None:
        return None
    if percent is None:
        return rows
    if not percent:
        return None
    return rows - round(100.0 * rows / float(percent))  # type: ignore[arg-type]

"""The data contract's view of a rule's result (``details.odcs``, docs/dialects.md
"Data contracts"): which schema object, property and quality entry the rule comes from,
the check as datacontract-cli names it (its type and key), the metric, threshold and unit
written, the number datacontract-cli reports for it (``measured``: the failing values or
rows, the metric, a percentage) and its result in datacontract-cli's words (``passed``,
``warning``, ``failed``, ``error``)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from assay.dialects.odcs_rules import PARAM
from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import MetricCheck, RowCheck, Rule, SqlCheck, UniqueCheck
from assay.ir.values import Pairs

KEY = "odcs"
"""The key of the contract's view in a result's ``details``."""
RESULTS = {"pass": "passed", "warn": "warning", "fail": "failed", "error": "error"}


def _plain(value: object) -> object:
    if isinstance(value, Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value


def measured(rule: Rule, failed_count: int | None, metric_value: object) -> object:
    """The number datacontract-cli reports for the check: a metric's value, the failing
    rows of a constraint, the duplicated values of a uniqueness check."""
    if isinstance(rule.check, MetricCheck):
        return float(metric_value) if isinstance(metric_value, Decimal) else metric_value
    if isinstance(rule.check, (RowCheck, UniqueCheck, ForeignKeyCheck)):
        return failed_count
    if isinstance(rule.check, SqlCheck) and rule.check.mode == "value":
        return metric_value  # a nested field's duplicated values, counted by its query
    return None


def with_odcs_view(
    details: Mapping[str, Any] | None,
    rule: Rule,
    severity: str,
    failed_count: int | None,
    metric_value: object,
) -> dict[str, Any] | None:
    """A result's ``details`` with the contract's view under :data:`KEY` when the rule
    was read from a data contract (unchanged otherwise)."""
    view = dict(rule.params).get(PARAM)
    if not isinstance(view, Pairs):
        return dict(details) if details is not None else None
    found = {k: _plain(v) for k, v in view}
    found["measured"] = measured(rule, failed_count, metric_value)
    found["result"] = RESULTS.get(severity, severity)
    return {**(details or {}), KEY: found}

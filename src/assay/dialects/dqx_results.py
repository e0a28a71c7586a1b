"""DQX's view of a check's result, read from what assay measured (the result's
``details.dqx``, docs/dialects.md "DQX checks files"): the check's name and function, the
result column its failing rows land in (``_errors`` for ``criticality: error``,
``_warnings`` for ``warn``), how many rows land there, and DQX's message (``{value}``
where DQX writes the row's value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.dialects.dqx import is_dqx
from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import RowCheck, Rule, SqlCheck, UniqueCheck

KEY = "dqx"
"""The key of DQX's view in a result's ``details``."""


def dqx_view(rule: Rule, failed_count: int | None) -> dict[str, Any]:
    """DQX's view of ``rule``'s result. A row check (or ``is_unique``, ``foreign_key``, a
    time-window check: a SQL rule returning the rows DQX flags) puts its failing rows in
    the result column; an aggregate check puts every row its filter keeps there when it
    fails (``rows`` is then not counted: None)."""
    params = dict(rule.params)
    row_level = isinstance(rule.check, (RowCheck, UniqueCheck, ForeignKeyCheck)) or (
        isinstance(rule.check, SqlCheck) and rule.check.mode == "failed_rows"
    )
    return {
        "name": rule.name,
        "function": params.get("function"),
        "criticality": rule.level,
        "column": "_warnings" if rule.level == "warn" else "_errors",
        "rows": failed_count if row_level else None,
        "every_row_when_failing": not row_level,
        "message": params.get("dqx_message"),
    }


def with_dqx_view(
    details: Mapping[str, Any] | None, rule: Rule, failed_count: int | None
) -> dict[str, Any] | None:
    """A result's ``details`` with DQX's view under :data:`KEY` when the rule is a DQX
    check (unchanged otherwise)."""
    if not is_dqx(rule):
        return dict(details) if details is not None else None
    return {**(details or {}), KEY: dqx_view(rule, failed_count)}

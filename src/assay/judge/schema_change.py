"""The verdict of a ``schema_change`` rule (pure): the table's schema, read before any
scan, against the newest one the metrics store recorded for it in an earlier run
(docs/monitoring.md#schema-changes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.rules import Rule
from assay.judge.outcome import Outcome, failed_severity
from assay.monitoring.schemas import Column, Earlier, changes

FIRST_RUN = "no earlier schema: first run"


def judge_schema_change(
    rule: Rule, schema: Sequence[tuple[str, str]], earlier: Earlier | str | None
) -> Outcome:
    """Judge a ``schema_change`` rule: ``schema`` is the table's ``(column, Spark type)``
    pairs now; ``earlier`` the store's newest earlier schema of the table, None when it
    holds none (the first run passes, as a change rule's does), or why the store could
    not be read (the rule is an error: it did not run as written)."""
    check = rule.check
    assert isinstance(check, SchemaChangeCheck)
    if isinstance(earlier, str):
        return Outcome("error", None, None, f"not judged over time: {earlier}")
    if earlier is None:
        said = {"earlier": None, "columns": len(schema), **_lists()}
        return Outcome("pass", 0, None, FIRST_RUN, {"schema_change": said})
    now = tuple(Column(name, kind, i) for i, (name, kind) in enumerate(schema, 1))
    found = changes(earlier.columns, now, check.order)
    failing = [k for k in found.kinds if k in check.fail_when]
    warning = [k for k in found.kinds if k in check.warn_when and k not in failing]
    since = f"since the last run ({earlier.run_time})"
    details: dict[str, Any] = {
        "earlier": {"run_time": earlier.run_time, "run_id": earlier.run_id,
                    "columns": len(earlier.columns)},
        "columns": len(now),
        **found.to_dict(),
        "failing": failing,
        "warning": warning,
    }  # fmt: skip
    if not found.kinds:
        message = f"schema unchanged {since}: {len(now)} columns"
        return Outcome("pass", 0, None, message, {"schema_change": details})
    message = f"schema changed {since}: {'; '.join(found.sentences())}"
    allowed = [k for k in found.kinds if k not in failing and k not in warning]
    if allowed:
        message += f" ({', '.join(allowed)}: allowed by the rule)"
    counted = sum(found.of(k) for k in (failing or warning))
    if failing:
        return Outcome(failed_severity(rule), counted, None, message, {"schema_change": details})
    if warning:
        return Outcome("warn", counted, None, message, {"schema_change": details}, held=True)
    return Outcome("pass", 0, None, message, {"schema_change": details})


def _lists() -> dict[str, list[Any]]:
    return {"added": [], "removed": [], "retyped": [], "reordered": [], "failing": [],
            "warning": []}  # fmt: skip

"""Running validator functions (:mod:`assay.validators`) beside a table's fused plans.

The planner never sees a validator rule: :func:`split` takes them out of the table before
planning, :func:`run_validators` calls each function with the table's DataFrame after the
table's own plans, and :func:`merged` puts their results back in config order and adds
their declared plans to the table's ``spark_plans``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.dialects.validator_functions import VALIDATORS, ValidatorResult, declared_plans
from assay.executor.results import judged, rule_result
from assay.executor.table import TableOutcome, table_totals
from assay.ir.rules import Rule, ValidatorCheck
from assay.ir.suite import RunPolicy, Table
from assay.judge.evaluate import Outcome, failed_severity
from assay.monitoring.identity import identities
from assay.report.events import RuleResult, json_safe

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def run_validators(
    df: DataFrame, table: Table, indices: Sequence[int], run_id: str, skipped: str | None
) -> list[RuleResult]:
    """Each validator rule's result; ``skipped`` (the table's error) marks them all as not
    evaluated. A function that raises gives an ``error`` result naming what it raised."""
    results = []
    for index in indices:
        rule = table.rules[index]
        start = time.monotonic()
        if skipped is not None:
            verdict: ValidatorResult | str = f"not evaluated: {skipped}"
        else:
            verdict = _call(rule, df)
        elapsed = int((time.monotonic() - start) * 1000)
        results.append(_result(run_id, table, index, rule, verdict, elapsed))
    return results


def _call(rule: Rule, df: DataFrame) -> ValidatorResult | str:
    assert isinstance(rule.check, ValidatorCheck)
    validator = VALIDATORS.get(rule.check.validator)
    if validator is None:
        return f"validator {rule.check.validator} is no longer registered"
    try:
        out = validator.fn(df, dict(rule.params))
    except Exception as e:  # noqa: BLE001 - a validator's bug is its rule's error
        return f"validator {rule.kind} raised {type(e).__name__}: {e}"
    if isinstance(out, bool):
        return ValidatorResult(out)
    if not isinstance(out, ValidatorResult):
        return f"validator {rule.kind} returned {type(out).__name__}, not ValidatorResult or bool"
    return out


def _result(
    run_id: str,
    table: Table,
    index: int,
    rule: Rule,
    verdict: ValidatorResult | str,
    elapsed_ms: int,
) -> RuleResult:
    if isinstance(verdict, str):
        outcome = Outcome("error", None, None, verdict)
        samples = None
    else:
        severity = "pass" if verdict.passed else failed_severity(rule)
        message = verdict.message or ("passed" if verdict.passed else "failed")
        outcome = Outcome(severity, verdict.failed_count, verdict.metric_value, message)
        samples = _samples(verdict.samples, table.sample_size)
    identity = identities(table.rules)[index]
    return rule_result(
        run_id, table.name, index, rule, outcome, None, samples, elapsed_ms, identity
    )


def _samples(
    rows: Sequence[Mapping[str, Any]] | None, limit: int
) -> tuple[dict[str, Any], ...] | None:
    if rows is None:
        return None
    return tuple(json_safe(dict(r)) for r in list(rows)[:limit])


def merged(
    outcome: TableOutcome,
    table: Table,
    indices: Sequence[int],
    results: Sequence[RuleResult],
    policy: RunPolicy,
) -> TableOutcome:
    """The table's outcome with the validators' results in config order, judged by the
    run's policy as every other result is, and their declared plans counted."""
    where = set(indices)
    kept = [i for i in range(len(table.rules)) if i not in where]
    events = [dataclasses.replace(e, rule_index=kept[e.rule_index]) for e in outcome.events]
    events += [judged(policy, table.rules[r.rule_index], r) for r in results]
    events.sort(key=lambda e: e.rule_index)
    row_count = outcome.finished.row_count
    events = [
        dataclasses.replace(e, row_count=row_count) if e.rule_index in where else e for e in events
    ]
    f = outcome.finished
    finished = table_totals(
        f.run_id,
        table,
        events,
        row_count,
        spark_plans=f.spark_plans + (declared_plans(table) if f.error is None else 0),
        elapsed_ms=f.elapsed_ms + sum(r.elapsed_ms for r in results),
        error=f.error,
        outputs=f.outputs,
    )
    return TableOutcome(events, dataclasses.replace(finished, detail=f.detail))

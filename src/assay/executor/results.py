"""A rule's result event: built from its outcome, then judged by the run's policy
(whether it fails the run, or why not). Every rule's result is built and judged here, the
fused rules' (:mod:`assay.executor.table`) and the validator functions'
(:mod:`assay.executor.validators`) alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from assay.evaluate import Outcome
from assay.ir.rules import Rule
from assay.ir.suite import RunPolicy
from assay.planner.expectation import expect_params, expectation
from assay.report.events import RuleResult


def judged(policy: RunPolicy, rule: Rule, result: RuleResult) -> RuleResult:
    """The result with what the policy makes of it: whether it fails the run, or why not."""
    if result.passed or result.severity == "error":
        return result
    if policy.blocks(rule):
        return dataclasses.replace(result, blocking=True)
    return dataclasses.replace(result, waiver=policy.waiver(rule))


def rule_result(
    run_id: str,
    table: str,
    index: int,
    rule: Rule,
    outcome: Outcome,
    row_count: int | None,
    samples: Sequence[Mapping[str, Any]] | None,
    elapsed_ms: int,
) -> RuleResult:
    """The result event of ``rule`` (the ``index``-th of ``table``) from its outcome, not
    yet judged by the run's policy (:func:`judged`)."""
    return RuleResult(
        run_id=run_id,
        table=table,
        rule_index=index,
        rule_type=rule.kind,
        rule_name=rule.name,
        columns=rule.columns,
        code=rule.code,
        passed=outcome.passed,
        severity=outcome.severity,
        failed_count=outcome.failed_count,
        row_count=outcome.rows if outcome.rows is not None else row_count,
        metric_value=outcome.metric_value,
        threshold=rule.threshold,
        message=outcome.message,
        samples=tuple(dict(s) for s in samples) if samples is not None else None,
        origin=rule.origin,
        elapsed_ms=elapsed_ms,
        details=dict(outcome.details) if outcome.details is not None else None,
        expect=expectation(rule),
        params=expect_params(rule),
    )

"""A rule's result event: built from its outcome, then judged by the run's policy
(whether it fails the run, or why not); a table's line counted from its results. Every
rule's result is built and judged here, the fused rules'
(:mod:`assay.executor.stages.over_time`) and the validator functions'
(:mod:`assay.executor.validators`) alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.dialects.great_expectations_results import with_gx_numbers
from assay.dialects.odcs_results import with_odcs_view
from assay.ir.rules import Rule
from assay.ir.suite import RunPolicy, Table
from assay.judge.outcome import Outcome
from assay.monitoring.judging import judge_over_time
from assay.monitoring.records import as_number, tracked_measure
from assay.monitoring.series import Point
from assay.planner.expectation import expect_params, expectation
from assay.report.events import RuleResult, TableFinished

_SEVERITY_ORDER = ("pass", "warn", "fail", "error")


@dataclass(frozen=True)
class TableOutcome:
    """The events of one table, in config order, and its totals; ``planner_calls``: the
    planner calls its run cost (none for a table that was not prepared)."""

    events: list[RuleResult]
    finished: TableFinished
    planner_calls: int = 0
    states: tuple[dict[str, Any], ...] = ()
    """An incremental table's states, stored with the run's values (docs/incremental.md)."""


def table_totals(
    run_id: str,
    table: Table,
    results: Sequence[RuleResult],
    row_count: int | None,
    *,
    spark_plans: int,
    elapsed_ms: int,
    error: str | None = None,
    outputs: tuple[dict[str, Any], ...] = (),
) -> TableFinished:
    """A table's line, counted from its results: ``failed`` and ``warned`` results of
    severity fail and warn, ``errors`` rules not evaluated (a table error after its
    verdicts, such as a failed write, counts as one), ``blocking`` the failed rules that
    fail the run."""
    errors = sum(r.severity == "error" for r in results)
    if error is not None and errors == 0:
        errors = 1
    return TableFinished(
        run_id=run_id,
        table=table.name,
        origin=table.origin,
        row_count=row_count,
        rules=len(results),
        failed=sum(r.severity == "fail" for r in results),
        warned=sum(r.severity == "warn" for r in results),
        errors=errors,
        spark_plans=spark_plans,
        elapsed_ms=elapsed_ms,
        error=error,
        outputs=outputs,
        blocking=sum(r.blocking for r in results),
    )


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
    identity: str | None = None,
) -> RuleResult:
    """The result event of ``rule`` (the ``index``-th of ``table``) from its outcome, not
    yet judged by the run's policy (:func:`judged`)."""
    rows = outcome.rows if outcome.rows is not None else row_count
    shown = tuple(dict(s) for s in samples) if samples is not None else None
    numbers = (outcome.failed_count, rows, outcome.metric_value, shown)
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
        row_count=rows,
        metric_value=outcome.metric_value,
        threshold=rule.threshold,
        message=outcome.message,
        samples=shown,
        origin=rule.origin,
        elapsed_ms=elapsed_ms,
        details=with_odcs_view(  # GX suites, data contracts: docs/dialects.md
            with_gx_numbers(
                outcome.details, rule, *numbers, row_count, outcome.severity != "error"
            ),
            rule,
            outcome.severity,
            outcome.failed_count,
            outcome.metric_value,
        ),  # fmt: skip
        expect=expectation(rule),
        params=expect_params(rule),
        identity=identity,
    )


def judged_over_time(rule: Rule, result: RuleResult, points: Sequence[Point] | str) -> RuleResult:
    """The result of a rule with ``change`` or ``anomaly`` judged against its earlier
    values too (docs/monitoring.md): it fails when its own check or its history says so
    (a failure is ``warn`` for a rule of level warn), warns on a change's own warn
    threshold; ``baseline`` says what it was judged against. A rule not evaluated is
    not judged over time; when ``points`` is a text (why the history could not be read)
    the rule is an error: it did not run as written."""
    over = rule.over_time
    if over is None or result.severity == "error":
        return result
    if isinstance(points, str):
        why = f"not judged over time: {points}"
        return dataclasses.replace(result, passed=False, severity="error", message=why)
    measure = tracked_measure(rule)
    value = as_number(getattr(result, measure))
    if value is None:
        baseline = {"runs": len(points), "points": [], "verdict": "pass", "measure": measure,
                    "value": None, "note": "no value measured: not judged over time"}  # fmt: skip
        return dataclasses.replace(result, baseline=baseline)
    judgement = judge_over_time(over, value, points)
    baseline = {**judgement.baseline, "verdict": judgement.verdict, "measure": measure,
                "value": value}  # fmt: skip
    message = f"{result.message}; {judgement.message}"
    if judgement.verdict == "pass":
        return dataclasses.replace(result, baseline=baseline, message=message)
    failing = judgement.verdict == "fail"
    level = ("fail" if rule.level == "error" else "warn") if failing else "warn"
    severity = max(result.severity, level, key=_SEVERITY_ORDER.index)
    return dataclasses.replace(
        result,
        passed=result.passed and not failing,
        severity=severity,
        message=message,
        baseline=baseline,
    )

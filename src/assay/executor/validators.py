"""Running validator functions (:mod:`assay.dialects.validator_functions`) beside a table's
fused plans.

The planner never sees a validator rule: :func:`split` takes them out of the table before
planning, :func:`run_validators` calls each function with the table's DataFrame after the
table's own plans (through the table's submitter: :func:`call_validator`), its verdict
judged by :data:`assay.judge.evaluate.JUDGES`, and :func:`merged` puts their results back in
config order and adds their declared plans to the table's ``spark_plans``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.dialects.validator_functions import VALIDATORS, ValidatorResult, declared_plans
from assay.executor.results import TableOutcome, judged, rule_result, table_totals
from assay.ir.rules import Rule, ValidatorCheck
from assay.ir.suite import RunPolicy, Table
from assay.judge.evaluate import judge
from assay.judge.outcome import Evidence
from assay.monitoring.identity import identities
from assay.report.events import RuleResult, json_safe

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def run_validators(
    call: Callable[[Rule], ValidatorResult | str],
    table: Table,
    indices: Sequence[int],
    run_id: str,
    skipped: str | None,
) -> list[RuleResult]:
    """Each validator rule's result, its function called by ``call``
    (:func:`call_validator` on the table's DataFrame); ``skipped`` (the table's error)
    marks them all as not evaluated."""
    results = []
    for index in indices:
        rule = table.rules[index]
        start = time.monotonic()
        if skipped is not None:
            verdict: ValidatorResult | str = f"not evaluated: {skipped}"
        else:
            verdict = call(rule)
        elapsed = int((time.monotonic() - start) * 1000)
        results.append(_result(run_id, table, index, rule, verdict, elapsed))
    return results


def call_validator(rule: Rule, df: DataFrame) -> ValidatorResult | str:
    """What ``rule``'s function returns on ``df``; a text when it raised (naming what it
    raised), returned something else, or is no longer registered."""
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
    outcome = judge(rule, Evidence(verdict=verdict))
    samples = None if isinstance(verdict, str) else _samples(verdict.samples, table.sample_size)
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
    return dataclasses.replace(
        outcome, events=events, finished=dataclasses.replace(finished, detail=f.detail)
    )

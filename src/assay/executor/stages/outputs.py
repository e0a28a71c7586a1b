"""The outputs stage: a table's validator functions (their results merged in config
order) and its outputs written, after its verdicts."""

from __future__ import annotations

import dataclasses

from assay.dialects.validator_functions import declared_plans
from assay.dialects.validator_functions import split as split_validators
from assay.errors import AssayError
from assay.executor import validators
from assay.executor.results import TableOutcome
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Submitter
from assay.ir.suite import DEFAULT_POLICY, RunPolicy, Table
from assay.planner.render import render_source


def finish(
    planned: Planned,
    whole: Table,
    outcome: TableOutcome,
    submitter: Submitter,
    run_id: str,
    policy: RunPolicy = DEFAULT_POLICY,
) -> TableOutcome:
    """The table's line with its source and keys; ``whole`` (the table as configured)'s
    validator rules run and judged; its outputs written when it has no error (a failed
    write is the table's error, exit 3)."""
    table = planned.plan.table
    described = dataclasses.replace(
        outcome.finished, source=render_source(table.source), keys=tuple(planned.keys)
    )
    outcome = dataclasses.replace(outcome, finished=described)
    _, indices = split_validators(whole)
    if indices:
        submitter.note(f"{len(indices)} validators ({declared_plans(whole)} plans of their own)")
        found = validators.run_validators(
            submitter.validate, whole, indices, run_id, outcome.finished.error
        )
        outcome = validators.merged(outcome, whole, indices, found, policy)
    if table.outputs and outcome.finished.error is None:
        outcome = _written(outcome, submitter)
    return outcome


def _written(outcome: TableOutcome, submitter: Submitter) -> TableOutcome:
    finished = outcome.finished
    try:
        written, plans = submitter.write(outcome.events)
    except AssayError as error:
        finished = dataclasses.replace(finished, error=str(error), errors=max(finished.errors, 1))
        return dataclasses.replace(outcome, finished=finished)
    finished = dataclasses.replace(
        finished, spark_plans=finished.spark_plans + plans, outputs=tuple(written)
    )
    return dataclasses.replace(outcome, finished=finished)

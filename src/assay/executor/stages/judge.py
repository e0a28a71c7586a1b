"""The judge stage: an :class:`~assay.outcome.Outcome` per rule, each from the
:class:`~assay.outcome.Evidence` its check reads (:data:`assay.evaluate.JUDGES`)."""

from __future__ import annotations

from dataclasses import dataclass

from assay.executor.stages.aggregate import Measured
from assay.executor.stages.prepared import Planned
from assay.judge.evaluate import judge
from assay.judge.outcome import Evidence, Outcome
from assay.monitoring.schemas import Earlier
from assay.planner.measures import RowCount


@dataclass(frozen=True)
class Judged:
    """The verdict on each rule of the planned table, in config order, and the table's
    row count (None when nothing counted it)."""

    outcomes: tuple[Outcome, ...]
    row_count: int | None


def judge_rules(
    planned: Planned, measured: Measured, earlier: Earlier | str | None = None
) -> Judged:
    """Every rule judged; a rule Spark could not compute, or left out of the plans, is
    an ``error`` with why. ``earlier``: the table's last schema in the metrics store
    (:attr:`~assay.judge.outcome.Evidence.earlier`)."""
    plan = planned.plan
    folded = {f.rule_index: f for f in plan.folded}
    failed = {**planned.rule_errors, **measured.failed}
    outcomes = []
    for index, rule in enumerate(plan.table.rules):
        if index in failed:
            outcomes.append(Outcome("error", None, None, failed[index]))
            continue
        answer = measured.queries.get(index)
        if index in folded:  # a SQL rule answered from the aggregate's values
            answer = (1, folded[index].answer(measured.values[folded[index].measure]))
        evidence = Evidence(measured.values, planned.schema, answer, earlier=earlier)
        outcomes.append(judge(rule, evidence))
    row_count = measured.values.get(RowCount())
    rows = int(row_count) if row_count is not None else None  # type: ignore[call-overload]
    return Judged(tuple(outcomes), rows)

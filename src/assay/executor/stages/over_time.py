"""The results stage: each rule's result event from its verdict and samples, judged over
time against its history (change, anomaly: docs/monitoring.md), then by the run's
policy; the table's line counted from them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.executor.results import (
    TableOutcome,
    judged,
    judged_over_time,
    rule_result,
    table_totals,
)
from assay.ir.suite import DEFAULT_POLICY, RunPolicy, Table
from assay.judge.outcome import Outcome
from assay.monitoring.identity import identities
from assay.monitoring.series import History

NO_HISTORY: History = {}


@dataclass(frozen=True)
class Ran:
    """What a table's run came to before its results: the verdicts (in config order),
    its row count and samples, the Spark plans and planner calls it cost, its
    milliseconds, and its error (a sentence, and Spark's words) when it failed."""

    outcomes: Sequence[Outcome]
    row_count: int | None = None
    samples: Mapping[int, list[dict[str, Any]]] = field(default_factory=dict)
    plans: int = 0
    planner_calls: int = 0
    elapsed_ms: int = 0
    error: str | None = None
    detail: str | None = None


def results(
    run_id: str,
    table: Table,
    ran: Ran,
    policy: RunPolicy = DEFAULT_POLICY,
    history: History | str = NO_HISTORY,
) -> TableOutcome:
    """The table's events and line; ``history`` holds the earlier values of its rules
    judged over time (a text: why they could not be read)."""
    ids = identities(table.rules)
    events = []
    for i, rule in enumerate(table.rules):
        outcome, samples = ran.outcomes[i], ran.samples.get(i)
        result = rule_result(
            run_id, table.name, i, rule, outcome, ran.row_count, samples, ran.elapsed_ms, ids[i]
        )
        points = history if isinstance(history, str) else history.get((table.name, ids[i]), ())
        events.append(judged(policy, rule, judged_over_time(rule, result, points)))
    finished = table_totals(run_id, table, events, ran.row_count, spark_plans=ran.plans,
                            elapsed_ms=ran.elapsed_ms, error=ran.error)  # fmt: skip
    return TableOutcome(events, dataclasses.replace(finished, detail=ran.detail), ran.planner_calls)

"""One table's run: its stages (:mod:`assay.executor.stages`) in order, through one
submitter and the table's scan (full or incremental, chosen once: :mod:`.stages.scan`):
measure (the aggregate plan, containment), judge, sample (the detail plan), results (over
time, the run's policy; the states the run stores), finish (validators, outputs)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay.executor.results import TableOutcome as TableOutcome
from assay.executor.results import table_totals as table_totals
from assay.executor.spark_errors import failure_sentence, spark_message
from assay.executor.stages.outputs import finish
from assay.executor.stages.over_time import Ran, results
from assay.executor.stages.prepared import Planned
from assay.executor.stages.prepared import Prepared as Prepared
from assay.executor.stages.scan import scan_for
from assay.executor.stages.submitter import Submitter
from assay.executor.stages.submitter import aggregate_values as aggregate_values
from assay.ir.suite import DEFAULT_POLICY, RunPolicy, Table
from assay.judge.outcome import Outcome
from assay.monitoring.schemas import earlier_schema
from assay.monitoring.series import History
from assay.monitoring.states import Stored


@dataclass(frozen=True)
class TableContext:
    """What one table's run takes from its run: the run's id, its policy (which failed
    rules fail the run), the server's name in errors, and the history of the rules judged
    over time (a text: why it could not be read)."""

    run_id: str
    policy: RunPolicy = DEFAULT_POLICY
    server: str = "the Spark Connect server"
    history: History | str = field(default_factory=dict)
    states: Mapping[str, Stored] | str = field(default_factory=dict)
    """The stored states of the incremental tables, by name (a text: why they could not
    be read: every partition is then scanned)."""
    full: bool = False
    """``--full``: an incremental table scans every partition, its states rebuilt."""


def run_table(
    submitter: Submitter, planned: Planned, context: TableContext, whole: Table | None = None
) -> TableOutcome:
    """Run one planned table through ``submitter``; a Spark failure becomes an ``error``
    result per rule and the table's error. ``whole`` is the table as configured, with its
    validator rules (default: the planned table)."""
    start = time.monotonic()
    table = planned.plan.table
    scan = scan_for(table, context.history, context.states, context.full)  # full or incremental
    try:
        measured = scan.measure(planned, submitter)
        judged = scan.judge(planned, measured, earlier_schema(context.history, table.name))
        sampled = scan.sample(planned, judged, measured, submitter)
        planner_calls = planned.planner_calls + measured.planner_calls + sampled.planner_calls
        ran = Ran(judged.outcomes, judged.row_count, sampled.samples, planner_calls=planner_calls)
    except Exception as exc:  # noqa: BLE001 - reported as the table's error, exit 3
        step = submitter.step
        why = f"not evaluated: table {table.name}'s {step} failed (see its table line)"
        ran = Ran(
            [Outcome("error", None, None, why) for _ in table.rules],
            planner_calls=planned.planner_calls,
            error=failure_sentence(exc, server=context.server, table=table.name, step=step),
            detail=spark_message(exc, max_lines=200),
        )
    elapsed = int((time.monotonic() - start) * 1000)
    ran = dataclasses.replace(ran, plans=submitter.plans, elapsed_ms=elapsed)
    outcome = scan.outcome(results(context.run_id, table, ran, context.policy, context.history))
    return finish(planned, whole or table, outcome, submitter, context.run_id, context.policy)


def unreadable_table(
    run_id: str, table: Table, error: str, policy: RunPolicy = DEFAULT_POLICY
) -> TableOutcome:
    """The outcome of a table that could not be prepared (its source unreadable, an
    output's format missing on the server): every rule ``error``, the table's error the
    reason; the other tables still run."""
    why = f"not evaluated: table {table.name} could not be prepared (see its table line)"
    ran = Ran([Outcome("error", None, None, why) for _ in table.rules], error=error)
    return results(run_id, table, ran, policy)

"""How a table's run reads its values, chosen once per table (:func:`scan_for`): a
:class:`Scan` of the whole table (its one aggregate, the detail plan over every row), or
an :class:`IncrementalScan` (docs/incremental.md: the partitions new or changed since the
stored states, merged with them). Both have the same steps, which
:func:`assay.executor.table.run_table` calls in order: measure, judge, sample, outcome.

Drift against the metrics store's history (docs/rules.md#drift) is part of those steps,
a no-op without such rules: measuring puts the stored distributions beside this run's
sketches, judging passes a first run, and the outcome carries this run's distributions
to store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay.executor.results import TableOutcome
from assay.executor.stages.aggregate import Measured, measure
from assay.executor.stages.detail import Sampled, every_row_rule, sample
from assay.executor.stages.drift_history import (
    drift_states,
    first_runs,
    stored_with,
    with_rates,
    with_stored,
)
from assay.executor.stages.incremental import Scanned, measure_incremental
from assay.executor.stages.judge import Judged, judge_rules
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Submitter
from assay.ir.suite import Table
from assay.monitoring.schemas import Earlier
from assay.monitoring.series import History
from assay.monitoring.states import Stored


@dataclass
class Scan:
    """A full scan of ``table``, ``history`` the metrics store's earlier values (a text:
    why it could not be read). One per table's run: it keeps what it measured, for the
    states its outcome stores."""

    table: Table
    history: History | str = field(default_factory=dict)
    measured: Measured | None = None
    judged: bool = False

    def measure(self, planned: Planned, submitter: Submitter) -> Measured:
        """The measure stage: the table's values, each drift rule's against history with
        the distributions stored for its baseline beside it."""
        found = self._values(with_rates(planned, self.history), submitter)
        values = with_stored(self.table, found.values, self.history)
        self.measured = dataclasses.replace(found, values=values)
        return self.measured

    def _values(self, planned: Planned, submitter: Submitter) -> Measured:
        return measure(planned, submitter)

    def judge(self, planned: Planned, measured: Measured, earlier: Earlier | str | None) -> Judged:
        """The judge stage: every rule judged; a drift rule against history with nothing
        stored passes as a first run."""
        judged = judge_rules(planned, measured, earlier)
        outcomes = first_runs(self.table, judged.outcomes, measured.values, self.history)
        self.judged = True
        return dataclasses.replace(judged, outcomes=outcomes)

    def sample(
        self, planned: Planned, judged: Judged, measured: Measured, submitter: Submitter
    ) -> Sampled:
        """The detail stage: the failing rows of the failed row-level rules."""
        return sample(planned, judged, measured.values, submitter)

    def outcome(self, outcome: TableOutcome) -> TableOutcome:
        """The results stage's outcome with the states this run stores: each drift rule's
        distribution once judged."""
        if self.measured is None or not self.judged:
            return outcome
        return stored_with(outcome, drift_states(self.table, self.measured.values))


@dataclass
class IncrementalScan(Scan):
    """An incremental table's scan (docs/incremental.md): ``stored`` its partitions'
    states, ``full`` every partition scanned (``--full``); ``scanned`` what it read."""

    stored: Stored = field(default_factory=Stored)
    full: bool = False
    scanned: Scanned | None = None

    def _values(self, planned: Planned, submitter: Submitter) -> Measured:
        measured, self.scanned = measure_incremental(
            self.table, planned.schema, submitter, self.stored, self.full
        )
        return measured

    def judge(self, planned: Planned, measured: Measured, earlier: Earlier | str | None) -> Judged:
        """The whole table's verdicts; the rules of ``scope: new`` judged on the
        partitions scanned alone."""
        judged = super().judge(planned, measured, earlier)
        rules = self.table.rules
        if self.scanned is None or all(rule.scope == "table" for rule in rules):
            return judged
        new = judge_rules(planned, self.scanned.new)
        outcomes = tuple(
            (n if n.rows is not None else dataclasses.replace(n, rows=new.row_count))
            if rule.scope == "new" else o
            for rule, o, n in zip(rules, judged.outcomes, new.outcomes, strict=True)
        )  # fmt: skip
        return dataclasses.replace(judged, outcomes=outcomes)

    def sample(
        self, planned: Planned, judged: Judged, measured: Measured, submitter: Submitter
    ) -> Sampled:
        """The detail plan over the partitions scanned (the new data), for the rules
        that fail on it (those asked beside the aggregate kept from there); none when
        nothing was scanned. A rule's samples are ordered by every row rule's columns,
        so they do not depend on which rules failed, nor on whether they were asked
        early (docs/incremental.md#samples)."""
        assert self.scanned is not None
        if not self.scanned.scanned:
            return Sampled()
        new, asked = self.scanned.new, self.scanned.asked
        judged_new = judge_rules(planned, new)
        every = every_row_rule(planned)
        return sample(planned, judged_new, new.values, submitter, asked, ordered_by=every)

    def outcome(self, outcome: TableOutcome) -> TableOutcome:
        """The outcome saying what the run scanned and merged: each result judged on the
        whole table or the new data (its ``scope``), exactly or (a sketched distinct
        count) not, with its bounds; the states to store (none when the table failed)."""
        scanned = self.scanned
        if scanned is None or outcome.finished.error is not None:
            return super().outcome(outcome)
        scopes = {i: rule.scope for i, rule in enumerate(self.table.rules)}
        guessed = scanned.estimates
        events = [dataclasses.replace(e, scope=scopes.get(e.rule_index, "table"),
                                      exact=e.rule_index not in guessed,
                                      estimate=guessed.get(e.rule_index))
                  for e in outcome.events]  # fmt: skip
        finished = dataclasses.replace(outcome.finished, incremental=scanned.said())
        said = dataclasses.replace(
            outcome, events=events, finished=finished, states=tuple(scanned.states)
        )
        return super().outcome(said)


def scan_for(
    table: Table, history: History | str, states: Mapping[str, Stored] | str, full: bool
) -> Scan:
    """The scan of ``table``: incremental when it says so (its stored states among
    ``states``; none when the store could not be read: every partition is then
    scanned), else full."""
    if table.incremental is None:
        return Scan(table, history)
    stored = Stored() if isinstance(states, str) else states.get(table.name, Stored())
    return IncrementalScan(table, history, stored=stored, full=full)

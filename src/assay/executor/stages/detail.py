"""The detail stage: up to N failing rows per failed row-level rule.

A small incremental scan asks its samples early (:func:`ask_beside`): those of the rules
likely to fail (that failed on its latest stored partition), in flight beside its
aggregate, on the core the one-task aggregate leaves idle; :func:`sample` then keeps the
failed rules' (waiting for it even when none failed: it then keeps no row and ends
soon), or cancels it when one fails on too many rows for its one shared sort; the rules
failed and not asked are sampled after, as ever.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.executor.stages.judge import Judged
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Asked, Samples, SparkSubmitter, Submitter
from assay.judge.outcome import Values
from assay.judge.preflight import orderable
from assay.planner import plan_detail
from assay.planner.cost import heavy
from assay.planner.measures import ColumnAgg
from assay.planner.plan import DetailEntry, DetailPlan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class Sampled:
    """Sample rows by rule index (every failed row-level rule has an entry) and the
    planner calls it cost (``plan_detail``)."""

    samples: Mapping[int, list[dict[str, Any]]] = field(default_factory=dict)
    planner_calls: int = 0


def every_row_rule(planned: Planned) -> frozenset[int]:
    """The rules the table's detail plan can sample (its row-level rules): ordered by
    their columns, a rule's samples are the same whichever other rules failed."""
    detail = planned.plan.detail
    return frozenset(e.rule_index for e in detail.entries) if detail is not None else frozenset()


def _plain(entry: DetailEntry) -> bool:
    """A rule whose samples are the rows its test fails: no group (uniqueness, a metric
    per group), no join (a foreign key's own branch)."""
    return (entry.predicate is not None and entry.group is None and entry.grouped is None
            and entry.absent is None and entry.present is None)  # fmt: skip


def failed_rules(planned: Planned, judged: Judged) -> set[int]:
    """The rules to sample: row-level, failed (or warned) on some rows."""
    rules = planned.plan.table.rules
    return {
        i
        for i, (rule, o) in enumerate(zip(rules, judged.outcomes, strict=True))
        if rule.is_row_level and o.severity in ("fail", "warn") and (o.failed_count or 0) > 0
    }


def ask_beside(
    planned: Planned, submitter: SparkSubmitter, df: DataFrame, likely: Collection[int]
) -> Asked | None:
    """The samples over ``df`` of the plain rules among ``likely`` (those expected to
    fail), asked now and collected beside the caller's next plan (its aggregate);
    ordered by every row rule's columns, as :func:`sample` orders them given
    ``ordered_by=every_row_rule(planned)``, so they are the samples its plan would
    find. None when there is nothing to ask."""
    detail = planned.plan.detail
    if detail is None or detail.sample_size <= 0:
        return None
    plain = {e.rule_index for e in detail.entries if _plain(e) and e.rule_index in likely}
    if not plain:
        return None
    # no counts yet: one shared scan, no bounds, no branch of its own
    plan = _planned_detail(planned, plain, {}, ordered_by=every_row_rule(planned))
    if plan is None:
        return None
    submitter.note(f"detail plan (samples for {len(plan.entries)} rules, beside the aggregate)")
    return submitter.detail_beside(plan, df)


def sample(
    planned: Planned,
    judged: Judged,
    values: Values,
    submitter: Submitter,
    asked: Asked | None = None,
    ordered_by: Collection[int] | None = None,
) -> Sampled:
    """The detail plan of the failed row-level rules; then, for the rules whose
    key-bounded branch found fewer rows than they should, a second one without bounds.

    ``asked`` (:func:`ask_beside`): the samples already in flight for the rules it
    covers, kept unless one of them fails on ``detail_sort_rows`` rows or more (then it
    is cancelled and the failed ones planned as below, with their counts);
    ``ordered_by``: the rules whose columns order the samples (None: the failed rules')."""
    outcomes = judged.outcomes
    failed = failed_rules(planned, judged)
    samples: Samples = {}  # a failed rule sampled by a plan has a list, empty or not
    calls = 0
    if asked is not None:
        covered = {e.rule_index for e in asked.plan.entries}
        if heavy({i: outcomes[i].failed_count or 0 for i in covered}, planned.options):
            asked.cancel()  # too many rows for its one sort: planned below, with counts
        elif not failed & covered:  # none of its rules failed: its few rows are not needed
            asked.samples.exception()  # waited for (counted, run: one task), not read
        else:
            submitter.step = "detail plan"
            found = asked.samples.result()
            samples.update((i, found[i]) for i in failed & covered)
            failed -= covered
        calls = 1
    if not failed:
        return Sampled(samples, planner_calls=calls)
    failed_rows = {i: outcomes[i].failed_count or 0 for i in failed}
    key = planned.plan.key_range
    key_range = None
    if key is not None:
        key_range = (values.get(ColumnAgg("min", key)), values.get(ColumnAgg("max", key)))
    detail = _planned_detail(
        planned, failed, failed_rows, key_range=key_range, ordered_by=ordered_by
    )
    if detail is None:
        return Sampled(samples, planner_calls=calls + 1)
    submitter.note(f"detail plan (samples for {len(detail.entries)} failed rules)")
    samples.update({i: [] for i in failed} | submitter.detail(detail))
    short = {
        i for i, _ in detail.bounds if len(samples[i]) < min(detail.sample_size, failed_rows[i])
    }
    if not short:
        return Sampled(samples, planner_calls=calls + 1)
    # The second planner call: whether a rule's key-bounded branch found enough rows is
    # known only once the first detail plan has run (its failures crowd the top of the
    # key range); those rules are sampled again over the whole table.
    again = _planned_detail(planned, short, failed_rows, hash_bounds=False, ordered_by=ordered_by)
    assert again is not None
    submitter.note(f"detail plan again without key bounds ({len(short)} rules)")
    samples.update(submitter.detail(again))
    return Sampled(samples, planner_calls=calls + 2)


def _planned_detail(
    planned: Planned,
    rules: set[int],
    failed_rows: Mapping[int, int],
    *,
    key_range: tuple[object, object] | None = None,
    hash_bounds: bool = True,
    ordered_by: Collection[int] | None = None,
) -> DetailPlan | None:
    """The planner's detail plan for ``rules`` (one planner call)."""
    types = dict(planned.schema)
    return plan_detail(
        planned.plan,
        rules,
        planned.keys,
        lambda c: orderable(types.get(c, "")),
        failed_rows,
        planned.options,
        key_range,
        tuple(name for name, _ in planned.schema),
        hash_bounds,
        ordered_by,
    )

"""The detail stage: up to N failing rows per failed row-level rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.executor.stages.judge import Judged
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Samples, Submitter
from assay.judge.outcome import Values
from assay.judge.preflight import orderable
from assay.planner import plan_detail
from assay.planner.measures import ColumnAgg
from assay.planner.plan import DetailPlan


@dataclass(frozen=True)
class Sampled:
    """Sample rows by rule index (every failed row-level rule has an entry) and the
    planner calls it cost (``plan_detail``)."""

    samples: Mapping[int, list[dict[str, Any]]] = field(default_factory=dict)
    planner_calls: int = 0


def sample(planned: Planned, judged: Judged, values: Values, submitter: Submitter) -> Sampled:
    """The detail plan of the failed row-level rules; then, for the rules whose
    key-bounded branch found fewer rows than they should, a second one without bounds."""
    rules = planned.plan.table.rules
    failed = {
        i
        for i, (rule, o) in enumerate(zip(rules, judged.outcomes, strict=True))
        if rule.is_row_level and o.severity in ("fail", "warn") and (o.failed_count or 0) > 0
    }
    if not failed:
        return Sampled()
    failed_rows = {i: judged.outcomes[i].failed_count or 0 for i in failed}
    key = planned.plan.key_range
    key_range = None
    if key is not None:
        key_range = (values.get(ColumnAgg("min", key)), values.get(ColumnAgg("max", key)))
    detail = _planned_detail(planned, failed, failed_rows, key_range=key_range)
    if detail is None:
        return Sampled(planner_calls=1)
    submitter.note(f"detail plan (samples for {len(detail.entries)} failed rules)")
    samples: Samples = {i: [] for i in failed}
    samples.update(submitter.detail(detail))
    short = {
        i for i, _ in detail.bounds if len(samples[i]) < min(detail.sample_size, failed_rows[i])
    }
    if not short:
        return Sampled(samples, planner_calls=1)
    # The second planner call: whether a rule's key-bounded branch found enough rows is
    # known only once the first detail plan has run (its failures crowd the top of the
    # key range); those rules are sampled again over the whole table.
    again = _planned_detail(planned, short, failed_rows, hash_bounds=False)
    assert again is not None
    submitter.note(f"detail plan again without key bounds ({len(short)} rules)")
    samples.update(submitter.detail(again))
    return Sampled(samples, planner_calls=2)


def _planned_detail(
    planned: Planned,
    rules: set[int],
    failed_rows: Mapping[int, int],
    *,
    key_range: tuple[object, object] | None = None,
    hash_bounds: bool = True,
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
    )

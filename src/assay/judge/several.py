"""The verdict on a check of several metrics (``MetricCheck.also``: Great Expectations'
quantile ranges), from the values measured."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from assay.ir.metrics import AggregateMetric, Metric
from assay.ir.rules import MetricCheck, Rule
from assay.ir.values import Threshold
from assay.judge.outcome import Number, Outcome, Values, failed_severity
from assay.planner.expectation import metric_text
from assay.planner.measures import aggregate_of

ValueJudge = Callable[[Rule, Any, Values, int], Outcome]
"""A judge of the aggregate plan's values (and the rows they were measured over)."""


def with_several(
    judge: ValueJudge, value_of: Callable[[MetricCheck, Values, int], Number | None]
) -> ValueJudge:
    """``judge``, but for a check with ``also``: it holds when each metric's value holds
    its threshold (no value, or NaN, holds none); its value is the first metric's, its
    ``details.values`` every one's in order."""

    def judged(rule: Rule, check: MetricCheck, values: Values, rows: int) -> Outcome:
        if not check.also:
            return judge(rule, check, values, rows)
        said: list[str] = []
        found: list[Number | None] = []
        held = True
        for metric, must in ((check.metric, check.must), *check.also):
            value = value_of(MetricCheck(metric, must), values, rows)
            found.append(value)
            number = None if isinstance(value, float) and math.isnan(value) else value
            ok = number is not None and must.holds(number)
            held = held and ok
            said.append(_said(rule, metric, must, number, ok))
        verdict = "pass" if held else failed_severity(rule)
        return Outcome(verdict, None, found[0], "; ".join(said), {"values": found})

    return judged


def element(metric: AggregateMetric, values: Values) -> object:
    """An aggregate metric's answer: its aggregate's, or that answer's ``element``."""
    found = values[aggregate_of(metric)]
    if metric.element is None or found is None:
        return found
    return found[metric.element]  # type: ignore[index]


def _said(rule: Rule, metric: Metric, must: Threshold, number: Number | None, ok: bool) -> str:
    """``percentile(x) at 0.5 = 2.0 between 1 and 3`` (``not between`` when it fails)."""
    at = f" at {_at(metric)}" if isinstance(metric, AggregateMetric) and metric.args else ""
    shown = "no value" if number is None else str(number)
    return f"{metric_text(metric, rule)}{at} = {shown} {'' if ok else 'not '}{must.text}"


def _at(metric: AggregateMetric) -> object:
    """The argument that tells the metric apart: its element's (a quantile), or its first."""
    first = metric.args[0]
    return (
        first[metric.element] if isinstance(first, tuple) and metric.element is not None else first
    )

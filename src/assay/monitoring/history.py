"""Deequ's ``AnomalyDetector``: a strategy over a history of dated metric values, and the
judging of a run's new value against the runs before it.

A missing value (``None``, Deequ's failed metric, or NaN, a metric over no rows) is left out
of the series before the strategy sees it, as Deequ drops its missing values; a missing new
value is therefore never anomalous, and the rule that measured it says why it is missing.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

from assay.monitoring.anomaly import Anomaly, Strategy

#: Deequ's ``Long.MinValue`` and ``Long.MaxValue``: a search interval over all of time.
ALL_TIME = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class DataPoint:
    """Deequ's ``DataPoint``: a metric value (None when missing) at a time (epoch millis,
    a run number: any increasing integer)."""

    time: int
    value: float | None


@dataclass(frozen=True)
class TimedAnomaly:
    """An anomaly and the time of its point."""

    time: int
    anomaly: Anomaly


def _present(point: DataPoint) -> bool:
    return point.value is not None and not math.isnan(point.value)


def detect_in_history(
    strategy: Strategy,
    points: Sequence[DataPoint],
    search: tuple[int, int] = ALL_TIME,
) -> list[TimedAnomaly]:
    """Deequ's ``detectAnomaliesInHistory``: the points whose time is in ``[start, end)``,
    judged by ``strategy`` over all present values sorted by time."""
    start, end = search
    if start > end:
        raise ValueError("The first interval element has to be smaller or equal to the last.")
    series = sorted((p for p in points if _present(p)), key=lambda p: p.time)
    times = [p.time for p in series]
    interval = (bisect.bisect_left(times, start), bisect.bisect_left(times, end))
    values = [p.value for p in series if p.value is not None]
    return [TimedAnomaly(times[a.index], a) for a in strategy.detect(values, interval)]


def is_new_point_anomalous(
    strategy: Strategy, history: Sequence[DataPoint], new_point: DataPoint
) -> list[TimedAnomaly]:
    """Deequ's ``isNewPointAnomalous``: the new point appended to the history sorted by
    time, and detection over it alone (empty: not anomalous)."""
    if not history:
        raise ValueError("historicalDataPoints must not be empty!")
    ordered = sorted(history, key=lambda p: p.time)
    first, last = ordered[0].time, ordered[-1].time
    if not last < new_point.time:
        raise ValueError(
            "Can't decide which range to use for anomaly detection. New data point with time "
            f"{new_point.time} is in history range ({first} - {last})!"
        )
    return detect_in_history(strategy, [*ordered, new_point], (new_point.time, ALL_TIME[1]))


@dataclass(frozen=True)
class Verdict:
    """A new value judged against its history: ``anomalies`` (empty when it passes) and a
    note when there was too little history to judge it."""

    anomalies: tuple[TimedAnomaly, ...]
    note: str | None = None

    @property
    def passed(self) -> bool:
        return not self.anomalies


def judge_new_point(
    strategy: Strategy,
    history: Sequence[DataPoint],
    new_point: DataPoint,
    *,
    min_history: int | None = None,
) -> Verdict:
    """The new point judged by ``strategy``, or passed with a note ("3 of 7 runs needed")
    while the history holds fewer present values than ``min_history`` (default: the least
    the strategy can judge with, ``strategy.min_history``)."""
    needed = strategy.min_history if min_history is None else min_history
    if needed is None:
        return Verdict((), "the strategy never flags a point with these parameters")
    have = sum(1 for p in history if _present(p))
    if have < needed:
        return Verdict((), f"{have} of {needed} runs needed")
    if not history:  # nothing needed, nothing there: the value alone
        value = new_point.value
        if value is None or math.isnan(value):
            return Verdict(())
        return Verdict(
            tuple(TimedAnomaly(new_point.time, a) for a in strategy.detect([value], (0, 1)))
        )
    return Verdict(tuple(is_new_point_anomalous(strategy, history, new_point)))

"""Judging a measured value against its history (pure): a change threshold and an anomaly
strategy (docs/monitoring.md).

The history of a rule is the values it had in earlier runs, oldest first, as the metrics
store holds them (:class:`Point`); :func:`judge_over_time` says whether the current value
holds, and what it was judged against (the result line's ``baseline``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from assay.ir.monitoring import AnomalyDetection, Baseline, Change, OverTime
from assay.ir.values import Between, Comparison, Op, Threshold
from assay.monitoring.anomaly import BaseChange, RelativeRateOfChange, SimpleThreshold, Strategy
from assay.monitoring.normal import BatchNormal, OnlineNormal, mean_and_stddev
from assay.monitoring.registry import strategy_from_config
from assay.monitoring.series import Point

MAX_POINTS_SHOWN = 30
"""The most earlier values a result line carries (the newest)."""

Verdict = Literal["pass", "warn", "fail"]


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the history says of the current value: ``verdict`` (pass, warn: a change's
    own warn threshold, fail), a sentence, and the ``baseline`` object of the result."""

    verdict: Verdict
    message: str
    baseline: dict[str, Any]


def judge_over_time(over: OverTime, value: float, points: Sequence[Point]) -> Judgement:
    """The current ``value`` judged against ``points`` (earlier runs, oldest first)."""
    points = list(points)[-over.runs :] if over.runs else []
    shown = [{"run_time": p.run_time, "value": p.value} for p in points[-MAX_POINTS_SHOWN:]]
    base: dict[str, Any] = {"runs": len(points), "points": shown}
    needed = needed_runs(over)
    if len(points) < needed:
        note = f"{len(points)} of {needed} earlier runs needed"
        base["note"] = note
        if over.too_little == "fail":
            return Judgement("fail", f"too little history: {note}", base)
        return Judgement("pass", f"not judged over time yet: {note}", base)
    verdicts: list[tuple[Verdict, str]] = []
    if over.change is not None:
        verdicts.append(_change(over.change, value, points, base))
    if over.anomaly is not None:
        verdicts.append(_anomaly(over.anomaly, value, points, base))
    worst = max(verdicts, key=lambda v: ("pass", "warn", "fail").index(v[0]))
    failing = [m for v, m in verdicts if v == worst[0]]
    return Judgement(worst[0], "; ".join(failing), base)


def needed_runs(over: OverTime) -> int:
    """The earlier values a judging needs before it judges: ``min_runs`` when given, else
    the change's window (``avg of last 7``: 7); at least what the strategy can flag with
    (its minimum history: 0 for a simple threshold, which judges the first run)."""
    needed = over.min_runs
    if needed is None:
        needed = over.change.runs if over.change is not None else 0
    if over.anomaly is not None:
        strategy = strategy_from_config(over.anomaly.strategy, dict(over.anomaly.params))
        needed = max(needed, strategy.min_history or 0)
    return needed


# --- change -------------------------------------------------------------------------------


def baseline_value(baseline: Baseline, points: Sequence[Point]) -> float:
    """The value the change is taken from: the last run's, or an aggregate of the last
    ``runs`` runs' values."""
    values = [p.value for p in points[-baseline.runs :]]
    if baseline.fn == "last":
        return values[-1]
    if baseline.fn == "avg":
        return math.fsum(values) / len(values)
    if baseline.fn == "median":
        return statistics.median(values)
    return min(values) if baseline.fn == "min" else max(values)


def relative(threshold: Threshold) -> bool:
    """Whether a change threshold is in percent of the baseline."""
    return threshold.unit == "percent"


def change_of(threshold: Threshold, value: float, base: float) -> float:
    """The change from ``base`` to ``value`` as ``threshold`` reads it: in percent of
    ``base`` (from 0: 0 when ``value`` is 0, else an infinity of its sign), or the
    difference."""
    if not relative(threshold):
        return value - base
    if base == 0:
        return 0.0 if value == 0 else math.copysign(math.inf, value)
    return (value - base) / abs(base) * 100.0


def _change(
    change: Change, value: float, points: Sequence[Point], out: dict
) -> tuple[Verdict, str]:
    base = baseline_value(change.baseline, points)
    moved = change_of(change.must, value, base)
    unit = "%" if relative(change.must) else ""
    out["change"] = {
        "from": change.baseline.text,
        "baseline": base,
        "change": moved,
        "must_be": change.must.text,
        "expected": band(change.must, base),
    }
    said = f"changed {moved:+.6g}{unit} from {change.baseline.text} ({base:.6g} -> {value:.6g})"
    if not change.must.holds(moved):
        return "fail", f"{said}: must be {change.must.text}"
    if change.warn is not None:
        out["change"]["warn"] = change.warn.text
        if not change.warn.holds(moved):
            return "warn", f"{said}: warns unless {change.warn.text}"
    return "pass", said


def band(threshold: Threshold, base: float) -> dict[str, float | None] | None:
    """The current values a change threshold allows, as ``{low, high}`` (None: no bound
    that side); None when they are not one interval (``!=``, ``not between``)."""
    if isinstance(threshold, Between):
        if threshold.negate:
            return None
        low, high = threshold.low, threshold.high
    elif threshold.op in (Op.LT, Op.LE):
        low, high = None, threshold.value
    elif threshold.op in (Op.GT, Op.GE):
        low, high = threshold.value, None
    elif threshold.op is Op.EQ:
        low = high = threshold.value
    else:
        return None
    return {"low": _moved(threshold, base, low), "high": _moved(threshold, base, high)}


def _moved(threshold: Comparison | Between, base: float, by: Decimal | None) -> float | None:
    if by is None:
        return None
    return base + abs(base) * float(by) / 100.0 if relative(threshold) else base + float(by)


# --- anomaly ------------------------------------------------------------------------------


def _anomaly(
    detection: AnomalyDetection, value: float, points: Sequence[Point], out: dict
) -> tuple[Verdict, str]:
    strategy = strategy_from_config(detection.strategy, dict(detection.params))
    series = [p.value for p in points[-detection.window :]] + [value]
    last = len(series) - 1
    found = [a for a in strategy.detect(series, searched(strategy, series)) if a.index == last]
    out["anomaly"] = {
        "strategy": detection.strategy,
        "params": dict(detection.params),
        "anomalous": bool(found),
        "expected": expected_band(strategy, series),
    }
    if found:
        detail = found[0].detail or f"{value:.6g} is an anomaly"
        out["anomaly"]["detail"] = detail
        return "fail", f"anomaly ({detection.strategy}): {detail}"
    return "pass", f"no anomaly ({detection.strategy})"


def searched(strategy: Strategy, series: Sequence[float]) -> tuple[int, int]:
    """The search interval a strategy runs over to judge the last value of ``series``.

    The online normal searches the whole window, so that ``ignore_anomalies`` leaves an
    earlier run's anomaly out of the mean and deviation the new value is held to. Deequ's
    ``AnomalyDetector.isNewPointAnomalous`` searches the new point only, where no earlier
    point is ever an anomaly and ``ignoreAnomalies`` changes nothing; with
    ``ignore_anomalies: false`` both give the same verdict (docs/monitoring.md). The
    others search the last value only, as Deequ does: their verdict on it does not depend
    on earlier anomalies (and the batch normal's statistics are of the values outside
    the interval)."""
    if isinstance(strategy, OnlineNormal):
        return (0, len(series))
    return (len(series) - 1, len(series))


def expected_band(strategy: Strategy, series: Sequence[float]) -> dict[str, float | None] | None:
    """The values the strategy allowed for the last of ``series`` as ``{low, high}`` (None:
    no bound that side), where it has one interval: the normal strategies' mean ± factors
    times the deviation (the online one's as it stood at that value), a simple threshold's
    bounds, a first-order change's last value moved by its limits. None for the others
    (Holt-Winters, higher orders)."""
    last = len(series) - 1
    if isinstance(strategy, OnlineNormal):
        stats = strategy.running_stats(series, searched(strategy, series))[last]
        return _band(stats.mean, stats.stddev, strategy)
    if isinstance(strategy, BatchNormal):
        mean, stddev = mean_and_stddev(series if strategy.include_interval else series[:last])
        return _band(mean, stddev, strategy)
    if isinstance(strategy, SimpleThreshold):
        return {"low": _finite(strategy.lower_bound), "high": _finite(strategy.upper_bound)}
    if isinstance(strategy, BaseChange) and strategy.order == 1 and last >= 1:
        before = series[last - 1]
        low, high = strategy.lower, strategy.upper
        if isinstance(strategy, RelativeRateOfChange):  # a ratio to the value before
            return {"low": _finite(before * low), "high": _finite(before * high)}
        return {"low": _finite(before + low), "high": _finite(before + high)}
    return None


def _band(
    mean: float, stddev: float, strategy: OnlineNormal | BatchNormal
) -> dict[str, float | None]:
    low, high = strategy.lower_deviation_factor, strategy.upper_deviation_factor
    return {
        "low": None if low is None else _finite(mean - low * stddev),
        "high": None if high is None else _finite(mean + high * stddev),
    }


def _finite(value: float) -> float | None:
    """A bound, or None for Deequ's stand-ins for no bound (±Double.MaxValue)."""
    return value if math.isfinite(value) and abs(value) < 1e300 else None

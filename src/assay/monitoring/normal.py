"""Deequ's two strategies that assume normally distributed values: a value further than a
factor of standard deviations from the mean, a running one (``OnlineNormalStrategy``) or
one of the values outside the search interval (``BatchNormalStrategy``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.monitoring.anomaly import MAX, WHOLE, Anomaly, checked
from assay.monitoring.scala import scala_slice, scala_str


def _check_factors(lower: float | None, upper: float | None) -> None:
    if lower is None and upper is None:
        raise ValueError("At least one factor has to be specified.")
    if not (1.0 if lower is None else lower) >= 0 or not (1.0 if upper is None else upper) >= 0:
        raise ValueError("Factors cannot be smaller than zero.")


def _bounds(
    mean: float, stddev: float, lower: float | None, upper: float | None
) -> tuple[float, float]:
    """Deequ's ``mean - lower * stddev`` and ``mean + upper * stddev``, a missing factor
    being ``Double.MaxValue``."""
    return (
        mean - (MAX if lower is None else lower) * stddev,
        mean + (MAX if upper is None else upper) * stddev,
    )


def _beyond(lower: float | None, upper: float | None, reach: Callable[[int], float]) -> int | None:
    """The least history (at least 1) over which a value can reach further than the
    smaller factor, ``reach(history)`` being the furthest it can be, in deviations; None
    when the factors are beyond any history's reach."""
    factor = min(f for f in (lower, upper) if f is not None)
    if factor * factor >= 2**31:
        return None
    history = max(1, math.floor(factor * factor))
    while not reach(history) > factor:
        history += 1
    return history


def _detail(name: str, value: float, lower: float, upper: float) -> str:
    return (
        f"[{name}]: Value {scala_str(value)} is not in bounds "
        f"[{scala_str(lower)}, {scala_str(upper)}]."
    )


@dataclass(frozen=True)
class RunningStats:
    """The mean and standard deviation of the values up to a point (anomalies left out when
    the strategy ignores them), and whether that point is an anomaly."""

    mean: float
    stddev: float
    is_anomaly: bool


@dataclass(frozen=True)
class OnlineNormal:
    """Deequ's ``OnlineNormalStrategy``: a value outside ``mean ± factor * stddev`` of the
    values up to and including it (population variance, updated value by value)."""

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    ignore_start_percentage: float = 0.1
    ignore_anomalies: bool = True

    def __post_init__(self) -> None:
        _check_factors(self.lower_deviation_factor, self.upper_deviation_factor)
        if not 0 <= self.ignore_start_percentage <= 1.0:
            raise ValueError("Percentage of start values to ignore must be in interval [0, 1].")

    @property
    def min_history(self) -> int | None:
        """The least history with which the newest value can be flagged: it is past the
        ignored start, and the history holds more than ``factor**2`` values (the value is
        part of its own mean and population deviation, which puts it at most
        ``sqrt(history)`` deviations away); None when no value can ever be flagged."""
        if self.ignore_start_percentage >= 1.0:
            return None
        history = _beyond(self.lower_deviation_factor, self.upper_deviation_factor, math.sqrt)
        if history is None:
            return None
        while history < (history + 1) * self.ignore_start_percentage:
            history += 1
        return history

    def running_stats(
        self, series: Sequence[float], search: tuple[int, int] = WHOLE
    ) -> list[RunningStats]:
        """Deequ's ``computeStatsAndAnomalies``, update for update.

        The update is Welford's (``mean += (x - mean) / n``; ``s += (x - old) * (x - new)``);
        an anomaly, when ignored, restores the mean and ``s`` of the point before it, but its
        own result keeps the standard deviation computed with it, as Deequ's does.
        """
        start, end = search
        skip = len(series) * self.ignore_start_percentage
        mean = 0.0
        sn = 0.0
        results = []
        for index, value in enumerate(series):
            last_mean, last_sn = mean, sn
            mean = value if index == 0 else last_mean + (1.0 / (index + 1)) * (value - last_mean)
            sn += (value - last_mean) * (value - mean)
            stddev = math.sqrt(sn / (index + 1))
            lower, upper = _bounds(
                mean, stddev, self.lower_deviation_factor, self.upper_deviation_factor
            )
            if index < skip or index < start or index >= end or lower <= value <= upper:
                results.append(RunningStats(mean, stddev, is_anomaly=False))
                continue
            if self.ignore_anomalies:
                mean, sn = last_mean, last_sn
            results.append(RunningStats(mean, stddev, is_anomaly=True))
        return results

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        start, end = checked(
            series, search, "The start of the interval can't be larger than the end."
        )
        stats = self.running_stats(series, (start, end))
        found = []
        for index in range(*scala_slice(len(series), start, end)):
            if stats[index].is_anomaly:
                lower, upper = _bounds(
                    stats[index].mean,
                    stats[index].stddev,
                    self.lower_deviation_factor,
                    self.upper_deviation_factor,
                )
                detail = _detail("OnlineNormalStrategy", series[index], lower, upper)
                found.append(Anomaly(index, series[index], 1.0, detail))
        return found


def mean_and_stddev(values: Sequence[float]) -> tuple[float, float]:
    """breeze's ``meanAndVariance`` (Deequ's dependency): Welford's mean and the sample
    standard deviation (n - 1), 0 for fewer than two values.

    Example:
        >>> mean_and_stddev([1.0, 2.0, 3.0, 4.0])
        (2.5, 1.2909944487358056)
    """
    mean = 0.0
    s = 0.0
    for n, value in enumerate(values, start=1):
        d = value - mean
        mean = mean + d / n
        s = s + (n - 1) * d / n * d
    count = len(values)
    return mean, math.sqrt(s / (count - 1)) if count > 1 else 0.0


@dataclass(frozen=True)
class BatchNormal:
    """Deequ's ``BatchNormalStrategy``: a value of the search interval outside
    ``mean ± factor * stddev`` of the values outside it (of all values when
    ``include_interval``; sample standard deviation)."""

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    include_interval: bool = False

    def __post_init__(self) -> None:
        _check_factors(self.lower_deviation_factor, self.upper_deviation_factor)

    @property
    def min_history(self) -> int | None:
        """One value outside the interval: breeze's variance of one value is 0, so the
        bounds are that value and any other is an anomaly (as in Deequ); with
        ``include_interval``, more than about ``factor**2``, since the value is part of
        its own mean and sample deviation, which puts it at most
        ``history / sqrt(history + 1)`` deviations away."""
        if not self.include_interval:
            return 1
        return _beyond(
            self.lower_deviation_factor,
            self.upper_deviation_factor,
            lambda history: history / math.sqrt(history + 1),
        )

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        start, end = checked(
            series, search, "The start of the interval can't be larger than the end."
        )
        if not series:
            raise ValueError("Data series is empty. Can't calculate mean/ stdDev.")
        if not self.include_interval and end - start >= len(series):
            raise ValueError(
                "Excluding values in searchInterval from calculation but not enough values "
                "remain to calculate mean and stdDev."
            )
        if self.include_interval:
            mean, stddev = mean_and_stddev(series)
        else:
            lo, hi = scala_slice(len(series), start, end)
            mean, stddev = mean_and_stddev([*series[:lo], *series[hi:]])
        lower, upper = _bounds(
            mean, stddev, self.lower_deviation_factor, self.upper_deviation_factor
        )
        lo, hi = scala_slice(len(series), start, end)
        return [
            Anomaly(i, series[i], 1.0, _detail("BatchNormalStrategy", series[i], lower, upper))
            for i in range(lo, hi)
            if series[i] > upper or series[i] < lower
        ]

"""Deequ's ``HoltWinters`` strategy: additive triple exponential smoothing (ETS(A, A)) fitted
on the values before the search interval, which is then forecast; a value further than
1.96 standard deviations of the fit's absolute residuals from its forecast is an anomaly
(and further than rounding: see ``ROUNDING``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assay.monitoring.anomaly import WHOLE, Anomaly
from assay.monitoring.lbfgsb import BoundedMinimizer
from assay.monitoring.normal import mean_and_stddev
from assay.monitoring.scala import scala_str

MetricsInterval = Literal["hourly", "daily", "monthly"]
Seasonality = Literal["daily", "weekly", "yearly"]

#: Deequ's pairs of (metrics interval, seasonality) and the period they make.
PERIODS: dict[tuple[str, str], int] = {
    ("hourly", "daily"): 24,
    ("daily", "weekly"): 7,
    ("monthly", "yearly"): 12,
}

#: A forecast's error no larger than this, relative to the forecast, is rounding, never an
#: anomaly. Deequ has no such floor: a constant series of 3.0 fits with rounding residuals
#: (a spread of 1e-16) and forecasts 3.0 - 4.4e-16, so Deequ flags every value of it.
ROUNDING = 1e-12

#: Deequ's initial smoothing parameters for level, trend and seasonality.
INITIAL = (0.3, 0.1, 0.1)


@dataclass(frozen=True)
class Model:
    """The smoothed series: one-step forecasts' residuals over the training values, and
    the forecasts past them."""

    forecasts: list[float]
    residuals: list[float]


def additive_holt_winters(
    series: Sequence[float],
    periodicity: int,
    horizon: int,
    alpha: float,
    beta: float,
    gamma: float,
) -> Model:
    """Deequ's ``additiveHoltWinters``, line for line: the level starts at the first
    season's mean, the trend at the difference of the first two seasons' means over the
    period, the seasonal components at the first season minus that level."""
    first = sum(series[:periodicity])
    second = sum(series[periodicity : 2 * periodicity])
    level = [first / periodicity]
    trend = [(second - first) / (periodicity * periodicity)]
    season = [v - level[0] for v in series[:periodicity]]
    fitted = [level[0] + trend[0] + season[0]]
    values = list(series)
    for t in range(len(series) + horizon):
        if t >= len(series):
            values.append(level[-1] + trend[-1] + season[len(season) - periodicity])
        level.append(alpha * (values[t] - season[t]) + (1 - alpha) * (level[t] + trend[t]))
        trend.append(beta * (level[t + 1] - level[t]) + (1 - beta) * trend[t])
        season.append(gamma * (values[t] - level[t] - trend[t]) + (1 - gamma) * season[t])
        fitted.append(level[t + 1] + trend[t + 1] + season[t + 1])
    residuals = [value - forecast for forecast, value in zip(fitted, series, strict=False)]
    return Model(values[len(series) :], residuals)


@dataclass(frozen=True)
class HoltWinters:
    """Deequ's ``HoltWinters(metricsInterval, seasonality)``, or ``HoltWinters(periodicity)``
    with ``periodicity`` alone."""

    metrics_interval: MetricsInterval | None = None
    seasonality: Seasonality | None = None
    periodicity: int | None = None

    def __post_init__(self) -> None:
        if self.metrics_interval is None and self.seasonality is None:
            if self.periodicity is None or self.periodicity < 1:
                raise ValueError(
                    "Holt-Winters needs a metrics_interval and a seasonality, or a periodicity "
                    f"of at least 1 (got {self.periodicity})."
                )
            return
        period = PERIODS.get((str(self.metrics_interval), str(self.seasonality)))
        if period is None:
            known = ", ".join(f"{i} values with {s} seasonality" for i, s in PERIODS)
            raise ValueError(
                f"Holt-Winters has no period for {self.metrics_interval} values with "
                f"{self.seasonality} seasonality; it knows {known}."
            )
        if self.periodicity not in (None, period):
            raise ValueError(
                f"periodicity {self.periodicity} contradicts {self.metrics_interval} values "
                f"with {self.seasonality} seasonality ({period})."
            )
        object.__setattr__(self, "periodicity", period)

    @property
    def period(self) -> int:
        assert self.periodicity is not None  # set by __post_init__
        return self.periodicity

    @property
    def min_history(self) -> int:
        """Two full seasons, from which the model starts."""
        return 2 * self.period

    def fit(self, training: Sequence[float], horizon: int) -> tuple[float, float, float]:
        """Deequ's ``modelSelectionFor``: alpha, beta and gamma in [0, 1] minimising the
        squared one-step residuals, by breeze's L-BFGS-B from (0.3, 0.1, 0.1)."""

        def rss(x: Sequence[float]) -> float:
            model = additive_holt_winters(training, self.period, horizon, x[0], x[1], x[2])
            return sum(r**2 for r in model.residuals)

        best = BoundedMinimizer([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]).minimize(rss, INITIAL)
        return best[0], best[1], best[2]

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        if not series:
            raise ValueError("Provided data series is empty")
        start, end = search
        if not start < end:
            raise ValueError("Start must be before end")
        if not (start >= 0 and end >= 0):
            raise ValueError("The search interval needs to be strictly positive")
        if not start >= self.period * 2:
            raise ValueError("Need at least two full cycles of data to estimate model")
        if any(math.isnan(v) for v in series):
            raise ValueError("The data series holds NaN: drop missing values before detection.")
        horizon = 1 if start >= len(series) else min(end, len(series)) - start
        training = series[:start]
        alpha, beta, gamma = self.fit(training, horizon)
        model = additive_holt_winters(training, self.period, horizon, alpha, beta, gamma)
        _, spread = mean_and_stddev([abs(r) for r in model.residuals])
        return [
            Anomaly(
                start + i,
                value,
                1.0,
                f"Forecasted {scala_str(forecast)} for observed value {scala_str(value)}",
            )
            for i, (value, forecast) in enumerate(
                zip(series[start:], model.forecasts, strict=False)
            )
            if abs(value - forecast) > max(1.96 * spread, ROUNDING * abs(forecast))
        ]

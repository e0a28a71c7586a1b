"""Deequ's HoltWintersTest, ported: 17 tests. Deequ asserts how many anomalies each
series has (and, where it is one, its index); the indices of the longer series are
pinned here too, as this port finds them."""

from __future__ import annotations

import math

import pytest

from assay.monitoring import HoltWinters
from tests.monitoring.deequ_data import (
    HOURLY_TRAFFIC,
    MONTHLY_CAR_SALES_QUEBEC,
    MONTHLY_MILK_PRODUCTION,
    SEED_42,
)

INT_MAX = 2**31 - 1
WEEK = [1, 1, 1.2, 1.3, 1.5, 2.1, 1.9]
TWO_WEEKS = [v + g for v, g in zip(WEEK * 2, SEED_42, strict=True)]


def daily_with_weekly_seasonality(series: list[float], interval: tuple[int, int]) -> list[int]:
    return [a.index for a in HoltWinters("daily", "weekly").detect(series, interval)]


def test_fail_if_start_after_or_equal_to_end() -> None:
    with pytest.raises(ValueError, match="^Start must be before end$"):
        daily_with_weekly_seasonality(TWO_WEEKS, (1, 1))


def test_fail_if_no_at_least_two_cycles_are_available() -> None:
    with pytest.raises(ValueError, match="^Provided data series is empty$"):
        daily_with_weekly_seasonality([], (0, INT_MAX))


def test_fail_for_negative_search_interval() -> None:
    with pytest.raises(ValueError, match="^The search interval needs to be strictly positive$"):
        daily_with_weekly_seasonality(TWO_WEEKS, (-2, -1))


def test_fail_for_too_few_data() -> None:
    with pytest.raises(
        ValueError, match="^Need at least two full cycles of data to estimate model$"
    ):
        daily_with_weekly_seasonality([1.0, 2.0, 3.0], (0, INT_MAX))


def test_run_anomaly_detection_on_the_last_data_point_if_search_interval_beyond_series_size() -> (
    None
):
    assert daily_with_weekly_seasonality(TWO_WEEKS, (100, 110)) == []


def test_predict_no_anomaly_for_normally_distributed_errors() -> None:
    assert daily_with_weekly_seasonality([*TWO_WEEKS, TWO_WEEKS[0]], (14, 15)) == []


def test_predict_an_anomaly() -> None:
    assert daily_with_weekly_seasonality([*TWO_WEEKS, 0.0], (14, INT_MAX)) == [14]


def test_predict_no_anomalies_on_longer_series() -> None:
    assert daily_with_weekly_seasonality(TWO_WEEKS + TWO_WEEKS, (26, INT_MAX)) == []


def test_detect_no_anomalies_on_constant_series() -> None:
    assert daily_with_weekly_seasonality([1.0] * 21, (14, INT_MAX)) == []


def test_detect_a_single_anomaly_in_constant_series_with_a_single_error() -> None:
    assert daily_with_weekly_seasonality([1.0] * 20 + [0.0], (14, INT_MAX)) == [20]


def test_detect_no_anomalies_on_exact_linear_trend_series() -> None:
    assert daily_with_weekly_seasonality([float(t) for t in range(48)], (36, INT_MAX)) == []


def test_detect_no_anomalies_on_exact_linear_and_seasonal_effects() -> None:
    series = [math.sin(2 * math.pi / 7 * t) + t for t in range(48)]
    assert daily_with_weekly_seasonality(series, (36, INT_MAX)) == []


def test_detect_anomalies_if_the_training_data_is_wrong() -> None:
    series = [0.0, 1, 1, 1, 1, 1, 1] * 2 + [1.0] * 7
    assert daily_with_weekly_seasonality(series, (14, 21)) == [14]


@pytest.mark.parametrize(
    ("series", "strategy", "train", "test", "expected"),
    [
        pytest.param(
            MONTHLY_MILK_PRODUCTION, HoltWinters("monthly", "yearly"), 36, 12,
            [36, 38, 39, 44, 45, 46, 47], id="monthly-data-with-yearly-seasonality",
        ),
        pytest.param(
            MONTHLY_CAR_SALES_QUEBEC, HoltWinters("monthly", "yearly"), 36, 12,
            [39, 41, 46], id="an-additional-series-with-yearly-seasonality",
        ),
        pytest.param(
            HOURLY_TRAFFIC, HoltWinters("hourly", "daily"), 6 * 24, 24,
            [155, 156], id="hourly-data-with-daily-seasonality",
        ),
        pytest.param(
            MONTHLY_MILK_PRODUCTION, HoltWinters(periodicity=12), 36, 12,
            [36, 38, 39, 44, 45, 46, 47], id="monthly-data-with-custom-series-periodicity",
        ),
    ],
)  # fmt: skip
def test_work_on_real_series(series, strategy, train, test, expected) -> None:
    total = train + test
    anomalies = strategy.detect([float(v) for v in series[:total]], (train, total))
    assert len(anomalies) == len(expected)  # what Deequ asserts: 7, 3, 2 and 7
    assert [a.index for a in anomalies] == expected


def test_fitted_parameters_are_the_least_squares_optimum() -> None:
    """The port of breeze's L-BFGS-B ends where a bounded least-squares fit does
    (scipy's L-BFGS-B gave 0.29417, 0, 0.67646 on these 36 months; 0.69976, 0.01080,
    0.21642 on the six days of traffic)."""
    cars = HoltWinters("monthly", "yearly").fit(
        [float(v) for v in MONTHLY_CAR_SALES_QUEBEC[:36]], 12
    )
    assert cars == pytest.approx((0.29417, 0.0, 0.67646), abs=1e-4)
    traffic = HoltWinters("hourly", "daily").fit([float(v) for v in HOURLY_TRAFFIC[:144]], 24)
    assert traffic == pytest.approx((0.69976, 0.01080, 0.21642), abs=1e-4)

"""What Deequ's tests leave open, decided here: empty series, NaN, constant series (zero
standard deviation), search intervals out of range, division by zero, the detail texts'
numbers; and Deequ's AnomalyDetectionTestUtilsTest (3 tests) for the helper the ported
tests read detail texts with."""

from __future__ import annotations

import math

import pytest

from assay.monitoring import (
    AbsoluteChange,
    Anomaly,
    BatchNormal,
    HoltWinters,
    OnlineNormal,
    RelativeRateOfChange,
    SimpleThreshold,
)
from assay.monitoring.scala import scala_str
from tests.monitoring.deequ_data import first_double, first_three_doubles

SIMPLE = [
    pytest.param(SimpleThreshold(upper_bound=1.0), id="simple_threshold"),
    pytest.param(AbsoluteChange(-1.0, 1.0), id="absolute_change"),
    pytest.param(RelativeRateOfChange(0.5, 2.0), id="relative_rate_of_change"),
    pytest.param(OnlineNormal(), id="online_normal"),
]
ALL = [*SIMPLE, pytest.param(BatchNormal(), id="batch_normal")]


@pytest.mark.parametrize("strategy", SIMPLE)
def test_empty_series_has_no_anomalies(strategy) -> None:
    assert strategy.detect([]) == []
    assert strategy.detect([], (0, 5)) == []


def test_empty_series_is_refused_where_deequ_refuses_it() -> None:
    with pytest.raises(ValueError, match="Data series is empty. Can't calculate mean/ stdDev."):
        BatchNormal(include_interval=True).detect([])
    with pytest.raises(ValueError, match="Provided data series is empty"):
        HoltWinters("daily", "weekly").detect([], (14, 15))


@pytest.mark.parametrize(
    "strategy", [*ALL, pytest.param(HoltWinters(periodicity=2), id="holt_winters")]
)
def test_nan_in_the_series_is_refused(strategy) -> None:
    """NaN would poison the running statistics (every later point an anomaly for the online
    normal, none for the batch normal): the history functions drop it as missing, and a
    strategy given one directly says so."""
    with pytest.raises(ValueError, match="NaN"):
        strategy.detect([1.0, 2.0, 1.0, 2.0, math.nan, 1.0], (4, 6))


@pytest.mark.parametrize("strategy", ALL)
def test_start_after_end_is_refused(strategy) -> None:
    with pytest.raises(ValueError, match="start of the interval"):
        strategy.detect([1.0, 2.0, 3.0], (2, 1))


@pytest.mark.parametrize("strategy", ALL)
def test_negative_start_is_refused(strategy) -> None:
    """Deequ reads a negative start as 0 (Scala's slice); in Python -1 reads as the last
    index, so a negative start is an error rather than a silent 0."""
    with pytest.raises(ValueError, match="cannot start before index 0"):
        strategy.detect([1.0, 2.0, 3.0], (-1, 3))


@pytest.mark.parametrize("strategy", SIMPLE)
def test_interval_past_the_end_is_clamped(strategy) -> None:
    series = [1.0] * 15 + [90.0]
    assert [a.index for a in strategy.detect(series, (5, 2**31 - 1))] == [15]
    assert strategy.detect(series, (16, 20)) == []  # starts past the end: nothing to judge


def test_batch_normal_counts_the_interval_as_written() -> None:
    """Deequ checks the interval's length as given, before clamping it: an end past the
    series leaves no values for the mean, as in Deequ (the history functions pass
    clamped intervals)."""
    series = [1.0, 1.1, 0.9, 1.0, 1.1, 0.9, 90.0]
    with pytest.raises(ValueError, match="not enough values remain"):
        BatchNormal().detect(series, (6, 100))
    assert [a.index for a in BatchNormal().detect(series, (6, 7))] == [6]


def test_constant_series_online_normal() -> None:
    """The value is part of its own mean and deviation, so the deviation is never 0 when
    the value differs: past ``min_history`` any change from a constant is flagged, and a
    missing factor leaves its side open."""
    assert OnlineNormal().detect([5.0] * 20) == []
    assert OnlineNormal().detect([5.0] * 20 + [5.001]) == [Anomaly(20, 5.001)]
    assert OnlineNormal().detect([5.0] * 20 + [4.999]) == [Anomaly(20, 4.999)]
    assert OnlineNormal(lower_deviation_factor=None).detect([5.0] * 20 + [4.999]) == []


def test_constant_series_batch_normal() -> None:
    """Zero standard deviation: both bounds are the mean, so any other value is an
    anomaly, even on the side without a factor (Deequ's ``mean + Double.MaxValue * 0``)."""
    assert BatchNormal().detect([5.0] * 21, (20, 21)) == []
    assert BatchNormal().detect([5.0] * 20 + [5.001], (20, 21)) == [Anomaly(20, 5.001)]
    assert BatchNormal(upper_deviation_factor=None).detect([5.0] * 20 + [5.001], (20, 21)) == [
        Anomaly(20, 5.001)
    ]


@pytest.mark.parametrize("value", [0.0, 1.0, 3.0, 0.1, 12345.0])
def test_constant_series_holt_winters(value) -> None:
    """Deequ flags all 7 values of a constant 3.0 (rounding: forecasts 3.0 - 4.4e-16
    against residuals spread by 1e-16); an error within 1e-12 of the forecast is never an
    anomaly here."""
    assert HoltWinters("daily", "weekly").detect([value] * 21, (14, 21)) == []


def test_relative_change_from_zero() -> None:
    """IEEE division as on the JVM: 0 -> 0 is NaN (never out of bounds), 0 -> 1 infinite."""
    strategy = RelativeRateOfChange(0.5, 2.0)
    assert strategy.detect([0.0, 0.0, 1.0]) == [Anomaly(2, 1.0)]
    assert strategy.detect([0.0, 0.0, 0.0]) == []
    assert "Change of Infinity" in strategy.detect([0.0, 1.0])[0].detail


def test_relative_rate_of_change_refuses_order_0_when_built() -> None:
    with pytest.raises(ValueError, match="Order of diff cannot be zero or negative"):
        RelativeRateOfChange(0.5, 2.0, order=0)


def test_negative_order_is_refused() -> None:
    with pytest.raises(ValueError, match="Order of derivative cannot be negative."):
        AbsoluteChange(-1.0, 1.0, order=-1)


def test_order_longer_than_the_series() -> None:
    assert AbsoluteChange(-1.0, 1.0, order=5).detect([1.0, 9.0, 1.0]) == []


def test_holt_winters_periods() -> None:
    assert HoltWinters("hourly", "daily").period == 24
    assert HoltWinters("daily", "weekly").period == 7
    assert HoltWinters("monthly", "yearly").period == 12
    assert HoltWinters("monthly", "yearly", periodicity=12).period == 12
    with pytest.raises(ValueError, match="no period for daily values with yearly seasonality"):
        HoltWinters("daily", "yearly")
    with pytest.raises(ValueError, match="periodicity 5 contradicts"):
        HoltWinters("daily", "weekly", periodicity=5)
    with pytest.raises(
        ValueError, match="needs a metrics_interval and a seasonality, or a periodicity"
    ):
        HoltWinters()


def test_holt_winters_detail() -> None:
    (anomaly,) = HoltWinters("daily", "weekly").detect([1.0] * 20 + [0.0], (14, 21))
    assert anomaly.detail.startswith("Forecasted 1.0")
    assert anomaly.detail.endswith(" for observed value 0.0")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0, "2.0"),
        (-0.0, "-0.0"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (9999999.0, "9999999.0"),
        (10000000.0, "1.0E7"),
        (1.7976931348623157e308, "1.7976931348623157E308"),
        (-1.5e-10, "-1.5E-10"),
        (math.inf, "Infinity"),
        (math.nan, "NaN"),
    ],
)
def test_numbers_in_details_read_as_deequs(value, text) -> None:
    assert scala_str(value) == text


# AnomalyDetectionTestUtilsTest


def test_throw_an_exception_if_no_value_found() -> None:
    with pytest.raises(ValueError):
        first_double("noNumber")
    with pytest.raises(ValueError):
        first_three_doubles("noNumber")


def test_find_first_value() -> None:
    assert first_double("xx3.141yyu4.2") == 3.141


def test_find_all_3_values() -> None:
    assert first_three_doubles("In this 1 string are 3.000 values, not 42.01") == (1, 3.0, 42.01)

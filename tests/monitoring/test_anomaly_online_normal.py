"""Deequ's OnlineNormalStrategyTest, ported: 13 tests."""

from __future__ import annotations

import sys

import pytest

from assay.monitoring import Anomaly, OnlineNormal
from assay.monitoring.normal import mean_and_stddev
from tests.monitoring.deequ_data import (
    SEED_1,
    assert_details_name_the_value_out_of_bounds,
    noisy_spikes,
)

MAX = sys.float_info.max
STRATEGY = OnlineNormal(
    lower_deviation_factor=1.5, upper_deviation_factor=1.5, ignore_start_percentage=0.2
)
DATA = noisy_spikes(51)


def _expected(indices: range) -> list[Anomaly]:
    return [Anomaly(i, DATA[i], 1.0) for i in indices]


def test_detect_all_anomalies_if_no_interval_specified() -> None:
    strategy = OnlineNormal(
        lower_deviation_factor=3.5, upper_deviation_factor=3.5, ignore_start_percentage=0.2
    )
    assert strategy.detect(DATA) == _expected(range(20, 31))


def test_only_detect_anomalies_in_interval() -> None:
    assert STRATEGY.detect(DATA, (25, 31)) == _expected(range(25, 31))


def test_ignore_lower_factor_if_none_is_given() -> None:
    strategy = OnlineNormal(lower_deviation_factor=None, upper_deviation_factor=1.5)
    # Anomalies with positive values only
    assert strategy.detect(DATA) == _expected(range(20, 31, 2))


def test_ignore_upper_factor_if_none_is_given() -> None:
    strategy = OnlineNormal(lower_deviation_factor=1.5, upper_deviation_factor=None)
    # Anomalies with negative values only
    assert strategy.detect(DATA) == _expected(range(21, 30, 2))


def test_work_fine_with_empty_input() -> None:
    assert STRATEGY.detect([]) == []


def test_detect_no_anomalies_if_factors_are_set_to_max_value() -> None:
    assert OnlineNormal(MAX, MAX).detect(DATA) == []


def test_calculate_variance_correctly() -> None:
    # Deequ draws these 1000 from the same generator, after the 51 of DATA.
    data = [g * (5000.0 / i) for i, g in enumerate(SEED_1[51:1051], start=1)]
    last = STRATEGY.running_stats(data)[-1]
    mean, stddev = mean_and_stddev(data)  # breeze's meanAndVariance
    assert last.mean == mean
    assert abs(last.stddev - stddev) < stddev * 0.001


def test_ignores_anomalies_in_calculation_if_wanted() -> None:
    last = STRATEGY.running_stats([1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0])[-1]
    assert last.mean == 1.0
    assert last.stddev == 0.0


def test_doesnt_ignore_anomalies_in_calculation_if_not_wanted() -> None:
    strategy = OnlineNormal(1.5, 1.5, ignore_start_percentage=0.2, ignore_anomalies=False)
    data = [1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]
    last = strategy.running_stats(data)[-1]
    mean, stddev = mean_and_stddev(data)
    assert last.mean == mean
    assert abs(last.stddev - stddev) < stddev * 0.1


def test_throw_an_error_when_no_factor_given() -> None:
    with pytest.raises(ValueError, match="At least one factor has to be specified."):
        OnlineNormal(None, None)


@pytest.mark.parametrize("factors", [(None, -3.0), (-3.0, None)])
def test_throw_an_error_when_factor_is_negative(factors) -> None:
    with pytest.raises(ValueError, match="Factors cannot be smaller than zero."):
        OnlineNormal(*factors)


@pytest.mark.parametrize("percentage", [1.5, -1.0])
def test_throw_an_error_when_percentages_are_not_in_range(percentage) -> None:
    with pytest.raises(
        ValueError, match=r"Percentage of start values to ignore must be in interval \[0, 1\]."
    ):
        OnlineNormal(ignore_start_percentage=percentage)


def test_produce_error_message_with_correct_value_and_bounds() -> None:
    result = STRATEGY.detect(DATA)
    assert_details_name_the_value_out_of_bounds(result)

"""Deequ's BatchNormalStrategyTest, ported: 9 tests."""

from __future__ import annotations

import sys

import pytest

from assay.monitoring import Anomaly, BatchNormal
from tests.monitoring.deequ_data import assert_details_name_the_value_out_of_bounds, noisy_spikes

MAX = sys.float_info.max
STRATEGY = BatchNormal(lower_deviation_factor=1.0, upper_deviation_factor=1.0)
DATA = noisy_spikes(50)


def _expected(indices: range) -> list[Anomaly]:
    return [Anomaly(i, DATA[i], 1.0) for i in indices]


def test_only_detect_anomalies_in_interval() -> None:
    assert STRATEGY.detect(DATA, (25, 50)) == _expected(range(25, 31))


def test_ignore_lower_factor_if_none_is_given() -> None:
    # Anomalies with positive values only
    assert BatchNormal(None, 1.0).detect(DATA, (20, 31)) == _expected(range(20, 31, 2))


def test_ignore_upper_factor_if_none_is_given() -> None:
    # Anomalies with negative values only
    assert BatchNormal(1.0, None).detect(DATA, (10, 30)) == _expected(range(21, 30, 2))


def test_ignore_values_in_interval_for_mean_stddev_if_specified() -> None:
    data = [1.0, 1.0, 1.0, 1000.0, 500.0, 1.0]
    assert BatchNormal(3.0, 3.0).detect(data, (3, 5)) == [Anomaly(3, 1000.0), Anomaly(4, 500.0)]


def test_throw_an_exception_when_trying_to_exclude_all_data_points_from_calculation() -> None:
    with pytest.raises(ValueError, match="not enough values remain to calculate mean and stdDev"):
        BatchNormal().detect(DATA)


def test_detect_no_anomalies_if_factors_are_set_to_max_value() -> None:
    assert BatchNormal(MAX, MAX).detect(DATA, (30, 51)) == []


@pytest.mark.parametrize("factors", [(None, -3.0), (-3.0, None)])
def test_throw_an_error_when_factor_is_negative(factors) -> None:
    with pytest.raises(ValueError, match="Factors cannot be smaller than zero."):
        BatchNormal(*factors)


def test_throw_an_error_when_no_factor_given() -> None:
    with pytest.raises(ValueError, match="At least one factor has to be specified."):
        BatchNormal(None, None)


def test_produce_error_message_with_correct_value_and_bounds() -> None:
    result = STRATEGY.detect(DATA, (25, 50))
    assert_details_name_the_value_out_of_bounds(result)

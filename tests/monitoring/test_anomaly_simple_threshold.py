"""Deequ's SimpleThresholdStrategyTest, ported: 6 tests."""

from __future__ import annotations

import pytest

from assay.monitoring import Anomaly, SimpleThreshold
from tests.monitoring.deequ_data import assert_details_name_the_value_out_of_bounds

STRATEGY = SimpleThreshold(upper_bound=1.0)
DATA = [-1.0, 2.0, 3.0, 0.5]
EXPECTED = [Anomaly(1, 2.0, 1.0), Anomaly(2, 3.0, 1.0)]


def test_detect_values_above_threshold() -> None:
    assert STRATEGY.detect(DATA, (0, 4)) == EXPECTED


def test_detect_all_values_without_range_specified() -> None:
    assert STRATEGY.detect(DATA) == EXPECTED


def test_work_fine_with_empty_input() -> None:
    assert STRATEGY.detect([]) == []


def test_work_with_upper_and_lower_threshold() -> None:
    strategy = SimpleThreshold(lower_bound=-0.5, upper_bound=1.0)
    assert strategy.detect(DATA) == [Anomaly(0, -1.0), Anomaly(1, 2.0), Anomaly(2, 3.0)]


def test_throw_an_error_when_thresholds_are_not_ordered() -> None:
    with pytest.raises(ValueError, match="lower bound must be smaller or equal to the upper"):
        SimpleThreshold(lower_bound=2.0, upper_bound=1.0)


def test_produce_error_message_with_correct_value_and_bounds() -> None:
    result = STRATEGY.detect(DATA)
    assert_details_name_the_value_out_of_bounds(result)
    assert result[0].detail == (
        "[SimpleThresholdStrategy]: Value 2.0 is not in bounds [-1.7976931348623157E308, 1.0]"
    )

"""Deequ's AbsoluteChangeStrategyTest (15 tests), RateOfChangeStrategyTest (1) and
RelativeRateOfChangeStrategyTest (14), ported; the two change strategies share most of
their tests, so each shared test runs for both."""

from __future__ import annotations

import sys

import pytest

from assay.monitoring import AbsoluteChange, Anomaly, RelativeRateOfChange, strategy_from_config
from assay.monitoring.anomaly import absolute_diff, relative_diff
from tests.monitoring.deequ_data import ABSOLUTE_SPIKES, RELATIVE_SPIKES, first_three_doubles

MAX = sys.float_info.max

# Each strategy with Deequ's data and rates: absolute (-2, 2), relative (0.5, 2).
CASES = [
    pytest.param(
        AbsoluteChange, ABSOLUTE_SPIKES, (-2.0, 2.0), (None, 1.0), (-1.0, None), id="absolute"
    ),
    pytest.param(
        RelativeRateOfChange, RELATIVE_SPIKES, (0.5, 2.0), (None, 1.0), (0.5, None), id="relative"
    ),
]


def _expected(data: list[float], indices: range) -> list[Anomaly]:
    return [Anomaly(i, data[i], 1.0) for i in indices]


@pytest.mark.parametrize(("cls", "data", "rates", "upper_only", "lower_only"), CASES)
def test_detect_all_anomalies_if_no_interval_specified(
    cls, data, rates, upper_only, lower_only
) -> None:
    assert cls(*rates).detect(data) == _expected(data, range(20, 32))


@pytest.mark.parametrize(("cls", "data", "rates", "upper_only", "lower_only"), CASES)
def test_only_detect_anomalies_in_interval(cls, data, rates, upper_only, lower_only) -> None:
    assert cls(*rates).detect(data, (25, 50)) == _expected(data, range(25, 32))


@pytest.mark.parametrize(("cls", "data", "rates", "upper_only", "lower_only"), CASES)
def test_ignore_min_rate_if_none_is_given(cls, data, rates, upper_only, lower_only) -> None:
    # Anomalies with positive values only
    assert cls(*upper_only).detect(data) == _expected(data, range(20, 31, 2))


@pytest.mark.parametrize(("cls", "data", "rates", "upper_only", "lower_only"), CASES)
def test_ignore_max_rate_if_none_is_given(cls, data, rates, upper_only, lower_only) -> None:
    # Anomalies with negative values only
    assert cls(*lower_only).detect(data) == _expected(data, range(21, 32, 2))


@pytest.mark.parametrize(("cls", "data", "rates", "upper_only", "lower_only"), CASES)
def test_detect_no_anomalies_if_rates_are_set_to_min_max_value(
    cls, data, rates, upper_only, lower_only
) -> None:
    assert cls(-MAX, MAX).detect(data) == []


@pytest.mark.parametrize(
    ("diff", "data", "order", "expected"),
    [
        pytest.param(
            absolute_diff,
            [1.0, 2.0, 4.0, 1.0, 2.0, 8.0],
            1,
            [1.0, 2.0, -3.0, 1.0, 6.0],
            id="absolute-first",
        ),
        pytest.param(
            absolute_diff,
            [1.0, 2.0, 4.0, 1.0, 2.0, 8.0],
            2,
            [1.0, -5.0, 4.0, 5.0],
            id="absolute-second",
        ),
        pytest.param(
            absolute_diff,
            [1.0, 5.0, -10.0, 3.0, 100.0, 0.01, 0.0065],
            3,
            [47, 56, -280.99, 296.9765],
            id="absolute-third",
        ),
        pytest.param(
            relative_diff,
            [1.0, 2.0, 4.0, 1.0, 2.0, 8.0],
            1,
            [2.0, 2.0, 0.25, 2.0, 4.0],
            id="relative-first",
        ),
        pytest.param(
            relative_diff,
            [1.0, 2.0, 4.0, 1.0, 2.0, 8.0],
            2,
            [4.0, 0.5, 0.5, 8.0],
            id="relative-second",
        ),
        pytest.param(
            relative_diff,
            [1.0, 5.0, -10.0, 3.0, 100.0, 0.01, 0.006],
            3,
            [3.0, 20.0, -0.001, 0.002],
            id="relative-third",
        ),
    ],
)
def test_derive_order_correctly(diff, data, order, expected) -> None:
    # Deequ compares the arrays exactly (===), and so does this.
    assert diff(data, order) == expected


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        pytest.param(AbsoluteChange, [Anomaly(4, 18.0), Anomaly(5, 72.0)], id="absolute"),
        # 3 / 0 is infinite: above any bound
        pytest.param(RelativeRateOfChange, [Anomaly(2, 3.0), Anomaly(5, 72.0)], id="relative"),
    ],
)
def test_attribute_indices_correctly_for_higher_orders_without_search_interval(
    cls, expected
) -> None:
    data = [0.0, 1.0, 3.0, 6.0, 18.0, 72.0]
    assert cls(None, 8.0, order=2).detect(data) == expected


@pytest.mark.parametrize("cls", [AbsoluteChange, RelativeRateOfChange])
def test_attribute_indices_correctly_for_higher_orders_with_search_interval(cls) -> None:
    data = [0.0, 1.0, 3.0, 6.0, 18.0, 72.0]
    assert cls(None, 8.0, order=2).detect(data, (5, 6)) == [Anomaly(5, 72.0)]


def test_absolute_behave_like_the_threshold_strategy_when_order_is_0() -> None:
    # Deequ's test keeps its order-1 strategy (-2, 2): the changes are -2, 5 and -11.
    data = [1.0, -1.0, 4.0, -7.0]
    assert AbsoluteChange(-2.0, 2.0).detect(data) == [Anomaly(2, 4.0), Anomaly(3, -7.0)]
    # What the test's name says holds too: order 0 judges the values themselves.
    assert AbsoluteChange(-2.0, 2.0, order=0).detect(data) == [Anomaly(2, 4.0), Anomaly(3, -7.0)]


@pytest.mark.parametrize("cls", [AbsoluteChange, RelativeRateOfChange])
def test_throw_an_error_when_rates_arent_ordered(cls) -> None:
    with pytest.raises(ValueError, match="maximal rate of increase has to be bigger"):
        cls(-2.0, -3.0)


@pytest.mark.parametrize("cls", [AbsoluteChange, RelativeRateOfChange])
def test_throw_an_error_when_no_maximal_rate_given(cls) -> None:
    with pytest.raises(ValueError, match="At least one of the two limits"):
        cls(None, None)


@pytest.mark.parametrize(
    ("cls", "rates"), [(AbsoluteChange, (-2.0, 2.0)), (RelativeRateOfChange, (0.5, 2.0))]
)
def test_work_fine_with_empty_input(cls, rates) -> None:
    assert cls(*rates).detect([]) == []


def test_absolute_produce_error_message_with_correct_value_and_bounds() -> None:
    result = AbsoluteChange(-2.0, 2.0).detect(ABSOLUTE_SPIKES)
    assert result
    for anomaly in result:
        value, lower, upper = first_three_doubles(anomaly.detail)
        assert value < lower or value > upper
    assert (
        result[0].detail
        == "[AbsoluteChangeStrategy]: Change of 19.0 is not in bounds [-2.0, 2.0]. Order=1"
    )


def test_relative_produce_error_message_with_correct_value_and_bounds() -> None:
    result = RelativeRateOfChange(0.5, 2.0).detect(RELATIVE_SPIKES)
    assert result
    for anomaly in result:
        value, lower, upper = first_three_doubles(anomaly.detail)
        assert value - 1 < lower or value - 1 > upper  # as Deequ's test writes it
    assert (
        result[0].detail
        == "[RelativeRateOfChangeStrategy]: Change of 20.0 is not in bounds [0.5, 2.0]. Order=1"
    )


def test_rate_of_change_detect_all_anomalies_if_no_interval_specified() -> None:
    """RateOfChangeStrategyTest: Deequ's deprecated name, kept for its old checks."""
    strategy = strategy_from_config(
        "rate_of_change", {"max_rate_decrease": -2.0, "max_rate_increase": 2.0}
    )
    assert strategy == AbsoluteChange(-2.0, 2.0)
    assert strategy.detect(ABSOLUTE_SPIKES) == _expected(ABSOLUTE_SPIKES, range(20, 32))

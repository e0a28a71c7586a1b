"""Each strategy's minimum history, against Deequ's code and tests: a rule judged by an
anomaly strategy alone is judged as soon as the strategy can flag its value, and Deequ's
own series replayed one run at a time flag the runs Deequ's tests assert."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from assay.ir.monitoring import AnomalyDetection, OverTime
from assay.monitoring import BatchNormal
from assay.monitoring.judging import judge_over_time, needed_runs
from assay.monitoring.series import Point
from tests.monitoring.deequ_data import ABSOLUTE_SPIKES, RELATIVE_SPIKES

START = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def earlier(values: list[float]) -> list[Point]:
    """Earlier runs, one a minute, oldest first."""
    return [
        Point((START + dt.timedelta(minutes=i)).isoformat(), v, f"r{i}")
        for i, v in enumerate(values)
    ]


def detection(name: str, params: dict[str, Any], window: int = 100) -> OverTime:
    return OverTime(anomaly=AnomalyDetection(name, tuple(sorted(params.items())), window))


def replayed(name: str, params: dict[str, Any], series: list[float]) -> list[int]:
    """The runs flagged when ``series`` arrives one run at a time, each value judged
    against every value before it."""
    over = detection(name, params, window=len(series))
    return [
        i
        for i, value in enumerate(series)
        if judge_over_time(over, value, earlier(series[:i])).verdict == "fail"
    ]


@pytest.mark.parametrize(
    ("name", "params", "needed"),
    [
        ("simple_threshold", {"upper_bound": 1.0}, 0),
        ("absolute_change", {"max_rate_increase": 1.0, "order": 0}, 0),
        ("absolute_change", {"max_rate_increase": 1.0}, 1),
        ("absolute_change", {"max_rate_increase": 1.0, "order": 3}, 3),
        ("rate_of_change", {"max_rate_increase": 1.0}, 1),
        ("relative_rate_of_change", {"max_rate_increase": 1.1, "order": 2}, 2),
        ("online_normal", {}, 10),
        ("online_normal", {"lower_deviation_factor": 1.5, "upper_deviation_factor": 1.5}, 3),
        ("batch_normal", {}, 1),
        ("batch_normal", {"include_interval": True}, 10),
        ("batch_normal", {"lower_deviation_factor": 0.5, "upper_deviation_factor": 0.5,
                          "include_interval": True}, 1),
        ("holt_winters", {"metrics_interval": "daily", "seasonality": "weekly"}, 14),
    ],
)  # fmt: skip
def test_an_anomaly_rule_needs_its_strategys_minimum_history(name, params, needed) -> None:
    assert needed_runs(detection(name, params)) == needed


def test_a_simple_threshold_judges_the_first_run() -> None:
    """Deequ's "work with upper and lower threshold": -1.0 is outside [-0.5, 1.0] as the
    series' first value, with no value before it."""
    over = detection("simple_threshold", {"lower_bound": -0.5, "upper_bound": 1.0})
    got = judge_over_time(over, -1.0, [])
    assert got.verdict == "fail" and "note" not in got.baseline
    assert "Value -1.0 is not in bounds [-0.5, 1.0]" in got.message
    assert got.baseline["anomaly"]["expected"] == {"low": -0.5, "high": 1.0}
    assert judge_over_time(over, 0.5, []).verdict == "pass"


@pytest.mark.parametrize(
    ("name", "params", "series", "flagged"),
    [
        # SimpleThresholdStrategyTest: "detect values above threshold", "work with upper
        # and lower threshold"
        ("simple_threshold", {"upper_bound": 1.0}, [-1.0, 2.0, 3.0, 0.5], [1, 2]),
        ("simple_threshold", {"lower_bound": -0.5, "upper_bound": 1.0}, [-1.0, 2.0, 3.0, 0.5],
         [0, 1, 2]),
        # AbsoluteChangeStrategyTest: "detect all anomalies if no interval specified", the
        # two one-sided tests, and "attribute indices correctly for higher orders"
        ("absolute_change", {"max_rate_decrease": -2.0, "max_rate_increase": 2.0},
         ABSOLUTE_SPIKES, list(range(20, 32))),
        ("absolute_change", {"max_rate_increase": 1.0}, ABSOLUTE_SPIKES, list(range(20, 31, 2))),
        ("absolute_change", {"max_rate_decrease": -1.0}, ABSOLUTE_SPIKES, list(range(21, 32, 2))),
        ("absolute_change", {"max_rate_increase": 8.0, "order": 2},
         [0.0, 1.0, 3.0, 6.0, 18.0, 72.0], [4, 5]),
        # RateOfChangeStrategyTest
        ("rate_of_change", {"max_rate_decrease": -2.0, "max_rate_increase": 2.0},
         ABSOLUTE_SPIKES, list(range(20, 32))),
        # RelativeRateOfChangeStrategyTest: the same, and the second order flags its third
        # value (3.0 / 0.0, two runs back)
        ("relative_rate_of_change", {"max_rate_decrease": 0.5, "max_rate_increase": 2.0},
         RELATIVE_SPIKES, list(range(20, 32))),
        ("relative_rate_of_change", {"max_rate_increase": 8.0, "order": 2},
         [0.0, 1.0, 3.0, 6.0, 18.0, 72.0], [2, 5]),
    ],
)  # fmt: skip
def test_deequs_series_replayed_run_by_run_flag_what_deequ_flags(
    name, params, series, flagged
) -> None:
    """These strategies judge a value by the values before it alone, so judging each run
    against its history flags what Deequ's ``detect`` flags over the whole series."""
    assert replayed(name, params, series) == flagged


def test_a_batch_normal_judges_with_one_earlier_run() -> None:
    """breeze's ``meanAndVariance`` gives a variance of 0 for one value, so Deequ's bounds
    are that value: any other is flagged."""
    assert BatchNormal().detect([5.0, 5.5], (1, 2)) != []
    over = detection("batch_normal", {})
    got = judge_over_time(over, 5.5, earlier([5.0]))
    assert got.verdict == "fail" and got.baseline["anomaly"]["expected"] == {
        "low": 5.0,
        "high": 5.0,
    }
    assert judge_over_time(over, 5.0, earlier([5.0])).verdict == "pass"
    first = judge_over_time(over, 5.0, [])
    assert (first.verdict, first.baseline["note"]) == ("pass", "0 of 1 earlier runs needed")


def test_holt_winters_is_judged_from_two_full_seasons() -> None:
    """HoltWintersTest "fail if no at least two cycles are available": Deequ refuses a
    search interval starting before two seasons; assay waits for them."""
    over = detection("holt_winters", {"metrics_interval": "daily", "seasonality": "weekly"})
    week = [10.0, 12.0, 11.0, 13.0, 12.0, 20.0, 21.0]
    short = judge_over_time(over, 11.0, earlier((week * 2)[:13]))
    assert (short.verdict, short.baseline["note"]) == ("pass", "13 of 14 earlier runs needed")
    judged = judge_over_time(over, 11.0, earlier(week * 2))
    assert "note" not in judged.baseline and judged.baseline["anomaly"]["strategy"] == (
        "holt_winters"
    )


def test_a_window_shorter_than_the_minimum_history_is_refused() -> None:
    """A window of 5 earlier runs could never hold the 10 the online normal needs: the rule
    would pass unjudged forever."""
    import assay

    rule = {"type": "row_count", "anomaly": {"strategy": "online_normal", "window": 5}}
    with pytest.raises(assay.ConfigErrors) as refused:
        assay.rules_suite([rule])
    assert "rules[0].anomaly.window: a window of 5 runs is shorter than the 10 earlier runs" in (
        str(refused.value)
    )
    assay.rules_suite([{**rule, "anomaly": {"strategy": "online_normal", "window": 10}}])

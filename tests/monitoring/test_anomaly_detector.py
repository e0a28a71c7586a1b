"""Deequ's AnomalyDetectorTest (6 tests), ported with a stub strategy that checks the
series and interval it is given, as Deequ's scalamock stub does; then isNewPointAnomalous
and the judging of a new point with too little history."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from assay.monitoring import (
    WHOLE,
    AbsoluteChange,
    Anomaly,
    DataPoint,
    HoltWinters,
    OnlineNormal,
    SimpleThreshold,
    TimedAnomaly,
    detect_in_history,
    is_new_point_anomalous,
    judge_new_point,
)


@dataclass
class Stub:
    """Answers ``returns`` when called with ``series`` and ``interval``; fails otherwise."""

    series: list[float]
    interval: tuple[int, int]
    returns: list[Anomaly]
    min_history: int = 0

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        assert (list(series), search) == (self.series, self.interval)
        return self.returns


DATA = [DataPoint(t, v) for t, v in [(0, -1.0), (1, 2.0), (2, 3.0), (3, 0.5)]]


def test_ignore_missing_values() -> None:
    data = [DataPoint(0, 1.0), DataPoint(1, 2.0), DataPoint(2, None), DataPoint(3, 1.0)]
    stub = Stub([1.0, 2.0, 1.0], (0, 3), [Anomaly(1, 2.0, 1.0)])
    assert detect_in_history(stub, data, (0, 4)) == [TimedAnomaly(1, Anomaly(1, 2.0, 1.0))]


def test_only_detect_values_in_range() -> None:
    stub = Stub([-1.0, 2.0, 3.0, 0.5], (2, 4), [Anomaly(2, 3.0, 1.0)])
    assert detect_in_history(stub, DATA, (2, 4)) == [TimedAnomaly(2, Anomaly(2, 3.0, 1.0))]


def test_throw_an_error_when_intervals_are_not_ordered() -> None:
    with pytest.raises(ValueError, match="The first interval element has to be smaller or equal"):
        detect_in_history(Stub([], (0, 0), []), DATA, (4, 2))


def test_treat_ordered_values_with_time_gaps_correctly() -> None:
    data = [DataPoint(i * 200, 5.0) for i in range(1, 11)]
    stub = Stub([5.0] * 10, (0, 2), [Anomaly(0, 5.0, 1.0), Anomaly(1, 5.0, 1.0)])
    assert detect_in_history(stub, data, (200, 401)) == [
        TimedAnomaly(200, Anomaly(0, 5.0, 1.0)),
        TimedAnomaly(400, Anomaly(1, 5.0, 1.0)),
    ]


@pytest.mark.parametrize(
    ("times", "expected_times"),
    [
        pytest.param((10, 25, 11, 0), (10, 11, 25), id="with-time-gaps"),
        pytest.param((1, 3, 2, 0), (1, 2, 3), id="without-time-gaps"),
    ],
)
def test_treat_unordered_values_correctly(times, expected_times) -> None:
    data = [DataPoint(t, v) for t, v in zip(times, [-1.0, 2.0, 3.0, 0.5], strict=True)]
    returned = [Anomaly(1, -1.0, 1.0), Anomaly(2, 3.0, 1.0), Anomaly(3, 2.0, 1.0)]
    stub = Stub([0.5, -1.0, 3.0, 2.0], (0, 4), returned)
    result = detect_in_history(stub, data)
    assert result == [TimedAnomaly(t, a) for t, a in zip(expected_times, returned, strict=True)]
    # The real strategy Deequ builds beside its stub (and never runs) agrees.
    threshold = SimpleThreshold(lower_bound=-0.5, upper_bound=1.0)
    assert detect_in_history(threshold, data) == result


# isNewPointAnomalous


def test_new_point_is_judged_alone() -> None:
    history = [DataPoint(t, 1.0) for t in (3, 1, 2)]
    strategy = SimpleThreshold(upper_bound=1.5)
    assert is_new_point_anomalous(strategy, history, DataPoint(4, 1.2)) == []
    assert is_new_point_anomalous(strategy, history, DataPoint(4, 2.0)) == [
        TimedAnomaly(4, Anomaly(3, 2.0, 1.0))
    ]
    # an anomalous value in the history is not the new point's business
    spiky = [*history, DataPoint(0, 9.0)]
    assert is_new_point_anomalous(strategy, spiky, DataPoint(4, 1.0)) == []


def test_new_point_needs_a_history() -> None:
    with pytest.raises(ValueError, match="historicalDataPoints must not be empty!"):
        is_new_point_anomalous(SimpleThreshold(upper_bound=1.0), [], DataPoint(1, 1.0))


def test_new_point_must_come_after_the_history() -> None:
    history = [DataPoint(1, 1.0), DataPoint(5, 1.0)]
    with pytest.raises(
        ValueError, match=r"New data point with time 3 is in history range \(1 - 5\)!"
    ):
        is_new_point_anomalous(SimpleThreshold(upper_bound=1.0), history, DataPoint(3, 1.0))


@pytest.mark.parametrize("missing", [None, math.nan])
def test_missing_new_value_is_not_anomalous(missing) -> None:
    history = [DataPoint(t, 1.0) for t in range(3)]
    assert (
        is_new_point_anomalous(SimpleThreshold(upper_bound=0.0), history, DataPoint(3, missing))
        == []
    )


def test_nan_in_history_is_a_missing_value() -> None:
    """A NaN (a metric over no rows) is dropped like Deequ's missing values: the change is
    measured against the last present value."""
    history = [DataPoint(0, 1.0), DataPoint(1, math.nan), DataPoint(2, None)]
    strategy = AbsoluteChange(-1.0, 1.0)
    assert is_new_point_anomalous(strategy, history, DataPoint(3, 1.5)) == []
    assert [a.time for a in is_new_point_anomalous(strategy, history, DataPoint(3, 3.0))] == [3]


# judging with too little history


def test_too_little_history_passes_with_a_note() -> None:
    history = [DataPoint(t, float(t)) for t in range(3)]
    verdict = judge_new_point(HoltWinters("daily", "weekly"), history, DataPoint(3, 100.0))
    assert verdict.passed
    assert verdict.note == "3 of 14 runs needed"


def test_missing_values_do_not_count_as_history() -> None:
    history = [DataPoint(0, 1.0), DataPoint(1, None), DataPoint(2, math.nan)]
    verdict = judge_new_point(AbsoluteChange(-1.0, 1.0, order=2), history, DataPoint(3, 9.0))
    assert (verdict.passed, verdict.note) == (True, "1 of 2 runs needed")


def test_min_history_is_configurable() -> None:
    history = [DataPoint(t, 1.0) for t in range(3)]
    strategy = AbsoluteChange(-1.0, 1.0)
    assert not judge_new_point(strategy, history, DataPoint(3, 5.0)).passed
    verdict = judge_new_point(strategy, history, DataPoint(3, 5.0), min_history=7)
    assert (verdict.passed, verdict.note) == (True, "3 of 7 runs needed")


def test_enough_history_judges_the_point() -> None:
    history = [DataPoint(t, 1.0 + 0.1 * (t % 2)) for t in range(20)]
    verdict = judge_new_point(OnlineNormal(), history, DataPoint(20, 50.0))
    assert not verdict.passed
    assert verdict.note is None
    assert [a.time for a in verdict.anomalies] == [20]


def test_a_strategy_needing_no_history_judges_the_first_run() -> None:
    strategy = SimpleThreshold(upper_bound=1.0)
    assert not judge_new_point(strategy, [], DataPoint(0, 2.0)).passed
    assert judge_new_point(strategy, [], DataPoint(0, 0.5)).passed
    assert judge_new_point(strategy, [], DataPoint(0, None)).passed


def test_a_strategy_ignoring_every_point_never_judges() -> None:
    history = [DataPoint(t, 1.0) for t in range(30)]
    verdict = judge_new_point(
        OnlineNormal(ignore_start_percentage=1.0), history, DataPoint(30, 1e9)
    )
    assert verdict.passed
    assert verdict.note == "the strategy never flags a point with these parameters"

"""The config names of the strategies and their parameters (Deequ's in snake_case), and
the history each needs."""

from __future__ import annotations

import re

import pytest

from assay.monitoring import (
    STRATEGIES,
    AbsoluteChange,
    BatchNormal,
    HoltWinters,
    OnlineNormal,
    RelativeRateOfChange,
    SimpleThreshold,
    strategy_from_config,
)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_config_names_are_deequs_in_snake_case() -> None:
    assert sorted(STRATEGIES) == [
        "absolute_change",
        "batch_normal",
        "holt_winters",
        "online_normal",
        "rate_of_change",
        "relative_rate_of_change",
        "simple_threshold",
    ]
    for name, spec in STRATEGIES.items():
        assert _snake(spec.deequ).removesuffix("_strategy") == name


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("simple_threshold", {"upper_bound": 1}, SimpleThreshold(upper_bound=1.0)),
        ("simple_threshold", {"lower_bound": -1, "upper_bound": 1.5}, SimpleThreshold(1.5, -1.0)),
        ("absolute_change", {"max_rate_increase": 10, "order": 2}, AbsoluteChange(None, 10.0, 2)),
        (
            "relative_rate_of_change",
            {"max_rate_decrease": 0.9, "max_rate_increase": 1.1},
            RelativeRateOfChange(0.9, 1.1),
        ),
        ("online_normal", {}, OnlineNormal()),
        (
            "online_normal",
            {
                "lower_deviation_factor": None,
                "ignore_start_percentage": 0,
                "ignore_anomalies": False,
            },
            OnlineNormal(None, 3.0, 0.0, False),
        ),
        (
            "batch_normal",
            {"upper_deviation_factor": 2, "include_interval": True},
            BatchNormal(3.0, 2.0, True),
        ),
        (
            "holt_winters",
            {"metrics_interval": "daily", "seasonality": "weekly"},
            HoltWinters("daily", "weekly"),
        ),
        ("holt_winters", {"periodicity": 12}, HoltWinters(periodicity=12)),
    ],
)
def test_strategy_from_config(name, params, expected) -> None:
    assert strategy_from_config(name, params) == expected


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("z_score", {}, "unknown anomaly strategy 'z_score'; known: simple_threshold, "),
        (
            "online_normal",
            {"lowerDeviationFactor": 2},
            "online_normal has no parameter lowerDeviationFactor; its parameters: lower_deviation_factor, ",
        ),
        ("simple_threshold", {}, "simple_threshold needs upper_bound"),
        (
            "simple_threshold",
            {"upper_bound": "1"},
            "simple_threshold: upper_bound must be a number, got '1'",
        ),
        (
            "online_normal",
            {"ignore_anomalies": 1},
            "online_normal: ignore_anomalies must be a boolean, got 1",
        ),
        ("absolute_change", {"max_rate_increase": True}, "must be a optional number, got True"),
        (
            "absolute_change",
            {"max_rate_increase": 1, "order": 1.5},
            "order must be a integer, got 1.5",
        ),
        ("batch_normal", {"lower_deviation_factor": -1}, "Factors cannot be smaller than zero."),
        (
            "holt_winters",
            {"metrics_interval": "weekly", "seasonality": "yearly"},
            "no period for weekly values",
        ),
    ],
)
def test_bad_config_says_what_is_wrong(name, params, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        strategy_from_config(name, params)


@pytest.mark.parametrize(
    ("strategy", "needed"),
    [
        (SimpleThreshold(upper_bound=1.0), 0),
        (AbsoluteChange(-1.0, 1.0), 1),
        (AbsoluteChange(-1.0, 1.0, order=0), 0),
        (AbsoluteChange(-1.0, 1.0, order=3), 3),
        (RelativeRateOfChange(0.9, 1.1, order=2), 2),
        (OnlineNormal(), 10),
        (OnlineNormal(1.5, 1.5), 3),
        (OnlineNormal(None, 2.0), 5),
        (OnlineNormal(0.5, 0.5), 1),
        (OnlineNormal(ignore_start_percentage=0.9), 10),
        (OnlineNormal(ignore_start_percentage=0.95), 19),
        (OnlineNormal(ignore_start_percentage=1.0), None),
        (OnlineNormal(1e300, 1e300), None),
        (BatchNormal(), 1),
        (BatchNormal(include_interval=True), 10),
        (BatchNormal(0.5, 0.5, include_interval=True), 1),
        (HoltWinters("daily", "weekly"), 14),
        (HoltWinters("hourly", "daily"), 48),
        (HoltWinters("monthly", "yearly"), 24),
    ],
)
def test_min_history(strategy, needed) -> None:
    assert strategy.min_history == needed


@pytest.mark.parametrize(
    "strategy",
    [
        OnlineNormal(),
        OnlineNormal(1.5, 1.5, ignore_start_percentage=0.2),
        OnlineNormal(None, 2.0, ignore_start_percentage=0.0),
        OnlineNormal(0.5, 0.5, ignore_start_percentage=0.75),
        OnlineNormal(ignore_start_percentage=0.95),
        BatchNormal(include_interval=True),
        BatchNormal(1.5, 1.5, include_interval=True),
        BatchNormal(0.5, 0.5, include_interval=True),
    ],
)
def test_min_history_is_the_least_that_can_flag(strategy) -> None:
    """With ``min_history`` values before it, a huge value is flagged; with one fewer, no
    value can be (skipped, or too few values for it to stand out of its own deviation)."""
    needed = strategy.min_history
    history = [1.0, 1.1] * 50
    assert strategy.detect([*history[:needed], 1e9], (needed, needed + 1)) != []
    assert strategy.detect([*history[: needed - 1], 1e9], (needed - 1, needed)) == []

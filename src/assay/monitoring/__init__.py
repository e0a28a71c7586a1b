"""Judging a metric against its history: Deequ's anomaly detection strategies, ported.

Pure Python (no Spark, no numpy): a metrics store keeps each rule's values per run, and a
rule is judged by one of these strategies over its history. docs/monitoring.md describes
each strategy, its formula and the history it needs.
"""

from __future__ import annotations

from assay.monitoring.anomaly import (
    WHOLE,
    AbsoluteChange,
    Anomaly,
    RelativeRateOfChange,
    SimpleThreshold,
    Strategy,
)
from assay.monitoring.history import (
    DataPoint,
    TimedAnomaly,
    Verdict,
    detect_in_history,
    is_new_point_anomalous,
    judge_new_point,
)
from assay.monitoring.holt_winters import HoltWinters
from assay.monitoring.normal import BatchNormal, OnlineNormal
from assay.monitoring.registry import STRATEGIES, StrategySpec, strategy_from_config

__all__ = [
    "STRATEGIES",
    "WHOLE",
    "AbsoluteChange",
    "Anomaly",
    "BatchNormal",
    "DataPoint",
    "HoltWinters",
    "OnlineNormal",
    "RelativeRateOfChange",
    "SimpleThreshold",
    "Strategy",
    "StrategySpec",
    "TimedAnomaly",
    "Verdict",
    "detect_in_history",
    "is_new_point_anomalous",
    "judge_new_point",
    "strategy_from_config",
]

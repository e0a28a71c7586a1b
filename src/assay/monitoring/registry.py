"""The strategies by their config names (Deequ's class names in snake_case, without
``Strategy``) with their parameters (Deequ's in snake_case), and building one from a
config's mapping.

Example:
    >>> strategy_from_config("batch_normal", {"upper_deviation_factor": 2.5})
    BatchNormal(lower_deviation_factor=3.0, upper_deviation_factor=2.5, include_interval=False)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.monitoring.anomaly import AbsoluteChange, RelativeRateOfChange, SimpleThreshold, Strategy
from assay.monitoring.holt_winters import HoltWinters
from assay.monitoring.normal import BatchNormal, OnlineNormal

Kind = str  # "number", "optional number", "integer", "boolean", "text"


@dataclass(frozen=True)
class StrategySpec:
    """A strategy's config name, its class, Deequ's name for it and its parameters' kinds."""

    name: str
    cls: type
    deequ: str
    params: Mapping[str, Kind]


def _spec(name: str, cls: type, deequ: str, **params: Kind) -> StrategySpec:
    fields = {f.name for f in dataclasses.fields(cls)}
    assert set(params) == fields, (name, set(params) ^ fields)  # the table is the class
    return StrategySpec(name, cls, deequ, params)


_RATES = {"max_rate_decrease": "optional number", "max_rate_increase": "optional number"}
_FACTORS = {
    "lower_deviation_factor": "optional number",
    "upper_deviation_factor": "optional number",
}

STRATEGIES: dict[str, StrategySpec] = {
    spec.name: spec
    for spec in (
        _spec(
            "simple_threshold",
            SimpleThreshold,
            "SimpleThresholdStrategy",
            lower_bound="number",
            upper_bound="number",
        ),
        _spec(
            "absolute_change", AbsoluteChange, "AbsoluteChangeStrategy", **_RATES, order="integer"
        ),
        # Deequ's deprecated name for the same strategy.
        _spec("rate_of_change", AbsoluteChange, "RateOfChangeStrategy", **_RATES, order="integer"),
        _spec(
            "relative_rate_of_change",
            RelativeRateOfChange,
            "RelativeRateOfChangeStrategy",
            **_RATES,
            order="integer",
        ),
        _spec(
            "online_normal",
            OnlineNormal,
            "OnlineNormalStrategy",
            **_FACTORS,
            ignore_start_percentage="number",
            ignore_anomalies="boolean",
        ),
        _spec(
            "batch_normal",
            BatchNormal,
            "BatchNormalStrategy",
            **_FACTORS,
            include_interval="boolean",
        ),
        _spec(
            "holt_winters",
            HoltWinters,
            "HoltWinters",
            metrics_interval="text",
            seasonality="text",
            periodicity="integer",
        ),
    )
}


def _fits(kind: Kind, value: Any) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "text":
        return isinstance(value, str)
    if kind == "optional number" and value is None:
        return True
    numeric = (int,) if kind == "integer" else (int, float)
    return isinstance(value, numeric) and not isinstance(value, bool)


def strategy_from_config(name: str, params: Mapping[str, Any]) -> Strategy:
    """The strategy ``name`` with ``params``; a :class:`ValueError` names an unknown
    strategy or parameter, a value of the wrong kind, or Deequ's broken requirement."""
    spec = STRATEGIES.get(name)
    if spec is None:
        raise ValueError(f"unknown anomaly strategy {name!r}; known: {', '.join(STRATEGIES)}")
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise ValueError(
            f"{name} has no parameter {', '.join(unknown)}; its parameters: "
            f"{', '.join(spec.params)}"
        )
    missing = [
        f.name
        for f in dataclasses.fields(spec.cls)
        if f.default is dataclasses.MISSING and f.name not in params
    ]
    if missing:
        raise ValueError(f"{name} needs {', '.join(missing)}")
    for key, value in params.items():
        if not _fits(spec.params[key], value):
            raise ValueError(f"{name}: {key} must be a {spec.params[key]}, got {value!r}")
    values = {
        k: float(v) if spec.params[k].endswith("number") and v is not None else v
        for k, v in params.items()
    }
    strategy: Strategy = spec.cls(**values)
    return strategy

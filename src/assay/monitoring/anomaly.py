"""Deequ's anomaly detection strategies over a series of metric values, in pure Python.

Each strategy is a frozen dataclass whose fields are Deequ's constructor parameters in
snake_case, validated as Deequ's ``require`` does (a :class:`ValueError` with Deequ's
message). ``detect(series, search)`` returns the anomalies whose index lies in the search
interval ``[start, end)``, with Deequ's bounds, comparisons and detail texts.

Deequ's ``Option[Double]`` factor or rate left out (``None``) stands for
``Double.MaxValue``/``Double.MinValue`` in its bounds, and so here: the batch normal's
bound ``mean - MAX * stddev`` is the mean itself when the standard deviation is 0, so a
constant history flags any other value even on the side without a factor, as Deequ does.

Example:
    >>> SimpleThreshold(upper_bound=1.0).detect([-1.0, 2.0, 3.0, 0.5])
    [Anomaly(index=1, value=2.0, confidence=1.0), Anomaly(index=2, value=3.0, confidence=1.0)]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from assay.monitoring.scala import div, scala_slice, scala_str

#: Deequ's ``Double.MaxValue`` and ``Double.MinValue`` (the most negative double).
MAX = sys.float_info.max
MIN = -sys.float_info.max

#: Deequ's default search interval ``(0, Int.MaxValue)``: the whole series.
WHOLE = (0, 2**31 - 1)


@dataclass(frozen=True)
class Anomaly:
    """A point a strategy flags: its index in the series, its value, Deequ's confidence
    (always 1.0) and the reason. Equality ignores ``detail``, as Deequ's does."""

    index: int
    value: float
    confidence: float = 1.0
    detail: str = field(default="", compare=False, repr=False)


class Strategy(Protocol):
    """What the monitoring layer needs of a strategy."""

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        """The anomalies among ``series[start:end]``, by their index in ``series``."""
        ...

    @property
    def min_history(self) -> int | None:
        """How many earlier values the newest one needs before this strategy can flag it
        (None: it never flags any point)."""
        ...


def checked(series: Sequence[float], search: tuple[int, int], message: str) -> tuple[int, int]:
    """The search interval, once the interval and the series are valid.

    Deequ clamps an interval past the end of the series (its default end is Int.MaxValue);
    a negative start is refused here, where Deequ reads it as 0, because in Python it reads
    as counting from the end.
    """
    start, end = search
    if start > end:
        raise ValueError(message)
    if start < 0:
        raise ValueError(f"The search interval cannot start before index 0, got {search}.")
    for index, value in enumerate(series):
        if math.isnan(value):
            raise ValueError(
                f"The data series holds NaN at index {index}: a missing value must be "
                "dropped before detection (the history functions drop them)."
            )
    return start, end


def _outside(
    series: Sequence[float], start: int, end: int, lower: float, upper: float
) -> list[tuple[int, float]]:
    """The (index, value) pairs of ``series[start:end]`` strictly outside [lower, upper]."""
    lo, hi = scala_slice(len(series), start, end)
    return [(i, series[i]) for i in range(lo, hi) if series[i] < lower or series[i] > upper]


@dataclass(frozen=True)
class SimpleThreshold:
    """Deequ's ``SimpleThresholdStrategy``: a value outside ``[lower_bound, upper_bound]``."""

    upper_bound: float
    lower_bound: float = MIN

    def __post_init__(self) -> None:
        if not self.lower_bound <= self.upper_bound:
            raise ValueError("The lower bound must be smaller or equal to the upper bound.")

    @property
    def min_history(self) -> int:
        return 0

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        start, end = checked(
            series, search, "The start of the interval can't be larger than the end."
        )
        bounds = f"[{scala_str(self.lower_bound)}, {scala_str(self.upper_bound)}]"
        return [
            Anomaly(
                i,
                v,
                1.0,
                f"[SimpleThresholdStrategy]: Value {scala_str(v)} is not in bounds {bounds}",
            )
            for i, v in _outside(series, start, end, self.lower_bound, self.upper_bound)
        ]


def absolute_diff(values: Sequence[float], order: int) -> list[float]:
    """Deequ's ``BaseChangeStrategy.diff``: the order-n difference, ``order`` values shorter.

    Example:
        >>> absolute_diff([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 2)
        [1.0, -5.0, 4.0, 5.0]
    """
    if order < 0:
        raise ValueError("Order of diff cannot be negative")
    data = list(values)
    for _ in range(order):
        if not data:
            break
        data = [right - left for left, right in zip(data, data[1:], strict=False)]
    return data


def relative_diff(values: Sequence[float], order: int) -> list[float]:
    """Deequ's ``RelativeRateOfChangeStrategy.diff``: ``x[i + order] / x[i]`` (IEEE
    division: ``x / 0`` is infinite, ``0 / 0`` is NaN and never out of bounds).

    Example:
        >>> relative_diff([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 2)
        [4.0, 0.5, 0.5, 8.0]
    """
    if order <= 0:
        raise ValueError("Order of diff cannot be zero or negative")
    return [div(right, left) for left, right in zip(values, values[order:], strict=False)]


@dataclass(frozen=True)
class BaseChange:
    """Deequ's ``BaseChangeStrategy``: a value whose change from the values ``order`` runs
    before it (``changes``) is below ``max_rate_decrease`` or above ``max_rate_increase``."""

    max_rate_decrease: float | None = None
    max_rate_increase: float | None = None
    order: int = 1

    #: The name Deequ's detail texts give the strategy.
    deequ_name: ClassVar[str] = "BaseChangeStrategy"

    def __post_init__(self) -> None:
        if self.max_rate_decrease is None and self.max_rate_increase is None:
            raise ValueError(
                "At least one of the two limits (maxRateDecrease or maxRateIncrease) "
                "has to be specified."
            )
        if not self.lower <= self.upper:
            raise ValueError(
                "The maximal rate of increase has to be bigger than the maximal rate of decrease."
            )
        if self.order < 0:
            raise ValueError("Order of derivative cannot be negative.")

    @property
    def lower(self) -> float:
        return MIN if self.max_rate_decrease is None else self.max_rate_decrease

    @property
    def upper(self) -> float:
        return MAX if self.max_rate_increase is None else self.max_rate_increase

    @property
    def min_history(self) -> int:
        return self.order

    def changes(self, values: Sequence[float]) -> list[float]:
        """One change per value from index ``order`` on."""
        raise NotImplementedError

    def detect(self, series: Sequence[float], search: tuple[int, int] = WHOLE) -> list[Anomaly]:
        """Deequ's ``BaseChangeStrategy.detect``: the changes of
        ``series[start - order:end]``, each attributed to the later value it compares."""
        start, end = checked(
            series, search, "The start of the interval cannot be larger than the end."
        )
        first = max(start - self.order, 0)
        lo, hi = scala_slice(len(series), first, end)
        bounds = f"[{scala_str(self.lower)}, {scala_str(self.upper)}]"
        found = []
        for offset, change in enumerate(self.changes(series[lo:hi])):
            if change < self.lower or change > self.upper:
                index = offset + first + self.order
                detail = (
                    f"[{self.deequ_name}]: Change of {scala_str(change)} is not in bounds "
                    f"{bounds}. Order={self.order}"
                )
                found.append(Anomaly(index, series[index], 1.0, detail))
        return found


@dataclass(frozen=True)
class AbsoluteChange(BaseChange):
    """Deequ's ``AbsoluteChangeStrategy``: the order-n difference of consecutive values is
    below ``max_rate_decrease`` or above ``max_rate_increase``."""

    deequ_name: ClassVar[str] = "AbsoluteChangeStrategy"

    def changes(self, values: Sequence[float]) -> list[float]:
        """The order-n differences."""
        return absolute_diff(values, self.order)


@dataclass(frozen=True)
class RelativeRateOfChange(BaseChange):
    """Deequ's ``RelativeRateOfChangeStrategy``: the ratio ``x[i] / x[i - order]`` is below
    ``max_rate_decrease`` or above ``max_rate_increase``."""

    deequ_name: ClassVar[str] = "RelativeRateOfChangeStrategy"

    def __post_init__(self) -> None:
        super().__post_init__()
        # Deequ accepts order 0 here and refuses it at the first detection (its diff's
        # require); refusing it when the strategy is built says it before any run.
        if self.order <= 0:
            raise ValueError("Order of diff cannot be zero or negative")

    def changes(self, values: Sequence[float]) -> list[float]:
        """The order-n ratios."""
        return relative_diff(values, self.order)

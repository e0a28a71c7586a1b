"""breeze's ``StrongWolfeLineSearch`` (2.1.0), the line search of its L-BFGS-B, ported:
a step satisfying the strong Wolfe conditions, found by safeguarded cubic interpolation
(Nocedal and Wright, p. 58), with breeze's bound on the step."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from assay.monitoring.scala import div

C1, C2 = 1e-4, 0.9  # sufficient decrease, curvature


class SearchFailed(Exception):
    """breeze's ``FirstOrderException``: a line search or a matrix that could not be used."""


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else math.nan


@dataclass(frozen=True)
class _Bracket:
    t: float
    dd: float
    fval: float


def _interpolate(low: _Bracket, high: _Bracket) -> float:
    """breeze's safeguarded cubic interpolation between two brackets."""
    d1 = low.dd + high.dd - 3 * div(low.fval - high.fval, low.t - high.t)
    d2 = _sqrt(d1 * d1 - low.dd * high.dd)
    t = high.t - (high.t - low.t) * div(high.dd + d2 - d1, high.dd - low.dd + 2 * d2)
    lbound = low.t + 0.1 * (high.t - low.t)
    ubound = low.t + 0.9 * (high.t - low.t)
    if t < lbound:
        return lbound
    if t > ubound:
        return ubound
    return t


def strong_wolfe(
    phi: Callable[[float], tuple[float, float]],
    init: float,
    bound: float,
    max_zoom: int = 64,
    max_iterations: int = 64,
) -> float:
    """breeze's ``StrongWolfeLineSearch.minimizeWithBound``: a step satisfying the strong
    Wolfe conditions, or sufficient decrease at ``bound``."""

    if init > bound:  # breeze's require(init <= bound)
        raise SearchFailed("init value should <= bound")

    def at(t: float) -> _Bracket:
        value, dd = phi(t)
        return _Bracket(t, dd, value)

    low = at(0.0)
    fval, dd = low.fval, low.dd
    if dd > 0:
        raise SearchFailed(f"Line search invoked with non-descent direction: {dd}")

    def zoom(low: _Bracket, high: _Bracket) -> float:
        for _ in range(max_zoom):
            t = _interpolate(high, low) if low.t > high.t else _interpolate(low, high)
            c = at(t)
            if math.isnan(t):
                break
            if c.fval > fval + C1 * c.t * dd or c.fval >= low.fval:
                high = c
                continue
            if abs(c.dd) <= C2 * abs(dd):
                return c.t
            if c.dd * (high.t - low.t) >= 0:
                high = low
            low = c
        raise SearchFailed("Line search zoom failed")

    t = init
    for i in range(max_iterations):
        c = at(t)
        if math.isinf(c.fval) or math.isnan(c.fval):
            t /= 2.0
            continue
        if c.fval > fval + C1 * t * dd or (c.fval >= low.fval and i > 0):
            return zoom(low, c)
        if abs(c.dd) <= C2 * abs(dd):
            return c.t
        if c.dd >= 0:
            return zoom(c, low)
        low = c
        if t == bound:
            return bound
        t = min(t * 1.5, bound)
    raise SearchFailed("Line search failed")

"""The chi-square p-value of the drift tests (pure, standard library only): the
chi-square distribution's survival function, the regularized upper incomplete gamma
function, summed until its terms no longer change the sum (Numerical Recipes' ``gammq``:
a series below ``a + 1``, Lentz's continued fraction above). The KS p-value is
``judge/drift_ks.py``'s."""

from __future__ import annotations

import math

_TINY = 1e-300
_EPS = 1e-16


def chi2_sf(statistic: float, dof: int) -> float:
    """``P(X >= statistic)`` for X chi-square with ``dof`` degrees of freedom
    (``scipy.stats.chi2.sf``)."""
    if dof <= 0:
        return 1.0
    if statistic <= 0:
        return 1.0
    return _gamma_q(dof / 2.0, statistic / 2.0)


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x)."""
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction for Q
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(log_front) * h
